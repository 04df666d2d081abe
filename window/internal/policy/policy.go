package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"weak"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/msgid"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// An Item is one message of the working history: an original message of
// the transcript, possibly truncated, or a synthetic one (a summary, an
// acknowledgement) that a policy inserted.
type Item struct {
	// ID is "m<i>" for message i of the transcript and "s<k>" for the k-th
	// synthetic message of the replay, as in the trace contract.
	ID string
	// Msg is the content sent: the original message, a truncated copy, or
	// the synthetic message. Policies never modify a Msg in place.
	Msg *transcript.Message
	// Truncated marks an original message whose content a policy cut.
	Truncated bool
	// Summary marks a synthetic message that holds a summary (as opposed
	// to an acknowledgement or a continuation prompt).
	Summary bool
	// index is the transcript index + 1 when [Original] made the item (0:
	// parse ID), so that Index, called for every item of every step, does
	// not parse.
	index int32
}

// Synthetic reports whether the item is not an original message.
func (it Item) Synthetic() bool { return strings.HasPrefix(it.ID, "s") }

// Index returns the transcript index of an original item, or -1.
func (it Item) Index() int {
	if it.index > 0 {
		return int(it.index - 1)
	}
	if !strings.HasPrefix(it.ID, "m") {
		return -1
	}
	n, err := strconv.Atoi(it.ID[1:])
	if err != nil {
		return -1
	}
	return n
}

// Truncated returns it with its content replaced by m, a cut copy: the
// same id and index, marked Truncated, a summary when summary is set.
func Truncated(it Item, m *transcript.Message, summary bool) Item {
	return Item{ID: it.ID, Msg: m, Truncated: true, Summary: summary, index: it.index}
}

// TruncatedOriginal returns the item for message i of a transcript, its
// content replaced by m, a cut copy.
func TruncatedOriginal(i int, m *transcript.Message) Item {
	return Item{ID: msgid.Of(i), Msg: m, Truncated: true, index: int32(i + 1)}
}

// Original returns the item for message i of t.
func Original(t *transcript.Transcript, i int) Item {
	return Item{ID: msgid.Of(i), Msg: &t.Messages[i], index: int32(i + 1)}
}

// Env is what a policy may consult before a call. The replay engine fills
// it; it is read-only for policies.
//
// A policy decides call k from what the agent knew before it: the
// transcript's messages before Next, and of the message at Next (the
// call's reply, which may not exist yet) its model alone, which the agent
// chose. The usage of a call is known from the next call on, with its
// reply; a peer that uses "the last response's usage" uses the previous
// call's. replay's TestNoReadAhead holds every policy to this.
type Env struct {
	// Transcript is the transcript being replayed.
	Transcript *transcript.Transcript
	// Call is the 0-based number of the call being prepared, and Next the
	// index of the assistant message that call produced: every message
	// before Next has been appended to the working history.
	Call, Next int
	// Turn is how many items at the end of the history were appended since
	// the previous call (the latest turn).
	Turn int
	// Model is the model the call goes to, where known: the agent chose
	// it before the call ("": the transcript's first).
	Model string
	// Summarizer makes summaries (nil: policies that need one evict
	// without summarizing and say so).
	Summarizer summarize.Summarizer
	// Count, when set, counts an item with an estimator, as the policy
	// would itself: the replay engine's shares the counts of the
	// transcript's messages among its runs (nil: the policy counts).
	Count func(e estimate.Estimator, it Item) int
	// ModelWindow is the context window of the transcript's model (its
	// first), 0 when not known: what a policy's window parameter means
	// when it is 0, its default.
	ModelWindow int

	// ReuseSent says that nothing reads the history Apply returns after
	// the call (a replay that keeps no steps copies it): the policy may
	// build the history of its next call in the same array. It is set by
	// [Env.AllowReuse].
	ReuseSent bool
	// ChainCut, for a part of a chain that is a provider's edit, says
	// which items of the chain's history were sent cut at the previous
	// call (nil: not such a part).
	ChainCut *ChainCut
	// Given, for a part of a chain, says what changed in the history
	// given since the part's previous call (nil: not such a part).
	Given *GivenHint
}

