// Package codexcut is Codex's truncate_text (codex-rs utils/string
// truncate.rs, utils/output-truncation): the middle of a text cut out
// to fit a byte or token budget, a marker in its place. The transcript
// reader cuts tool outputs with it as Codex sent them, and the codex
// policy its compacted user messages.
package codexcut

import (
	"strconv"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/internal/approx"
)

// Tokens is truncate_text(s, TruncationPolicy::Tokens(max))
// (truncate_middle_with_token_budget): s when it fits max × 4 bytes (a
// zero max cuts everything), else cut to max × 4 bytes around
// "…N tokens truncated…".
func Tokens(s string, max int) string {
	if s == "" || (max > 0 && len(s) <= max*4) {
		return s
	}
	return middle(s, max*4, true)
}

// Bytes is truncate_text(s, TruncationPolicy::Bytes(max))
// (truncate_middle_chars): s when it fits max bytes, else cut to them
// around "…N chars truncated…".
func Bytes(s string, max int) string { return middle(s, max, false) }

// middle is truncate_with_byte_estimate: s when it fits maxBytes; else
// its first maxBytes/2 bytes and its last maxBytes − maxBytes/2, each on
// character boundaries, around "…N tokens truncated…" (N the bytes over
// the budget / 4, rounded up) or "…N chars truncated…" (N the
// characters between them). A zero budget leaves the marker alone,
// counting all of s.
func middle(s string, maxBytes int, tokens bool) string {
	if s == "" {
		return ""
	}
	marker := func(bytes, chars int) string {
		if tokens {
			return "…" + strconv.Itoa(approx.Tokens(bytes)) + " tokens truncated…"
		}
		return "…" + strconv.Itoa(chars) + " chars truncated…"
	}
	if maxBytes <= 0 {
		return marker(len(s), utf8.RuneCountInString(s))
	}
	if len(s) <= maxBytes {
		return s
	}
	left := maxBytes / 2
	tailStart := len(s) - (maxBytes - left)
	prefixEnd, suffixStart, removed := 0, len(s), 0
	suffixStarted := false
	for i, r := range s {
		w := utf8.RuneLen(r)
		if w < 0 {
			w = 1 // invalid UTF-8, which Rust strings cannot hold, read a byte at a time
		}
		switch {
		case i+w <= left:
			prefixEnd = i + w
		case i >= tailStart:
			if !suffixStarted {
				suffixStart, suffixStarted = i, true
			}
		default:
			removed++
		}
	}
	suffixStart = max(suffixStart, prefixEnd)
	return s[:prefixEnd] + marker(len(s)-maxBytes, removed) + s[suffixStart:]
}
