package summarize

import (
	"strings"
	"sync"

	"github.com/ctxbench/ctxbench/internal/scan"
)

// A tailMemo remembers what was measured of the tails of the last few
// long texts: a text's tail is what follows its first paragraph (from the
// first "[" after a "\n", where [promptMeter] cuts paragraphs). A prompt
// that is a header which changes at every call before a conversation
// which does not (two-tier's AI summary: the count of the messages
// summarized, then their first 50,000 characters) then costs its header
// alone to measure, and a comparison of the rest. A text is measured
// through the memo only where its tail is one remembered, compared byte
// for byte, so what the memo gives is what measuring it anew would.
// It is safe for concurrent use.
type tailMemo[T any] struct {
	mu    sync.Mutex
	next  int
	slots [tailSlots]tailEntry[T]
}

type tailEntry[T any] struct {
	tail string
	v    T
}

// tailSlots is how many tails a memo holds: one for each policy of a
// replay that summarizes such prompts, run side by side, with room.
const tailSlots = 8

// minTail is the shortest text measured through a memo: shorter ones
// cost less to measure than to compare.
const minTail = 8 << 10

// split returns the head of s and its tail: s cut after the first "\n"
// followed by "["; ok is false when s has no such cut.
func split(s string) (head, tail string, ok bool) {
	i := strings.Index(s, "\n[")
	if i < 0 {
		return s, "", false
	}
	return s[:i+1], s[i+1:], true
}

// lookup returns the head of s before a remembered tail, and what was
// measured of that tail.
func (m *tailMemo[T]) lookup(s string) (head string, v T, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.slots {
		e := &m.slots[i]
		if n := len(s) - len(e.tail); e.tail != "" && n > 0 && s[n-1] == '\n' && s[n:] == e.tail {
			return s[:n], e.v, true
		}
	}
	return s, v, false
}

// store remembers v as what was measured of tail, replacing the oldest
// tail remembered.
func (m *tailMemo[T]) store(tail string, v T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.slots[m.next] = tailEntry[T]{tail, v}
	m.next = (m.next + 1) % tailSlots
}

// measureTail returns f of s as the sum of f of its head and of its tail
// (add), taking the tail's from memo when it is remembered; f must add up
// over a cut after a "\n" followed by "[".
func measureTail[T any](memo *tailMemo[T], s string, f func(string) T, add func(head, tail T) T) T {
	if len(s) < minTail {
		return f(s)
	}
	if head, v, ok := memo.lookup(s); ok {
		return add(f(head), v)
	}
	head, tail, ok := split(s)
	if !ok {
		return f(s)
	}
	v := f(tail)
	memo.store(tail, v)
	return add(f(head), v)
}

// The memos of the process: the counts of prompts' tails (their
// paragraphs' counts added up) and the files [scan.Files] finds in texts'
// tails.
var (
	tailTokens tailMemo[int]
	tailFiles  tailMemo[[]string]
)

// promptTokens returns the count of s, counted by paragraphs through
// cache as a [promptMeter] counts it.
func promptTokens(s string, cache *paragraphCache) int {
	return measureTail(&tailTokens, s, func(s string) int {
		n := 0
		for len(s) > 0 {
			end := len(s)
			if i := strings.Index(s, "\n["); i >= 0 {
				end = i + 1
			}
			n += cache.countString(s[:end])
			s = s[end:]
		}
		return n
	}, func(h, t int) int { return h + t })
}

// maxTailFiles is how many files a tail's list holds: at most maxFiles of
// them can have been found before it, so the first maxFiles new ones are
// among them.
const maxTailFiles = 2 * maxFiles

// textFiles calls add with the files [scan.Files] finds in s, in order,
// but for those found before (a file found again adds nothing to an
// extraction) and, in a long text's tail, those after the first
// maxTailFiles distinct ones (by then an extraction is full).
// No match crosses a cut after a "\n": a path holds no newline, and a
// match may start after one as at the start of a text.
func textFiles(s string, add func(string)) {
	if len(s) < minTail {
		scan.Files(s, add)
		return
	}
	for _, f := range measureTail(&tailFiles, s, func(s string) []string {
		var files []string
		seen := map[string]bool{}
		scan.Files(s, func(f string) {
			if !seen[f] && len(files) < maxTailFiles {
				seen[f] = true
				files = append(files, f)
			}
		})
		return files
	}, func(h, t []string) []string { return append(h, t...) }) {
		add(f)
	}
}
