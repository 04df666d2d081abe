package printable

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"session.jsonl", "session.jsonl"},
		{"a\n::error::b", `a\n::error::b`},
		{"\x1b[31mred", `\x1b[31mred`},
		{"tab\tkept", "tab\tkept"},
		{"c1\u009b", `c1\u009b`},
		{"é ü 日本", "é ü 日本"},
	} {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := Writer(&b)
	for _, s := range []string{"line one\n", "name\x1b[2J\tx\r\n", "plain\n", "del\x7f c1\u0085 é\n"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if want := "line one\nname\\u001b[2J\tx\\u000d\nplain\ndel\\u007f c1\\u0085 é\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}
