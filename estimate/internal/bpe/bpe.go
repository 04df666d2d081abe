package bpe

import (
	"fmt"
	"hash/maphash"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctxbench/ctxbench/internal/jsstring"
)

// The encodings' pre-tokenizer patterns, as OpenAI's tiktoken defines
// them (in the form pkoukk/tiktoken-go compiles with regexp2). ctxbench
// splits with the hand-written equivalents of pretokenize.go, which tests
// hold to these patterns.
var patterns = map[string]string{
	"cl100k_base": `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
	"o200k_base": `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
}

// rankFiles are the names under which github.com/pkoukk/tiktoken-go-loader
// embeds the encodings' merge ranks (loadRanks reads them; nothing is
// downloaded).
var rankFiles = map[string]string{
	"cl100k_base": "cl100k_base.tiktoken",
	"o200k_base":  "o200k_base.tiktoken",
}

// An Encoding is a BPE encoding: its merge ranks and pre-tokenizer, and a
// cache of piece counts.
type Encoding struct {
	name   string
	ranks  map[string]int
	next   func(text string, i int) int // where the piece at i ends
	pieces pieceCache
	// longest is the length of the longest token.
	longest int
}

// pieceCache remembers the token counts of pre-tokenizer pieces. BPE
// merges each piece on its own, and agent transcripts repeat the same
// words, paths and identifiers endlessly (and a summary prompt repeats the
// messages it summarizes), so most pieces are counted once. It is a
// direct-mapped table of immutable entries: a collision replaces the
// entry, a lookup compares the whole piece, so a count is always the
// piece's own; entries are swapped atomically, so it is safe for
// concurrent use, and its size is fixed.
//
// Pieces of two to seven bytes, most of them, are held in slots of one
// word each (short): the piece's bytes, its length and its count, so a
// lookup is one load and one comparison, with no string to hash and no
// pointer to follow.
type pieceCache struct {
	seed  maphash.Seed
	slots [1 << 16]atomic.Pointer[pieceCount]
	short [1 << shortBits]atomic.Uint64
}

// shortBits is the log2 of the number of short slots (1 << 17 counted no
// faster on a Claude Code session).
const shortBits = 16

// maxShortPiece is the longest piece a short slot holds.
const maxShortPiece = 7

// shortKey packs a piece of 2 to maxShortPiece bytes into a word: its
// bytes in the low 56 bits, its length in the next 4. The top 4 bits
// take its count (at most its length) in a slot.
func shortKey(piece string) uint64 {
	k := uint64(len(piece)) << 56
	for i := range len(piece) {
		k |= uint64(piece[i]) << (8 * i)
	}
	return k
}

// shortSlot returns the slot of a piece's key (Fibonacci hashing).
func (c *pieceCache) shortSlot(key uint64) *atomic.Uint64 {
	return &c.short[(key*0x9e3779b97f4a7c15)>>(64-shortBits)]
}

type pieceCount struct {
	piece string
	n     int
}

// maxCachedPiece is the longest piece cached: longer ones are rare, and
// copying them costs more than it saves.
const maxCachedPiece = 64

func (c *pieceCache) slot(piece string) *atomic.Pointer[pieceCount] {
	return &c.slots[maphash.String(c.seed, piece)&(uint64(len(c.slots))-1)]
}

var splitters = map[string]func(string, int) int{
	"cl100k_base": nextCL100K,
	"o200k_base":  nextO200K,
}

var (
	encodingsMu sync.Mutex
	encodings   = map[string]*Encoding{}
)

// Load returns the encoding called name (cl100k_base or o200k_base),
// its ranks read on first use and shared after: it is safe for
// concurrent use.
func Load(name string) (*Encoding, error) {
	encodingsMu.Lock()
	defer encodingsMu.Unlock()
	if e, ok := encodings[name]; ok {
		return e, nil
	}
	ranks, err := loadRanks(rankFiles[name])
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", name, err)
	}
	loadClasses()
	e := &Encoding{name: name, ranks: ranks, next: splitters[name]}
	for t := range ranks {
		e.longest = max(e.longest, len(t))
	}
	e.pieces.seed = maphash.MakeSeed()
	encodings[name] = e
	return e, nil
}

