package cost

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/ctxbench/ctxbench/cost/internal/prefix"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/family"
	"github.com/ctxbench/ctxbench/internal/resolve"
	"github.com/ctxbench/ctxbench/internal/retention"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/tracefmt"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
)

// A PricedCall is what pricing adds to a call: its cost and, when it
// broke the provider's cache, where and at what cost.
type PricedCall = tracefmt.PricedCall

// Options configure the pricing of runs.
type Options struct {
	// Prices is the price table (nil: [pricing.Default]); it must not
	// change once used: each model name is looked up in it once, for
	// every pricing at the same table.
	Prices pricing.Prices
	// Model, when set, prices every call, a what-if (--pricing-model);
	// by default each call is priced at the model that made it, and a
	// call that records no model at the transcript's first model.
	Model string
	// CacheSim is cacheAnthropic, cacheOpenAI or cacheNone (default: each
	// model's provider's).
	CacheSim string
	// Estimator counts the prompts; it must be one of the runs'
	// estimators (default: their primary one, when [Replay] makes them).
	Estimator estimate.Estimator
	// FitCalls, when above 0, fits alpha, the constant and the cache's
	// losses on the first FitCalls calls alone, and prices every later
	// call without its bill: its prompt is the constant plus alpha times
	// the estimate of what the policy sent, its cache read what the
	// policy's ideal cache reads less the chance of a miss after the
	// call's idle time (fitted on the first calls) times the share of the
	// read lost at a miss before, plus the share of the rest it read
	// anyway before (nothing after an
	// idle spell longer than the cache's lifetime). The
	// cross-check then compares the recorded run so priced with the bill
	// of those later calls: an out-of-sample test of the model.
	FitCalls int
	// Observe, when set, is given each step of each run [Replay] makes,
	// as it is made, with what pricing adds to its trace line (nil when
	// the run is not priced): run is the policy's index, and the rules
	// of [replay.Options.Observe] hold (a run's steps in order on one
	// goroutine; runs at the same time). An error stops the replay.
	Observe func(run int, s *replay.Step, priced *PricedCall) error
}

// resolver looks models up in o's table, each name once.
func (o Options) resolver() *resolve.Resolver { return resolve.Of(o.Prices) }

// prices is o's table: Prices, or the embedded one (shared, not a copy).
func (o Options) prices() pricing.Prices { return o.resolver().Prices() }

// callModel returns the model that prices message m of t: o.Model when
// set, else m's own, else (no model recorded, or Claude Code's
// "<synthetic>") the transcript's first.
func (o Options) callModel(t *transcript.Transcript, m *transcript.Message) string {
	switch {
	case o.Model != "":
		return o.Model
	case m != nil && m.Model != "" && m.Model != "<synthetic>":
		return m.Model
	case len(t.Models) > 0:
		return t.Models[0]
	}
	return ""
}

// RunCost is what one run would have cost.
type RunCost struct {
	// Model is the model that priced the calls, or, when several did, the
	// one that priced the most; ByModel has each.
	Model    string `json:"model"`
	CacheSim string `json:"cache_sim"`
	// Constant is the per-call prompt the transcript does not hold (system
	// prompt, tool schemas), fitted on the recorded usage; 0 without. It
	// is Model's; ByModel has each model's.
	Constant int `json:"constant_tokens"`
	// Usage is the simulated usage summed over calls.
	Usage transcript.Usage `json:"usage"`
	// Calls is the cost of the calls; Summaries that of the summary calls,
	// priced apart.
	Calls     pricing.Cost  `json:"calls"`
	Summaries pricing.Cost  `json:"summaries"`
	Total     pricing.Money `json:"total_pusd"`
	// ByModel is the calls' usage and cost by the model that priced them,
	// in the order the models first appear.
	ByModel []ModelCost `json:"by_model"`
	// PerStep is each call's cost, in step order.
	PerStep []pricing.Money `json:"per_step_pusd"`
	// PerStepUsage is each call's simulated usage, in step order.
	PerStepUsage []transcript.Usage `json:"-"`
	// Breaks are the calls at which the policy broke the provider's
	// cache, each weighed against what it saved (see [CacheBreak]), and
	// BreakTotals their sums.
	Breaks      []CacheBreak `json:"cache_breaks"`
	BreakTotals CacheBreaks  `json:"cache_break_totals"`
	Assumptions []string     `json:"assumptions,omitempty"`
	// AfterFit is the cost of the calls after the fit's
	// ([Options.FitCalls]), nil without.
	AfterFit *pricing.Cost `json:"-"`
	// fitCalls and afterCalls are how many calls were fitted on and how
	// many priced after them; afterUnbilled are the calls after the fit
	// whose bill records no prompt, left out of AfterFit.
	fitCalls, afterCalls int
	afterUnbilled        []int
	// fitAssumptions say how the calls after the fit were priced.
	fitAssumptions []string
}

