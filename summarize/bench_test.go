package summarize

import (
	"bytes"
	"testing"

	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/transcript"
)

// BenchmarkPromptTokens counts the prompts a summarizing policy sends
// over a 600-call generated session — each summary covers the 300
// messages before its call, so consecutive prompts share most of their
// paragraphs — whole (counter.Count) and by paragraph through a cache
// made cold at every iteration: the gain of counting a paragraph once.
func BenchmarkPromptTokens(b *testing.B) {
	msgs := generatedMessages(b, 600)
	var prompts []string
	for end := 300; end < len(msgs); end += 25 {
		p, err := Render(Request{Messages: msgs[end-300 : end]})
		if err != nil {
			b.Fatal(err)
		}
		prompts = append(prompts, p.User)
	}
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			for _, p := range prompts {
				counter.Count(p)
			}
		}
	})
	b.Run("paragraphs", func(b *testing.B) {
		for b.Loop() {
			c := newParagraphCache()
			for _, p := range prompts {
				c.promptTokens(p)
			}
		}
	})
}

func generatedMessages(b *testing.B, calls int) []transcript.Message {
	b.Helper()
	var buf bytes.Buffer
	o := fixtures.DefaultGenOptions
	o.Calls = calls
	if err := fixtures.Generate(&buf, o); err != nil {
		b.Fatal(err)
	}
	ts, err := transcript.Parse(buf.Bytes(), "gen.jsonl", transcript.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return ts[0].Messages
}
