package replay

import (
	"github.com/ctxbench/ctxbench/replay/probe"
)

// A keyMatcher finds which of a set of keys a text holds, in one pass
// over the text. Each key of 8 bytes or more is anchored at the 8-byte
// window of it that the fewest other keys share, each key of 4 to 7
// bytes at such a 4-byte window, a key of 2 or 3 bytes at itself; at
// each byte of the text, the windows there are looked up among the
// anchors (behind a bit filter of their hashes), and the keys anchored
// there compared whole around it. Keys shorter than 2 bytes are not
// matched (a step looks for them in the context).
type keyMatcher struct {
	keys   []string
	ids    map[string]int32
	at     [9]map[uint64][]int32 // by the anchor's length: 2, 3, 4 or 8
	offset []int32               // by id: where its anchor starts in it
	bits   []uint64
}

const (
	keyFilterBits = 1 << 22
	minKeyBytes   = 2
)

// anchorLens are the anchors' lengths.
var anchorLens = [...]int{2, 3, 4, 8}

func newKeyMatcher(keys []string) *keyMatcher {
	m := &keyMatcher{ids: map[string]int32{}, bits: make([]uint64, keyFilterBits/64)}
	for _, l := range anchorLens {
		m.at[l] = map[uint64][]int32{}
	}
	for _, k := range keys {
		if _, ok := m.ids[k]; !ok && len(k) >= minKeyBytes {
			m.ids[k] = int32(len(m.keys))
			m.keys = append(m.keys, k)
		}
	}
	// How many keys share each window: a key's anchor is its rarest.
	shared := map[uint64]int{}
	windows := func(k string, f func(w uint64, off int)) {
		l := anchorLen(k)
		for off := 0; off+l <= len(k); off++ {
			f(windowAt(k, off, l), off)
		}
	}
	for _, k := range m.keys {
		seen := map[uint64]bool{}
		windows(k, func(w uint64, _ int) {
			if !seen[w] {
				seen[w] = true
				shared[w]++
			}
		})
	}
	m.offset = make([]int32, len(m.keys))
	for id, k := range m.keys {
		best, bestOff := 0, 0
		windows(k, func(w uint64, off int) {
			if n := shared[w]; best == 0 || n < best {
				best, bestOff = n, off
			}
		})
		l := anchorLen(k)
		w := windowAt(k, bestOff, l)
		m.offset[id] = int32(bestOff)
		m.at[l][w] = append(m.at[l][w], int32(id))
		h := windowHash(w, l)
		m.bits[h/64] |= 1 << (h % 64)
	}
	return m
}

// anchorLen is the length of a key's anchor: 8 bytes, 4 for a key
// shorter, the key itself below 4.
func anchorLen(k string) int {
	switch {
	case len(k) >= 8:
		return 8
	case len(k) >= 4:
		return 4
	}
	return len(k)
}

// windowAt returns the l bytes (l ≤ 8) of s at p, little-endian.
func windowAt(s string, p, l int) uint64 {
	var w uint64
	for i := l - 1; i >= 0; i-- {
		w = w<<8 | uint64(s[p+i])
	}
	return w
}

// load8 returns the 8 bytes of s at p, little-endian.
func load8(s string, p int) uint64 {
	_ = s[p+7]
	return uint64(s[p]) | uint64(s[p+1])<<8 | uint64(s[p+2])<<16 | uint64(s[p+3])<<24 |
		uint64(s[p+4])<<32 | uint64(s[p+5])<<40 | uint64(s[p+6])<<48 | uint64(s[p+7])<<56
}

func windowHash(w uint64, l int) uint32 {
	return uint32(((w ^ uint64(l)<<59) * 0x9E3779B97F4A7C15) >> (64 - 22))
}

// scan calls found with the id of each key text holds, once or more.
func (m *keyMatcher) scan(text string, found func(id int32)) {
	for p := 0; p+2 <= len(text); p++ {
		var w8 uint64
		if p+8 <= len(text) {
			w8 = load8(text, p)
		} else {
			w8 = windowAt(text, p, len(text)-p)
		}
		for _, l := range anchorLens {
			if p+l > len(text) {
				break
			}
			w := w8
			if l < 8 {
				w &= 1<<(8*l) - 1
			}
			if h := windowHash(w, l); m.bits[h/64]&(1<<(h%64)) == 0 {
				continue
			}
			for _, id := range m.at[l][w] {
				k := m.keys[id]
				if start := p - int(m.offset[id]); start >= 0 && start+len(k) <= len(text) && text[start:start+len(k)] == k {
					found(id)
				}
			}
		}
	}
}

// A keyIndex says which keys each message of a transcript holds (its
// [probe.Text]), of the keys a probe of it can have: a run counts, for
// each key, the messages in its context that hold it, as they come and
// go, and a step then knows whether a key is sent without reading the
// context.
type keyIndex struct {
	m  *keyMatcher
	of [][]int32 // by message: the keys it holds, each once
}

// newKeyIndex indexes the keys of x's transcript, reading each message's
// text once.
func newKeyIndex(x *probeIndex) *keyIndex {
	t := x.t
	keys := x.ex.Keys()
	norm := make([]string, len(keys))
	for i, k := range keys {
		norm[i] = probe.Normalize(k)
	}
	ki := &keyIndex{m: newKeyMatcher(norm), of: make([][]int32, len(t.Messages))}
	seenAt := make([]int32, len(ki.m.keys))
	for i := range t.Messages {
		text := x.text(i)
		stamp := int32(i) + 1
		var ids []int32
		ki.m.scan(text, func(id int32) {
			if seenAt[id] != stamp {
				seenAt[id] = stamp
				ids = append(ids, id)
			}
		})
		ki.of[i] = ids
	}
	return ki
}

// id returns key's id, and whether it is indexed.
func (ki *keyIndex) id(key string) (int32, bool) {
	id, ok := ki.m.ids[key]
	return id, ok
}

// keysOf returns the ids of the keys text holds, each once.
func (ki *keyIndex) keysOf(text string) []int32 {
	var out []int32
	seen := map[int32]bool{}
	ki.m.scan(text, func(id int32) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	})
	return out
}
