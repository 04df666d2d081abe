package bpe

import (
	"strings"
	"sync"
	"testing"

	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
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
		e, err := Load(name)
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
					if got := e.Count(texts[i]); got != want[i] {
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
		// Short slots: one holding another piece of the same bytes but
		// another length, or other bytes, or the piece itself.
		for _, other := range []string{"ab\x00", "ba", "xyz"} {
			e.pieces.shortSlot(shortKey("ab")).Store(shortKey(other) | 5<<60)
			if got := e.cachedPieceTokens("ab"); got != e.pieceTokens("ab") {
				t.Errorf("%s: a short slot holding %q gave %d", name, other, got)
			}
		}
		e.pieces.shortSlot(shortKey("ab")).Store(shortKey("ab") | 5<<60)
		if got := e.cachedPieceTokens("ab"); got != 5 {
			t.Errorf("%s: a short slot holding \"ab\" is not read: %d", name, got)
		}
		e.pieces.shortSlot(shortKey("ab")).Store(0)
	}
}

// TestLoadRanksIsTheLoaders: the ranks loadRanks reads are those
// tiktoken-go-loader's offline loader reads, for both encodings.
func TestLoadRanksIsTheLoaders(t *testing.T) {
	for _, file := range rankFiles {
		got, err := loadRanks(file)
		if err != nil {
			t.Fatal(err)
		}
		want, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(file)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(got) < 100_000 {
			t.Fatalf("%s: %d ranks, the loader %d", file, len(got), len(want))
		}
		for k, v := range want {
			if r, ok := got[k]; !ok || r != v {
				t.Fatalf("%s: %q: rank %d (%v), the loader %d", file, k, r, ok, v)
			}
		}
	}
}

func BenchmarkLoadRanks(b *testing.B) {
	b.Run("ctxbench", func(b *testing.B) {
		for b.Loop() {
			if _, err := loadRanks(rankFiles["cl100k_base"]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tiktoken-go-loader", func(b *testing.B) {
		for b.Loop() {
			if _, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(rankFiles["cl100k_base"]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
