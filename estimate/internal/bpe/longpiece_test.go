package bpe

import (
	"flag"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
)

var runLengths = flag.Int("run-lengths", 0, "the longest run TestChunkMergeRuns compares with pkoukk/tiktoken-go at every length (0: 96 with -short, 400 without; make exact: 1000)")

// pieceReference is pkoukk/tiktoken-go's merge of a whole text as one
// piece: its byte-pair encoding under a pattern that matches everything,
// with the ranks ctxbench reads (TestLoadRanksIsTheLoaders holds them to
// the loader's).
func pieceReference(t testing.TB, e *Encoding) func(piece string) int {
	t.Helper()
	bpe, err := tiktoken.NewCoreBPE(e.ranks, map[string]int{}, `[\s\S]+`)
	if err != nil {
		t.Fatal(err)
	}
	ref := tiktoken.NewTiktoken(bpe, &tiktoken.Encoding{Name: e.name}, nil)
	return func(piece string) int { return len(ref.EncodeOrdinary(piece)) }
}

// chunkParams are chunk and window sizes small enough that runs of a few
// hundred bytes cross many chunks; the windows that reach nothing past
// their chunk often cut inside a token, which the walk must find.
var chunkParams = [][2]int{{8, 0}, {16, 3}, {24, 8}, {40, 130}}

// chunkCount is chunkMerge with the whole merge where it gives up, and
// whether it gave up.
func (e *Encoding) chunkCount(piece string, size, ahead int) (int, bool) {
	if n, ok := e.chunkMerge(piece, size, ahead); ok {
		return n, true
	}
	return e.heapMerge(piece), false
}

// TestChunkMergeRuns holds the chunked merge to pkoukk/tiktoken-go's
// merge of the whole piece on runs of every length from 1 to
// -run-lengths of every printable ASCII character and of a few others
// (two, three and four bytes long), and of repeated short patterns, with
// chunks of 8 to 40 bytes: the periodicity the chunks' reuse relies on
// is held at every length, not assumed. The runs with the chunk sizes
// ctxbench uses are TestChunkMergeLong's.
func TestChunkMergeRuns(t *testing.T) {
	n := *runLengths
	if n == 0 {
		n = 400
		if testing.Short() {
			n = 96
		}
	}
	chars := []string{"\t", "\n", "\r", "é", "中", "😀", "\u00a0", "\ufeff"}
	for c := byte(' '); c <= '~'; c++ {
		chars = append(chars, string(c))
	}
	patterns := []string{"ab", "ba", "abc", "=-", "-=", "==-", "xy", " x", "x ", "\r\n", "é=", "ab1", "aB", "Ab", "AB", "a_b"}
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		e, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		ref := pieceReference(t, e)
		gaveUp, joined := 0, 0
		check := func(piece string) {
			t.Helper()
			want := ref(piece)
			for _, p := range chunkParams {
				got, ok := e.chunkCount(piece, p[0], p[1])
				if got != want {
					t.Fatalf("%s: %d × %.8q, chunks of %d and %d more: %d tokens, pkoukk says %d", name, len(piece), piece, p[0], p[1], got, want)
				}
				if ok {
					joined++
				} else {
					gaveUp++
				}
			}
		}
		for _, c := range chars {
			for k := 1; k <= n; k++ {
				check(strings.Repeat(c, k))
			}
		}
		for _, p := range patterns {
			for k := 1; k*len(p) <= n; k++ {
				s := strings.Repeat(p, k)
				check(s)
				check(s[1:])
			}
		}
		t.Logf("%s: runs up to %d bytes; %d chunked merges joined, %d gave up", name, n, joined, gaveUp)
	}
}

// TestJoinsIsBoundary holds the walk of the comment at the top of
// longpiece.go to what it claims, both ways: cut anywhere, a piece's
// halves merged alone join exactly where the cut is a boundary of the
// whole piece's tokens.
func TestJoinsIsBoundary(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabets := []string{"x", "=", " ", "ab", "xy=", "eth ", "abcdefghijklmnopqrstuvwxyz", "aeiouAEIOU", "=-_ ", "é中a"}
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		e, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		var m merger
		cuts, across := 0, 0
		pieces := 300
		if testing.Short() {
			pieces = 60
		}
		for range pieces {
			runes := []rune(alphabets[r.IntN(len(alphabets))])
			var b strings.Builder
			for l := 2 + r.IntN(200); b.Len() < l; {
				b.WriteRune(runes[r.IntN(len(runes))])
			}
			s := b.String()
			whole := m.merge(e, s, false)
			bound := make([]bool, len(s)+1)
			for i := int32(0); i < int32(len(s)); i = m.next[i] {
				bound[i] = true
			}
			for p := 1; p < len(s); p++ {
				var a, c chunk
				m.chunk(e, &a, s[:p], p, true)
				m.chunk(e, &c, s[p:], len(s)-p, true)
				cuts++
				if !bound[p] {
					across++
				}
				if got := e.joins(s, p, &a, &c); got != bound[p] {
					t.Fatalf("%s: %q cut at %d: joins %v, a boundary of the whole %v", name, s, p, got, bound[p])
				}
				if bound[p] && a.tokens+c.tokens != whole {
					t.Fatalf("%s: %q cut at %d: %d + %d tokens, the whole %d", name, s, p, a.tokens, c.tokens, whole)
				}
			}
		}
		t.Logf("%s: %d cuts, %d inside a token", name, cuts, across)
	}
}

