// Package gram answers "may this text contain that string?" at a few bit
// lookups, from the 4-byte windows of both: replay's retention searches a
// summary so for every artifact seen.
package gram

// A Filter answers "may text contain s?" for many s at a few bit
// lookups each: it holds a bit per hash of each 4-byte window of text.
// A window of s missing from the filter proves s absent; a summary is
// searched for every artifact seen, most of which it does not hold, and a
// substring search of each was most of a replay's time.
type Filter struct {
	text string
	bits []uint64
}

// gramBits is the size of a filter, in bits.
const gramBits = 1 << 18

// gramHash hashes the 4-byte window of s at i to a bit of a filter.
func gramHash(s string, i int) uint32 {
	w := uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
	return (w * 2654435761) >> (32 - 18)
}

// Of makes f the filter of text, unless it is already: the zero filter
// is the filter of no text yet, not of the empty text, which a summary
// may be (an encrypted compaction's).
func (f *Filter) Of(text string) {
	if f.bits == nil || f.text != text {
		f.Index(text)
	}
}

// Index makes f the filter of text.
func (f *Filter) Index(text string) {
	if f.bits == nil {
		f.bits = make([]uint64, gramBits/64)
	} else {
		clear(f.bits)
	}
	f.text = text
	for i := 0; i+4 <= len(text); i++ {
		h := gramHash(text, i)
		f.bits[h/64] |= 1 << (h % 64)
	}
}

// MayContain reports false only when f's text cannot contain s: when a
// 4-byte window of s is not in the filter.
func (f *Filter) MayContain(s string) bool {
	for i := 0; i+4 <= len(s); i++ {
		h := gramHash(s, i)
		if f.bits[h/64]&(1<<(h%64)) == 0 {
			return false
		}
	}
	return true
}

// A Sig is the hashes of eight 4-byte windows of a text, spread over
// it (the first, the last and six between), or all zero for a text
// shorter than 4 bytes, which the filter cannot rule out. Checking a
// signature reads a few bytes laid out by artifact id, where checking the
// text itself meant fetching each text from memory; artifacts that share
// most of their text (the paths of one project) need windows all over
// it to be told apart.
type Sig [8]uint32

// Signature returns the Sig of s.
func Signature(s string) Sig {
	var g Sig
	if len(s) < 4 {
		return g
	}
	last := len(s) - 4
	for k := range g {
		g[k] = gramHash(s, k*last/(len(g)-1))
	}
	g[0] |= 1 << 31
	return g
}

// MayHold reports false only when f's text cannot contain the text of sig.
func (f *Filter) MayHold(sig Sig) bool {
	if sig[0] == 0 {
		return true
	}
	for k, h := range sig {
		if k == 0 {
			h &^= 1 << 31
		}
		if f.bits[h/64]&(1<<(h%64)) == 0 {
			return false
		}
	}
	return true
}
