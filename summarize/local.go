package summarize

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/conversation"
	"github.com/ctxbench/ctxbench/transcript"
)

// Mock is a deterministic summarizer for offline replays and tests: the
// same request gives the same summary, it never sleeps, and it can be told
// to fail. Its summary is the heuristic extraction (tools, files,
// commands), cut to the requested length or completed to it with an
// excerpt of the conversation's first words; its usage is what a real call
// of that size would report: the prompt's and the summary's cl100k_base
// token counts.
type Mock struct {
	// Tokens is the summary's length when Ratio is 0 (default 200).
	Tokens int
	// Ratio, when above 0, makes the summary Ratio × the prompt's tokens
	// long, at least 1 token.
	Ratio float64
	// FailCall makes the n-th call (counting from 1) fail; FailAll makes
	// every call fail. Err is the error returned (default errInjected).
	FailCall int
	FailAll  bool
	Err      error
	// Model is the model name in results (default "mock").
	Model string

	calls atomic.Int64
}

// errInjected is the mock's default injected failure.
var errInjected = errors.New("mock: injected failure")

// Name returns "mock".
func (*Mock) Name() string { return "mock" }

// Calls returns how many calls the mock has answered or failed.
func (m *Mock) Calls() int { return int(m.calls.Load()) }

// counter counts the mock's tokens: made when first used, not when a command
// that never summarizes starts (loading the encoding took 36 ms).
var counter = sync.OnceValue(func() estimate.Estimator { return estimate.MustNew("cl100k_base", estimate.OverheadNone) })

// Summarize returns the mock summary of req.
func (m *Mock) Summarize(ctx context.Context, req Request) (Result, error) {
	n := m.calls.Add(1)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if m.FailAll || (m.FailCall > 0 && int(n) == m.FailCall) {
		if m.Err != nil {
			return Result{}, m.Err
		}
		return Result{}, fmt.Errorf("%w (call %d)", errInjected, n)
	}
	in, sum, maxTokens, err := measure(req, paragraphs())
	if err != nil {
		return Result{}, err
	}
	want := m.Tokens
	if want <= 0 {
		want = 200
	}
	if m.Ratio > 0 {
		want = max(1, int(m.Ratio*float64(in)))
	}
	if maxTokens > 0 {
		want = min(want, maxTokens)
	}
	text := fmt.Sprintf("[mock summary %x] %s", sum, extract(req.Messages, req.Previous).text())
	text, out := fitCounted(text, func() string { return firstWords(req.Messages, want+1) }, want)
	model := m.Model
	if model == "" {
		model = "mock"
	}
	return Result{Text: text, Model: model,
		Usage: transcript.Usage{Input: int64(in), Output: int64(out)}}, nil
}

// measure returns what the mock takes from the prompt of req: its input
// tokens (the cl100k_base counts of its system and user parts, the
// paragraphs counted through cache), the first 4 bytes of the SHA-256 of
// the system and user parts joined by a NUL, and its output limit; all as
// Render's prompt gives them (TestMeasureEqualsRender), without making
// the prompt when the template prints the conversation plainly.
func measure(req Request, cache *paragraphCache) (in int, sum []byte, maxTokens int, err error) {
	t := req.Template
	if t == nil {
		t = Generic
	}
	maxTokens = req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = t.MaxTokens
	}
	before, after, plain, err := t.around(req.Previous)
	if err != nil {
		return 0, nil, 0, err
	}
	plain = plain && req.Prompt == ""
	sha := sha256.New()
	hashString(sha, t.System)
	sha.Write([]byte{0})
	m := &promptMeter{cache: cache, sha: sha}
	if plain {
		m.WriteString(before)
		conversation.Write(m, req.Messages)
		m.WriteString(after)
	} else {
		p, err := req.Render()
		if err != nil {
			return 0, nil, 0, err
		}
		hashString(sha, p.User)
		m.n = promptTokens(p.User, cache)
	}
	return systemTokens(t.System) + m.tokens(), sha.Sum(nil)[:4], maxTokens, nil
}

// systemCounts are the counts of the system prompts measured, by text: a
// template's system prompt is the same at each of its calls. It keeps at
// most maxSystemCounts of them (the built-in templates and a few of a
// caller's own); past that a prompt is counted at each call.
var (
	systemCounts sync.Map // string → int
	systemKept   atomic.Int32
)

const maxSystemCounts = 64

// systemTokens returns the count of system, counted once while
// systemCounts has room.
func systemTokens(system string) int {
	if n, ok := systemCounts.Load(system); ok {
		return n.(int)
	}
	n := counter().Count(system)
	if systemKept.Add(1) <= maxSystemCounts {
		if _, had := systemCounts.LoadOrStore(system, n); had {
			systemKept.Add(-1)
		}
	} else {
		systemKept.Add(-1)
	}
	return n
}