// A ModelCost is what one model's calls of a run cost.
type ModelCost struct {
	Model string `json:"model"`
	Calls int    `json:"calls"`
	// Constant and CacheSim are the simulation's (absent in a bill).
	Constant int `json:"constant_tokens,omitempty"`
	// Alpha is the model's billed tokens per estimated token, fitted on
	// AlphaFittedOn prompt growths of the recorded run; with too few (0),
	// AlphaFamily's over the corpus, else 1.
	// Absent when the calls are not priced from the bill.
	Alpha         float64          `json:"alpha,omitempty"`
	AlphaFittedOn int              `json:"alpha_fitted_on,omitempty"`
	AlphaFamily   string           `json:"alpha_family,omitempty"`
	CacheSim      string           `json:"cache_sim,omitempty"`
	Usage         transcript.Usage `json:"usage"`
	Cost          pricing.Cost     `json:"cost"`
}

// PerStepUSD returns each call's cost in dollars, in step order: the
// cost_usd of the trace's lines (replay --trace).
func (rc *RunCost) PerStepUSD() []float64 {
	out := make([]float64, len(rc.PerStep))
	for i, m := range rc.PerStep {
		out[i] = m.USD()
	}
	return out
}

// A recordedFit is what pricing takes from the recorded policy's run of a
// transcript (or none's): for each call with recorded usage, the
// recorded prompt less the estimate of what the agent sent. The per-call
// prompt the transcript does not hold (system prompt, tool schemas), its
// constant, is their median.
type recordedFit struct {
	estimator string
	gaps      []int
	has       []bool // has[i]: call i recorded a prompt
	// anchor, when set, holds what pricing against the bill needs.
	anchor *anchor
}

// newFit returns an empty fit counted with the estimator named estimator;
// [recordedFit.Add] adds the recorded run's steps to it, in order.
func newFit(estimator string) *recordedFit { return &recordedFit{estimator: estimator} }

// newAnchoredFit returns an empty fit of the recorded run of r's
// transcript that also
// keeps what pricing a policy against the bill needs (see
// [runPricer]): opt's estimator counts, and each call belongs to the
// model that prices it under opt.
func newAnchoredFit(r *replay.Replayer, opt Options) *recordedFit {
	t := r.Transcript()
	// The recorded run's caches are its own models', whatever model a
	// what-if prices the runs at.
	own := opt
	own.Model = ""
	pr := newPricer(t, nil, own)
	return &recordedFit{estimator: opt.Estimator.Name(), anchor: &anchor{pr: pr, caches: map[string]*idealCache{}, calls: callCaches(pr),
		reqs: &requestBuilder{est: opt.Estimator, count: r.Counter()}}}
}

// anchored reports whether the fit keeps what pricing against the bill
// needs, and there is a bill: a call that recorded a prompt.
func (f *recordedFit) anchored() bool { return f.anchor != nil && slices.Contains(f.has, true) }

// prompt returns the prompt call i recorded (0 when none).
func (f *recordedFit) prompt(i int) int {
	if !f.has[i] {
		return 0
	}
	return f.gaps[i] + f.est(i)
}

// spreadOf returns the bill shared out over the calls, nil when the
// calls record their own ([spread]).
func (f *recordedFit) spreadOf() *spread {
	if f.anchor == nil {
		return nil
	}
	return f.anchor.spread
}

// bill returns the bill of call i, step s: what it recorded, or its
// share of a bill recorded for the calls together ([spread]).
func (f *recordedFit) bill(i int, s *replay.Step) *transcript.Usage {
	if a := f.anchor; a != nil && a.spread != nil {
		return a.bill(i)
	}
	return s.Recorded
}

// est returns the recorded run's estimate of call i.
func (f *recordedFit) est(i int) int { return f.anchor.est[i] }