// AllowReuse says that the caller does not read the history Apply
// returns after the call: the policy may build the history of its next
// call in the same array, overwriting what it returned. The replay engine
// says so for a run that keeps no steps.
func (e *Env) AllowReuse() { e.ReuseSent = true }

// Undone reports whether message i is one of the turns the user undid
// before this call: the replay engine leaves those out of the history it
// gives, and a policy that reads the transcript itself leaves them out
// too.
func (e *Env) Undone(i int) bool {
	for _, rb := range e.Transcript.Rollbacks {
		if rb.Index > e.Next {
			break
		}
		if rb.Drops(i) {
			return true
		}
	}
	return false
}

// Window returns the window a policy's parameter gives: the parameter,
// else the transcript's model's window, else the source's default.
func (e *Env) Window(param, source int) int {
	switch {
	case param > 0:
		return param
	case e.ModelWindow > 0:
		return e.ModelWindow
	}
	return source
}

// State is one replay's state: a policy value keeps nothing between
// calls, so that it can serve many replays at once. The engine creates a
// State per replay and applies the policy through it at every call
// ([State.Apply]).
type State struct {
	synthetic int // synthetic items made so far
	// Data is the policy's own state, set on first use.
	Data any
	// tally is the count of the history given at the previous call.
	tally tally
}

// tally remembers a history and its count with one estimator.
type tally struct {
	est   estimate.Estimator
	items []Item // a copy: the engine and the policy may reuse the slices
	n     int
	// counted is the slice last counted; sent says that the policy sent
	// it, so the next history given starts with it; given is the history
	// given at this call (see State.Apply).
	counted, given []Item
	sent           bool
}

// Apply applies p at one call, with st's state: what p.Apply returns.
// The State also notes what p was given and what it sent, so that when p
// counted the history it was given and sent it, its count of the next
// history, which starts with what was sent, needs no comparing.
func (st *State) Apply(ctx context.Context, p Policy, env *Env, hist []Item) (Step, error) {
	st.given(hist)
	step, err := p.Apply(ctx, env, st, hist)
	if err == nil {
		st.returned(step.History)
	}
	return step, err
}

// given and returned note what the policy was given and what it sent at
// a call.
func (st *State) given(hist []Item) { st.tally.given = hist }

func (st *State) returned(sent []Item) {
	t := &st.tally
	t.sent = len(sent) > 0 && len(sent) == len(t.counted) && &sent[0] == &t.counted[0] &&
		len(t.given) == len(t.counted) && &t.given[0] == &t.counted[0]
	t.given = nil
}

// HistoryTokens returns e's count of hist, the history the policy is
// given. That history starts, item for item, with the one given at the
// previous call unless the policy changed it, so the State keeps the
// previous history and its count, and counts only the items that differ
// at their place, and those past the shorter of the two: comparing items
// by identity costs far less than counting them, so a policy that
// measures its whole history at every call costs what changed.
func (st *State) HistoryTokens(env *Env, e estimate.Estimator, hist []Item) int {
	t := &st.tally
	if t.est != e {
		*t = tally{est: e}
	}
	same := 0
	if t.sent && len(hist) >= len(t.items) && len(t.given) == len(hist) && len(hist) > 0 && &t.given[0] == &hist[0] {
		same = len(t.items) // the history sent, then what came since
	} else {
		for same < len(t.items) && same < len(hist) && sameItem(t.items[same], hist[same]) {
			same++
		}
	}
	t.counted, t.sent = hist, false
	// Items replaced in place (a policy clearing old outputs) change the
	// count by their difference; the rest of either history is
	// subtracted or added whole.
	both := min(len(t.items), len(hist))
	for i := same; i < both; i++ {
		if old := t.items[i]; !sameItem(old, hist[i]) {
			t.n += Count(env, e, hist[i]) - Count(env, e, old)
			t.items[i] = hist[i]
		}
	}
	t.n -= Tokens(env, e, t.items[both:])
	t.n += Tokens(env, e, hist[both:])
	t.items = append(t.items[:both], hist[both:]...)
	return t.n
}

func sameItem(a, b Item) bool {
	return a.Msg == b.Msg && a.ID == b.ID && a.Truncated == b.Truncated && a.Summary == b.Summary
}

