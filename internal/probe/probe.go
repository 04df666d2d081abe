// Package probe asks what a policy lost: questions about the part of a
// history a policy no longer sends verbatim, with the answers the
// recording holds, and a judge of whether the context it did send can
// still answer them.
//
// Probes are extracted from the transcript alone, deterministically,
// after the probe kinds of Factory's evaluation of context compression
// (factory.ai, "Evaluating Context Compression for AI Agents", 2025):
//
//   - artifact: each file a tool read or changed and the last action on
//     it; each command a tool ran and its outcome;
//   - recall: the error lines and exit codes tools reported, and the
//     numbers and names the user gave;
//   - decision: the user's constraints (sentences with "don't", "must",
//     "always", "never", …; not the text the agent puts in the user's
//     turn) and the choices and changes the assistant stated ("I'll use",
//     "instead of", "I need to rename", "the fix is", …);
//   - continuation: the next recorded user request or tool action.
//
// Each [Probe] carries the keys its answer cannot be given without: a
// path, a command, an error line, a number, a sentence. The exact judge
// ([Context.Keeps]) keeps a probe when every key appears in the context
// sent (any message, a truncated copy or a summary), compared lowercased
// with runs of spaces as one: a paraphrase loses the probe, which is
// what an exact judge can say and a model judge may not.
package probe

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/ctxbench/ctxbench/transcript"
)

// A Kind is what a probe asks about.
type Kind string

// The probe kinds, in the order they are reported.
const (
	Artifact     Kind = "artifact"
	Recall       Kind = "recall"
	Decision     Kind = "decision"
	Continuation Kind = "continuation"
)

// Kinds returns the kinds in report order.
func Kinds() []Kind { return []Kind{Artifact, Recall, Decision, Continuation} }

// A Probe is one question about a history, with the answer the
// recording holds.
type Probe struct {
	Kind     Kind   `json:"kind"`
	Question string `json:"question"`
	Answer   string `json:"answer"`
	// Keys are the texts the answer cannot be given without; the exact
	// judge looks for each in the context sent.
	Keys []string `json:"keys"`
	// Message is the index of the message the probe came from.
	Message int `json:"message"`
}

// Limits bound what one message contributes, so that a long tool
// output does not flood the probes.
const (
	maxPerMessage = 4
	maxAnswer     = 200
)

// An Extractor makes the probes of one transcript; it indexes the
// transcript's tool results once, and finds each message's probes once,
// so that asking at every call of a long session, under many policies,
// costs what the messages asked about cost. It is safe for concurrent
// use.
type Extractor struct {
	t       *transcript.Transcript
	results map[string]*transcript.Block
	// of[i] is message i's probes, found on first use; next[i] the
	// continuation probe from message i on.
	of   []atomic.Pointer[messageProbes]
	next []atomic.Pointer[nextProbe]
}

// A nextProbe is the continuation probe from a message on, if any.
type nextProbe struct {
	p  Probe
	ok bool
}

// messageProbes are what one message contributes to a call's probes:
// its probes in the order they were found (each once), and the files
// its tool calls acted on.
type messageProbes struct {
	probes []Probe
	files  []fileAction
}

// NewExtractor returns the extractor of t.
func NewExtractor(t *transcript.Transcript) *Extractor {
	n := len(t.Messages)
	return &Extractor{t: t, results: results(t), of: make([]atomic.Pointer[messageProbes], n), next: make([]atomic.Pointer[nextProbe], n)}
}

// Prepare finds message i's probes, if they are not found yet: what a
// caller that will ask about the messages later calls ahead, on many
// goroutines.
func (e *Extractor) Prepare(i int) { e.message(i) }

// message returns message i's probes, found on first use (two callers
// may both find them; the first stored wins).
func (e *Extractor) message(i int) *messageProbes {
	if mp := e.of[i].Load(); mp != nil {
		return mp
	}
	x := extractor{t: e.t, results: e.results}
	if !Undone(e.t, i) {
		x.message(i)
	}
	mp := &messageProbes{probes: x.probes}
	for _, p := range x.paths {
		mp.files = append(mp.files, x.last[p])
	}
	if e.of[i].CompareAndSwap(nil, mp) {
		return mp
	}
	return e.of[i].Load()
}

