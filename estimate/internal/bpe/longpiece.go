package bpe

import "math"

// Long pieces: a base64 blob, a run of "=", 25 MB of one letter are
// one pre-tokenizer piece each, and merging one whole costs 24 bytes a
// byte of it (tiktoken merges it whole too, with a heap from 100 bytes
// on). chunkMerge counts it chunk by chunk, exactly.
//
// # Why the chunks' counts add up
//
// tiktoken's merge of a piece S merges the adjacent pair of parts of
// lowest rank, the leftmost on ties, until no pair is a token. Cut S at
// p into A and B and merge each alone, noting the rank of each merge:
// ρA(t) is the rank of A's merge t (∞ past its last) and a(t) A's last
// part after t merges; ρB(u) and b(u), B's first part, likewise. While
// nothing has joined across p, S's parts are A's after some t merges
// and B's after some u, and S's next merge is the least of three pairs:
// A's next (rank ρA(t), left of a(t)), B's next (ρB(u), right of p) and
// X = a(t)+b(u) if X is a token (at a(t)'s start, between the two). So S
// merges X next if and only if rank(X) < ρA(t) and rank(X) ≤ ρB(u)
// (positions break the ties); if not, it makes A's merge when ρA(t) ≤
// ρB(u) and B's otherwise. [encoding.joins] walks this interleaving of
// the two logs. If it comes to the end of both without X next, S merges
// as A and B side by side, into A's tokens and B's, and p is a boundary
// of its tokens; if X comes next somewhere, S joins across p there. The
// walk is exact both ways (TestJoinsIsBoundary).
//
// With chunks C1 … Ck, take S's first merge across any cut, say between
// Ci and Ci+1: until then every chunk merged as alone, and the merges
// of Ci and Ci+1 came in the order of their walk (each one's next merge
// stays the same until it is made, and the lower is made first), so
// that walk would have found X. Hence if the walk of every cut, on its
// two chunks' own logs, ends without X, S's count is the sum of the
// chunks' counts.
//
// A chunk's own log comes from merging a window that reaches past it:
// the chunk ends at a boundary of the window's tokens, so the window
// merges as the chunk and the rest side by side (the same argument),
// and the chunk's merges are the window's left of its end, in order.
// When a walk finds X, chunkMerge gives up and the piece is merged
// whole.
//
// A window of the same bytes as a recent one has the same chunk and
// log, and two chunks found to join join again: a run of one letter or
// of a short pattern merges a few windows, then compares bytes.

// chunkSize and chunkAhead are the lengths of chunkMerge's chunks and of
// what each window reaches past its chunk: chunkAhead is 8 of the longest
// tokens (128 bytes), so the merge near a chunk's end is that of the
// whole piece but for an influence carried 1,024 bytes.
const (
	chunkSize  = 4096
	chunkAhead = 1024
)

// A chunk is a window's first chunk and its own merge log.
type chunk struct {
	window string // the bytes merged; the chunk is window[:n]
	final  bool   // the chunk is the window, the piece's end
	n      int
	tokens int
	ranks  []int32    // the rank of each of its merges, in order
	lasts  []edgeGrow // the merges that grew its last part
	firsts []edgeGrow // the merges that grew its first part
}

// An edgeGrow is a merge that grew a chunk's first or last part: the
// merge's index and the part's new end or start.
type edgeGrow struct{ step, at int32 }

// noRank is the rank of a pair that is no token, or of a merge past the
// last.
const noRank = math.MaxInt32

// chunkMerge returns the number of tokens of piece, merged in chunks of
// about size bytes from windows of size+ahead, and whether the chunks'
// boundaries were all its tokens' (if not, the count is not known).
func (e *Encoding) chunkMerge(piece string, size, ahead int) (int, bool) {
	var m merger
	var recent [8]*chunk // the last chunks made, a ring
	made := 0
	var prev, joinedA, joinedB *chunk
	total := 0
	for off := 0; off < len(piece); {
		end := min(len(piece), off+size+ahead)
		final := end == len(piece)
		w := piece[off:end]
		var c *chunk
		for _, r := range recent {
			if r != nil && r.final == final && r.window == w {
				c = r
				break
			}
		}
		if c == nil {
			slot := &recent[made%len(recent)]
			made++
			if *slot == nil {
				*slot = new(chunk)
			}
			c = *slot
			if c == prev || c == joinedA || c == joinedB {
				c = new(chunk) // still needed: keep it
				*slot = c
			}
			m.chunk(e, c, w, size, final)
		}
		if prev != nil && (prev != joinedA || c != joinedB) {
			if !e.joins(piece, off, prev, c) {
				return 0, false
			}
			joinedA, joinedB = prev, c
		}
		total += c.tokens
		prev = c
		off += c.n
	}
	return total, true
}

// chunk merges the window w into c: its chunk ends at the last boundary
// of w's tokens at most size bytes in (the first past it if none), or is
// w if final.
func (m *merger) chunk(e *Encoding, c *chunk, w string, size int, final bool) {
	m.merge(e, w, true)
	n := int32(len(w))
	cut, tokens := n, 0
	for b := int32(0); b < n; b = m.next[b] {
		if !final && b > 0 && (b <= int32(size) || cut == n) {
			cut = b
		}
		if !final && b > int32(size) {
			break
		}
	}
	for b := int32(0); b < cut; b = m.next[b] {
		tokens++
	}
	*c = chunk{window: w, final: final, n: int(cut), tokens: tokens,
		ranks: c.ranks[:0], lasts: c.lasts[:0], firsts: c.firsts[:0]}
	for _, s := range m.steps {
		if s.start >= cut {
			continue // the rest's, past the chunk
		}
		k := int32(len(c.ranks))
		c.ranks = append(c.ranks, s.rank)
		if s.end == cut {
			c.lasts = append(c.lasts, edgeGrow{k, s.start})
		}
		if s.start == 0 {
			c.firsts = append(c.firsts, edgeGrow{k, s.end})
		}
	}
}

// joins reports whether the merge of a's chunk and b's, a's ending at
// piece offset p, is theirs side by side: whether p is a boundary of its
// tokens (see the comment at the top of this file).
func (e *Encoding) joins(piece string, p int, a, b *chunk) bool {
	aStart := p - a.n
	lo, hi := p-1, p+1 // X = piece[lo:hi], a's last part and b's first
	x := int32(min(e.rank(piece, lo, hi), noRank))
	var t, u, ai, bi int
	for {
		ra, rb := int32(noRank), int32(noRank)
		if t < len(a.ranks) {
			ra = a.ranks[t]
		}
		if u < len(b.ranks) {
			rb = b.ranks[u]
		}
		if x < ra && x <= rb {
			return false // S merges X next
		}
		if ra == noRank && rb == noRank {
			return true
		}
		grew := false
		if ra <= rb {
			if ai < len(a.lasts) && int(a.lasts[ai].step) == t {
				lo, grew = aStart+int(a.lasts[ai].at), true
				ai++
			}
			t++
		} else {
			if bi < len(b.firsts) && int(b.firsts[bi].step) == u {
				hi, grew = p+int(b.firsts[bi].at), true
				bi++
			}
			u++
		}
		if grew {
			if hi-lo > e.longest {
				return true // X is no token, and parts only grow
			}
			x = int32(min(e.rank(piece, lo, hi), noRank))
		}
	}
}
