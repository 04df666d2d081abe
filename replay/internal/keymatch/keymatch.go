// Package keymatch finds which of a set of keys a text holds, in one
// pass over the text: replay's probes ask whether a key a probe needs is
// in the context sent.
package keymatch

import "slices"

// A Matcher finds which of a set of keys a text holds, in one pass
// over the text. Each key of 8 bytes or more is anchored at the 8-byte
// window of it that the fewest other keys share, each key of 4 to 7
// bytes at such a 4-byte window, a key of 2 or 3 bytes at itself; at
// each byte of the text, the windows there of the lengths anchored are
// looked up among the anchors (behind a bit filter of their hashes), and
// the keys anchored there compared whole around it, their last 8 bytes
// first. Keys shorter than 2 bytes are not matched (the caller looks
// for them otherwise).
type Matcher struct {
	keys   []string
	ids    map[string]int32
	lens   []int                 // the anchors' lengths, of 2, 3, 4 and 8
	at     [9]map[uint64][]int32 // by the anchor's length
	offset []int32               // by id: where its anchor starts in it
	tail   []uint64              // by id: its last 8 bytes, if it has 8
	bits   []uint64
	shift  uint // a window's hash is its top 64 - shift bits
}

// minKeyBytes is the shortest key matched.
const minKeyBytes = 2

// anchorLens are the anchors' lengths.
var anchorLens = [...]int{2, 3, 4, 8}

// New returns a matcher of keys (a key given twice is one key).
func New(keys []string) *Matcher {
	m := &Matcher{ids: map[string]int32{}}
	for _, k := range keys {
		if _, ok := m.ids[k]; !ok && len(k) >= minKeyBytes {
			m.ids[k] = int32(len(m.keys))
			m.keys = append(m.keys, k)
		}
	}
	// How many keys share each window: a key's anchor is its rarest.
	shared := map[uint64]int32{}
	var ws []uint64
	windows := func(k string) []uint64 {
		ws = ws[:0]
		l := anchorLen(k)
		for off := 0; off+l <= len(k); off++ {
			ws = append(ws, windowAt(k, off, l))
		}
		return ws
	}
	for _, k := range m.keys {
		w := windows(k)
		slices.Sort(w)
		for _, w := range slices.Compact(w) {
			shared[w]++
		}
	}
	m.offset = make([]int32, len(m.keys))
	m.tail = make([]uint64, len(m.keys))
	for id, k := range m.keys {
		var best int32
		bestOff := 0
		for off, w := range windows(k) {
			if n := shared[w]; best == 0 || n < best {
				best, bestOff = n, off
			}
		}
		l := anchorLen(k)
		w := windowAt(k, bestOff, l)
		m.offset[id] = int32(bestOff)
		if len(k) >= 8 {
			m.tail[id] = load8(k, len(k)-8)
		}
		if m.at[l] == nil {
			m.at[l] = map[uint64][]int32{}
		}
		m.at[l][w] = append(m.at[l][w], int32(id))
	}
	anchors := 0
	for _, l := range anchorLens {
		if m.at[l] != nil {
			m.lens = append(m.lens, l)
			anchors += len(m.at[l])
		}
	}
	// A filter of about 64 bits an anchor, 2^12 to 2^22 bits: about one
	// window in 64 not anchored passes it.
	logBits := uint(12)
	for logBits < 22 && 1<<logBits < 64*anchors {
		logBits++
	}
	m.shift = 64 - logBits
	m.bits = make([]uint64, 1<<logBits/64)
	for _, l := range m.lens {
		for w := range m.at[l] {
			h := m.hash(w, l)
			m.bits[h/64] |= 1 << (h % 64)
		}
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

func (m *Matcher) hash(w uint64, l int) uint64 {
	return ((w ^ uint64(l)<<59) * 0x9E3779B97F4A7C15) >> m.shift
}

// Scan calls found with the id of each key text holds, once or more.
func (m *Matcher) Scan(text string, found func(id int32)) {
	if len(m.keys) == 0 {
		return
	}
	bits := m.bits
	for p := 0; p+m.lens[0] <= len(text); p++ {
		var w8 uint64
		if p+8 <= len(text) {
			w8 = load8(text, p)
		} else {
			w8 = windowAt(text, p, len(text)-p)
		}
		for _, l := range m.lens {
			if p+l > len(text) {
				break
			}
			w := w8
			if l < 8 {
				w &= 1<<(8*l) - 1
			}
			if h := m.hash(w, l); bits[h/64]&(1<<(h%64)) == 0 {
				continue
			}
			for _, id := range m.at[l][w] {
				k := m.keys[id]
				start := p - int(m.offset[id])
				end := start + len(k)
				if start < 0 || end > len(text) || len(k) >= 8 && load8(text, end-8) != m.tail[id] {
					continue
				}
				if text[start:end] == k {
					found(id)
				}
			}
		}
	}
}

// Len returns how many keys m matches: their ids are 0 to Len()-1, in
// the order of their first appearance among New's keys.
func (m *Matcher) Len() int { return len(m.keys) }

// ID returns key's id, and whether m matches it.
func (m *Matcher) ID(key string) (int32, bool) {
	id, ok := m.ids[key]
	return id, ok
}
