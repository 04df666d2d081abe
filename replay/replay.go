// Package replay runs a transcript through a context-window policy, call by
// call, and measures what would have been sent: the step engine, the steps
// and their trace, the invariants, retention, and sweeps over a grid of
// parameters. It does not price: package cost prices a replayed run.
//
// # The engine
//
// For each call k: the turn before it — the messages recorded since call
// k−1 — is appended to the working history; the policy transforms the
// history (it may evict, truncate, insert or update a summary); the
// context that would have been sent is recorded and counted with each
// estimator; the invariants are checked; then the recorded assistant
// message k is appended. Responses are never regenerated: the replay is a
// counterfactual on what is sent, not on what comes back. [Replay] runs
// one policy; a [Replayer] runs a transcript under many, one after
// another or side by side ([Replayer.ReplayAll]), each message counted
// once for all of them; a [Sweeper] a grid of one policy's parameters
// over many transcripts, while they are read.
//
// A [Run] holds a [Step] per call and a [Summary] of the run; the
// command writes the steps as the trace, one JSON object per call
// (internal/tracefmt).
//
// # Invariants
//
// Every step is checked against the invariants ([Invariants]): the cap,
// the preserved head and tail (anchors), the original order, tool pairing,
// the summary's count, role and place, shrinking compactions, headroom
// (a compaction or clearing leaves the history below its own trigger and
// does not fire again at the next call), and conservation. A violation is a value ([Violation]), never a log line; a
// policy that breaks one by design is replayed as designed, and the
// violation shown.
//
// # Retention
//
// A step's retention is the share of the artifacts seen so far — file
// paths, shell commands, URLs, error lines and tool calls — that the
// context still holds, summary text included: a proxy for what the agent
// can still see.
package replay

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"weak"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/countcache"
	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/internal/resolve"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// Options are the settings of a replay.
type Options struct {
	// Estimators count every context sent; the first is the primary one
	// (used by the shrinks invariant). Default: cl100k_base.
	Estimators []estimate.Estimator
	// Summarizer makes the summaries policies ask for (nil: none).
	Summarizer summarize.Summarizer
	// NoSteps keeps no steps: the run has its Summary and its
	// Violations, and memory does not grow with the calls. Sweeps and
	// replays that print summaries set it.
	NoSteps bool
	// NoRetention measures neither retention nor the probe score: every
	// step's Retention and probes, and the Summary's MeanRetention,
	// MinRetention, Probes and ProbeScore, are 0, and the Summary says so
	// (RetentionNotMeasured): what a caller that shows neither (the bill,
	// the cost of a policy) sets, so that no message's artifacts are
	// found.
	NoRetention bool
	// Prices is the model table a policy's window defaults come from:
	// a window parameter left at 0 is the context window of the
	// transcript's model (nil: [pricing.Default]).
	Prices pricing.Prices
	// Observe, when set, is given each step as it is made, whole (its
	// ids, tokens and context), whether or not the run keeps it: what a
	// caller that needs every step but not all of them at once (pricing,
	// per-call series) reads instead of the run's Steps. run is the
	// policy's index in [Replayer.ReplayAll]'s list (0 otherwise). A
	// run's steps come in order, on one goroutine; ReplayAll's runs may
	// call it at the same time. The step and its Sent are valid during
	// the call only: what is kept must be copied (Context's ids, never
	// written again, may be kept). An error stops the run.
	Observe func(run int, s *Step) error
	// run is the index Observe is given.
	run int
	// counts and arts are the caches the runs of a transcript share (a
	// Replayer's; nil: the run's own).
	counts *countcache.Cache
	arts   *artifactCache
	// recompute measures and checks every step's context whole, the
	// reference the incremental steps are tested against.
	recompute bool
	// countViolations counts the violations in the Summary and lists none:
	// the run's Violations is empty, and a step's violations hold their
	// step and invariant alone (no ids, no detail): what a sweep, which
	// reports counts, sets.
	countViolations bool
	// items, when set, lends a summary-only run the array its context is
	// kept in, and takes it back when the run ends: what a sweep's many
	// runs of the same transcripts share instead of each growing its own.
	items *sync.Pool
}