// Name returns the encoding's name.
func (e *Encoding) Name() string { return e.name }

// Count returns the number of tokens of text: the text is split by the
// encoding's pattern, and each piece is merged by rank. Text that looks
// like a special token (<|endoftext|>) is ordinary text.
func (e *Encoding) Count(text string) int { return e.countPieces(text, true) }

// countPieces is Count, through the piece cache or not (the tests'
// reference).
func (e *Encoding) countPieces(text string, cached bool) int {
	if text == "" {
		return 0
	}
	text = jsstring.ReplaceInvalid(text) // as tiktoken's callers decode bytes
	n := 0
	for i := 0; i < len(text); {
		j := e.next(text, i)
		if cached {
			n += e.cachedPieceTokens(text[i:j])
		} else {
			n += e.pieceTokens(text[i:j])
		}
		i = j
	}
	return n
}

// cachedPieceTokens is pieceTokens through the piece cache.
func (e *Encoding) cachedPieceTokens(piece string) int {
	if len(piece) <= 1 || len(piece) > maxCachedPiece {
		return e.pieceTokens(piece)
	}
	if len(piece) <= maxShortPiece {
		key := shortKey(piece)
		slot := e.pieces.shortSlot(key)
		if v := slot.Load(); v&^(0xf<<60) == key {
			return int(v >> 60)
		}
		n := e.pieceTokens(piece)
		if n < 1<<4 { // always: a token is at least a byte
			slot.Store(key | uint64(n)<<60)
		}
		return n
	}
	slot := e.pieces.slot(piece)
	if pc := slot.Load(); pc != nil && pc.piece == piece {
		return pc.n
	}
	n := e.pieceTokens(piece)
	slot.Store(&pieceCount{piece: strings.Clone(piece), n: n})
	return n
}

// heapMergeMin is the piece length from which merging uses a heap: the
// plain scan is faster for the short pieces that make up most text, and
// quadratic on long ones.
const heapMergeMin = 128

// pieceTokens returns the number of tokens BPE merges piece into.
func (e *Encoding) pieceTokens(piece string) int {
	if len(piece) <= 1 {
		return len(piece)
	}
	if _, ok := e.ranks[piece]; ok {
		return 1
	}
	if len(piece) < heapMergeMin {
		return e.scanMerge(piece)
	}
	if len(piece) > chunkSize+chunkAhead {
		if n, ok := e.chunkMerge(piece, chunkSize, chunkAhead); ok {
			return n
		}
	}
	return e.heapMerge(piece)
}

// rank returns the rank of piece[a:b], or math.MaxInt if it has none.
func (e *Encoding) rank(piece string, a, b int) int {
	if r, ok := e.ranks[piece[a:b]]; ok {
		return r
	}
	return math.MaxInt
}

// scanMerge is tiktoken's byte-pair merge: repeatedly merge the adjacent
// pair of lowest rank (the leftmost on ties) until no pair has a rank.
// starts holds the parts' start offsets; ranks[i] the rank of parts i and
// i+1 merged.
func (e *Encoding) scanMerge(piece string) int {
	var buf [heapMergeMin + 1]int
	var rbuf [heapMergeMin]int
	starts := buf[:len(piece)+1]
	ranks := rbuf[:len(piece)]
	for i := range starts {
		starts[i] = i
	}
	for i := 0; i < len(piece)-1; i++ {
		ranks[i] = e.rank(piece, i, i+2)
	}
	ranks[len(piece)-1] = math.MaxInt
	parts := len(piece)
	for parts > 1 {
		best, at := math.MaxInt, -1
		for i := 0; i < parts-1; i++ {
			if ranks[i] < best {
				best, at = ranks[i], i
			}
		}
		if at < 0 {
			break
		}
		// Merge parts at and at+1.
		copy(starts[at+1:], starts[at+2:parts+1])
		copy(ranks[at+1:], ranks[at+2:parts])
		parts--
		ranks[parts-1] = math.MaxInt
		if at+1 < parts {
			ranks[at] = e.rank(piece, starts[at], starts[at+2])
		} else {
			ranks[at] = math.MaxInt
		}
		if at > 0 {
			ranks[at-1] = e.rank(piece, starts[at-1], starts[at+1])
		}
	}
	return parts
}

