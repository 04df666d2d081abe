package bpe

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers below split text exactly as the encodings' patterns
// (the patterns map) do under a backtracking engine, without one: each
// alternative of a pattern is a function that returns where its match
// starting at i ends, or -1, and the alternatives are tried in the
// pattern's order, as leftmost-first alternation does. Where an
// alternative needs backtracking (an optional prefix, a greedy run given
// back for the next item, the lookahead of \s+(?!\S)), the function
// computes the first match backtracking would find directly. The
// differential tests against the patterns compiled with regexp2 (what
// pkoukk/tiktoken-go uses) hold them to it.
//
// Text must be valid UTF-8: count replaces each invalid byte by U+FFFD
// first, as regexp2 and pkoukk/tiktoken-go do.

// charClass holds the pattern classes a character belongs to.
type charClass uint8

const (
	clLetter  charClass = 1 << iota // \p{L}
	clNumber                        // \p{N}
	clSpace                         // \s (unicode.IsSpace, as regexp2)
	clNewline                       // \r or \n
	clUpper                         // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	clLower                         // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	clOther                         // [^\s\p{L}\p{N}]: none of letter, number, space
)

func classify(r rune) charClass {
	var c charClass
	if unicode.IsLetter(r) {
		c |= clLetter
	}
	if unicode.IsNumber(r) {
		c |= clNumber
	}
	if unicode.IsSpace(r) {
		c |= clSpace
	}
	if r == '\r' || r == '\n' {
		c |= clNewline
	}
	lm, lo, m := unicode.Is(unicode.Lm, r), unicode.Is(unicode.Lo, r), unicode.IsMark(r)
	if lm || lo || m || unicode.Is(unicode.Lu, r) || unicode.Is(unicode.Lt, r) {
		c |= clUpper
	}
	if lm || lo || m || unicode.Is(unicode.Ll, r) {
		c |= clLower
	}
	if c&(clLetter|clNumber|clSpace) == 0 {
		c |= clOther
	}
	return c
}

// bmpClasses holds the class of every character of the Basic Multilingual
// Plane, computed once; characters above it are classified when met.
var (
	bmpOnce    sync.Once
	bmpClasses *[1 << 16]charClass
	// asciiClasses is bmpClasses' start in an array of its own: the loops
	// over runs of characters read it inline, with no call and no pointer
	// to load, for the ASCII most text is.
	asciiClasses [utf8.RuneSelf]charClass
)

func loadClasses() {
	bmpOnce.Do(func() {
		t := new([1 << 16]charClass)
		for r := range rune(1 << 16) {
			t[r] = classify(r)
		}
		bmpClasses = t
		copy(asciiClasses[:], t[:utf8.RuneSelf])
	})
}

// at returns the class and byte size of the character at text[i].
func at(text string, i int) (charClass, int) {
	if b := text[i]; b < utf8.RuneSelf {
		return asciiClasses[b], 1
	}
	return atRune(text, i)
}

// atRune is at for a character above ASCII.
func atRune(text string, i int) (charClass, int) {
	r, size := utf8.DecodeRuneInString(text[i:])
	if r < 1<<16 {
		return bmpClasses[r], size
	}
	return classify(r), size
}

// runEnd returns where the run of characters having any class in want,
// starting at i, ends.
func runEnd(text string, i int, want charClass) int {
	for i < len(text) {
		if b := text[i]; b < utf8.RuneSelf {
			if asciiClasses[b]&want == 0 {
				break
			}
			i++
			continue
		}
		c, size := atRune(text, i)
		if c&want == 0 {
			break
		}
		i += size
	}
	return i
}

// contraction returns the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i,
// or 0.
func contraction(text string, i int) int {
	if i >= len(text) || text[i] != '\'' || i+1 >= len(text) {
		return 0
	}
	switch text[i+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if i+2 < len(text) && text[i+2]|0x20 == 'e' {
			return 3
		}
	case 'l':
		if i+2 < len(text) && text[i+2]|0x20 == 'l' {
			return 3
		}
	}
	return 0
}

// isPrefix reports whether c is in [^\r\n\p{L}\p{N}].
func isPrefix(c charClass) bool { return c&(clLetter|clNumber|clNewline) == 0 }

