package summarize

import (
	"hash/maphash"
	"iter"
	"strings"
	"sync"
)

// promptTokens returns the cl100k_base count of a rendered prompt, equal
// to counter.Count(text), counting each of its paragraphs once for the
// whole process.
//
// A summarizing policy renders the conversation it summarizes again at
// every summary, so most of each prompt is paragraphs the previous
// prompts held; counting them again was most of the mock's time. A
// paragraph here ends before each "[" that follows a "\n": that is where
// every paragraph of [Conversation] begins, and no piece of the encoding's
// pre-tokenizer holds a newline followed by "[" (its pieces end at their
// last newline, or hold one only before more whitespace or, in o200k_base,
// a "/"), so the pieces, and so the tokens, of the prompt are those of its
// paragraphs counted apart (TestPromptTokensAddUp, FuzzPromptTokens).
func promptTokens(text string) int { return paragraphs().promptTokens(text) }

func (c *paragraphCache) promptTokens(text string) int {
	n := 0
	for p := range paragraphsOf(text) {
		n += c.count(p)
	}
	return n
}

// paragraphsOf yields the paragraphs of text, in order: text cut before
// each "[" that follows a "\n".
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

// A paragraphCache holds the counts of paragraphs by two 64-bit hashes of
// independent random seeds and the length: a wrong count would need two
// paragraphs of the same length whose 128 bits of hash collide. It keeps
// no text, so its size is fixed whatever the prompts'; it is
// direct-mapped (a collision of slots replaces the entry) and safe for
// concurrent use.
type paragraphCache struct {
	seeds [2]maphash.Seed
	mu    sync.Mutex
	slots [1 << 18]paragraphCount
}

type paragraphCount struct {
	h0, h1 uint64
	size   int32 // the paragraph's length + 1 (mod 2³²); 0: an empty slot
	n      int32
}

// paragraphs is the process's cache (6 MB), made on first use. It holds
// the paragraphs of a few hundred thousand blocks: a long session's, so
// the policies of a replay count each paragraph of their summaries once
// between them.
var paragraphs = sync.OnceValue(newParagraphCache)

func newParagraphCache() *paragraphCache {
	return &paragraphCache{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
}

// minCachedParagraph is the shortest paragraph cached: shorter ones cost
// less to count than to look up.
const minCachedParagraph = 64

func (c *paragraphCache) count(p string) int {
	if len(p) < minCachedParagraph {
		return counter.Count(p)
	}
	h0, h1 := maphash.String(c.seeds[0], p), maphash.String(c.seeds[1], p)
	slot := &c.slots[h0&(uint64(len(c.slots))-1)]
	want := paragraphCount{h0: h0, h1: h1, size: int32(len(p) + 1)}
	c.mu.Lock()
	got := *slot
	c.mu.Unlock()
	if got.h0 == want.h0 && got.h1 == want.h1 && got.size == want.size {
		return int(got.n)
	}
	n := counter.Count(p)
	want.n = int32(n)
	c.mu.Lock()
	*slot = want
	c.mu.Unlock()
	return n
}
