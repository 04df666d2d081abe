package artifact

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/transcript"
)

func corpus(t testing.TB) []*transcript.Transcript {
	t.Helper()
	out, err := conformance.Corpus("../../../fixtures/corpus")
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 17 {
		t.Fatalf("%d corpus transcripts", len(out))
	}
	return out
}

func generated(t testing.TB, calls int) *transcript.Transcript {
	t.Helper()
	o := fixtures.DefaultGenOptions
	o.Calls = calls
	tr, err := conformance.Generated(o)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestOf(t *testing.T) {
	m := &transcript.Message{Blocks: []transcript.Block{
		{Type: transcript.BlockToolUse, Name: "Bash", Input: []byte(`{"command":"go test ./..."}`)},
		{Type: transcript.BlockToolUse, Name: "Read", Input: []byte(`{"file_path":"/repo/main.go"}`)},
		{Type: transcript.BlockToolResult, Text: "ok\nmain.go:3: undefined: x (error)\nsee https://go.dev/doc."},
		{Type: transcript.BlockText, Text: "I changed ./internal/store.go"},
	}}
	var got []string
	for _, a := range Of(m) {
		got = append(got, strings.Replace(a, "\x00", ": ", 1))
	}
	want := []string{"command: go test ./...", "error: main.go:3: undefined: x (error)", "path: ./internal/store.go", "path: /repo/main.go",
		"tool: Bash go test ./...", "tool: Read /repo/main.go", "url: https://go.dev/doc"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Of (-want +got):\n%s", diff)
	}
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
					if ErrorLine(line) != want(line) {
						t.Fatalf("%q: ErrorLine %v", line, ErrorLine(line))
					}
					anyLine = anyLine || want(line)
					n++
				}
				// Of splits a text only when the whole text holds an
				// error word: exactly when a line does.
				if ErrorLine(b.Text) != anyLine {
					t.Fatalf("%.200q: ErrorLine of the text %v, of a line %v", b.Text, ErrorLine(b.Text), anyLine)
				}
			}
		}
	}
	for _, line := range []string{"ErRoR: x", "TRACEBAC\u212a (most recent call last)", "FAILED", "fail ed", "an Exception", "erro r", "é error", "İFAILED", "FAİLED", "exceptİon", "Fa\u0130led", "\u0130", "\u212a", "k\u212a", "日本語 error", ""} {
		if ErrorLine(line) != want(line) {
			t.Errorf("%q: ErrorLine %v", line, ErrorLine(line))
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	parts := []string{"error", "ERROR", "failed", "FaIlEd", "e", "E", "r", "R", "o", "x", "c", "p", "t", "i", "n", "a", "b", "k", "K", "\u212a", "f", "F", "l", "d", "D", "@", "`", " ", "é", "İ", "\xff", "\xc5", "T", "s", "h", "exception", "EXCEPTIO", "traceback", "TraceBac", "Tracebac"}
	for range 200_000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		if line := b.String(); ErrorLine(line) != want(line) {
			t.Fatalf("%q: ErrorLine %v", line, ErrorLine(line))
		}
		// Lines joined: the text holds an error word exactly when a line
		// does.
		text := b.String() + "\n" + parts[rng.IntN(len(parts))] + "\n" + parts[rng.IntN(len(parts))]
		anyLine := false
		for line := range strings.SplitSeq(text, "\n") {
			anyLine = anyLine || want(line)
		}
		if ErrorLine(text) != anyLine {
			t.Fatalf("%q: ErrorLine of the text %v, of a line %v", text, ErrorLine(text), anyLine)
		}
	}
	t.Logf("%d corpus lines", n)
}

// BenchmarkErrorLine tests the tool results of a 2,000-call generated
// session (5% of their lines in Japanese) for an error word: lowercased
// and searched for each word, as the definition reads, and by ErrorLine.
func BenchmarkErrorLine(b *testing.B) {
	var texts []string
	size := 0
	for _, m := range generated(b, 2000).Messages {
		for _, bl := range m.Blocks {
			if bl.Type == transcript.BlockToolResult {
				texts = append(texts, bl.Text)
				size += len(bl.Text)
			}
		}
	}
	b.Run("lowered", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, s := range texts {
				l := strings.ToLower(s)
				_ = slices.ContainsFunc(errorWords, func(w string) bool { return strings.Contains(l, w) })
			}
		}
	})
	b.Run("ErrorLine", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, s := range texts {
				ErrorLine(s)
			}
		}
	})
}

// BenchmarkOf finds the artifacts of every message of a 2,000-call
// generated session (what replay's warm does once per message).
func BenchmarkOf(b *testing.B) {
	tr := generated(b, 2000)
	for b.Loop() {
		for i := range tr.Messages {
			Of(&tr.Messages[i])
		}
	}
}
