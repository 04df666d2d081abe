package estimate

import (
	"github.com/ctxbench/ctxbench/estimate/internal/bpe"
	"github.com/ctxbench/ctxbench/transcript"
)

// bpeEstimator counts with an exact BPE encoding.
type bpeEstimator struct {
	enc          *bpe.Encoding
	overheadRule Overhead
}

func (b *bpeEstimator) Name() string       { return b.enc.Name() }
func (*bpeEstimator) Exact() bool          { return true }
func (b *bpeEstimator) Overhead() Overhead { return b.overheadRule }

func (b *bpeEstimator) Count(text string) int { return b.enc.Count(text) }

// CountMessage counts each block's text apart and sums: text, thinking and
// tool results by their text (non-text result content by its JSON), a tool
// call by its name and its JSON input, other blocks by their JSON. Images
// count 0, an image block and the image parts of a tool result alike
// ([transcript.Message.WithoutImages]): their tokens depend on the
// provider and the pixels.
func (b *bpeEstimator) CountMessage(m *transcript.Message) int {
	n := 0
	for _, bl := range m.WithoutImages() {
		n += b.blockTokens(bl)
	}
	return n + overhead(b.overheadRule, m, b.Count)
}

func (b *bpeEstimator) blockTokens(bl transcript.Block) int {
	switch bl.Type {
	case transcript.BlockText, transcript.BlockThinking:
		return b.enc.Count(bl.Text)
	case transcript.BlockToolUse:
		return b.enc.Count(bl.Name) + b.enc.Count(string(bl.Input))
	case transcript.BlockToolResult:
		if len(bl.Raw) > 0 {
			return b.enc.Count(string(bl.Raw))
		}
		return b.enc.Count(bl.Text)
	case transcript.BlockImage:
		return 0
	default:
		return b.enc.Count(string(bl.Raw))
	}
}