// hashString writes s to h through a buffer of hashBufs: io.WriteString
// would copy all of s, often tens of kilobytes, to a new slice, and a
// buffer on the stack escapes to the heap through h.
func hashString(h hash.Hash, s string) {
	buf := hashBufs.Get().(*[4096]byte)
	defer hashBufs.Put(buf)
	for len(s) > 0 {
		n := copy(buf[:], s)
		h.Write(buf[:n])
		s = s[n:]
	}
}

var hashBufs = sync.Pool{New: func() any { return new([4096]byte) }}

// fitCounted cuts text to at most n tokens, or pads it to about n with
// the conversation's words, joined by spaces, from words (called only
// when text is too short), as an excerpt; and returns the count of what
// it returns: each text is counted once.
func fitCounted(text string, words func() string, n int) (string, int) {
	c := counter().Count(text)
	if c > n {
		return cutCounted(text, c, n)
	}
	if c == n {
		return text, c
	}
	pad := words()
	for budget := n - c - 3; budget > 0; budget-- {
		excerpt := cutTokens(pad, budget)
		if excerpt == "" {
			break
		}
		out := text + "\nExcerpt: " + excerpt
		if oc := counter().Count(out); oc <= n {
			return out, oc
		}
	}
	return text, c
}

// firstWords returns the first k words of the conversation of msgs,
// joined by spaces: all that an excerpt of fewer than k tokens can hold.
// Every word is a token at least, and the tokens of words joined by
// spaces add up (no pre-tokenizer piece spans a space but at its start),
// so cutTokens of the first k words equals cutTokens of them all for any
// budget below k; rendering and splitting the whole conversation, which
// can be megabytes, at every summary was most of the mock's time.
func firstWords(msgs []transcript.Message, k int) string {
	w := &wordWriter{k: k}
	for i := range msgs {
		if w.full() {
			break
		}
		conversation.Write(w, msgs[i:i+1])
		w.endWord() // the messages' conversations apart, as they were rendered
	}
	return strings.Join(w.words, " ")
}

// A wordWriter keeps the first k words of what is written to it, as
// strings.Fields splits them, and reads nothing past them: the
// conversation is not rendered to find its first words.
type wordWriter struct {
	k     int
	words []string
	cur   []byte // the word being written
}

func (w *wordWriter) full() bool                        { return len(w.words) >= w.k }
func (w *wordWriter) Write(b []byte) (int, error)       { writeWords(w, b); return len(b), nil }
func (w *wordWriter) WriteString(s string) (int, error) { writeWords(w, s); return len(s), nil }

// endWord ends the word being written.
func (w *wordWriter) endWord() {
	if len(w.cur) > 0 && !w.full() {
		w.words = append(w.words, string(w.cur))
	}
	w.cur = w.cur[:0]
}

func writeWords[T string | []byte](w *wordWriter, s T) {
	for i := 0; i < len(s) && !w.full(); {
		r, n := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		if unicode.IsSpace(r) {
			w.endWord()
		} else {
			w.cur = append(w.cur, s[i:i+n]...)
		}
		i += n
	}
}

// cutTokens returns the longest prefix of text, in whole words, of at most
// n tokens.
func cutTokens(text string, n int) string {
	if n <= 0 {
		return ""
	}
	out, _ := cutCounted(text, counter().Count(text), n)
	return out
}

// cutCounted is cutTokens of text, whose count is c, and the count of
// what it returns.
func cutCounted(text string, c, n int) (string, int) {
	if n <= 0 {
		return "", 0
	}
	if c <= n {
		return text, c
	}
	// The words joined by spaces, and where each ends in it: the prefix
	// of k words joined is joined[:ends[k-1]], with no string made.
	words := strings.Fields(text)
	joined := strings.Join(words, " ")
	ends := make([]int, len(words))
	at := 0
	for k, w := range words {
		if k > 0 {
			at++
		}
		at += len(w)
		ends[k] = at
	}
	prefix := func(k int) string {
		if k == 0 {
			return ""
		}
		return joined[:ends[k-1]]
	}
	counts := map[int]int{}
	fits := func(k int) bool {
		c, ok := counts[k]
		if !ok {
			c = counter().Count(prefix(k))
			counts[k] = c
		}
		return c <= n
	}
	// The words' counts, each with the space before it, add up to the
	// count of the words joined (see firstWords): the prefix they give is
	// the answer, confirmed by two counts, where the binary search below
	// would take a count for each halving.
	k := guessCut(joined, ends, n)
	if fits(k) && (k == len(words) || !fits(k+1)) {
		return prefix(k), counts[k]
	}
	lo, hi := 0, len(words)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	fits(lo)
	return prefix(lo), counts[lo]
}

