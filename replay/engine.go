package replay

import (
	"context"
	"fmt"
	"slices"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/countcache"
	"github.com/ctxbench/ctxbench/internal/msgid"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// An engine is one replay's state between calls: the working history,
// the context last sent and its counts, the checks' and measures' state,
// and the devices that make a step cost what changed rather than the
// size of its context. [Replay] drives it: [engine.call] makes a call's
// step, [engine.advance] appends the call's reply.
type engine struct {
	t    *transcript.Transcript
	p    window.Policy
	opt  Options
	ests []estimate.Estimator
	cnt  *counter
	env  *window.Env
	st   *window.State
	chk  *checker
	sum  *summaryBuilder
	// ret and probed measure retention and the probe score (nil: not
	// measured).
	ret    *retention
	probed *probeScore

	// hist is the history the next call's policy is given.
	hist []window.Item
	// sent is the previous step's context as the engine measured it (its
	// own copy: a policy may reuse what it returned); tok its counts, one
	// per estimator; ctxIDs its ids.
	sent   []window.Item
	tok    []int
	ctxIDs []string
	// d is what changed between sent and the step's context.
	d         delta
	prevFired *window.Firing // the previous step's
	// next is the index of the first message not yet in hist; rolledBack
	// how many of the transcript's rollbacks were applied.
	next, rolledBack int

	// keep: the run keeps its steps; build: each step is made whole, to
	// keep or to observe. A run that keeps no steps makes each in scratch
	// (and its Recorded in recorded): Observe's step is valid during the
	// call only.
	keep, build bool
	scratch     Step
	recorded    transcript.Usage
}

func newEngine(t *transcript.Transcript, p window.Policy, opt Options) *engine {
	counts := opt.counts
	if counts == nil {
		counts = countcache.New()
	}
	arts := opt.arts
	if arts == nil {
		arts = newArtifactCache()
	}
	e := &engine{t: t, p: p, opt: opt, ests: opt.estimators(), st: &window.State{}, keep: !opt.NoSteps}
	e.build = e.keep || opt.Observe != nil
	e.cnt = newCounter(counts, t)
	e.env = &window.Env{Transcript: t, Summarizer: opt.Summarizer, Count: e.cnt.Count,
		ModelWindow: modelWindow(t, opt.Prices)}
	if opt.NoSteps {
		e.env.AllowReuse()
	}
	e.chk = newChecker(t, p, arts.toolsOf(t))
	e.chk.counted = opt.countViolations
	if !opt.NoRetention {
		e.ret, e.probed = newRetention(t, arts), newProbeScore(arts.probesOf(t))
	}
	e.tok = make([]int, len(e.ests))
	e.sum = newSummaryBuilder(e.ests)
	if opt.items != nil && !e.keep {
		// As long as the history can grow: the messages, and a summary.
		if b, ok := opt.items.Get().(*[]window.Item); ok && cap(*b) > len(t.Messages) {
			e.sent = (*b)[:0]
		} else {
			e.sent = make([]window.Item, 0, len(t.Messages)+1)
		}
	}
	return e
}

// release gives back the array a summary-only run borrowed from
// Options.items: the larger of its context's and its history's.
func (e *engine) release() {
	if e.opt.items == nil || e.keep {
		return
	}
	b := e.sent[:0]
	if cap(e.hist) > cap(b) {
		b = e.hist[:0]
	}
	e.opt.items.Put(&b)
}

// call makes the step of the call whose assistant message is message i:
// the turn appended, the turns undone rolled back, the policy applied,
// the context measured and checked.
func (e *engine) call(ctx context.Context, i int) (*Step, error) {
	step := e.newStep(i)
	unrolled, undone := e.given(step, i)
	ps, err := e.apply(ctx, step)
	if err != nil {
		return nil, err
	}
	e.measure(step, &ps, undone)
	edges := e.edges(&ps, undone)
	e.record(step, &ps, undone, i)
	if v := e.chk.check(step, unrolled, edges, e.ests[0], e.cnt); v != nil {
		step.Violations = v // else the empty list: the trace has [], not null
	}
	step.Fired = ps.Fired
	if v := headroom(step.Step, ps.Fired, e.prevFired, e.opt.countViolations); v != nil {
		step.Violations = append(step.Violations, v...)
	}
	e.prevFired = ps.Fired
	// The engine's copy of the context, updated last: d.gone may be a
	// slice of it.
	for _, j := range e.d.replaced {
		e.sent[j] = ps.History[j]
	}
	e.sent = append(e.sent[:e.d.kept], ps.History[e.d.kept:]...)
	return step, nil
}

// newStep starts the step of the call at message i and appends the turn
// before it to the history.
func (e *engine) newStep(i int) *Step {
	step := &e.scratch
	if e.keep {
		step = &Step{}
	}
	*step = Step{Step: e.sum.s.Calls, Violations: []Violation{}}
	if e.build {
		step.Appended, step.Tokens = make([]string, 0, i-e.next), make(map[string]int, len(e.ests))
	}
	for j := e.next; j < i; j++ {
		e.hist = append(e.hist, window.Original(e.t, j))
		if e.build {
			step.Appended = append(step.Appended, msgid.Of(j))
		}
	}
	step.turn, step.next = i-e.next, i
	e.env.Next, e.env.Turn, e.env.Model = i, step.turn, e.t.Messages[i].Model
	return step
}

// given makes the history the policy is given at message i: the turns
// the user undid taken out before any policy sees it, as they left what
// the agent sent (the package's rollBack), and counted. It returns the
// history as it was before, and the ids undone (nil: none).
func (e *engine) given(step *Step, i int) (unrolled []window.Item, undone []string) {
	unrolled = e.hist
	e.hist, undone, e.rolledBack = rollBack(e.t.Rollbacks, e.rolledBack, i, e.hist)
	switch {
	case e.opt.recompute, undone != nil:
		step.before = e.cnt.sum(e.ests[0], e.hist)
	default:
		// hist is sent, then the call's assistant message, then the turn.
		step.before = e.tok[0] + e.cnt.sum(e.ests[0], e.hist[len(e.sent):])
	}
	return unrolled, undone
}

// apply runs the policy on the history. The reference run keeps a copy
// of the history to verify the policy's contract, and leaves the policy
// to compare its histories item by item (p.Apply, not State.Apply).
func (e *engine) apply(ctx context.Context, step *Step) (window.Step, error) {
	if e.opt.recompute {
		given := slices.Clone(e.hist)
		ps, err := e.p.Apply(ctx, e.env, e.st, e.hist)
		if err == nil && !sameItems(given, e.hist) {
			err = fmt.Errorf("%s modified the history it was given at call %d", e.p.Name(), step.Step)
		}
		return ps, err
	}
	return e.st.Apply(ctx, e.p, e.env, e.hist)
}

// measure finds what changed between the previous context and this one,
// and updates the counts, retention, probes and ids from it.
func (e *engine) measure(step *Step, ps *window.Step, undone []string) {
	switch {
	case e.opt.recompute:
		e.d.whole(e.sent, ps.History)
	case undone == nil && len(ps.History) > 0 && len(ps.History) <= len(e.hist) && &ps.History[0] == &e.hist[0]:
		// The history given back, or a part of it from its start: items
		// Apply does not modify, sent then fresh.
		e.d.prefix(e.sent, ps.History)
	default:
		e.d.diff(e.sent, ps.History)
	}
	for k, est := range e.ests {
		if e.opt.recompute {
			e.tok[k] = e.cnt.sum(est, ps.History)
		} else {
			e.tok[k] += e.cnt.sum(est, e.d.came) - e.cnt.sum(est, e.d.gone)
		}
		if e.build {
			step.Tokens[est.Name()] = e.tok[k]
		}
	}
	if e.ret != nil {
		step.Retention = e.ret.step(step.next, e.d.gone, e.d.came, ps.History)
		step.probes = e.probed.step(step.next, e.d.gone, e.d.came, ps.History)
		step.ProbesAsked = len(step.probes.probes)
		for _, k := range step.probes.kept {
			if k {
				step.ProbesKept++
			}
		}
	}
	if e.build {
		e.contextIDs(step, ps.History)
	}
}

// contextIDs sets the step's Context, extending the previous step's ids
// where the context extends the previous one.
func (e *engine) contextIDs(step *Step, sent []window.Item) {
	if e.d.kept == len(e.ctxIDs) {
		e.ctxIDs = appendIDs(e.ctxIDs, sent[e.d.kept:])
	} else {
		e.ctxIDs = appendIDs(append(make([]string, 0, len(sent)+len(sent)/4), e.ctxIDs[:e.d.kept]...), sent[e.d.kept:])
	}
	// The full slice expression keeps a caller's append from writing
	// into the ids of the next step, which share the array.
	step.Context = e.ctxIDs[:len(e.ctxIDs):len(e.ctxIDs)]
}

// edges returns the edit the step made when the policy sent the history
// as it was given but for its edges — items replaced in place by copies,
// or a block removed — so the checks look at those and at the fresh
// messages alone; nil: the step is checked whole.
func (e *engine) edges(ps *window.Step, undone []string) *edit {
	if e.opt.recompute || undone != nil {
		return nil
	}
	fresh := e.hist[len(e.sent):]
	switch {
	case e.d.kept == len(e.sent) && len(ps.History) == len(e.hist) && sameItems(ps.History[len(e.sent):], fresh):
		return &edit{fresh: fresh, replaced: e.d.replaced, old: e.d.gone}
	case e.d.block && sameItems(e.d.came, fresh):
		return &edit{fresh: fresh, removed: e.d.gone, cut: e.d.kept}
	}
	return nil
}

// record sets what the step sent, evicted, truncated, summarized and
// warned of, and the usage the call recorded.
func (e *engine) record(step *Step, ps *window.Step, undone []string, i int) {
	step.sent, step.kept = ps.History, e.d.kept
	if len(e.d.replaced) > 0 {
		step.kept = e.d.replaced[0]
	}
	step.Evicted, step.Truncated = orEmpty(ps.Evicted), orEmpty(ps.Truncated)
	if undone != nil {
		step.Evicted = append(undone, ps.Evicted...)
	}
	step.Summary, step.Warnings = ps.Summary, ps.Warnings
	step.Messages = len(ps.History)
	u := e.t.Messages[i].Usage
	switch {
	case u == nil:
	case e.keep:
		uc := *u
		step.Recorded = &uc
	default:
		e.recorded = *u
		step.Recorded = &e.recorded
	}
}

// advance appends the assistant message of the call just made (message
// i) to the history. A run that keeps its steps appends to what was sent
// (the step holds it); a summary-only run continues its copy of the
// context, just made equal to what was sent, instead of copying what was
// sent again (no step, and no policy, keeps a history past its call, and
// the copy is next written after the next call's checks, when that
// history is no longer read).
func (e *engine) advance(step *Step, i int) {
	if e.keep {
		e.hist = append(step.sent, window.Original(e.t, i))
	} else {
		e.hist = append(e.sent, window.Original(e.t, i))
	}
	e.next = i + 1
	e.env.Call++
}

// summary returns the run's summary.
func (e *engine) summary() Summary {
	s := e.sum.summary()
	if e.probed != nil {
		s.Probes, s.ProbeLoss = e.probed.summary()
		s.ProbeScore = s.ProbeLoss.Score()
	}
	s.RetentionNotMeasured = e.ret == nil
	return s
}