// Of returns the probes about the messages dropped of the transcript
// (indices, in order): artifact, recall and decision probes from those
// messages, and, when next is a message index, a continuation probe
// about the first user request or tool action from next on. A tool
// call's outcome is looked up anywhere in the transcript (it may follow
// the call).
func (e *Extractor) Of(dropped []int, next int) []Probe {
	var (
		out   []Probe
		paths []string
		last  = map[string]fileAction{}
		seen  = map[string]bool{}
	)
	for _, i := range dropped {
		if i < 0 || i >= len(e.t.Messages) {
			continue
		}
		mp := e.message(i)
		for _, p := range mp.probes {
			if k := p.Identity(); !seen[k] {
				seen[k] = true
				out = append(out, p)
			}
		}
		for _, f := range mp.files {
			if _, ok := last[f.path]; !ok {
				paths = append(paths, f.path)
			}
			last[f.path] = f
		}
	}
	files := make([]Probe, 0, len(paths)+len(out)+1)
	for _, p := range paths {
		files = append(files, last[p].probe())
	}
	out = append(files, out...)
	if p, ok := e.continuation(next); ok {
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(a, b Probe) int { return slices.Index(Kinds(), a.Kind) - slices.Index(Kinds(), b.Kind) })
	return out
}

// Session returns how many probes of each kind the session holds, as a
// [Loss] counts them: those about every message before the last
// assistant message (the messages a call can send), each kind and keys
// once, and one per distinct continuation probe of the calls.
func (e *Extractor) Session() map[Kind]int {
	out := map[Kind]int{}
	for _, p := range e.SessionProbes() {
		out[p.Kind]++
	}
	return out
}

// SessionProbes returns the session's probes that [Extractor.Session]
// counts, each kind and keys once: those about the messages before the
// last assistant message, then each distinct continuation probe. Every
// probe [Extractor.Of] returns for a call is one of them, by
// [Probe.Identity].
func (e *Extractor) SessionProbes() []Probe {
	last := -1
	for i := range e.t.Messages {
		if e.t.Messages[i].Role == transcript.RoleAssistant {
			last = i
		}
	}
	idx := make([]int, max(last, 0))
	for i := range idx {
		idx[i] = i
	}
	out := e.Of(idx, -1)
	seen := map[string]bool{}
	for i := range e.t.Messages {
		if e.t.Messages[i].Role != transcript.RoleAssistant {
			continue
		}
		if p, ok := e.continuation(i); ok && !seen[p.Identity()] {
			seen[p.Identity()] = true
			out = append(out, p)
		}
	}
	return out
}