// numbers matches \p{N}{1,3}.
func numbers(text string, i int) int {
	j := i
	for k := 0; k < 3 && j < len(text); k++ {
		c, size := at(text, j)
		if c&clNumber == 0 {
			break
		}
		j += size
	}
	if j == i {
		return -1
	}
	return j
}

// punctuation matches ` ?[^\s\p{L}\p{N}]+` followed by a run of the
// characters in trail ([\r\n]* for cl100k_base, [\r\n/]* for o200k_base).
func punctuation(text string, i int, slash bool) int {
	j := i
	if text[j] == ' ' && j+1 < len(text) {
		if c, _ := at(text, j+1); c&clOther != 0 {
			j++
		}
	}
	k := runEnd(text, j, clOther)
	if k == j {
		return -1
	}
	for k < len(text) && (text[k] == '\r' || text[k] == '\n' || slash && text[k] == '/') {
		k++
	}
	return k
}

// whitespace matches \s*[\r\n]+|\s+(?!\S)|\s+ at i, where text[i] is
// whitespace: up to the last newline of the run if it has one; else the
// run, less its last character when text goes on after it and the run has
// more than one.
func whitespace(text string, i int) int {
	end, last, lastNewline := i, i, -1
	for end < len(text) {
		c, size := at(text, end)
		if c&clSpace == 0 {
			break
		}
		if c&clNewline != 0 {
			lastNewline = end
		}
		last = end
		end += size
	}
	switch {
	case lastNewline >= 0:
		return lastNewline + 1
	case end == len(text) || last == i:
		return end
	default:
		return last
	}
}

// nextCL100K returns where the cl100k_base piece starting at i ends:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func nextCL100K(text string, i int) int {
	if n := contraction(text, i); n > 0 {
		return i + n
	}
	c, size := at(text, i)
	if c&clLetter != 0 {
		return runEnd(text, i+size, clLetter)
	}
	if isPrefix(c) && i+size < len(text) {
		if c2, size2 := at(text, i+size); c2&clLetter != 0 {
			return runEnd(text, i+size+size2, clLetter)
		}
	}
	if c&clNumber != 0 {
		return numbers(text, i)
	}
	if j := punctuation(text, i, false); j > 0 {
		return j
	}
	return whitespace(text, i)
}

// nextO200K returns where the o200k_base piece starting at i ends:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|…)?|
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|…)?|
//	\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
func nextO200K(text string, i int) int {
	c, size := at(text, i)
	// The optional prefix is tried taken first, then not.
	starts := [2]int{i, -1}
	if isPrefix(c) {
		starts = [2]int{i + size, i}
	}
	for _, word := range [...]func(string, int) int{o200kLowerWord, o200kUpperWord} {
		for _, s := range starts {
			if j := word(text, s); j > 0 {
				return j
			}
		}
	}
	if c&clNumber != 0 {
		return numbers(text, i)
	}
	if j := punctuation(text, i, true); j > 0 {
		return j
	}
	return whitespace(text, i)
}

// o200kLowerWord matches U*W+(contraction)? at s (U and W the pattern's
// two letter classes). Backtracking gives the U run back one character at
// a time until a W character starts W+; the first it finds is the last W
// character of the run, or the character after the run.
func o200kLowerWord(text string, s int) int {
	if s < 0 || s >= len(text) {
		return -1
	}
	u, lastLower := s, -1
	for u < len(text) {
		c, size := at(text, u)
		if c&clUpper == 0 {
			if c&clLower != 0 {
				lastLower = u
			}
			break
		}
		if c&clLower != 0 {
			lastLower = u
		}
		u += size
	}
	if lastLower < 0 {
		return -1
	}
	j := runEnd(text, lastLower, clLower)
	return j + contraction(text, j)
}

// o200kUpperWord matches U+W*(contraction)? at s.
func o200kUpperWord(text string, s int) int {
	if s < 0 || s >= len(text) {
		return -1
	}
	u := runEnd(text, s, clUpper)
	if u == s {
		return -1
	}
	j := runEnd(text, u, clLower)
	return j + contraction(text, j)
}
