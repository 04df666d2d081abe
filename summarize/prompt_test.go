package summarize

import (
	"bytes"
	"crypto/sha256"
	"io/fs"
	"iter"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/transcript"
)

// paragraphsOf yields the paragraphs of text as promptMeter cuts them:
// before each "[" that follows a "\n".
func paragraphsOf(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for text != "" {
			end := len(text)
			if i := strings.Index(text, "\n["); i >= 0 {
				end = i + 1
			}
			if !yield(text[:end]) {
				return
			}
			text = text[end:]
		}
	}
}

// meterTokens measures text with a promptMeter on cache, written in
// pieces cut at the given lengths (the rest in one piece), and returns
// its count and SHA-256.
func meterTokens(cache *paragraphCache, text string, cuts ...int) (int, []byte) {
	m := &promptMeter{cache: cache, sha: sha256.New()}
	for _, c := range cuts {
		c = max(0, min(c, len(text)))
		m.Write([]byte(text[:c]))
		text = text[c:]
	}
	m.WriteString(text)
	return m.tokens(), m.sha.Sum(nil)
}

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
// transcript, and a promptMeter's count and hash equal to the whole
// prompt's, written in pieces, when its cache is cold and when it is
// warm.
func TestPromptTokensAddUp(t *testing.T) {
	encs := []estimate.Estimator{counter(), estimate.MustNew("o200k_base", estimate.OverheadNone)}
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
			for _, tmpl := range templates() {
				p, err := (Request{Messages: tr.Messages, Previous: "the [earlier] summary\n[User] asked", Template: tmpl}).Render()
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
		want, wantSum := counter().Count(p), sha256.Sum256([]byte(p))
		for pass := range 2 {
			got, sum := meterTokens(cold, p, 7, 100*pass+1, 4096)
			if got != want || !bytes.Equal(sum, wantSum[:]) {
				t.Errorf("prompt %d, pass %d: meter counts %d, want %d; hash equal %v", i, pass, got, want, bytes.Equal(sum, wantSum[:]))
			}
		}
	}
}

// FuzzPromptTokens holds the sum of the paragraphs' counts equal to the
// whole count on any text, in both encodings, and a promptMeter's count
// and hash equal to the whole text's however the text is cut in pieces.
func FuzzPromptTokens(f *testing.F) {
	for _, s := range []string{"", "\n[", "a\n[b", "}\n\n[Tool result] x", " \n\n  [x", "\r\n[\n[", "日本\n[語",
		".\n/[", "\xff\n[\xfe", "x\n\n\n[ \n[", "[User] hi\n\n[Assistant] ok.\n\n[Tool call Bash] {\"a\":1}\n\n[Tool result] done"} {
		f.Add(s)
	}
	o200k := estimate.MustNew("o200k_base", estimate.OverheadNone)
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range []estimate.Estimator{counter(), o200k} {
			if want, got := e.Count(s), paragraphSum(e, s); got != want {
				t.Errorf("%q: %s counts %d whole and %d by paragraph", s, e.Name(), want, got)
			}
		}
		want, wantSum := counter().Count(s), sha256.Sum256([]byte(s))
		for _, cut := range []int{1, len(s) / 2, len(s) - 1} {
			if got, sum := meterTokens(paragraphs(), s, cut, 1); got != want || !bytes.Equal(sum, wantSum[:]) {
				t.Errorf("%q cut at %d: meter counts %d, want %d", s, cut, got, want)
			}
		}
	})
}

