package strictyaml

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{"a: 1\nb: {c: 2, d: 3}\nl: [1, 1]\n", ""},
		{"a: 1\nb: 2\na: 3\n", `line 3: key "a" is already defined at line 1`},
		{"top:\n  x: 1\n  y: 2\n  x: 3\n", `line 4: key "x" is already defined at line 2`},
		{"l:\n  - {k: 1, k: 2}\n", `line 2: key "k" is already defined at line 2`},
		{"a: [1\n", "yaml: line 1"},
		{"", ""},
		{"# nothing\n", ""},
		// One document, marked: its start, its end.
		{"---\na: 1\n...\n", ""},
		// More than one: the second's line.
		{"a: 1\n---\nb: 2\n", "line 2: a second YAML document"},
		{"# c\na: 1\n\n--- \nb: 2\n---\nc: 3\n", "line 4: a second YAML document"},
		{"---\na: 1\n---\n", "line 3: a second YAML document"},
		{"a: 1\n...\n---\nb: [1\n", "yaml: line 3: did not find"},
		// A repeated key in the first is reported first.
		{"a: 1\na: 2\n---\nb: 2\n", `line 2: key "a" is already defined at line 1`},
		// Many repeats: the first is reported, and quickly.
		{"b:\n" + strings.Repeat("  k: 1\n", 20000), `line 3: key "k" is already defined at line 2`},
	} {
		err := Check([]byte(c.in))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%.40q: %v", c.in, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%.40q: error %v, want %q", c.in, err, c.err)
		}
	}
}