// Keys returns every key a probe [Extractor.Of] returns can have: the
// keys of each message's probes and the paths of its files, and those
// of the continuation probe of each call (from each assistant message
// on), each once, in that order.
func (e *Extractor) Keys() []string {
	seen := map[string]bool{}
	var out []string
	add := func(keys ...string) {
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	for i := range e.t.Messages {
		mp := e.message(i)
		for _, p := range mp.probes {
			add(p.Keys...)
		}
		for _, f := range mp.files {
			add(f.path)
		}
		if e.t.Messages[i].Role == transcript.RoleAssistant {
			if p, ok := e.continuation(i); ok {
				add(p.Keys...)
			}
		}
	}
	return out
}

// continuation returns the continuation probe from message next on,
// found on first use.
func (e *Extractor) continuation(next int) (Probe, bool) {
	if next < 0 || next >= len(e.next) {
		return Probe{}, false
	}
	if np := e.next[next].Load(); np != nil {
		return np.p, np.ok
	}
	p, ok := continuation(e.t, next)
	e.next[next].CompareAndSwap(nil, &nextProbe{p, ok})
	return p, ok
}

// Of returns the probes about the messages dropped of t (see
// [Extractor.Of]).
func Of(t *transcript.Transcript, dropped []int, next int) []Probe {
	return NewExtractor(t).Of(dropped, next)
}

type extractor struct {
	t       *transcript.Transcript
	results map[string]*transcript.Block
	// files: the last action on each path, in first-seen order.
	paths  []string
	last   map[string]fileAction
	probes []Probe
	seen   map[string]bool
}

// A fileAction is the last action on a file: the tool and the message
// of its call.
type fileAction struct {
	path string
	tool string
	msg  int
}

// probe is the artifact probe about the file.
func (a fileAction) probe() Probe {
	return Probe{Kind: Artifact, Question: fmt.Sprintf("What was last done to %s?", a.path),
		Answer: a.tool + " " + a.path, Keys: []string{a.path}, Message: a.msg}
}

// results indexes t's tool results by the id of the call they answer.
func results(t *transcript.Transcript) map[string]*transcript.Block {
	m := map[string]*transcript.Block{}
	for i := range t.Messages {
		for j := range t.Messages[i].Blocks {
			if b := &t.Messages[i].Blocks[j]; b.Type == transcript.BlockToolResult && b.ID != "" {
				m[b.ID] = b
			}
		}
	}
	return m
}

// Identity is what makes two probes the same: their kind and keys.
func (p Probe) Identity() string {
	return string(p.Kind) + "\x00" + strings.Join(p.Keys, "\x00")
}

func (x *extractor) add(p Probe) {
	key := p.Identity()
	if x.seen == nil {
		x.seen = map[string]bool{}
	}
	if x.seen[key] || len(p.Keys) == 0 {
		return
	}
	x.seen[key] = true
	x.probes = append(x.probes, p)
}

func (x *extractor) message(i int) {
	m := &x.t.Messages[i]
	perMessage := 0
	budget := func() bool { perMessage++; return perMessage <= maxPerMessage }
	for j := range m.Blocks {
		b := &m.Blocks[j]
		switch b.Type {
		case transcript.BlockToolUse:
			x.toolUse(i, b)
		case transcript.BlockToolResult:
			x.toolResult(i, b, budget)
		case transcript.BlockText:
			switch m.Role {
			case transcript.RoleUser:
				if !injected(b.Text) {
					x.userText(i, b.Text, budget)
				}
			case transcript.RoleAssistant:
				x.choices(i, b.Text, budget)
			}
		}
	}
}

// inputField returns the first string field of a tool input named one
// of keys.
func inputField(input json.RawMessage, keys ...string) string {
	return field(inputFields(input), keys...)
}

// inputFields returns a tool input's fields, nil if it is not an object.
func inputFields(input json.RawMessage) map[string]any {
	var in map[string]any
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	return in
}

// field returns the first string of in, not blank, named one of keys,
// without the white space around it.
func field(in map[string]any, keys ...string) string {
	for _, k := range keys {
		if v, ok := in[k].(string); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

var pathKeys = []string{"file_path", "path", "notebook_path", "filePath", "filename"}
var commandKeys = []string{"command", "cmd"}

func (x *extractor) toolUse(i int, b *transcript.Block) {
	in := inputFields(b.Input)
	if p := field(in, pathKeys...); p != "" {
		if x.last == nil {
			x.last = map[string]fileAction{}
		}
		if _, ok := x.last[p]; !ok {
			x.paths = append(x.paths, p)
		}
		x.last[p] = fileAction{p, b.Name, i}
	}
	cmd := field(in, commandKeys...)
	if cmd == "" || len(cmd) > 300 {
		return
	}
	outcome, keys := "no result recorded", []string{cmd}
	if r := x.results[b.ID]; r != nil {
		switch line := firstErrorLine(r.Text); {
		case line != "":
			outcome, keys = "failed: "+clip(line), []string{cmd, clip(line)}
		case r.IsError:
			outcome = "failed"
		default:
			outcome = "succeeded"
		}
	}
	x.add(Probe{Kind: Artifact, Question: fmt.Sprintf("What happened when the agent ran `%s`?", clip(cmd)), Answer: outcome, Keys: keys, Message: i})
}

var exitCode = regexp.MustCompile(`(?i)\bexit(?:ed with)? (?:code|status)[ :=]+(-?\d+)`)

func (x *extractor) toolResult(i int, b *transcript.Block, budget func() bool) {
	if line := firstErrorLine(b.Text); line != "" && budget() {
		x.add(Probe{Kind: Recall, Question: "What error did a tool report?", Answer: clip(line), Keys: []string{clip(line)}, Message: i})
	}
	if !hasWordFold(b.Text, "exit") {
		return
	}
	if m := exitCode.FindString(b.Text); m != "" && budget() {
		x.add(Probe{Kind: Recall, Question: "What exit code did a command end with?", Answer: m, Keys: []string{m}, Message: i})
	}
}

// firstErrorLine returns the first line of s that reports an error.
func firstErrorLine(s string) string {
	// Most tool output holds none of the words: it is looked through
	// once for their starts before its lines are matched.
	if !mayMatchFold(s, errorCues...) {
		return ""
	}
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimSpace(line)
		if len(line) >= 8 && mayMatchFold(line, errorCues...) && errorWords.MatchString(line) {
			return line
		}
	}
	return ""
}

// mayMatchFold reports whether s may hold a match of a case-insensitive
// pattern each of whose matches holds one of cues: s holds one in any
// ASCII case, or a letter whose case folds reach outside ASCII (the
// long s and the Kelvin sign, which (?i) matches for s and k). Most
// text holds none, and is looked through once instead of matched.
func mayMatchFold(s string, cues ...string) bool {
	return hasWordFold(s, cues...) || strings.Contains(s, "\u017f") || strings.Contains(s, "\u212a")
}

// hasWordFold reports whether s holds one of words, lowercase ASCII
// letters, in any ASCII case.
func hasWordFold(s string, words ...string) bool {
	for i := 0; i < len(s); i++ {
		// c|0x20 is a lowercase letter only for that letter in either
		// case.
		c := s[i] | 0x20
		for _, w := range words {
			if c == w[0] && len(s)-i >= len(w) && equalFoldASCII(s[i:i+len(w)], w) {
				return true
			}
		}
	}
	return false
}

// equalFoldASCII reports whether s is w, lowercase ASCII letters, in any
// case.
func equalFoldASCII(s, w string) bool {
	for j := range len(w) {
		if s[j]|0x20 != w[j] {
			return false
		}
	}
	return true
}

var errorWords = regexp.MustCompile(`(?i)\b(errors?|exception|traceback|fail|failed|failing|failure|fatal|panic)\b`)

// The cues of errorWords, constraint and choice: each match of one holds
// one of its cues.
var (
	errorCues      = []string{"error", "exception", "traceback", "fail", "fatal", "panic"}
	constraintCues = []string{"don't", "do not", "never", "always", "must", "should", "only use", "make sure"}
	choiceCues     = []string{"use", "go with", "chose", "decided", "instead of", "rather than", "need to", "i'll", "i will", "the fix", "the plan", "the approach"}
)

var (
	number    = regexp.MustCompile(`(?:^|[\s(=:$])(\d[\d,]*(?:\.\d+)?%?)`)
	quoted    = regexp.MustCompile("`([^`\n]{2,80})`" + `|"([^"\n]{2,80})"`)
	sentences = regexp.MustCompile(`[^.!?\n]+[.!?]?`)
	// constraint and choice words (the user's rules; the assistant's
	// stated decisions).
	constraint = regexp.MustCompile(`(?i)\b(don't|do not|never|always|must|mustn't|must not|should not|shouldn't|only use|make sure)\b`)
	// A choice is also a stated intent to change something (I need to
	// rename X, I'll add Y) and a stated fix or plan.
	choice = regexp.MustCompile(`(?i)\b(i'll use|i will use|i'll go with|i chose|i decided|i've decided|instead of|rather than|let's use|we'll use|i'm going to use|i need to|we need to|(?:i'll|i will) (?:add|create|rename|replace|remove|move|switch|change|keep|split|extract|rewrite)|the (?:fix|plan|approach) is)\b`)
)

func (x *extractor) userText(i int, text string, budget func() bool) {
	x.decisions(i, text, constraint, constraintCues, "What constraint did the user set?", budget)
	for _, m := range quoted.FindAllStringSubmatch(text, -1) {
		v := strings.TrimSpace(m[1] + m[2])
		if v != "" && budget() {
			x.add(Probe{Kind: Recall, Question: "What name did the user give?", Answer: v, Keys: []string{v}, Message: i})
		}
	}
	for _, m := range number.FindAllStringSubmatch(text, -1) {
		if v := strings.TrimRight(m[1], ",."); len(strings.Trim(v, "%")) >= 2 && budget() {
			x.add(Probe{Kind: Recall, Question: "What number did the user give?", Answer: v, Keys: []string{v}, Message: i})
		}
	}
}

func (x *extractor) choices(i int, text string, budget func() bool) {
	x.decisions(i, text, choice, choiceCues, "What did the assistant decide?", budget)
}

// decisions adds a decision probe asking question of each sentence of
// text of 12 bytes or more that words matches (each match holding one
// of cues).
func (x *extractor) decisions(i int, text string, words *regexp.Regexp, cues []string, question string, budget func() bool) {
	if !mayMatchFold(text, cues...) {
		return
	}
	for _, s := range sentences.FindAllString(text, -1) {
		if s = sentence(s); len(s) >= 12 && mayMatchFold(s, cues...) && words.MatchString(s) && budget() {
			x.add(Probe{Kind: Decision, Question: question, Answer: clip(s), Keys: []string{clip(s)}, Message: i})
		}
	}
}

// sentence is s without the white space around it and the markdown
// quote and list marks before it.
func sentence(s string) string {
	return strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), ">-*•# "))
}

