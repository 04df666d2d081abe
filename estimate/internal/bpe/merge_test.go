package bpe

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// quadraticMerge is tiktoken's byte-pair merge as written: scan for the
// lowest-ranked adjacent pair, merge it, repeat.
func (e *Encoding) quadraticMerge(piece string) int {
	parts := make([]int, len(piece)+1)
	for i := range parts {
		parts[i] = i
	}
	for len(parts) > 2 {
		best, at := math.MaxInt, -1
		for i := 0; i+2 < len(parts); i++ {
			if r := e.rank(piece, parts[i], parts[i+2]); r < best {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	return len(parts) - 1
}

// TestHeapMerge holds the heap merge of long pieces (runs of one byte,
// of a few letters, of punctuation; some over the heap's compaction
// threshold) to the quadratic merge.
func TestHeapMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	var pieces []string
	for _, c := range []string{"a", "x", "=", " ", "é", "0"} {
		for _, n := range []int{128, 129, 1000, 3001} {
			pieces = append(pieces, strings.Repeat(c, n))
		}
	}
	for range 40 {
		alphabet := []string{"ab", "th", "e", "qz", "ing", "=-", "\u00e9t"}[r.IntN(7):]
		var b strings.Builder
		for b.Len() < 128+r.IntN(3000) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		pieces = append(pieces, b.String())
	}
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		e, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pieces {
			if got, want := e.heapMerge(p), e.quadraticMerge(p); got != want {
				t.Errorf("%s: %.40q (%d bytes): heap merge %d tokens, the scan %d", name, p, len(p), got, want)
			}
		}
	}
}
