package summarize

import (
	"bytes"
	"hash"
	"hash/maphash"
	"strings"
	"sync"
)

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

// countBytes returns the count of the paragraph p, counted only when it
// is not cached.
func (c *paragraphCache) countBytes(p []byte) int { return countParagraph(c, p) }

// countString is countBytes of a string.
func (c *paragraphCache) countString(p string) int { return countParagraph(c, p) }

func countParagraph[T string | []byte](c *paragraphCache, p T) int {
	if len(p) < minCachedParagraph {
		return counter().Count(string(p))
	}
	var h0, h1 uint64
	switch v := any(p).(type) {
	case string:
		h0, h1 = maphash.String(c.seeds[0], v), maphash.String(c.seeds[1], v)
	case []byte:
		h0, h1 = maphash.Bytes(c.seeds[0], v), maphash.Bytes(c.seeds[1], v)
	}
	slot := &c.slots[h0&(uint64(len(c.slots))-1)]
	want := paragraphCount{h0: h0, h1: h1, size: int32(len(p) + 1)}
	c.mu.Lock()
	got := *slot
	c.mu.Unlock()
	if got.h0 == want.h0 && got.h1 == want.h1 && got.size == want.size {
		return int(got.n)
	}
	n := counter().Count(string(p))
	want.n = int32(n)
	c.mu.Lock()
	*slot = want
	c.mu.Unlock()
	return n
}

// A promptMeter takes a prompt's user part in pieces and measures it as
// the mock needs: its cl100k_base count, equal to counter().Count of the
// whole, and its SHA-256, continuing sha. The prompt is never one string:
// the conversation, often megabytes, was rendered at every summary only
// to be measured.
//
// Each paragraph is counted once for the whole process (see
// paragraphCache): a summarizing policy renders the conversation it
// summarizes again at every summary, so most of a prompt is paragraphs
// earlier prompts held. A paragraph ends before each "[" that follows a
// "\n", across pieces too: that is where every paragraph of
// conversation.Text begins, and no piece of the encoding's pre-tokenizer
// holds a newline followed by "[" (its pieces end at their last newline,
// or hold one only before more whitespace or, in o200k_base, a "/"), so
// the pieces, and so the tokens, of the prompt are those of its
// paragraphs counted apart (TestPromptTokensAddUp, FuzzPromptTokens).
type promptMeter struct {
	cache *paragraphCache
	sha   hash.Hash
	para  []byte // the paragraph being written
	n     int    // the count of the paragraphs ended
}

func (m *promptMeter) Write(b []byte) (int, error)       { meterWrite(m, b); return len(b), nil }
func (m *promptMeter) WriteString(s string) (int, error) { meterWrite(m, s); return len(s), nil }

func meterWrite[T string | []byte](m *promptMeter, s T) {
	if len(s) > 0 && s[0] == '[' && len(m.para) > 0 && m.para[len(m.para)-1] == '\n' {
		m.end()
	}
	for len(s) > 0 {
		var i int
		switch v := any(s).(type) {
		case string:
			i = strings.Index(v, "\n[")
		case []byte:
			i = bytes.Index(v, []byte("\n["))
		}
		end := len(s)
		if i >= 0 {
			end = i + 1
		}
		k := len(m.para)
		m.para = append(m.para, s[:end]...)
		m.sha.Write(m.para[k:])
		if i < 0 {
			return
		}
		m.end()
		s = s[end:]
	}
}

// end counts the paragraph written so far.
func (m *promptMeter) end() {
	if len(m.para) > 0 {
		m.n += m.cache.countBytes(m.para)
		m.para = m.para[:0]
	}
}

// tokens ends the last paragraph and returns the prompt's count.
func (m *promptMeter) tokens() int {
	m.end()
	return m.n
}