// continuation is the probe about what came next: the first user request
// or tool action at or after message next.
func continuation(t *transcript.Transcript, next int) (Probe, bool) {
	if next < 0 {
		return Probe{}, false
	}
	for i := next; i < len(t.Messages); i++ {
		if Undone(t, i) {
			continue
		}
		m := &t.Messages[i]
		for _, b := range m.Blocks {
			switch {
			case b.Type == transcript.BlockToolUse:
				key := inputField(b.Input, append(append(slices.Clone(pathKeys), commandKeys...), "pattern", "url", "query")...)
				if key == "" {
					key = b.Name
				}
				return Probe{Kind: Continuation, Question: "What is the next step?", Answer: strings.TrimSpace(b.Name + " " + clip(key)),
					Keys: []string{clip(key)}, Message: i}, true
			case b.Type == transcript.BlockText && m.Role == transcript.RoleUser && strings.TrimSpace(b.Text) != "" && !injected(b.Text):
				line := clip(firstLine(b.Text))
				return Probe{Kind: Continuation, Question: "What did the user ask for next?", Answer: line, Keys: []string{line}, Message: i}, true
			}
		}
	}
	return Probe{}, false
}

// Undone reports whether the user undid message i of t (a rollback
// drops it): no policy sends it after, so no probe asks about it, and
// the policy that sends everything keeps every probe.
func Undone(t *transcript.Transcript, i int) bool {
	for _, rb := range t.Rollbacks {
		if rb.Drops(i) {
			return true
		}
	}
	return false
}

// localCommandCaveat opens the text Claude Code puts in the user's turn
// before the output of a local command (! or a slash command), inside
// <local-command-caveat> tags: the
// agent's words, not the user's, so neither a constraint the user set
// nor a request.
const localCommandCaveat = "Caveat: The messages below were generated by the user while running local commands."

// injected reports whether text, a user message's, is one the agent
// wrote there rather than the user: Claude Code's local-command caveat.
func injected(text string) bool {
	text = strings.TrimPrefix(strings.TrimSpace(text), "<local-command-caveat>")
	return strings.HasPrefix(text, localCommandCaveat)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// clip cuts s to maxAnswer bytes at a rune boundary.
func clip(s string) string {
	if len(s) <= maxAnswer {
		return s
	}
	i := maxAnswer
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i]
}