// groupFit returns the alpha and constant of the model group key of
// pricer p, fitted on the recorded run's first limit calls (0: all), its
// calls grouped as p groups them; nil when the fit keeps no anchor.
func (f *recordedFit) groupFit(p *pricer, key string, limit int) *groupFit {
	a := f.anchor
	if a == nil {
		return nil
	}
	// The runs' pricers ask at once, once the fit has all its steps.
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fitted == nil {
		a.fitted = map[fitKey]map[string]*groupFit{}
	}
	k := fitKey{limit, p.opt.Model}
	if _, ok := a.fitted[k]; !ok {
		a.fitted[k] = a.fit(f, limit, func(i int) string { return p.resolve(p.call(i)).name })
	}
	return a.fitted[k][key]
}

// fitOf returns the fit of run, the recorded policy's run (or none's),
// which must keep its steps.
func fitOf(run *replay.Run, estimator string) *recordedFit {
	f := newFit(estimator)
	for i := range run.Steps {
		f.Add(&run.Steps[i])
	}
	return f
}

// Add adds the recorded run's next step.
func (f *recordedFit) Add(s *replay.Step) {
	ok := s.Recorded != nil && s.Recorded.Prompt() > 0
	gap := 0
	if ok {
		gap = int(s.Recorded.Prompt()) - s.Tokens[f.estimator]
	}
	if f.anchor != nil {
		f.anchor.add(len(f.gaps), s, s.Tokens[f.estimator])
	}
	f.gaps, f.has = append(f.gaps, gap), append(f.has, ok)
}

// Constant returns the constant fitted on every call: 0 when nothing is
// recorded.
func (f *recordedFit) Constant() int {
	c, _ := f.constant(func(int) bool { return true })
	return c
}

// constant returns the median gap over the calls keep says, and whether
// any of them recorded a prompt.
func (f *recordedFit) constant(keep func(call int) bool) (int, bool) {
	var d []int
	for i, g := range f.gaps {
		if f.has[i] && keep(i) {
			d = append(d, g)
		}
	}
	return stats.MedianFloor(d), len(d) > 0
}

// errNoSteps is the error of pricing a run that kept no steps
// ([replay.Options.NoSteps]): its calls cannot be priced.
var errNoSteps = errors.New("the run kept no steps to price")

// priceRun prices a run call by call: each call at the model that made it
// (or opt.Model, for a what-if), at the price in effect when it was made.
// Its prompt is the estimate of what the policy sent plus its model's
// constant, fitted on rec, the recorded policy's run of r's transcript, over that
// model's calls (a side call to a smaller model has another system
// prompt); the prompt is split by the model's cache simulation into
// uncached input, cache reads and cache writes (each model has its own
// cache, as providers keep them). Its output is the recorded output
// (responses are not regenerated); summary calls are priced at their own
// model's input and output rates (a mock summary at the call's model's). A
// call whose model has no price makes the run not priced: an error
// [pricing.NotPriced] recognizes, never another model's price. The output
// the transcript records for no call in particular (its Unattributed
// output) is priced at its first model, for every run alike.
func priceRun(run, rec *replay.Run, r *replay.Replayer, opt Options) (*RunCost, error) {
	t := r.Transcript()
	if len(run.Steps) != run.Summary.Calls || len(rec.Steps) != rec.Summary.Calls {
		return nil, fmt.Errorf("pricing %s under %s: %w", t.File, run.Policy, errNoSteps)
	}
	if opt.Estimator == nil {
		return nil, fmt.Errorf("pricing %s: no estimator", t.File)
	}
	p, err := newRunPricer(r, fitOf(rec, opt.Estimator.Name()), opt)
	if err != nil {
		return nil, err
	}
	for i := range run.Steps {
		p.Observe(&run.Steps[i])
	}
	return p.Finish(run)
}

// A runPricer prices a run call by call as it is replayed, as [priceRun]
// does a whole one: [runPricer.Observe] takes each step when the replay
// makes it ([replay.Options.Observe]), so the run need not keep its
// steps, and [runPricer.Finish] returns the cost. It keeps what it costs
// per call (the calls' costs and usages) and the requests its caches
// hold, not the steps.
type runPricer struct {
	// anchored: each call with a recorded prompt is priced from its bill
	// (see [newRunPricer]).
	anchored bool
	pr       *pricer
	rc       *RunCost
	reqs     *requestBuilder
	brk      *breakTracker
	next     int   // the next step's index
	err      error // the first step that could not be priced
	// firstRead: the first call recorded reading the cache.
	firstRead bool
	// unbilled counts the calls priced from the bill that record no prompt.
	unbilled int
	// after is the cost of the calls priced after the fit's calls
	// (Options.FitCalls) whose bill records a prompt, afterCalls how many
	// were priced after the fit, afterUnbilled those with no bill.
	after         pricing.Cost
	afterCalls    int
	afterUnbilled []int
	finished      bool
}