// estimators returns opt.Estimators, or the default: cl100k_base.
func (opt Options) estimators() []estimate.Estimator {
	if len(opt.Estimators) > 0 {
		return opt.Estimators
	}
	return []estimate.Estimator{estimate.MustNew("cl100k_base", estimate.OverheadNone)}
}

// A Step is one call of a run. Its JSON form is a line of the trace
// (internal/tracefmt).
type Step struct {
	Step int `json:"step"`
	// Appended are the ids appended before the call (the turn).
	Appended window.IDs `json:"appended"`
	// Context is what was sent, in order. Consecutive steps share its
	// array while each extends the one before; no id of it is written
	// again once the step is made.
	Context   window.IDs           `json:"context"`
	Evicted   window.IDs           `json:"evicted"`
	Truncated window.IDs           `json:"truncated"`
	Summary   *window.SummaryEvent `json:"summary,omitempty"`
	// Fired is the policy's trigger firing at this call (nil: none).
	Fired    *window.Firing    `json:"fired,omitempty"`
	Messages int               `json:"messages"`
	Tokens   map[string]int    `json:"tokens"`
	Recorded *transcript.Usage `json:"recorded,omitempty"`
	Warnings []string          `json:"warnings,omitempty"`
	// Retention is the share of the artifacts seen so far that the context
	// still holds (see retention.go).
	Retention float64 `json:"retention"`
	// ProbesAsked counts the probes about the messages the policy first
	// stopped sending verbatim at this call, and ProbesKept those the
	// exact judge finds the context still answers (package probe; absent
	// from the trace: 0).
	ProbesAsked int           `json:"probes_asked,omitempty"`
	ProbesKept  int           `json:"probes_kept,omitempty"`
	Violations  []Violation   `json:"violations"`
	probes      probesAt      // what ProbesAsked counts
	turn        int           // items appended at this step
	next        int           // index of the call's assistant message
	sent        []window.Item // the context, for checks
	kept        int           // items shared in place with the previous context
	before      int           // primary tokens before the policy
}

// Sent returns the items the step sent, in order: what [Step.Context]
// lists, with each item's message. Pricing a step needs them (a truncated
// copy has its original's id but not its content).
func (s *Step) Sent() []window.Item { return s.sent }

// Kept returns how many items, from the start, the step's context shares
// with the previous step's: the same items (the same messages, copies
// and summaries) at the same places. Pricing builds a call's prompt from
// the previous one's by it, at the cost of what changed. It is a lower
// bound: the first step, and the reference runs that measure every
// context whole, keep 0.
func (s *Step) Kept() int { return s.kept }

// A Violation is a broken invariant.
type Violation struct {
	Step      int        `json:"step"`
	Invariant string     `json:"invariant"`
	IDs       window.IDs `json:"ids,omitempty"`
	Detail    string     `json:"detail"`
}

func (v Violation) String() string {
	return fmt.Sprintf("step %d: %s: %s", v.Step, v.Invariant, v.Detail)
}

// A Run is one transcript replayed under one policy.
type Run struct {
	Transcript string        `json:"transcript"`
	File       string        `json:"file"`
	Policy     string        `json:"policy"`
	Params     window.Values `json:"params"`
	Steps      []Step        `json:"steps"`
	Summary    Summary       `json:"summary"`
	// Violations are the steps' violations, in order (also with
	// [Options.NoSteps], which keeps no steps).
	Violations []Violation `json:"-"`
}