// TestChunkMergeLong holds the chunked merge with ctxbench's chunk sizes
// to the whole merge (and, without -short, to pkoukk's on a few) on
// pieces of one to ten windows: runs of each character and pattern of
// TestChunkMergeRuns, which must never give up, and random pieces over
// small alphabets and over all letters.
func TestChunkMergeLong(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	window := chunkSize + chunkAhead
	lengths := []int{window + 1, 2*chunkSize + chunkAhead + 1}
	if !testing.Short() {
		lengths = append(lengths, window+127, 3*window+5, 10*window+chunkSize/3)
	}
	var runs, random []string
	for _, c := range []string{"x", "=", " ", "a", "0", "é", "中", "😀", "\n", "-", "ab", "abc", "=-", "é=", "aB", "\r\n"} {
		for _, n := range lengths {
			runs = append(runs, strings.Repeat(c, n/len(c)+1)[:n-n%len(c)])
		}
	}
	for _, alphabet := range []string{"ab", "xy=", "eth ", "abcdefghijklmnopqrstuvwxyz", "aAbBcC", "=-_ "} {
		for _, n := range lengths {
			var b strings.Builder
			for b.Len() < n {
				b.WriteByte(alphabet[r.IntN(len(alphabet))])
			}
			random = append(random, b.String())
		}
	}
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		e, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		ref := pieceReference(t, e)
		gaveUp := 0
		for k, p := range append(runs, random...) {
			got, ok := e.chunkCount(p, chunkSize, chunkAhead)
			if want := e.heapMerge(p); got != want {
				t.Fatalf("%s: %d bytes of %.8q: %d tokens, the whole merge %d", name, len(p), p, got, want)
			}
			if !ok {
				gaveUp++
				if k < len(runs) {
					t.Errorf("%s: %d bytes of %.8q: gave up, merged whole", name, len(p), p)
				}
			}
			if !testing.Short() && len(p) < 3*window && k%7 == 0 {
				if want := ref(p); got != want {
					t.Fatalf("%s: %d bytes of %.8q: %d tokens, pkoukk says %d", name, len(p), p, got, want)
				}
			}
		}
		t.Logf("%s: %d pieces, %d gave up", name, len(runs)+len(random), gaveUp)
	}
}

// TestLongRunMemory counts 4 MiB of one character, one pre-tokenizer
// piece, and wants it to allocate less than a byte a byte of it: merged
// whole, it allocated 320 MB (the list and the heap, grown as merges
// push pairs).
func TestLongRunMemory(t *testing.T) {
	e, err := Load("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"x", "=", " "} {
		s := strings.Repeat(c, 4<<20)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		n := e.Count(s)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(s)) {
			t.Errorf("counting %d bytes of %q (%d tokens) allocated %d bytes", len(s), c, n, alloc)
		}
	}
}

// FuzzChunkMerge holds the chunked merge, with chunks and windows of any
// size, to the whole merge on any piece.
func FuzzChunkMerge(f *testing.F) {
	for _, s := range []string{"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "==-==-==-==-==-==-==-==-==-==-", "                                   ", "abababababababababababababababababab", "thethethethethethethethethethe"} {
		f.Add(s, uint8(8), uint8(0))
		f.Add(s, uint8(3), uint8(5))
	}
	encs := map[string]*Encoding{}
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		e, err := Load(name)
		if err != nil {
			f.Fatal(err)
		}
		encs[name] = e
	}
	f.Fuzz(func(t *testing.T, piece string, size, ahead uint8) {
		if len(piece) < 2 || size == 0 {
			return
		}
		for name, e := range encs {
			if got, ok := e.chunkMerge(piece, int(size), int(ahead)); ok {
				if want := e.heapMerge(piece); got != want {
					t.Fatalf("%s: %q in chunks of %d and %d more: %d tokens, the whole merge %d", name, piece, size, ahead, got, want)
				}
			}
		}
	})
}
