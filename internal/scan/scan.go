// Package scan finds paths, file names and URLs in text as regular
// expressions would, in one pass and without them: the replay's retention
// measure looks for the paths and URLs a context still holds, and the
// heuristic summary lists the files a conversation touched, in every
// message of every policy's every step, where the regular expressions
// were most of the time spent. Each function is tested against its
// pattern.
//
// The path patterns share their start: a path begins at the start of the
// text or after a delimiter (white space, a quote, a parenthesis or a
// backquote), with an optional prefix (~, .. or .), then a slash. They
// differ in what follows ([Paths], [Files]).
package scan

import "strings"

// Paths calls f with the path of each match of
//
//	(?:^|[\s"'(\x60])((?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@+-]+)+)
//
// in s, left to right, not overlapping, as regexp's FindAll finds them: a
// path of two segments at least.
func Paths(s string, f func(string)) { scan(s, segments, f) }

// Files calls f with the path of each match of
//
//	(?:^|[\s"'(\x60])((?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@+-]+)*\.\w{1,8})\b
//
// in s, left to right, not overlapping, as regexp's FindAll finds them: a
// path that ends in a file name with an extension.
func Files(s string, f func(string)) { scan(s, fileChain, f) }

// scan calls f with each match in s of a delimiter (or the start), an
// optional prefix and what chain matches at the slash after it: chain(s,
// i) returns the end of its match at i, or −1.
func scan(s string, chain func(s string, i int) int, f func(string)) {
	for p := 0; p < len(s); p++ {
		if p > 0 {
			// A path's first slash follows its delimiter by at most three
			// bytes (a prefix is ~, . or ..), and its prefix holds none:
			// no match starts more than three bytes before the next slash
			// after p.
			q := strings.IndexByte(s[p+1:], '/')
			if q < 0 {
				return
			}
			p = max(p, p+1+q-3)
		}
		// A match starts at p: at the start of s, a path there or after a
		// delimiter; elsewhere, a delimiter at p and a path after it.
		start, end := -1, -1
		if p == 0 {
			if e := prefixed(s, 0, chain); e > 0 {
				start, end = 0, e
			}
		}
		if start < 0 && delimiter(s[p]) {
			if e := prefixed(s, p+1, chain); e > 0 {
				start, end = p+1, e
			}
		}
		if start < 0 {
			continue
		}
		f(s[start:end])
		p = end - 1
	}
}

func delimiter(c byte) bool {
	switch c {
	case '\t', '\n', '\f', '\r', ' ', '"', '\'', '(', '`':
		return true
	}
	return false
}

func wordChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func pathChar(c byte) bool { return wordChar(c) || c == '.' || c == '@' || c == '+' || c == '-' }

// prefixed returns the end of (?:~|\.{1,2})?CHAIN matched at i, or −1,
// trying the prefixes in the patterns' order: ~, two dots, one, none.
func prefixed(s string, i int, chain func(string, int) int) int {
	for _, pre := range [...]string{"~", "..", ".", ""} {
		if !strings.HasPrefix(s[i:], pre) {
			continue
		}
		if e := chain(s, i+len(pre)); e > 0 {
			return e
		}
	}
	return -1
}

// segments returns the end of /seg(/seg)+ at i, or −1; segments are
// maximal runs, so the greedy match needs no backtracking.
func segments(s string, i int) int {
	n, end := 0, -1
	for i < len(s) && s[i] == '/' {
		j := segmentEnd(s, i)
		if j == i+1 {
			break
		}
		n++
		i, end = j, j
	}
	if n < 2 {
		return -1
	}
	return end
}

// segmentEnd returns the end of the run of path characters after the
// slash at i.
func segmentEnd(s string, i int) int {
	j := i + 1
	for j < len(s) && pathChar(s[j]) {
		j++
	}
	return j
}

// fileChain matches /seg(/seg)*\.\w{1,8}\b at i. The segments may stop
// anywhere inside a segment (backtracking), and the extension's \w{1,8}
// must reach a word boundary, so it is the whole word run after the dot:
// the match ends after the last dot of the chain, inside a segment, that
// is followed by one to eight word characters and then no word
// character.
func fileChain(s string, i int) int {
	best := -1
	for i < len(s) && s[i] == '/' {
		j := segmentEnd(s, i)
		if j == i+1 {
			break
		}
		// Dots of this segment after its first character.
		for e := i + 2; e < j; e++ {
			if s[e] != '.' {
				continue
			}
			w := 0
			for e+1+w < len(s) && wordChar(s[e+1+w]) {
				w++
			}
			if w >= 1 && w <= 8 {
				best = e + 1 + w
			}
		}
		i = j
	}
	return best
}

// URLs calls f with each match of https?://[^\s"'<>)\]]+ in s, left to
// right, not overlapping.
func URLs(s string, f func(string)) {
	for i := 0; ; {
		k := strings.Index(s[i:], "http")
		if k < 0 {
			return
		}
		start := i + k
		j := start + 4
		if j < len(s) && s[j] == 's' && strings.HasPrefix(s[j+1:], "://") {
			j += 4
		} else if strings.HasPrefix(s[j:], "://") {
			j += 3
		} else {
			i = start + 1
			continue
		}
		end := j
		for end < len(s) && !urlStop(s[end]) {
			end++
		}
		if end == j {
			i = start + 1
			continue
		}
		f(s[start:end])
		i = end
	}
}

func urlStop(c byte) bool {
	switch c {
	case '\t', '\n', '\f', '\r', ' ', '"', '\'', '<', '>', ')', ']':
		return true
	}
	return false
}
