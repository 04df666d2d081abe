// Package swar tests eight bytes of text at once, in one 64-bit word
// ("SIMD within a register"): the loops that measure or scan text
// (characters, UTF-16 units, JSON string lengths, the end of a JSON
// string) pass a word of plain ASCII in one step and look at bytes one
// by one only where a word holds something else.
//
// Each test flags a byte by setting its high bit. A flag can be wrong only
// above a right one in the same word (the subtraction that finds a byte
// borrows from the byte above it), so whether a word has a flag, and its
// lowest flag, are exact.
package swar

import (
	"math/bits"
	"unicode/utf8"
)

const (
	low  = 0x0101010101010101 // 0x01 in every byte
	high = 0x8080808080808080 // 0x80 in every byte
)

// Word returns the 8 bytes of s from i as a little-endian word, s[i] in
// its low byte (one load: the compiler combines the byte loads).
func Word[T ~string | ~[]byte](s T, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// ASCII reports whether every byte of w is below 0x80.
func ASCII(w uint64) bool { return w&high == 0 }

// Special flags the bytes of w that end a run of a JSON string's plain
// characters: a quote, a backslash or a control character (below 0x20).
// Bytes above 0x7f are not flagged.
func Special(w uint64) uint64 {
	q := w ^ (low * '"')
	b := w ^ (low * '\\')
	return ((w-low*0x20)&^w | (q-low)&^q | (b-low)&^b) & high
}

// Plain reports whether every byte of w is ASCII that a JSON string holds
// as it is: no quote, backslash, control character or byte above 0x7f.
func Plain(w uint64) bool { return ASCII(w) && Special(w) == 0 }

// First returns the index (0 to 7) of the lowest byte a mask flags.
func First(mask uint64) int { return bits.TrailingZeros64(mask) >> 3 }

// RuneCount is utf8.RuneCountInString (utf8.RuneCount), eight bytes at a
// time where s is ASCII: the standard one decodes a byte at a time.
func RuneCount[T ~string | ~[]byte](s T) int {
	n, i := 0, 0
	for i < len(s) {
		if i+8 <= len(s) && ASCII(Word(s, i)) {
			n, i = n+8, i+8
			continue
		}
		if s[i] < utf8.RuneSelf {
			n, i = n+1, i+1
			continue
		}
		_, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		n, i = n+1, i+size
	}
	return n
}