// A Summary is what a run adds up over its calls.
type Summary struct {
	Calls        int                `json:"calls"`
	PeakMessages int                `json:"peak_messages"`
	MeanMessages float64            `json:"mean_messages"`
	PeakTokens   map[string]int     `json:"peak_tokens"`
	MeanTokens   map[string]float64 `json:"mean_tokens"`
	// InputTokens is the sum over calls of the tokens sent.
	InputTokens map[string]int64 `json:"input_tokens"`
	Evictions   int              `json:"evictions"`
	Truncations int              `json:"truncations"`
	// Summaries counts the summaries made; SummaryFailures the attempts
	// that failed; SummaryUsage what the summary calls used.
	Summaries       int              `json:"summaries"`
	SummaryFailures int              `json:"summary_failures"`
	SummaryUsage    transcript.Usage `json:"summary_usage"`
	SummaryCostUSD  float64          `json:"summary_cost_usd"`
	// Violations counts broken invariants by name.
	Violations map[string]int `json:"violations"`
	// MeanRetention and MinRetention summarize the steps' retention.
	// RetentionNotMeasured says the run measured neither retention nor
	// probes ([Options.NoRetention]): they, and ProbeScore, are 0.
	MeanRetention        float64 `json:"mean_retention"`
	MinRetention         float64 `json:"min_retention"`
	RetentionNotMeasured bool    `json:"retention_not_measured,omitempty"`
	// Probes counts, by kind, the probes asked over the calls (at each,
	// about the messages first lost at it) and those the exact judge
	// kept: what [Probes] lists, call by call. ProbeLoss counts the
	// session's probes and those lost (asked at a call whose context
	// could not answer them), and ProbeScore is the share of the
	// session's probes not lost: 1 for a policy that sends everything,
	// lower the more it loses, comparable across policies.
	Probes     probe.Score `json:"probes"`
	ProbeLoss  probe.Loss  `json:"probe_loss"`
	ProbeScore float64     `json:"probe_score"`
	// Warnings are what the policy said of its own steps (a summary that
	// failed, a cap its parameters cannot keep), each text once with the
	// calls it was said at; the first maxWarnings texts, MoreWarnings
	// counts the calls of the others.
	Warnings     []Warning `json:"warnings,omitempty"`
	MoreWarnings int       `json:"more_warnings,omitempty"`
	// Firings counts the calls at which the policy's trigger fired, and
	// Fired lists the first maxFired of them.
	Firings int       `json:"firings,omitempty"`
	Fired   []firedAt `json:"fired,omitempty"`
}

// A firedAt is a call at which a policy's trigger fired.
type firedAt struct {
	Step int `json:"step"`
	window.Firing
}

// maxFired bounds the firings a summary lists.
const maxFired = 100

// A Warning is one text a policy warned with, at Calls calls from step
// First.
type Warning struct {
	Text  string `json:"text"`
	Calls int    `json:"calls"`
	First int    `json:"first_step"`
}

// maxWarnings bounds the distinct warning texts a summary keeps.
const maxWarnings = 20

