package summarize

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/transcript"
)

// paragraphSum counts text with e paragraph by paragraph.
func paragraphSum(e estimate.Estimator, text string) int {
	n := 0
	for p := range paragraphsOf(text) {
		n += e.Count(p)
	}
	return n
}

// TestPromptTokensAddUp holds the paragraphs' counts summed equal to the
// whole text's count, in both encodings, for the prompts of every corpus
// transcript, and promptTokens equal to the whole count when its cache is
// cold and when it is warm.
func TestPromptTokensAddUp(t *testing.T) {
	encs := []estimate.Estimator{counter, estimate.MustNew("o200k_base", estimate.OverheadNone)}
	var prompts []string
	err := filepath.WalkDir("../fixtures/corpus", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") && !strings.HasSuffix(path, ".json") {
			return err
		}
		ts, err := transcript.ReadFile(path, transcript.Options{Lenient: true})
		if err != nil {
			return nil // not a transcript (LICENSE files and the like)
		}
		for _, tr := range ts {
			for _, tmpl := range Templates() {
				p, err := Render(Request{Messages: tr.Messages, Previous: "the [earlier] summary\n[User] asked", Template: tmpl})
				if err != nil {
					t.Fatal(err)
				}
				prompts = append(prompts, p.User)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts) < 40 {
		t.Fatalf("only %d prompts from the corpus", len(prompts))
	}
	cold := newParagraphCache()
	for i, p := range prompts {
		for _, e := range encs {
			if want, got := e.Count(p), paragraphSum(e, p); got != want {
				t.Errorf("prompt %d: %s counts %d whole and %d by paragraph", i, e.Name(), want, got)
			}
		}
		want := counter.Count(p)
		for pass := range 2 {
			if got := cold.promptTokens(p); got != want {
				t.Errorf("prompt %d, pass %d: promptTokens %d, want %d", i, pass, got, want)
			}
		}
	}
}

// FuzzPromptTokens holds the sum of the paragraphs' counts equal to the
// whole count on any text, in both encodings.
func FuzzPromptTokens(f *testing.F) {
	for _, s := range []string{"", "\n[", "a\n[b", "}\n\n[Tool result] x", " \n\n  [x", "\r\n[\n[", "日本\n[語",
		".\n/[", "\xff\n[\xfe", "x\n\n\n[ \n[", "[User] hi\n\n[Assistant] ok.\n\n[Tool call Bash] {\"a\":1}\n\n[Tool result] done"} {
		f.Add(s)
	}
	o200k := estimate.MustNew("o200k_base", estimate.OverheadNone)
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range []estimate.Estimator{counter, o200k} {
			if want, got := e.Count(s), paragraphSum(e, s); got != want {
				t.Errorf("%q: %s counts %d whole and %d by paragraph", s, e.Name(), want, got)
			}
		}
		if want, got := counter.Count(s), promptTokens(s); got != want {
			t.Errorf("%q: promptTokens %d, want %d", s, got, want)
		}
	})
}
