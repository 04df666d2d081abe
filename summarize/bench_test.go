package summarize

import (
	"crypto/sha256"
	"testing"

	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/transcript"
)

// BenchmarkMeasure measures the prompts a summarizing policy sends over
// a 600-call generated session — each summary covers the 300 messages
// before its call, so consecutive prompts share most of their paragraphs
// — three ways: rendered and counted whole (render), rendered and counted
// by paragraph through a cache (paragraphs), and streamed without
// rendering (streamed, the mock's way); the caches are cold at every
// iteration.
func BenchmarkMeasure(b *testing.B) {
	msgs := generatedMessages(b, 600)
	var reqs []Request
	for end := 300; end < len(msgs); end += 25 {
		reqs = append(reqs, Request{Messages: msgs[end-300 : end]})
	}
	b.Run("render", func(b *testing.B) {
		for b.Loop() {
			for _, r := range reqs {
				p, _ := r.Render()
				counter().Count(p.User)
				sha256.Sum256([]byte(p.System + "\x00" + p.User))
			}
		}
	})
	b.Run("paragraphs", func(b *testing.B) {
		for b.Loop() {
			c := newParagraphCache()
			for _, r := range reqs {
				p, _ := r.Render()
				m := &promptMeter{cache: c, sha: sha256.New()}
				m.WriteString(p.User)
				m.tokens()
			}
		}
	})
	b.Run("streamed", func(b *testing.B) {
		for b.Loop() {
			c := newParagraphCache()
			for _, r := range reqs {
				if _, _, _, err := measure(r, c); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

func generatedMessages(b *testing.B, calls int) []transcript.Message {
	b.Helper()
	o := fixtures.DefaultGenOptions
	o.Calls = calls
	tr, err := conformance.Generated(o)
	if err != nil {
		b.Fatal(err)
	}
	return tr.Messages
}
