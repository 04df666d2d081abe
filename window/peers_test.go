package window

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestRegistry(t *testing.T) {
	// The listing order names every registered policy, and nothing else:
	// a policy registered but missing from it would sort last unseen.
	var registered []string
	for _, s := range registry {
		registered = append(registered, s.Name)
	}
	if diff := cmp.Diff(order, registered, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("the listing order and the registry differ (-order +registry):\n%s", diff)
	}
	if diff := cmp.Diff(order, policyNames()); diff != "" {
		t.Errorf("Names is not in the listing order (-want +got):\n%s", diff)
	}
	// Every peer names the version of the real code its goldens come from.
	for _, name := range []string{"gemini-cli", "opencode", "codex", "langchain-trim"} {
		if s, _ := Lookup(name); s == nil || s.Models == "" {
			t.Errorf("%s names no version it models", name)
		}
	}
	for _, s := range Specs() {
		if _, err := New(s.Name, nil); err != nil {
			t.Errorf("%s with defaults: %v", s.Name, err)
		}
		if s.Source == "" || s.Summary == "" {
			t.Errorf("%s: no source or summary", s.Name)
		}
	}
	for _, tc := range []struct{ spec, err string }{
		{"aidf:max_messages=30,preserve_last_n=8", ""},
		{"nope", `unknown policy "nope", did you mean "none"? (known: none, recorded, agent, aidf,`},
		{"aidff", `unknown policy "aidff", did you mean "aidf"? (known:`},
		{"frobnicate", `unknown policy "frobnicate" (known: none, recorded, agent, aidf,`},
		{"aidf:max=3", `policy aidf: unknown parameter "max" (valid: max_messages, preserve_first_n, preserve_last_n, summarize_on_trim, summarize_every, pair_safe, reading, config)`},
		{"aidf:max_messages=-1", "policy aidf: max_messages=-1: want an integer ≥ 0"},
		{"aidf:max_messages=ten", "policy aidf: max_messages=ten: want an integer ≥ 0"},
		{"aidf:max_messages=10,preserve_last_n=20", ""}, // AIDF's own defaults can exceed the cap: replayed, not refused
		{"aidf:summarize_on_trim=yes", "policy aidf: summarize_on_trim=yes: want true or false"},
		{"compress:preserve_ratio=0", "policy compress: preserve_ratio=0: want a number in (0, 1]"},
		{"compress:threshold=1.5", "policy compress: threshold=1.5: want a number in (0, 1]"},
		{"compress:estimator=chars3", "policy compress: estimator=chars3: want one of chars4,"},
		{"gemini-cli:preserve=1", "policy gemini-cli: preserve must be below 1"},
		{"none:x=1", `policy none: unknown parameter "x" (it takes none)`},
		{"aidf:max_messages", `policy aidf: "max_messages" is not key=value`},
		{"aidf:max_messages=1,max_messages=2", "policy aidf: max_messages given twice"},
	} {
		_, err := Parse(tc.spec)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.spec, err)
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.spec, err, tc.err)
		}
	}
}