// heapMerge gives the same result as scanMerge in O(n log n) (see
// [merger]).
func (e *Encoding) heapMerge(piece string) int {
	var m merger
	return m.merge(e, piece, false)
}

// A merger is scanMerge's merge in O(n log n), with buffers kept from
// one piece to the next: the parts form a linked list, and a heap holds
// each adjacent pair's rank, ordered by rank then position (so the
// leftmost pair wins ties, as in the scan). A part is named by the offset
// it starts at, which a merge keeps, so the position is the node. Entries
// made stale by a merge are skipped when popped. Memory is 12 bytes a byte
// for the list and 12 an entry of the heap, which holds at most one entry
// that is not stale a part; the stale ones are dropped when they
// outnumber the parts.
type merger struct {
	next    []int32 // the next part's start (n: none; n+1: merged away)
	prev    []int32
	version []int32
	h       pairHeap
	// steps, when merge logs, is every merge in the order made.
	steps []mergeStep
}

// A mergeStep is one merge: the rank of the token it made, where the
// token starts and ends.
type mergeStep struct{ rank, start, end int32 }

// merge merges piece and returns its number of tokens; m.next then links
// the tokens' starts from 0. With logging, m.steps lists the merges.
func (m *merger) merge(e *Encoding, piece string, logging bool) int {
	n := int32(len(piece))
	m.next, m.prev, m.version = grow(m.next, n), grow(m.prev, n), grow(m.version, n)
	m.steps = m.steps[:0]
	next, prev, version := m.next, m.prev, m.version
	alive := int(n)
	for i := range n {
		next[i], prev[i], version[i] = i+1, i-1, 0
	}
	end := func(i int32) int32 { // where the part after i ends (-1: none)
		j := next[i]
		if j >= n {
			return -1
		}
		return next[j]
	}
	h := m.h[:0]
	for i := int32(0); i < n-1; i++ {
		if r := e.rank(piece, int(i), int(i)+2); r != math.MaxInt {
			h = append(h, pair{rank: int32(r), node: i})
		}
	}
	h.init()
	for len(h) > 0 {
		p := h.pop()
		if p.version != version[p.node] || next[p.node] >= n {
			continue // stale
		}
		i := p.node
		j := next[i]
		// Merge j into i.
		next[i] = next[j]
		if next[j] < n {
			prev[next[j]] = i
		}
		next[j] = n + 1 // dead
		alive--
		version[i]++
		if logging {
			m.steps = append(m.steps, mergeStep{rank: p.rank, start: i, end: next[i]})
		}
		if b := end(i); b > 0 {
			if r := e.rank(piece, int(i), int(b)); r != math.MaxInt {
				h.push(pair{rank: int32(r), node: i, version: version[i]})
			}
		}
		if k := prev[i]; k >= 0 {
			version[k]++
			if r := e.rank(piece, int(k), int(end(k))); r != math.MaxInt {
				h.push(pair{rank: int32(r), node: k, version: version[k]})
			}
		}
		// A live part has at most one entry that is not stale.
		if len(h) > 2*alive+1024 {
			h = h.compact(version, next, n)
		}
	}
	m.h = h
	return alive
}

// grow returns s resized to n, reallocated only when too small.
func grow(s []int32, n int32) []int32 {
	if int32(cap(s)) < n {
		return make([]int32, n)
	}
	return s[:n]
}

// A pair is a heap entry: the rank of part node merged with the next,
// as of the part's version.
type pair struct{ rank, node, version int32 }

// pairHeap is a binary min-heap of pairs by rank, then position.
type pairHeap []pair

func (a pair) less(b pair) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.node < b.node
}

func (h pairHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *pairHeap) push(p pair) {
	*h = append(*h, p)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s[i].less(s[parent]) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

func (h *pairHeap) pop() pair {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	*h = s[:last]
	h.down(0)
	return top
}

func (h pairHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].less(h[l]) {
			m = r
		}
		if !h[m].less(h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// compact drops the stale entries and rebuilds the heap.
func (h pairHeap) compact(version, next []int32, n int32) pairHeap {
	out := h[:0]
	for _, p := range h {
		if p.version == version[p.node] && next[p.node] < n {
			out = append(out, p)
		}
	}
	out.init()
	return out
}