// newRunPricer returns a pricer of a run of r's transcript, its
// constants fitted on fit.
func newRunPricer(r *replay.Replayer, fit *recordedFit, opt Options) (*runPricer, error) {
	t := r.Transcript()
	if opt.Estimator == nil {
		return nil, fmt.Errorf("pricing %s: no estimator", t.File)
	}
	pr := newPricer(t, fit, opt)
	counts := r.Counter()
	p := &runPricer{pr: pr, rc: &RunCost{Breaks: []CacheBreak{}}, anchored: fit.anchored(),
		reqs: &requestBuilder{est: opt.Estimator, count: counts},
		brk:  &breakTracker{t: t, est: opt.Estimator, count: counts, calls: pr.calls}}
	// Whether every call can be priced is known before the first: the
	// calls' models are the transcript's.
	for i := range pr.calls {
		if r := pr.resolve(pr.call(i)); r.err != nil {
			p.err = r.err
			break
		}
	}
	return p, nil
}

// NotPriced returns why the run cannot be priced (nil: it can): a call
// whose model has no price, known before the first step, or, once a step
// is observed, an amount past what a bill can be.
func (p *runPricer) NotPriced() error { return p.err }

// Last returns what pricing adds to the trace line of the step observed
// last ([tracefmt.TraceWriter]), and false when the run is not priced.
func (p *runPricer) Last() (tracefmt.PricedCall, bool) {
	if p.err != nil || p.next == 0 || len(p.rc.PerStep) != p.next {
		return tracefmt.PricedCall{}, false
	}
	pc := tracefmt.PricedCall{CostUSD: p.rc.PerStep[p.next-1].USD()}
	if ev := p.brk.events; len(ev) > 0 && ev[len(ev)-1].Step == p.next-1 {
		b := ev[len(ev)-1]
		pc.Break, pc.BreakAt, pc.Rebilled, pc.BreakCostUSD = true, b.Index, b.Rebilled, b.Cost.USD()
	}
	return pc, true
}

// Observe prices the run's next step. A call that cannot be priced (its
// model has no price) makes the run not priced (known from the start:
// [runPricer.NotPriced]): Finish returns why, and no step is priced. A
// call past what a bill can be ([pricing.MaxCall], or the run's sums past
// [pricing.MaxTotal]) stops the pricing too: Finish returns the error,
// naming the call's record.
func (p *runPricer) Observe(s *replay.Step) {
	if p.finished {
		panic("cost: runPricer.Observe after Finish")
	}
	i := p.next
	p.next++
	if i == 0 {
		p.firstRead = s.Recorded != nil && s.Recorded.CacheRead > 0
	}
	if p.err != nil {
		return
	}
	pr, rc := p.pr, p.rc
	m := pr.call(i)
	g, err := pr.group(m)
	if err != nil {
		p.err = err
		return
	}
	var at time.Time
	if m != nil {
		at = m.Time
	}
	// Each group's next request shares with its last at least what
	// every context since has kept (and the constant).
	for _, og := range pr.order {
		og.hint = min(og.hint, s.Kept()+1)
	}
	req := p.reqs.next(s, g.constant)
	u, shared := p.usage(i, s, g, req, at)
	g.hint = math.MaxInt
	if s.Recorded != nil {
		u.Output, u.Reasoning = s.Recorded.Output, s.Recorded.Reasoning
	}
	oneHour := pr.oneHourWrites(g.sim)
	if oneHour {
		u.CacheWrite1h = u.CacheWrite
	}
	price := g.price.At(at)
	var anchoredFit *groupFit
	if p.anchored {
		anchoredFit = g.fit
	}
	if p.err = p.brk.observe(i, s, at, g, req, shared, u, price, oneHour, anchoredFit); p.err != nil {
		return
	}
	c, err := price.CallCost(u)
	if err != nil {
		p.err = fmt.Errorf("%s: pricing the call at %s: %w", pr.where(i), g.name, err)
		return
	}
	if pr.opt.FitCalls > 0 && i >= pr.opt.FitCalls {
		// A call with no bill to compare with is left out of the cost
		// after the fit, as out of its bill.
		if s.Recorded != nil && s.Recorded.Prompt() > 0 {
			err = p.after.Add(c)
		} else {
			p.afterUnbilled = append(p.afterUnbilled, i)
		}
	}
	if err == nil {
		err = g.cost.Add(c)
	}
	if err == nil {
		err = rc.Calls.Add(c)
	}
	if err != nil {
		p.err = fmt.Errorf("%s: adding the call to the run's cost: %w", pr.where(i), err)
		return
	}
	g.calls++
	g.usage.Add(u)
	rc.Usage.Add(u)
	rc.PerStep = append(rc.PerStep, c.Total())
	rc.PerStepUsage = append(rc.PerStepUsage, u)
	if ev := s.Summary; ev != nil && (ev.Usage.Prompt() > 0 || ev.Usage.Output > 0) {
		sp := price
		if r := pr.lookup(ev.Model); r.err == nil {
			sp = r.price.At(at)
		}
		sc, err := sp.CallCost(transcript.Usage{Input: ev.Usage.Prompt(), Output: ev.Usage.Output})
		if err == nil {
			err = rc.Summaries.Add(sc)
		}
		if err != nil {
			p.err = fmt.Errorf("%s: pricing the summary call: %w", pr.where(i), err)
		}
	}
}

