package replay

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

func TestArtifacts(t *testing.T) {
	m := &transcript.Message{Blocks: []transcript.Block{
		{Type: transcript.BlockToolUse, Name: "Bash", Input: []byte(`{"command":"go test ./..."}`)},
		{Type: transcript.BlockToolUse, Name: "Read", Input: []byte(`{"file_path":"/repo/main.go"}`)},
		{Type: transcript.BlockToolResult, Text: "ok\nmain.go:3: undefined: x (error)\nsee https://go.dev/doc."},
		{Type: transcript.BlockText, Text: "I changed ./internal/store.go"},
	}}
	var got []string
	for _, a := range artifacts(m) {
		got = append(got, strings.Replace(a, "\x00", ": ", 1))
	}
	want := []string{"command: go test ./...", "error: main.go:3: undefined: x (error)", "path: ./internal/store.go", "path: /repo/main.go",
		"tool: Bash go test ./...", "tool: Read /repo/main.go", "url: https://go.dev/doc"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("artifacts (-want +got):\n%s", diff)
	}
}

func TestRetention(t *testing.T) {
	// none keeps everything: retention 1 at every call.
	tr := generated(t, 60)
	run, err := Replay(context.Background(), tr, must(t, "none"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if run.Summary.MinRetention != 1 {
		t.Errorf("none: min retention %v, want 1", run.Summary.MinRetention)
	}
	// A tight window loses artifacts.
	tight, _ := Replay(context.Background(), tr, must(t, "aidf:max_messages=10,preserve_last_n=4"), Options{})
	if r := tight.Summary.MeanRetention; r >= 0.9 || r <= 0 {
		t.Errorf("aidf 10: mean retention %.3f, want well below 1", r)
	}
	// By hand: two messages with one artifact each, the first evicted,
	// then summarized with its path in the text.
	tr2 := &transcript.Transcript{Messages: []transcript.Message{
		{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "look at /repo/a.go"}}},
		{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "and /repo/b.go"}}},
	}}
	r := newRetention(tr2, nil)
	b := window.Original(tr2, 1)
	if got := r.step(2, nil, []window.Item{b}, []window.Item{b}); got != 0.5 {
		t.Errorf("one of two artifacts sent: retention %v", got)
	}
	s := window.Item{ID: "s1", Summary: true, Msg: &transcript.Message{Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "Read /repo/a.go."}}}}
	if got := r.step(2, []window.Item{b}, []window.Item{s, b}, []window.Item{s, b}); got != 1 {
		t.Errorf("the summary names the evicted path: retention %v, want 1", got)
	}
	if got := r.step(2, []window.Item{s, b}, nil, nil); got != 0 {
		t.Errorf("nothing sent: retention %v, want 0", got)
	}
}

// TestGramFilter: the filter never rules out a text that is there, and
// rules out most that are not.
func TestGramFilter(t *testing.T) {
	text := "Read /repo/src/main.go and ran `go test ./...`: FAIL TestX (0.01s) see https://example.com/a?b=c"
	var f gramFilter
	f.index(text)
	for i := 0; i < len(text); i++ {
		for j := i + 1; j <= len(text); j++ {
			if !f.mayHold(signature(text[i:j])) || !f.mayContain(text[i:j]) {
				t.Fatalf("%q is in the text but the filter rules it out", text[i:j])
			}
		}
	}
	absent := 0
	for _, s := range []string{"/repo/src/other.go", "npm install", "https://example.org/", "Traceback (most recent call last)", "xyz"} {
		if !f.mayHold(signature(s)) || !f.mayContain(s) {
			absent++
		}
	}
	if absent < 4 {
		t.Errorf("the filter ruled out %d of 5 absent texts", absent)
	}
}

func FuzzGramFilter(f *testing.F) {
	f.Add("error: /a/b/c.go failed", 3, 12)
	f.Fuzz(func(t *testing.T, text string, i, j int) {
		if i < 0 || j < i || j > len(text) {
			return
		}
		var g gramFilter
		g.index(text)
		if !g.mayHold(signature(text[i:j])) || !g.mayContain(text[i:j]) {
			t.Fatalf("%q is in %q but the filter rules it out", text[i:j], text)
		}
	})
}

// TestErrorLine: the error-line test equals lowercasing the line and
// searching it, on every line of the corpus and on lines made of the
// letters of the words in both cases, non-ASCII letters that lowercase to
// ASCII (the Kelvin sign), and others.
func TestErrorLine(t *testing.T) {
	want := func(line string) bool {
		l := strings.ToLower(line)
		return strings.Contains(l, "error") || strings.Contains(l, "exception") || strings.Contains(l, "traceback") || strings.Contains(l, "failed")
	}
	n := 0
	for _, tr := range corpus(t) {
		for _, m := range tr.Messages {
			for _, b := range m.Blocks {
				anyLine := false
				for line := range strings.SplitSeq(b.Text, "\n") {
					if errorLine(line) != want(line) {
						t.Fatalf("%q: errorLine %v", line, errorLine(line))
					}
					anyLine = anyLine || want(line)
					n++
				}
				// artifacts splits a text only when the whole text holds an
				// error word: exactly when a line does.
				if errorLine(b.Text) != anyLine {
					t.Fatalf("%.200q: errorLine of the text %v, of a line %v", b.Text, errorLine(b.Text), anyLine)
				}
			}
		}
	}
	for _, line := range []string{"ErRoR: x", "TRACEBAC\u212a (most recent call last)", "FAILED", "fail ed", "an Exception", "erro r", "é error", "İFAILED", "FAİLED", "exceptİon", "Fa\u0130led", "\u0130", "\u212a", "k\u212a", "日本語 error", ""} {
		if errorLine(line) != want(line) {
			t.Errorf("%q: errorLine %v", line, errorLine(line))
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	parts := []string{"error", "ERROR", "failed", "FaIlEd", "e", "E", "r", "R", "o", "x", "c", "p", "t", "i", "n", "a", "b", "k", "K", "\u212a", "f", "F", "l", "d", "D", "@", "`", " ", "é", "İ", "\xff", "\xc5", "T", "s", "h", "exception", "EXCEPTIO", "traceback", "TraceBac", "Tracebac"}
	for range 200_000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		if line := b.String(); errorLine(line) != want(line) {
			t.Fatalf("%q: errorLine %v", line, errorLine(line))
		}
		// Lines joined: the text holds an error word exactly when a line
		// does.
		text := b.String() + "\n" + parts[rng.IntN(len(parts))] + "\n" + parts[rng.IntN(len(parts))]
		anyLine := false
		for line := range strings.SplitSeq(text, "\n") {
			anyLine = anyLine || want(line)
		}
		if errorLine(text) != anyLine {
			t.Fatalf("%q: errorLine of the text %v, of a line %v", text, errorLine(text), anyLine)
		}
	}
	t.Logf("%d corpus lines", n)
}
