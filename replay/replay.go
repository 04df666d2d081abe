// Package replay runs a transcript through a context-window policy, call by
// call, and measures what would have been sent.
//
// For each call k (DESIGN.md §4): the turn before it — the messages
// recorded since call k−1 — is appended to the working history; the policy
// transforms the history (it may evict, truncate, insert or update a
// summary); the context that would have been sent is recorded and counted
// with each estimator; the invariants are checked; then the recorded
// assistant message k is appended. Responses are never regenerated: the
// replay is a counterfactual on what is sent, not on what comes back.
//
// A [Run] holds a [Step] per call and a [Summary] of the run. Invariant
// violations are values ([Violation]), never log lines.
package replay

import (
	"context"
	"fmt"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// Options configure a replay.
type Options struct {
	// Estimators count every context sent; the first is the primary one
	// (used by the shrinks invariant). Default: cl100k_base.
	Estimators []estimate.Estimator
	// Summarizer makes the summaries policies ask for (nil: none).
	Summarizer summarize.Summarizer
	// Counts caches message counts across runs (nil: a cache per run).
	Counts *estimate.Cache
	// Artifacts caches the messages' retention artifacts across runs
	// (nil: a cache per run).
	Artifacts *ArtifactCache
}

// estimators returns opt.Estimators, or the default: cl100k_base.
func (opt Options) estimators() []estimate.Estimator {
	if len(opt.Estimators) > 0 {
		return opt.Estimators
	}
	return []estimate.Estimator{estimate.MustNew("cl100k_base", estimate.OverheadNone)}
}

// A Step is one call of a run. Its JSON form is a line of the trace (see
// [WriteTrace]).
type Step struct {
	Step int `json:"step"`
	// Appended are the ids appended before the call (the turn).
	Appended []string `json:"appended"`
	// Context is what was sent, in order.
	Context   []string             `json:"context"`
	Evicted   []string             `json:"evicted"`
	Truncated []string             `json:"truncated"`
	Summary   *window.SummaryEvent `json:"summary,omitempty"`
	Messages  int                  `json:"messages"`
	Tokens    map[string]int       `json:"tokens"`
	Recorded  *transcript.Usage    `json:"recorded,omitempty"`
	Warnings  []string             `json:"warnings,omitempty"`
	// Retention is the share of the artifacts seen so far that the context
	// still holds (see retention.go).
	Retention float64       `json:"retention"`
	Violation []Violation   `json:"violations"`
	turn      int           // items appended at this step
	next      int           // index of the call's assistant message
	sent      []window.Item // the context, for checks
	before    int           // primary tokens before the policy
}

// A Violation is a broken invariant.
type Violation struct {
	Step      int      `json:"step"`
	Invariant string   `json:"invariant"`
	IDs       []string `json:"ids,omitempty"`
	Detail    string   `json:"detail"`
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
}

// Summary aggregates a run.
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
	MeanRetention float64 `json:"mean_retention"`
	MinRetention  float64 `json:"min_retention"`
}