// usage returns the usage of call i, step s, sending req in group g at
// time at, and the tokens its request shares with the group's cached
// prefix. Priced from the bill (anchored), the cache is ideal (no
// expiry) and what the provider really lost comes from the bill; a call
// the bill records no prompt for costs what the bill says, its output.
// Otherwise the group's cache is simulated.
func (p *runPricer) usage(i int, s *replay.Step, g *modelGroup, req prefix.Request, at time.Time) (u transcript.Usage, shared int) {
	pr := p.pr
	bill := pr.fit.bill(i, s)
	if !p.anchored || g.fit == nil {
		return simulate(g.sim, g.cache, req, g.hint, bill, at, g.calls == 0)
	}
	read, shared := g.cache.Send(req, time.Time{}, g.hint)
	switch {
	case pr.opt.FitCalls > 0 && i >= pr.opt.FitCalls:
		u = p.projected(i, g, s, read)
		p.afterCalls++
	case bill != nil && bill.Prompt() > 0:
		a := pr.fit.anchor
		_, missed := missAt(a.calls[i].ideal, bill)
		u = anchoredUsage(bill, g.fit, anchoredCall{
			recEst: pr.fit.est(i), est: s.Tokens[p.reqs.est.Name()],
			ideal: a.ideal(i, g.fit, bill.Prompt()), missed: missed,
			read: read - g.constant, hit: read > 0,
			writes:  g.sim == cacheAnthropic || pr.opt.Model == "" && bill.CacheWrite > 0,
			oneHour: pr.oneHourWrites(g.sim)})
		if g.sim == cacheNone {
			u = transcript.Usage{Input: u.Prompt()}
		}
	default:
		p.unbilled++
	}
	return u, shared
}

// Finish returns the cost of run, whose steps it observed (run need not
// keep them), or the error [pricing.NotPriced] recognizes when a call
// could not be priced. Later calls return the same.
func (p *runPricer) Finish(run *replay.Run) (*RunCost, error) {
	if !p.finished {
		p.finished = true
		p.rc, p.err = p.finish(run)
	}
	return p.rc, p.err
}

