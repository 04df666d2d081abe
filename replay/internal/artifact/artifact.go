// Package artifact finds the artifacts of a transcript's messages: the
// file paths, shell commands, URLs, error lines and tool calls an agent's
// later work refers back to, whose presence in the context sent is what
// replay's retention measures.
package artifact

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/scan"
	"github.com/ctxbench/ctxbench/transcript"
)

// Of returns the artifacts of m, sorted, each as its kind, a NUL and its
// text (3 to 300 bytes, trimmed). Artifacts are the things an agent's
// later work refers back to:
//
//   - file paths (in tool inputs and in text),
//   - shell commands (the command of a tool call),
//   - URLs,
//   - error lines (a line of a failed tool result, or a line with
//     "error", "exception", "traceback" or "failed" in a tool result),
//   - tool calls, as the tool name with its key argument (path, command,
//     pattern, url or query).
func Of(m *transcript.Message) []string {
	set := map[string]bool{}
	add := func(kind, s string) {
		s = strings.TrimSpace(s)
		if len(s) >= 3 && len(s) <= 300 {
			set[kind+"\x00"+s] = true
		}
	}
	for _, b := range m.Blocks {
		switch b.Type {
		case transcript.BlockToolUse:
			var in map[string]any
			_ = json.Unmarshal(b.Input, &in)
			key := ""
			for _, k := range []string{"file_path", "path", "command", "cmd", "pattern", "url", "query"} {
				if v, ok := in[k].(string); ok && v != "" {
					key = v
					break
				}
			}
			if key != "" {
				add("tool", b.Name+" "+key)
			}
			for _, k := range []string{"command", "cmd"} {
				if v, ok := in[k].(string); ok {
					add("command", v)
				}
			}
			for _, k := range []string{"file_path", "path", "notebook_path"} {
				if v, ok := in[k].(string); ok {
					add("path", v)
				}
			}
		case transcript.BlockToolResult:
			// A line holds an error word only if the text does (words
			// hold no newline, and lowercasing maps rune by rune): most
			// results hold none, and need no splitting.
			if b.IsError || ErrorLine(b.Text) {
				for line := range strings.SplitSeq(b.Text, "\n") {
					if b.IsError || ErrorLine(line) {
						if len(strings.TrimSpace(line)) >= 8 {
							add("error", line)
						}
					}
				}
			}
			textArtifacts(b.Text, add)
		case transcript.BlockText, transcript.BlockThinking:
			textArtifacts(b.Text, add)
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// errorWords are the words that make a line of a tool result an error
// line, in any case. ErrorLine's search spells them out by first letter
// (a loop over this list per byte took twice as long).
var errorWords = []string{"error", "exception", "traceback", "failed"}

// ErrorLine reports whether the lowercased line contains an error word
// ("error", "exception", "traceback" or "failed").
// Only two non-ASCII letters lowercase to ASCII ones (the Kelvin sign to
// k, the dotted capital I to i): a line is searched in place, in one pass
// for the four words, its ASCII letters folded, until one of those two
// appears; a line holding one is lowercased and searched again.
func ErrorLine(line string) bool {
	for i := 0; i < len(line); i++ {
		// c|0x20 is a lowercase letter only for that letter in either
		// case: bytes of other runes never match.
		switch line[i] | 0x20 {
		case 'e':
			if hasFoldASCII(line, i, "error") || hasFoldASCII(line, i, "exception") {
				return true
			}
		case 't':
			if hasFoldASCII(line, i, "traceback") {
				return true
			}
		case 'f':
			if hasFoldASCII(line, i, "failed") {
				return true
			}
		case 0xe2, 0xe4: // lead bytes of U+212A (E2) and U+0130 (C4)
			if rest := line[i:]; strings.HasPrefix(rest, "\u212a") || strings.HasPrefix(rest, "\u0130") {
				l := strings.ToLower(line)
				for _, w := range errorWords {
					if strings.Contains(l, w) {
						return true
					}
				}
				return false
			}
		}
	}
	return false
}

// hasFoldASCII reports whether s holds w, a lowercase ASCII word, at i, in
// any case.
func hasFoldASCII(s string, i int, w string) bool {
	if len(s)-i < len(w) {
		return false
	}
	for j := range len(w) {
		if s[i+j]|0x20 != w[j] {
			return false
		}
	}
	return true
}

// textArtifacts adds the URLs and paths of s, found as their regular
// expressions would find them ([scan.URLs], [scan.Paths]), without a
// trailing punctuation mark.
func textArtifacts(s string, add func(kind, s string)) {
	scan.URLs(s, func(u string) { add("url", strings.TrimRight(u, ".,;:")) })
	scan.Paths(s, func(p string) { add("path", strings.TrimRight(p, ".,;:")) })
}
