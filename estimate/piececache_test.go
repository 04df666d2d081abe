package estimate

import (
	"strings"
	"sync"
	"testing"
)

// TestPieceCache: counts through the piece cache equal counts without it,
// on the corpus read by four goroutines at once (go test -race checks the
// sharing), and when every piece collides in a one-slot-sized space.
func TestPieceCache(t *testing.T) {
	var texts []string
	for _, f := range corpusFiles(t) {
		texts = append(texts, strings.SplitAfter(string(f.raw[:min(len(f.raw), 256<<10)]), "\n")...)
	}
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		e, err := loadEncoding(name)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]int, len(texts))
		for i, s := range texts {
			want[i] = e.countPieces(s, false)
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for k := range texts {
					i := (k*(g+1) + g) % len(texts) // each goroutine its own order
					if got := e.count(texts[i]); got != want[i] {
						t.Errorf("%s: text %d: %d tokens through the cache, %d without", name, i, got, want[i])
						return
					}
				}
			})
		}
		wg.Wait()
		// Collisions: pieces that share a slot replace each other; a
		// lookup must never return another piece's count.
		slot := e.pieces.slot("collide")
		slot.Store(&pieceCount{piece: "other", n: 99})
		if got := e.cachedPieceTokens("collide"); got != e.pieceTokens("collide") {
			t.Errorf("%s: a slot holding another piece gave %d", name, got)
		}
	}
}