func (p *runPricer) finish(run *replay.Run) (*RunCost, error) {
	if p.err != nil {
		return nil, p.err
	}
	if p.next != run.Summary.Calls {
		return nil, fmt.Errorf("pricing %s under %s: observed %d of %d calls", p.pr.t.File, run.Policy, p.next, run.Summary.Calls)
	}
	pr, rc := p.pr, p.rc
	if p.next == 0 {
		if _, err := pr.group(nil); err != nil {
			return nil, err
		}
	}
	// Output the transcript records for its calls but no call carries (a
	// stream-json log's unstreamed output) is every policy's: responses
	// are not regenerated.
	if u := pr.t.Unattributed; u != nil && u.Output > 0 {
		g, err := pr.group(nil)
		if err != nil {
			return nil, err
		}
		c, err := g.price.CallCost(transcript.Usage{Output: u.Output})
		if err == nil {
			err = g.cost.Add(c)
		}
		if err == nil {
			err = rc.Calls.Add(c)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: pricing the output recorded for no call: %w", pr.t.File, err)
		}
		g.usage.Output += u.Output
		rc.Usage.Output += u.Output
	}
	// The calls no record shows (a stream-json log's hidden calls) are
	// every policy's too, at what the agent reported they cost.
	if p.anchored {
		for _, mu := range pr.t.UnattributedByModel {
			r := pr.lookup(mu.Model)
			if r.err != nil {
				return nil, r.err
			}
			c, err := r.price.CallCost(mu.Usage)
			if err == nil {
				err = rc.Calls.Add(c)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: pricing the usage recorded for %s: %w", pr.t.File, mu.Model, err)
			}
			rc.Usage.Add(mu.Usage)
		}
	}
	var err error
	if rc.Total, err = rc.Calls.Total().Plus(rc.Summaries.Total()); err != nil {
		return nil, fmt.Errorf("%s: the cost of the calls and their summaries: %w", pr.t.File, err)
	}
	if pr.opt.FitCalls > 0 {
		rc.AfterFit = &p.after
		rc.fitCalls, rc.afterCalls, rc.afterUnbilled = pr.opt.FitCalls, p.afterCalls, p.afterUnbilled
	}
	if rc.Breaks, rc.BreakTotals, err = p.brk.finish(); err != nil {
		return nil, err
	}
	pr.finish(rc, p.firstRead && !p.anchored)
	if p.unbilled > 0 {
		rc.Assumptions = append(rc.Assumptions, fmt.Sprintf("%d calls record no prompt: priced at what the bill records of them (their output), for every policy", p.unbilled))
	}
	if sp := pr.fit.spreadOf(); p.anchored && sp != nil {
		rc.Assumptions = append(rc.Assumptions, sp.assumption(len(pr.calls)))
	}
	if p.anchored {
		rc.Assumptions = append(rc.Assumptions, "a policy's call is the recorded call less alpha times the estimated tokens it did not send; where the recorded call missed the cache, it reads at most what the provider kept")
		if pr.opt.Model != "" {
			rc.Assumptions = append(rc.Assumptions, "priced as "+pr.opt.Model+": the calls keep the tokens and the cache reads the recorded models billed, at "+pr.opt.Model+"'s prices")
		}
	}
	if p.anchored && p.afterCalls > 0 {
		for _, g := range pr.order {
			if g.fit != nil {
				alpha := fmt.Sprintf("alpha %.3f", g.fit.alpha)
				switch {
				case g.fit.pairs == 0 && g.fit.family != "":
					alpha = fmt.Sprintf("alpha %.3f, %s (fewer than %d growths to fit it on)", g.fit.alpha, g.fit.alphaFrom, family.MinGrowths)
				case g.fit.pairs == 0:
					alpha = fmt.Sprintf("alpha 1 (fewer than %d growths to fit it on)", family.MinGrowths)
				}
				if g.sim == cacheNone {
					rc.fitAssumptions = append(rc.fitAssumptions, fmt.Sprintf("%s, fitted on the first %d calls: %s, constant %d tokens; no prompt cache; the later calls are priced from these, without their bill",
						g.name, pr.opt.FitCalls, alpha, g.fit.constant))
					continue
				}
				rc.fitAssumptions = append(rc.fitAssumptions, fmt.Sprintf("%s, fitted on the first %d calls: %s, constant %d tokens; the provider's cache %s, losing %.1f%% of the read at a miss, and read %.1f%% of the rest beyond an ideal cache; the later calls are priced from these, without their bill, reading nothing after the cache expired",
					g.name, pr.opt.FitCalls, alpha, g.fit.constant, g.fit.misses, g.fit.lost*100, g.fit.gain*100))
			}
		}
	}
	rc.Assumptions = append(rc.Assumptions, rc.fitAssumptions...)
	return rc, nil
}

// callMessages returns the index of each call's assistant message in t.
func callMessages(t *transcript.Transcript) []int {
	var out []int
	for i := range t.Messages {
		if t.Messages[i].Role == transcript.RoleAssistant {
			out = append(out, i)
		}
	}
	return out
}