// Replay runs t through p. Its only errors are ctx's.
func Replay(ctx context.Context, t *transcript.Transcript, p window.Policy, opt Options) (*Run, error) {
	ests := opt.estimators()
	counts := opt.Counts
	if counts == nil {
		counts = estimate.NewCache()
	}
	cnt := newCounter(counts, t)
	run := &Run{Transcript: t.ID, File: t.File, Policy: p.Name(), Params: p.Params()}
	env := &window.Env{Transcript: t, Summarizer: opt.Summarizer, Counts: counts}
	st := &window.State{}
	chk := newChecker(t, p)
	ret := newRetention(t, opt.Artifacts)
	var hist []window.Item
	next := 0
	for i := range t.Messages {
		if t.Messages[i].Role != transcript.RoleAssistant {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		step := Step{Step: len(run.Steps), Appended: []string{}, Tokens: map[string]int{}, Violation: []Violation{}}
		for j := next; j < i; j++ {
			hist = append(hist, window.Original(t, j))
			step.Appended = append(step.Appended, transcript.MessageID(j))
		}
		step.turn, step.next = len(step.Appended), i
		env.Next, env.Turn = i, step.turn
		step.before = cnt.sum(ests[0], hist)
		ps, err := p.Apply(ctx, env, st, hist)
		if err != nil {
			return nil, err
		}
		step.sent = ps.History
		step.Context = ids(ps.History)
		step.Evicted, step.Truncated = orEmpty(ps.Evicted), orEmpty(ps.Truncated)
		step.Summary, step.Warnings = ps.Summary, ps.Warnings
		step.Messages = len(ps.History)
		for _, e := range ests {
			step.Tokens[e.Name()] = cnt.sum(e, ps.History)
		}
		if u := t.Messages[i].Usage; u != nil {
			uc := *u
			step.Recorded = &uc
		}
		step.Violation = chk.check(&step, hist, ests[0], cnt)
		step.Retention = ret.step(i, ps.History)
		run.Steps = append(run.Steps, step)
		hist = append(ps.History, window.Original(t, i))
		next = i + 1
		env.Call++
	}
	run.Summary = summarizeRun(run, ests)
	return run, nil
}

// counter is a run's view of the shared count cache: the counts of the
// transcript's own messages sit in a slice per estimator, indexed by
// message, so a step sums its context with no hashing or locking; other
// messages (summaries, truncated copies) go through a local map.
type counter struct {
	shared  *estimate.Cache
	t       *transcript.Transcript
	byIndex map[estimate.Estimator][]int32 // -1: not counted yet
	local   map[counterKey]int
}

type counterKey struct {
	msg *transcript.Message
	est estimate.Estimator
}

func newCounter(shared *estimate.Cache, t *transcript.Transcript) *counter {
	return &counter{shared: shared, t: t, byIndex: map[estimate.Estimator][]int32{}, local: map[counterKey]int{}}
}

func (c *counter) count(e estimate.Estimator, m *transcript.Message) int {
	k := counterKey{m, e}
	if n, ok := c.local[k]; ok {
		return n
	}
	n := c.shared.Count(e, m)
	c.local[k] = n
	return n
}

func (c *counter) sum(e estimate.Estimator, items []window.Item) int {
	idx := c.byIndex[e]
	if idx == nil {
		idx = make([]int32, len(c.t.Messages))
		for i := range idx {
			idx[i] = -1
		}
		c.byIndex[e] = idx
	}
	n := 0
	for _, it := range items {
		i := it.Index()
		if i < 0 || it.Truncated || it.Msg != &c.t.Messages[i] {
			n += c.count(e, it.Msg)
			continue
		}
		if idx[i] < 0 {
			idx[i] = int32(c.shared.Count(e, it.Msg))
		}
		n += int(idx[i])
	}
	return n
}

func ids(items []window.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func summarizeRun(run *Run, ests []estimate.Estimator) Summary {
	s := Summary{Calls: len(run.Steps), PeakTokens: map[string]int{}, MeanTokens: map[string]float64{},
		InputTokens: map[string]int64{}, Violations: map[string]int{}}
	msgs := 0
	s.MinRetention = 1
	for _, st := range run.Steps {
		s.MeanRetention += st.Retention
		s.MinRetention = min(s.MinRetention, st.Retention)
		s.PeakMessages = max(s.PeakMessages, st.Messages)
		msgs += st.Messages
		for _, e := range ests {
			n := st.Tokens[e.Name()]
			s.PeakTokens[e.Name()] = max(s.PeakTokens[e.Name()], n)
			s.InputTokens[e.Name()] += int64(n)
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
		for _, v := range st.Violation {
			s.Violations[v.Invariant]++
		}
	}
	if s.Calls > 0 {
		s.MeanRetention /= float64(s.Calls)
		s.MeanMessages = float64(msgs) / float64(s.Calls)
		for _, e := range ests {
			s.MeanTokens[e.Name()] = float64(s.InputTokens[e.Name()]) / float64(s.Calls)
		}
	}
	return s
}

// NoneInputTokens returns the input tokens e counts when every call sends
// the whole history — what a replay under the none policy reports as
// Summary.InputTokens[e.Name()] — in one pass over the transcript instead
// of a replay, whose steps list and check contexts that grow with every
// call. It is the baseline of "share of none".
func NoneInputTokens(t *transcript.Transcript, e estimate.Estimator, counts *estimate.Cache) int64 {
	if counts == nil {
		counts = estimate.NewCache()
	}
	var total, prefix int64
	for i := range t.Messages {
		if t.Messages[i].Role == transcript.RoleAssistant {
			total += prefix
		}
		prefix += int64(counts.Count(e, &t.Messages[i]))
	}
	return total
}
