// Package jsstring measures and mends text as JavaScript holds it: its
// length in UTF-16 code units, and ill-formed UTF-8 replaced as its
// TextDecoder replaces it.
package jsstring

import (
	"strings"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/internal/swar"
)

// Len returns the length of s in UTF-16 code units, as JavaScript's
// String.length counts it: one per code point, two above U+FFFF (an
// invalid byte counts one).
func Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && swar.ASCII(swar.Word(s, i)) {
			n, i = n+8, i+8
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			size = invalidLen(s, i) // one U+FFFD per maximal subpart
		}
		i += size
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// ReplaceInvalid returns s with each maximal ill-formed subsequence of
// UTF-8 replaced by U+FFFD, as the WHATWG decoder (JavaScript's
// TextDecoder), Python's decode(errors="replace") and the Unicode
// standard's recommended practice do: a lead byte and the continuation
// bytes that can follow it so far make one U+FFFD, any other bad byte
// one. Go's conversions make one per byte ([]rune) or one per run
// (strings.ToValidUTF8); tiktoken counts the text the former decoders
// give.
func ReplaceInvalid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
			i += invalidLen(s, i)
			continue
		}
		b.WriteString(s[i : i+size])
		i += size
	}
	return b.String()
}

// invalidLen returns the length of the maximal ill-formed subsequence at
// s[i], which does not start a valid sequence: its lead byte and the
// continuation bytes the lead allows next, up to the first that does not
// fit (at least 1).
func invalidLen(s string, i int) int {
	c := s[i]
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	}
	j := i + 1
	for k := 0; k < need && j < len(s) && s[j] >= lo && s[j] <= hi; k++ {
		j++
		lo, hi = 0x80, 0xBF
	}
	return j - i
}