// TestMeasureEqualsRender holds the mock's measure of a request — input
// tokens, prompt hash, output limit — equal to the same taken from
// Render's prompt: for the corpus transcripts under every template, with
// and without a previous summary, and templates that print the
// conversation plainly (measured without rendering) or not (rendered).
func TestMeasureEqualsRender(t *testing.T) {
	custom := func(name, prompt string) *Template {
		return &Template{Name: name, System: "You summarize.", Prompt: prompt, MaxTokens: 300}
	}
	plainOnes := append(templates(), custom("plain", "Conversation:\n{{.Conversation}}\nEnd. {{.Previous}}"))
	others := []*Template{
		custom("twice", "{{.Conversation}}\n\n{{.Conversation}}"),
		custom("printf", `{{printf "%.40s" .Conversation}}`),
		custom("if", "{{if .Previous}}Before: {{.Previous}}\n\n{{end}}{{.Conversation}}"),
		custom("none", "Summarize."),
	}
	for _, tmpl := range plainOnes {
		if _, _, ok, err := tmpl.around(""); !ok || err != nil {
			t.Errorf("template %s: not measured without rendering (%v)", tmpl.Name, err)
		}
	}
	for _, tmpl := range others {
		if _, _, ok, _ := tmpl.around("x"); ok {
			t.Errorf("template %s: measured without rendering", tmpl.Name)
		}
	}
	var convs [][]transcript.Message
	for _, name := range []string{"spotter/tool_heavy.jsonl", "spotter/short.jsonl", "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"} {
		msgs := corpusMessages(t, name)
		convs = append(convs, msgs, msgs[:min(len(msgs), 7)], nil)
	}
	cold := newParagraphCache()
	for _, tmpl := range append(plainOnes, others...) {
		for _, prev := range []string{"", "the earlier [summary]\n[User] said so", "has the " + conversationMarker + " marker"} {
			for i, msgs := range convs {
				req := Request{Messages: msgs, Previous: prev, Template: tmpl, MaxTokens: i % 2 * 100}
				if i%3 == 1 {
					// A prompt the caller wrote is the user part, whatever
					// the template and the messages.
					req.Prompt = "Summarize this:\n[USER 1]\nhello " + prev
				}
				p, err := req.Render()
				if err != nil {
					t.Fatal(err)
				}
				if req.Prompt != "" && p.User != req.Prompt {
					t.Errorf("template %s: the user part is %.60q, not the request's prompt", tmpl.Name, p.User)
				}
				wantSum := sha256.Sum256([]byte(p.System + "\x00" + p.User))
				want := []any{counter().Count(p.System) + counter().Count(p.User), wantSum[:4], p.MaxTokens}
				in, sum, maxTokens, err := measure(req, cold)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, []any{in, sum, maxTokens}); diff != "" {
					t.Errorf("template %s, previous %q, conversation %d (-render +measure):\n%s", tmpl.Name, prev, i, diff)
				}
			}
		}
	}
}

// TestHostileTemplates: a template that would run without end or print
// without bound is refused: {{range N}} when it is read, and a prompt
// that repeats the conversation past four times its size when rendered,
// with an error, not an exhausted memory.
func TestHostileTemplates(t *testing.T) {
	own := func(body string) *Template { return &Template{Name: "own", Prompt: body, MaxTokens: Generic.MaxTokens} }
	for _, body := range []string{
		"{{range 100000000000}}x{{end}}{{.Conversation}}",
		"{{if true}}{{range 10}}{{end}}{{end}}{{.Conversation}}",
		`{{define "d"}}{{range 5}}{{end}}{{end}}{{.Conversation}}`,
	} {
		if _, err := (Request{Template: own(body)}).Render(); err == nil || !strings.Contains(err.Error(), "cannot use range") {
			t.Errorf("%q: %v, want range refused", body, err)
		}
	}
	tmpl := own(strings.Repeat("{{.Conversation}}", 20000))
	long := []transcript.Message{{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: strings.Repeat("a", 100_000)}}}}
	if _, err := (Request{Messages: long, Template: tmpl}).Render(); err == nil || !strings.Contains(err.Error(), "repeats the conversation") {
		t.Errorf("20,000 copies of the conversation: %v", err)
	}
	// Printed twice, it is a prompt like any other.
	twice := own("{{.Conversation}}\n---\n{{.Conversation}}")
	if p, err := (Request{Messages: long, Template: twice}).Render(); err != nil || len(p.User) < 200_000 {
		t.Errorf("twice: %d bytes, %v", len(p.User), err)
	}
}