// A pricer groups a transcript's calls by the model that prices them —
// each call's own, resolved once per name, or the what-if model for all —
// and keeps each group's constant, cache and totals.
type pricer struct {
	t       *transcript.Transcript
	fit     *recordedFit
	opt     Options
	prices  *resolve.Resolver
	calls   []int
	oneHour bool
	// extended names the models whose bills show the provider's extended
	// retention ([retention.Retention]) in use.
	extended map[string]bool
	// noCache names the models whose bills show no cache use: a prompt
	// billed, and not one token read from the cache or written to it.
	noCache map[string]bool
	groups  map[string]*modelGroup // by the table's name
	order   []*modelGroup          // in first use
}

type resolution struct {
	name  string
	price pricing.Price
	err   error
}

type modelGroup struct {
	name  string // the table's
	price pricing.Price
	sim   string
	cache *prefix.Cache
	last  *lastRequest // the group's previous request
	// hint is the positions the group's next request is known to share
	// with its last.
	hint     int
	constant int
	// fit is the group's alpha and constant when its calls are priced
	// from the bill.
	fit   *groupFit
	calls int
	usage transcript.Usage
	cost  pricing.Cost
}

func newPricer(t *transcript.Transcript, fit *recordedFit, opt Options) *pricer {
	u := t.Usage()
	p := &pricer{t: t, fit: fit, opt: opt, prices: opt.resolver(), calls: callMessages(t), groups: map[string]*modelGroup{},
		// Claude Code writes with the 1-hour lifetime: simulate the
		// lifetime the transcript's writes used, at its price.
		oneHour: u.CacheWrite1h*2 > u.CacheWrite}
	p.extended = p.extendedRetention()
	p.noCache = p.cacheUnused()
	return p
}

// cacheUnused returns the models (the table's names) whose bills record
// a prompt and no cache use: no call of theirs read from the cache or
// wrote to it (a proxy that strips the cache's markers, a provider
// without one). They are priced without a prompt cache.
func (p *pricer) cacheUnused() map[string]bool {
	out := map[string]bool{}
	for i := range p.calls {
		m := p.call(i)
		r := p.resolve(m)
		if r.err != nil || m.Usage == nil || m.Usage.Prompt() == 0 {
			continue
		}
		used := m.Usage.CacheRead > 0 || m.Usage.CacheWrite > 0
		if was, seen := out[r.name]; !seen || was {
			out[r.name] = !used
		}
	}
	for name, none := range out {
		if !none {
			delete(out, name)
		}
	}
	return out
}

// extendedRetention returns the models (the table's names) whose bills
// show the provider's extended retention in use: a call that read from
// the cache more than half of its model's previous prompt after an idle
// spell longer than the default retention keeps an entry at most
// ([retention.Retention.Max]). Anthropic's is said by its writes instead
// (oneHour).
func (p *pricer) extendedRetention() map[string]bool {
	type last struct {
		at     time.Time
		prompt int64
	}
	out := map[string]bool{}
	lasts := map[string]last{}
	for i := range p.calls {
		m := p.call(i)
		r := p.resolve(m)
		if r.err != nil || m.Usage == nil {
			continue
		}
		ret := retention.Of(r.name, r.price)
		if l, ok := lasts[r.name]; ok && ret.Extended > 0 && r.price.Provider != "anthropic" &&
			!warm(l.at, m.Time, ret.Max) && !l.at.IsZero() && l.prompt > 0 && m.Usage.CacheRead*2 > l.prompt {
			out[r.name] = true
		}
		if m.Usage.Prompt() > 0 {
			lasts[r.name] = last{m.Time, m.Usage.Prompt()}
		}
	}
	return out
}

// oneHourWrites reports whether a cache of kind sim writes for an hour,
// at the 1-hour rate: Anthropic's, in a transcript whose bills wrote
// most of their cache writes so (Claude Code's). Else Anthropic's writes
// are for 5 minutes at the 5-minute rate, and the other caches write
// nothing.
func (p *pricer) oneHourWrites(sim string) bool { return p.oneHour && sim == cacheAnthropic }

// lifetimes returns how long the cache of model r usually keeps an
// unused entry (what a simulation with no bill holds it for) and how
// long for sure at most: its provider's documented retention
// ([retention.Of]), or the extended one where the bills show it
// in use (Anthropic's hour where the transcript's writes used it).
func (p *pricer) lifetimes(r resolution) (typical, most time.Duration) {
	ret := retention.Of(r.name, r.price)
	switch {
	case p.oneHourWrites(cacheSimFor(r.price.Provider)):
		return time.Hour, time.Hour
	case p.extended[r.name]:
		return ret.Extended, ret.Extended
	}
	return ret.Typical, ret.Max
}