// Reinjected returns a synthetic item, with the next s<k> id, holding a
// copy of it: what an agent builds anew from the same source (Codex's
// initial context after a compaction), not the original sent again.
func (st *State) Reinjected(it Item) Item {
	st.synthetic++
	m := *it.Msg
	return Item{ID: "s" + strconv.Itoa(st.synthetic), Msg: &m}
}

// NewItem returns a synthetic item with the next s<k> id.
func (st *State) NewItem(role transcript.Role, text string, summary bool) Item {
	st.synthetic++
	return Item{ID: "s" + strconv.Itoa(st.synthetic), Summary: summary,
		Msg: &transcript.Message{Role: role, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: text}}}}
}

// Step is what a policy did before one call.
type Step struct {
	// History is the working history after the policy: what is sent.
	History []Item
	// Evicted and Truncated are the ids dropped or cut at this step.
	Evicted, Truncated []string
	// Summary is the summary made (or attempted) at this step, if any.
	Summary *SummaryEvent
	// Fired says that the policy's own trigger fired at this step — a
	// compaction or a clearing ran — and what it counted (nil: it did
	// not fire). The replay's headroom invariant reads it.
	Fired *Firing
	// Warnings are things a person should know (a configuration the
	// source warns about, a summary skipped, a fallback taken).
	Warnings []string
}

// A Firing is one firing of a policy's trigger: what ran, the threshold
// it fired at, and the policy's own count of the history before and
// after it, in the policy's own unit (its estimate of tokens, or
// messages).
type Firing struct {
	What    string `json:"what"`
	Unit    string `json:"unit"`
	Trigger int    `json:"trigger"`
	Before  int    `json:"before"`
	After   int    `json:"after"`
}

// SummaryEvent describes a summarization at one step.
type SummaryEvent struct {
	// ID is the summary item's id ("" when it failed).
	ID string `json:"id"`
	// Covers lists the ids of the items the summary stands for.
	Covers IDs `json:"covers"`
	// InputTokens and OutputTokens are what the summary call used.
	Usage  transcript.Usage `json:"-"`
	Cached bool             `json:"cached"`
	Model  string           `json:"model,omitempty"`
	// CostUSD is what the call cost, where the summarizer prices it.
	CostUSD float64 `json:"cost_usd,omitempty"`
	// Error is the summarizer's error when it failed: the policy then did
	// what its source does on failure.
	Error string `json:"error"`
}

// MarshalJSON writes the event as the trace contract has it: input_tokens
// and output_tokens beside id, covers, cached and error.
func (e SummaryEvent) MarshalJSON() ([]byte, error) {
	type plain SummaryEvent
	return json.Marshal(struct {
		plain
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	}{plain(e), e.Usage.Prompt(), e.Usage.Output})
}

