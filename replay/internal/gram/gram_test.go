package gram

import "testing"

// TestFilter: the filter never rules out a text that is there, and
// rules out most that are not.
func TestFilter(t *testing.T) {
	text := "Read /repo/src/main.go and ran `go test ./...`: FAIL TestX (0.01s) see https://example.com/a?b=c"
	var f Filter
	f.Index(text)
	for i := 0; i < len(text); i++ {
		for j := i + 1; j <= len(text); j++ {
			if !f.MayHold(Signature(text[i:j])) || !f.MayContain(text[i:j]) {
				t.Fatalf("%q is in the text but the filter rules it out", text[i:j])
			}
		}
	}
	absent := 0
	for _, s := range []string{"/repo/src/other.go", "npm install", "https://example.org/", "Traceback (most recent call last)", "xyz"} {
		if !f.MayHold(Signature(s)) || !f.MayContain(s) {
			absent++
		}
	}
	if absent < 4 {
		t.Errorf("the filter ruled out %d of 5 absent texts", absent)
	}
}

func FuzzFilter(f *testing.F) {
	f.Add("error: /a/b/c.go failed", 3, 12)
	f.Fuzz(func(t *testing.T, text string, i, j int) {
		if i < 0 || j < i || j > len(text) {
			return
		}
		var g Filter
		g.Index(text)
		if !g.MayHold(Signature(text[i:j])) || !g.MayContain(text[i:j]) {
			t.Fatalf("%q is in %q but the filter rules it out", text[i:j], text)
		}
	})
}
