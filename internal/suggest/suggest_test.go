package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"aidf", "aidf", 0}, {"aidff", "aidf", 1}, {"kitten", "sitting", 3}, {"", "abc", 3}, {"codex", "cdoex", 2}} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"none", "aidf", "two-tier", "prune", "codex", "claude-code"}
	for _, tc := range []struct{ name, want string }{
		{"aidff", "aidf"}, {"claude_code", "claude-code"}, {"prnue", "prune"},
		{"aidf", ""}, // the name itself: nothing to suggest
		{"xyz", ""},  // nothing near
		{"no", ""},   // two edits from none, too many for two letters
		{"twotier", "two-tier"},
	} {
		if got := Closest(tc.name, names); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