// UnmarshalJSON reads what MarshalJSON writes: input_tokens (the whole
// prompt, into Usage.Input) and output_tokens.
func (e *SummaryEvent) UnmarshalJSON(b []byte) error {
	type plain SummaryEvent
	var v struct {
		plain
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*e = SummaryEvent(v.plain)
	e.Usage = transcript.Usage{Input: v.InputTokens, Output: v.OutputTokens}
	return nil
}

// A Policy transforms the working history before each call. Apply gets the
// history with the latest turn appended and returns what to send. Its only
// errors are the context's; a failed summary is handled as the policy's
// source handles it and reported in the Step.
//
// Apply must not modify the elements of hist, nor keep hist past the
// call: it may return hist itself, a part of it, or a new slice (when
// env.ReuseSent, one in the array of what it returned before). The
// replay engine relies on it to see, without comparing them item by
// item, that a history it is given back is the one it gave (the engine's
// tests hold every policy to it).
type Policy interface {
	// Name is the registered name; Params the resolved parameter values.
	Name() string
	Params() Values
	Apply(ctx context.Context, env *Env, st *State, hist []Item) (Step, error)
}

// Tokens returns e's count of the items, through env's cache.
func Tokens(env *Env, e estimate.Estimator, items []Item) int {
	n := 0
	for _, it := range items {
		n += Count(env, e, it)
	}
	return n
}

// Count returns e's count of the item, through env's cache.
func Count(env *Env, e estimate.Estimator, it Item) int {
	if env != nil && env.Count != nil {
		return env.Count(e, it)
	}
	return e.CountMessage(it.Msg)
}

// ItemIDs returns the ids of items.
func ItemIDs(items []Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// EvictedFrom returns the ids of hist that out does not send. The ids of
// hist are distinct (it is the engine's history).
func EvictedFrom(hist, out []Item) []string {
	// Most policies send a subsequence of their history: then one walk
	// over both finds what is left out, without a set.
	var ev []string
	j := 0
	for _, it := range hist {
		if j < len(out) && out[j].ID == it.ID {
			j++
		} else {
			ev = append(ev, it.ID)
		}
	}
	if j == len(out) {
		return ev
	}
	keep := make(map[string]bool, len(out))
	for _, it := range out {
		keep[it.ID] = true
	}
	ev = nil
	for _, it := range hist {
		if !keep[it.ID] {
			ev = append(ev, it.ID)
		}
	}
	return ev
}

// Messages returns the messages of items.
func Messages(items []Item) []transcript.Message {
	out := make([]transcript.Message, len(items))
	for i, it := range items {
		out[i] = *it.Msg
	}
	return out
}

// SummarizeItems asks env's summarizer for a summary of items. On success
// it returns the text and the event (without ID, which the caller sets when
// it places the summary); on failure the text is "" and the event holds
// the error.
func SummarizeItems(ctx context.Context, env *Env, items []Item, previous string, tmpl *summarize.Template) (string, *SummaryEvent, error) {
	if env.Summarizer == nil {
		return SummarizeRequest(ctx, env, ItemIDs(items), summarize.Request{})
	}
	return SummarizeRequest(ctx, env, ItemIDs(items), summarize.Request{Messages: Messages(items), Previous: previous, Template: tmpl})
}

// SummarizeRequest is summarizeItems with the request made: req is a
// summary of the items whose ids are covers.
func SummarizeRequest(ctx context.Context, env *Env, covers []string, req summarize.Request) (string, *SummaryEvent, error) {
	ev := &SummaryEvent{Covers: covers}
	if env.Summarizer == nil {
		ev.Error = "no summarizer configured"
		return "", ev, nil
	}
	res, err := env.Summarizer.Summarize(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return "", nil, ctx.Err()
		}
		if errors.Is(err, summarize.ErrStopped) {
			return "", nil, err // the run stops: no policy goes on as if one summary failed
		}
		ev.Error = err.Error()
		return "", ev, nil
	}
	ev.Usage, ev.Cached, ev.Model, ev.CostUSD = res.Usage, res.Cached, res.Model, res.CostUSD
	return res.Text, ev, nil
}

// SummarizeOrKeep summarizes items for step, recording the event in it.
// When the summary fails it warns that what failed and the history is
// kept, and returns ok false: the policy sends its history as it was,
// as the compacting agents do.
func SummarizeOrKeep(ctx context.Context, env *Env, step *Step, what string, items []Item, previous string, tmpl *summarize.Template) (text string, ok bool, err error) {
	text, ev, err := SummarizeItems(ctx, env, items, previous, tmpl)
	if err != nil {
		return "", false, err
	}
	step.Summary = ev
	if ev.Error != "" {
		Warnf(step, "%s failed, history kept: %s", what, ev.Error)
		return "", false, nil
	}
	return text, true, nil
}

// HasText reports whether any item holds non-blank text.
func HasText(items []Item) bool {
	for _, it := range items {
		for _, b := range it.Msg.Blocks {
			if b.Type == transcript.BlockText && strings.TrimSpace(b.Text) != "" {
				return true
			}
		}
	}
	return false
}

// ToolUses returns the tool_use ids an item holds.
func ToolUses(it Item) []string {
	var out []string
	for _, b := range it.Msg.Blocks {
		if b.Type == transcript.BlockToolUse {
			out = append(out, b.ID)
		}
	}
	return out
}

// ToolResults returns the tool_use ids the item's tool results answer.
func ToolResults(it Item) []string {
	var out []string
	for _, b := range it.Msg.Blocks {
		if b.Type == transcript.BlockToolResult {
			out = append(out, b.ID)
		}
	}
	return out
}

// Has reports whether the item holds a block of type t.
func Has(it Item, t transcript.BlockType) bool {
	for _, b := range it.Msg.Blocks {
		if b.Type == t {
			return true
		}
	}
	return false
}

// PendingTools reports whether hist[i] calls tools (whose results follow).
func PendingTools(it Item) bool { return Has(it, transcript.BlockToolUse) }

// Warnf adds a warning to s.
func Warnf(s *Step, format string, args ...any) {
	s.Warnings = append(s.Warnings, fmt.Sprintf(format, args...))
}

// Guarantees are what a policy promises by design, for the replay's
// invariant checks. A zero field promises nothing.
type Guarantees struct {
	// MaxMessages caps the messages sent: at most MaxMessages plus the
	// latest turn plus SummaryExtra.
	MaxMessages, SummaryExtra int
	// Head and Tail are the messages at the start and the end of the
	// history that are always sent, verbatim.
	Head, Tail int
	// PairSafe promises that no tool result is sent without its call, and
	// no call without its result.
	PairSafe bool
	// SummaryRole is the role a summary has; SummaryFirst says it comes
	// first (after a leading system message) when it is made.
	SummaryRole  transcript.Role
	SummaryFirst bool
	// Compacts says the policy's summaries replace history to save tokens:
	// the context after one must count fewer tokens than before.
	Compacts bool
}

// An Inert policy can tell, before a replay, that it will send every
// history of a transcript as given: no eviction, truncation, summary or
// warning at any call. A replay under it is then a replay under none —
// the same contexts, counts, retention and violations — which a sweep
// makes once per transcript for all such points.
type Inert interface {
	InertOn(t *transcript.Transcript) bool
}

// A Cautioner says, before a replay, where its settings promise what it
// does not keep or the replay does not check: one sentence each, none
// when they promise nothing amiss.
type Cautioner interface {
	Cautions() []string
}

// A Guarantor declares its guarantees; policies that do not implement it
// promise nothing beyond the invariants that hold for every policy
// (order, conservation, at most one summary).
type Guarantor interface {
	Guarantees() Guarantees
}

// ToolNames returns, for each tool call of t, the tool's name. The maps
// of the last transcripts are kept, since a replay asks for them at every
// compression, but not the transcripts: an entry names its transcript by
// a weak pointer and copies the names (which may share the transcript's
// memory), so that a transcript whose replays have ended is freed.
func ToolNames(t *transcript.Transcript) map[string]string {
	key := weak.Make(t)
	namesMu.Lock()
	defer namesMu.Unlock()
	for _, e := range namesCache {
		if e.t == key {
			return e.names
		}
	}
	names := map[string]string{}
	if t != nil {
		for i := range t.Messages {
			for _, b := range t.Messages[i].Blocks {
				if b.Type == transcript.BlockToolUse {
					if _, ok := names[b.ID]; !ok {
						names[strings.Clone(b.ID)] = strings.Clone(b.Name)
					}
				}
			}
		}
	}
	// Entries of freed transcripts go first.
	namesCache = slices.DeleteFunc(namesCache, func(e namesEntry) bool { return e.t.Value() == nil })
	namesCache = append(namesCache, namesEntry{key, names})
	if len(namesCache) > 8 {
		namesCache = namesCache[1:]
	}
	return names
}

type namesEntry struct {
	t     weak.Pointer[transcript.Transcript]
	names map[string]string
}

var (
	namesMu    sync.Mutex
	namesCache []namesEntry
)

// TranscriptOf returns env's transcript (nil for a nil env).
func TranscriptOf(env *Env) *transcript.Transcript {
	if env == nil {
		return nil
	}
	return env.Transcript
}

// CallModel returns the model of the call being prepared (the agent
// chose it before the call), or the transcript's first.
func CallModel(env *Env) string {
	if m := env.Model; m != "" && m != "<synthetic>" {
		return m
	}
	if len(env.Transcript.Models) > 0 {
		return env.Transcript.Models[0]
	}
	return ""
}

// Count4 is chars4's count of one item, through env's cache.
func Count4(env *Env, it Item) int { return Count(env, Chars4(), it) }