// guessCut returns how many of the words of joined, which end at ends,
// the sum of their counts apart (each with the space before it) allows
// within n tokens.
func guessCut(joined string, ends []int, n int) int {
	sum, start := 0, 0
	for k, end := range ends {
		if sum += counter().Count(joined[start:end]); sum > n {
			return k
		}
		start = end // the space before the next word
	}
	return len(ends)
}

// Heuristic is the tier-1 summary of ralph-gpu's Decision 005 (Context
// Management and Message Summarization), made without a model: the tools used
// (with counts), the files explored and the commands run, extracted by rules
// from tool inputs and message text. It is deterministic and free.
type Heuristic struct{}

// Name returns "heuristic".
func (Heuristic) Name() string { return "heuristic" }

// Summarize returns the extraction of req's messages; the template and
// output limit do not apply.
func (Heuristic) Summarize(ctx context.Context, req Request) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return Result{Text: extract(req.Messages, req.Previous).text(), Model: "heuristic"}, nil
}

// extraction is what the heuristic finds in messages.
type extraction struct {
	messages int
	previous string
	tools    []string
	toolN    map[string]int
	files    []string
	commands []string
}

// Caps on what the extraction lists.
const (
	maxFiles    = 30
	maxCommands = 20
	maxCommand  = 200 // characters
)

// fileKeys and commandKeys are the tool-input fields that name files and
// hold shell commands in the agents ctxbench reads.
var (
	fileKeys    = []string{"file_path", "path", "filePath", "notebook_path", "filename", "dir_path", "absolute_path"}
	commandKeys = []string{"command", "cmd"}
)

func extract(msgs []transcript.Message, previous string) *extraction {
	x := &extraction{messages: len(msgs), previous: previous, toolN: map[string]int{}}
	seenFile, seenCmd := map[string]bool{}, map[string]bool{}
	addFile := func(f string) {
		if f != "" && !seenFile[f] && len(x.files) < maxFiles {
			seenFile[f] = true
			x.files = append(x.files, f)
		}
	}
	for _, m := range msgs {
		for _, b := range m.Blocks {
			switch b.Type {
			case transcript.BlockToolUse:
				if x.toolN[b.Name] == 0 {
					x.tools = append(x.tools, b.Name)
				}
				x.toolN[b.Name]++
				if len(x.files) == maxFiles && len(x.commands) == maxCommands {
					continue // the lists are full: nothing more to find
				}
				var in map[string]any
				if json.Unmarshal(b.Input, &in) != nil {
					continue
				}
				for _, k := range fileKeys {
					if s, ok := in[k].(string); ok {
						addFile(s)
					}
				}
				for _, k := range commandKeys {
					cmd := commandString(in[k])
					if cmd != "" && !seenCmd[cmd] && len(x.commands) < maxCommands {
						seenCmd[cmd] = true
						x.commands = append(x.commands, cmd)
					}
				}
			case transcript.BlockText:
				if len(x.files) < maxFiles {
					textFiles(b.Text, addFile)
				}
			}
		}
	}
	return x
}

// commandString returns a command input as one line: a string as it is,
// an argument list joined by spaces; cut to maxCommand characters.
func commandString(v any) string {
	var s string
	switch v := v.(type) {
	case string:
		s = v
	case []any:
		parts := make([]string, 0, len(v))
		for _, p := range v {
			parts = append(parts, fmt.Sprint(p))
		}
		s = strings.Join(parts, " ")
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxCommand {
		s = string(r[:maxCommand]) + "…"
	}
	return s
}

func (x *extraction) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Summary of %d earlier messages.", x.messages)
	if x.previous != "" {
		b.WriteString("\nEarlier: " + x.previous)
	}
	if len(x.tools) > 0 {
		parts := make([]string, len(x.tools))
		for i, t := range x.tools {
			parts[i] = fmt.Sprintf("%s (%d)", t, x.toolN[t])
		}
		b.WriteString("\nTools used: " + strings.Join(parts, ", "))
	}
	if len(x.files) > 0 {
		b.WriteString("\nFiles explored: " + strings.Join(x.files, ", "))
	}
	if len(x.commands) > 0 {
		b.WriteString("\nCommands run:")
		for _, c := range x.commands {
			b.WriteString("\n- " + c)
		}
	}
	return b.String()
}