// expired reports whether a call at at to model r finds the cache of
// its model's previous call, at prev, expired: past the lifetime that
// keeps an entry for sure at most ([pricer.lifetimes]); unknown times
// never expire.
func (p *pricer) expired(r resolution, prev, at time.Time) bool {
	_, most := p.lifetimes(r)
	return !warm(prev, at, most)
}

// where names call i in errors: its record's file and line.
func (p *pricer) where(i int) string {
	if m := p.call(i); m != nil {
		return m.Pos.String()
	}
	return p.t.File
}

// call returns the assistant message of call i, or nil.
func (p *pricer) call(i int) *transcript.Message {
	if i < len(p.calls) {
		return &p.t.Messages[p.calls[i]]
	}
	return nil
}

// resolve looks the model of call m up, once per name.
func (p *pricer) resolve(m *transcript.Message) resolution {
	return p.lookup(p.opt.callModel(p.t, m))
}

// lookup looks a model up in the table, once per name.
func (p *pricer) lookup(name string) resolution {
	pr, table, err := p.prices.Lookup(name)
	return resolution{table, pr, err}
}

// group returns the group of call m's model.
func (p *pricer) group(m *transcript.Message) (*modelGroup, error) {
	r := p.resolve(m)
	if r.err != nil {
		return nil, r.err
	}
	if g, ok := p.groups[r.name]; ok {
		return g, nil
	}
	sim := p.opt.CacheSim
	switch {
	case sim == "" && p.noCache[r.name]:
		sim = cacheNone
	case sim == "":
		sim = cacheSimFor(r.price.Provider)
	}
	// The group's constant: over the recorded run's calls of its model.
	constant, ok := p.fit.constant(func(i int) bool { return p.resolve(p.call(i)).name == r.name })
	if !ok {
		constant = p.fit.Constant()
	}
	var gf *groupFit
	if p.fit.anchored() {
		if gf = p.fit.groupFit(p, r.name, p.opt.FitCalls); gf != nil {
			constant = gf.constant
		}
	}
	g := &modelGroup{name: r.name, price: r.price, sim: sim, cache: newPrefixCache(), constant: constant, fit: gf}
	if sim == cacheSimFor(r.price.Provider) {
		ttl, _ := p.lifetimes(r)
		g.cache.SetTTL(ttl)
	}
	p.groups[r.name] = g
	p.order = append(p.order, g)
	return g, nil
}

// finish fills rc's model fields and assumptions; firstRead says that
// the run's first call recorded reading the cache.
func (p *pricer) finish(rc *RunCost, firstRead bool) {
	if len(p.order) == 0 {
		if _, err := p.group(nil); err != nil {
			return
		}
	}
	most := p.order[0]
	for _, g := range p.order {
		mc := ModelCost{Model: g.name, Calls: g.calls, Constant: g.constant, CacheSim: g.sim, Usage: g.usage, Cost: g.cost}
		if g.fit != nil {
			mc.Alpha, mc.AlphaFittedOn, mc.AlphaFamily = g.fit.alpha, g.fit.pairs, g.fit.family
		}
		rc.ByModel = append(rc.ByModel, mc)
		if g.calls > most.calls {
			most = g
		}
	}
	rc.Model, rc.CacheSim, rc.Constant = most.name, most.sim, most.constant
	for _, g := range p.order {
		if p.noCache[g.name] && g.sim == cacheNone {
			rc.Assumptions = append(rc.Assumptions, g.name+": no cache use in the bill: priced without a prompt cache")
		}
	}
	if p.oneHourWrites(rc.CacheSim) {
		rc.Assumptions = append(rc.Assumptions, "cache writes use the 1-hour lifetime and price, as the transcript's did")
	}
	if times := p.t.CallTimes(); len(times) == 0 || times[0].IsZero() {
		rc.Assumptions = append(rc.Assumptions, "the transcript records no times: the cache is assumed never to expire")
	}
	if firstRead {
		rc.Assumptions = append(rc.Assumptions, "the first call reads from the cache what it recorded reading (the cache before the session is unknown)")
	}
}