// Replay runs t through p. Its errors are ctx's, and the refusal of a
// transcript that holds no content to send ([transcript.Transcript.Measured]).
//
// A step's measures are kept up to date from the previous step's rather
// than recomputed: the context sent is compared with the previous one
// (pointers, no hashing), and only the items that left or came in are
// counted, measured for retention and listed; a step that sends the
// previous context plus the latest turn is checked on the turn alone.
// So a step costs what changed, not the size of its context, and
// replaying a policy costs about one pass over the transcript.
func Replay(ctx context.Context, t *transcript.Transcript, p window.Policy, opt Options) (*Run, error) {
	if err := replayable(t); err != nil {
		return nil, err
	}
	e := newEngine(t, p, opt)
	defer e.release()
	run := &Run{Transcript: t.ID, File: t.File, Policy: p.Name(), Params: p.Params()}
	for i := range t.Messages {
		if t.Messages[i].Role != transcript.RoleAssistant {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		step, err := e.call(ctx, i)
		if err != nil {
			return nil, err
		}
		if !opt.countViolations {
			run.Violations = append(run.Violations, step.Violations...)
		}
		e.sum.add(step, e.tok)
		if opt.Observe != nil {
			if err := opt.Observe(opt.run, step); err != nil {
				return nil, err
			}
		}
		if e.keep {
			run.Steps = append(run.Steps, *step)
		}
		e.advance(step, i)
	}
	run.Summary = e.summary()
	return run, nil
}

// replayable refuses a transcript read measured.
func replayable(t *transcript.Transcript) error {
	if t.Measured {
		return fmt.Errorf("%s: read measured (transcript.Options.Measure), it holds no content to replay", t.File)
	}
	return nil
}

// rollBack applies the rollbacks of rbs from the done-th that came before
// message i: it returns the history without the messages they dropped
// (a new slice, when any left), their ids, and how many rollbacks are
// done.
func rollBack(rbs []transcript.Rollback, done, i int, hist []window.Item) ([]window.Item, []string, int) {
	var undone []string
	for ; done < len(rbs) && rbs[done].Index <= i; done++ {
		rb := rbs[done]
		kept := make([]window.Item, 0, len(hist))
		for _, it := range hist {
			if rb.Drops(it.Index()) {
				undone = append(undone, it.ID)
			} else {
				kept = append(kept, it)
			}
		}
		if len(kept) < len(hist) {
			hist = kept
		}
	}
	return hist, undone, done
}

// A delta is how a step's context differs from the previous one.
type delta struct {
	// gone and came are the items that left the context and the items
	// that came in (as multisets: retention and counts need no order).
	gone, came []window.Item
	// kept is how many ids, from the start, the contexts share in place:
	// the new context lists the previous one's ids from 0 to kept.
	kept int
	// replaced are the positions, all below kept, where the item is a
	// different one with the same id (a truncated copy, say); gone holds
	// what they replaced, in the same order.
	replaced []int
	// block says that gone is a block removed at kept, the rest of the
	// previous context kept in order behind it (a sliding window).
	block bool
	// buffers of gone and came when they are not slices of the contexts
	goneBuf, cameBuf []window.Item
}

// diff finds how cur differs from prev: a common prefix, then either the
// same ids in place (items replaced where they stand, items appended), a
// block removed, or anything else after the prefix. It compares items by
// identity.
func (d *delta) diff(prev, cur []window.Item) {
	same := commonPrefix(prev, cur)
	d.replaced, d.block = d.replaced[:0], false
	if same < len(prev) && len(cur) >= len(prev) {
		inPlace := true
		for j := same; j < len(prev); j++ {
			if sameItem(prev[j], cur[j]) {
				continue
			}
			if prev[j].ID != cur[j].ID {
				inPlace = false
				break
			}
			d.replaced = append(d.replaced, j)
		}
		if inPlace {
			d.goneBuf, d.cameBuf = d.goneBuf[:0], d.cameBuf[:0]
			for _, j := range d.replaced {
				d.goneBuf = append(d.goneBuf, prev[j])
				d.cameBuf = append(d.cameBuf, cur[j])
			}
			d.cameBuf = append(d.cameBuf, cur[len(prev):]...)
			d.gone, d.came, d.kept = d.goneBuf, d.cameBuf, len(prev)
			return
		}
		d.replaced = d.replaced[:0]
	}
	if same < len(prev) && same < len(cur) {
		for b := same + 1; b < len(prev); b++ {
			if !sameItem(prev[b], cur[same]) {
				continue
			}
			if k := len(prev) - b; len(cur)-same >= k && commonPrefix(prev[b:], cur[same:same+k]) == k {
				d.gone, d.came, d.kept, d.block = prev[same:b], cur[same+k:], same, true
				return
			}
			break
		}
	}
	d.gone, d.came, d.kept = prev[same:], cur[same:], same
}

// prefix is the delta of cur, a prefix of the history prev then the
// fresh items: what cur holds beyond prev came, what prev holds beyond
// cur went.
func (d *delta) prefix(prev, cur []window.Item) {
	same := min(len(prev), len(cur))
	d.gone, d.came, d.kept, d.replaced, d.block = prev[same:], cur[same:], same, d.replaced[:0], false
}

// whole is the delta that treats every item as new: the reference the
// incremental steps are tested against.
func (d *delta) whole(prev, cur []window.Item) {
	d.gone, d.came, d.kept, d.replaced, d.block = prev, cur, 0, d.replaced[:0], false
}

// commonPrefix returns how many items a and b share at their start.
func commonPrefix(a, b []window.Item) int {
	n := min(len(a), len(b))
	for i := range n {
		if !sameItem(a[i], b[i]) {
			return i
		}
	}
	return n
}

func sameItem(a, b window.Item) bool {
	return a.Msg == b.Msg && a.ID == b.ID && a.Truncated == b.Truncated && a.Summary == b.Summary
}

func sameItems(a, b []window.Item) bool {
	return len(a) == len(b) && commonPrefix(a, b) == len(a)
}

func appendIDs(out []string, items []window.Item) []string {
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}

// counter is a run's view of the shared count cache: the counts of the
// transcript's own messages come from the cache's tables (arrays by
// message index, shared by every run of the transcript), so a step sums
// its context with no hashing or locking; other messages (summaries,
// truncated copies) go through a local map. It is the policies'
// window.Env.Count too.
type counter struct {
	shared *countcache.Cache
	t      *transcript.Transcript
	ests   []estimate.Estimator
	tables []*countcache.Table // tables[k]: ests[k]'s
	local  map[counterKey]int
}

// A counterKey does not keep its message alive: a policy that makes a
// summary at every call lets go of each.
type counterKey struct {
	msg weak.Pointer[transcript.Message]
	est estimate.Estimator
}

func newCounter(shared *countcache.Cache, t *transcript.Transcript) *counter {
	return &counter{shared: shared, t: t, local: map[counterKey]int{}}
}

// table returns e's table.
func (c *counter) table(e estimate.Estimator) *countcache.Table {
	for k, x := range c.ests {
		if x == e {
			return c.tables[k]
		}
	}
	tb := c.shared.Table(e, c.t)
	c.ests = append(c.ests, e)
	c.tables = append(c.tables, tb)
	return tb
}

func (c *counter) count(e estimate.Estimator, tb *countcache.Table, it window.Item) int {
	i := it.Index()
	if i < 0 || i >= len(c.t.Messages) || it.Truncated || it.Msg != &c.t.Messages[i] {
		k := counterKey{weak.Make(it.Msg), e}
		if n, ok := c.local[k]; ok {
			return n
		}
		n := c.shared.Count(e, it.Msg)
		c.local[k] = n
		return n
	}
	return tb.Count(i)
}

// Count counts it with e: what the policies' window.Env.Count is.
func (c *counter) Count(e estimate.Estimator, it window.Item) int {
	return c.count(e, c.table(e), it)
}

func (c *counter) sum(e estimate.Estimator, items []window.Item) int {
	if len(items) == 0 {
		return 0
	}
	tb := c.table(e)
	n := 0
	for _, it := range items {
		n += c.count(e, tb, it)
	}
	return n
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// A summaryBuilder aggregates a run's steps into its Summary, step by
// step, so that a run that keeps no steps is summarized the same way.
type summaryBuilder struct {
	s    Summary
	ests []estimate.Estimator
	msgs int
	// The per-estimator sums and the violations by invariant (in
	// Invariants' order), kept in arrays and put in s's maps when the
	// run is done: a map update per step was a twentieth of a sweep.
	peak, input []int64
	byInv       []int
}

func newSummaryBuilder(ests []estimate.Estimator) *summaryBuilder {
	return &summaryBuilder{ests: ests, s: Summary{PeakTokens: map[string]int{}, MeanTokens: map[string]float64{},
		InputTokens: map[string]int64{}, Violations: map[string]int{}, MinRetention: 1},
		peak: make([]int64, len(ests)), input: make([]int64, len(ests)), byInv: make([]int, len(invariants))}
}

// invariants are the invariants' names, in [Invariants]' order.
var invariants = Invariants()

// add counts a step; tok are its counts, one per estimator.
func (z *summaryBuilder) add(st *Step, tok []int) {
	s := &z.s
	s.Calls++
	s.MeanRetention += st.Retention
	s.MinRetention = min(s.MinRetention, st.Retention)
	s.PeakMessages = max(s.PeakMessages, st.Messages)
	z.msgs += st.Messages
	for k := range z.ests {
		z.peak[k] = max(z.peak[k], int64(tok[k]))
		z.input[k] += int64(tok[k])
	}
	s.Evictions += len(st.Evicted)
	s.Truncations += len(st.Truncated)
	if sm := st.Summary; sm != nil {
		if sm.Error != "" {
			s.SummaryFailures++
		} else {
			s.Summaries++
		}
		s.SummaryUsage.Add(sm.Usage)
		s.SummaryCostUSD += sm.CostUSD
	}
	for _, w := range st.Warnings {
		z.warn(st.Step, w)
	}
	if f := st.Fired; f != nil {
		s.Firings++
		if len(s.Fired) < maxFired {
			s.Fired = append(s.Fired, firedAt{Step: st.Step, Firing: *f})
		}
	}
	for _, v := range st.Violations {
		if k := slices.Index(invariants, v.Invariant); k >= 0 {
			z.byInv[k]++
		} else {
			s.Violations[v.Invariant]++
		}
	}
}

// summary returns the run's summary, once, when its steps are all added.
func (z *summaryBuilder) summary() Summary {
	s := z.s
	for k, n := range z.byInv {
		if n > 0 {
			s.Violations[invariants[k]] += n
		}
	}
	if s.Calls > 0 {
		for k, e := range z.ests {
			s.PeakTokens[e.Name()] = max(s.PeakTokens[e.Name()], int(z.peak[k]))
			s.InputTokens[e.Name()] += z.input[k]
		}
		s.MeanRetention /= float64(s.Calls)
		s.MeanMessages = float64(z.msgs) / float64(s.Calls)
		for _, e := range z.ests {
			s.MeanTokens[e.Name()] = float64(s.InputTokens[e.Name()]) / float64(s.Calls)
		}
	}
	return s
}

// noneInputTokens is [Replayer.NoneInputTokens] through counts.
func noneInputTokens(t *transcript.Transcript, e estimate.Estimator, counts *countcache.Cache) int64 {
	if counts == nil {
		counts = countcache.New()
	}
	tb := counts.Table(e, t)
	var total, prefix int64
	for i := range t.Messages {
		if t.Messages[i].Role == transcript.RoleAssistant {
			total += prefix
		}
		prefix += int64(tb.Count(i))
	}
	return total
}

// modelWindow returns the context window of the transcript's model — the
// model of most of its calls, the first seen on a tie — from prices (nil:
// the embedded table), or 0 when the transcript records no model or the
// table does not know it.
func modelWindow(t *transcript.Transcript, prices pricing.Prices) int {
	calls := map[string]int{}
	model := ""
	for i := range t.Messages {
		m := t.Messages[i].Model
		if t.Messages[i].Role != transcript.RoleAssistant || m == "" {
			continue
		}
		calls[m]++
		if calls[m] > calls[model] {
			model = m
		}
	}
	if model == "" && len(t.Models) > 0 {
		model = t.Models[0]
	}
	lookup := prices.Lookup
	if prices == nil {
		lookup = resolve.LookupDefault
	}
	p, _, err := lookup(model)
	if err != nil {
		return 0
	}
	return p.MaxInput
}

// warn counts a warning of step.
func (z *summaryBuilder) warn(step int, text string) {
	s := &z.s
	for k := range s.Warnings {
		if s.Warnings[k].Text == text {
			s.Warnings[k].Calls++
			return
		}
	}
	if len(s.Warnings) == maxWarnings {
		s.MoreWarnings++
		return
	}
	s.Warnings = append(s.Warnings, Warning{Text: text, Calls: 1, First: step})
}
