package cost

import (
	"context"
	"fmt"
	"slices"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/projection"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A Session is one transcript replayed under a list of policies and
// priced: what every command that shows money starts from.
type Session struct {
	Transcript *transcript.Transcript
	// Runs are the policies' runs, in the policies' order.
	Runs []*replay.Run
	// Recorded is the recorded policy's run, on which Constant is fitted:
	// one of Runs when the policies include recorded.
	Recorded *replay.Run
	Constant int
	// Costs are the runs' costs, in the same order; nil when NotPriced.
	Costs []*RunCost
	// NotPriced says why the runs are not priced: the transcript records
	// no model and none was given, or the model has no price
	// ([pricing.NotPriced] is true of it). Nil when they are.
	NotPriced error
	// Billed is the usage the transcript recorded, priced call by call at
	// each call's own model ([billedCost]), with BilledPerCall its calls'
	// costs and CrossCheck the recorded policy's simulation against it.
	// They are nil when nothing is recorded, or when BillNotPriced says
	// which call's model has no price.
	Billed        *pricing.Cost
	BilledPerCall []pricing.Money
	BilledByModel []ModelCost
	CrossCheck    *CrossCheck
	BillNotPriced error
	// Misses are the recorded calls at which the provider's cache held
	// less than an ideal cache would have, and MissTotals their sums
	// (nil when nothing is billed).
	Misses     []CacheMiss
	MissTotals *CacheMisses
	fit        *recordedFit
}

// Replay replays r's transcript t under each policy, fits the prompt
// constant on the recorded policy's run, and prices every run, with the
// provider's cache simulated, at opt's model or t's own; it bills t's
// recorded usage and cross-checks the recorded run against it.
//
// The runs are priced as they are replayed ([runPricer], through
// ropt.Observe, which is given the steps too when set): they keep their
// steps only when ropt.NoSteps is false, and the memory of a run
// that does not keep them does not grow with its context. The constant
// is fitted first, on a replay of the recorded policy alone (one pass,
// its steps not kept). opt.Estimator defaults to ropt's primary
// estimator; the runs share r's counts.
//
// Its one error rule, which every command shares: a transcript that
// cannot be priced — no model, or a model with no price — is not an
// error: the Session says so in NotPriced (or, for the bill alone, in
// BillNotPriced), and the caller reports it and goes on. Any other
// failure (a cancelled ctx, a run that cannot be priced for another
// reason) is returned.
func Replay(ctx context.Context, r *replay.Replayer, policies []window.Policy, ropt replay.Options, opt Options) (*Session, error) {
	t := r.Transcript()
	ropt, opt = withEstimator(ropt, opt)
	recorded, err := window.Parse("recorded")
	if err != nil {
		return nil, err
	}
	// The counts every run needs, made on every CPU: the fit's replay
	// runs alone.
	r.Warm(ropt)
	// The fit: the recorded policy's run, counted with the pricing's
	// estimator alone.
	fit, recRun, err := fitRecorded(ctx, r, recorded, ropt, opt)
	if err != nil {
		return nil, err
	}

	// The runs, each priced by its pricer; the recorded policy's run is
	// also priced at the models that made its calls, for the
	// cross-check, when there is a bill to check and a what-if prices
	// the runs (or the policies do not list recorded: it is replayed
	// too).
	ps := policies
	rec := slices.IndexFunc(policies, func(p window.Policy) bool { return p.Name() == "recorded" })
	billed := t.Usage().Prompt() > 0
	if rec < 0 && billed {
		ps, rec = append(slices.Clip(policies), recorded), len(policies)
	}
	main := make([]*runPricer, len(policies))
	for k := range main {
		if main[k], err = newRunPricer(r, fit, opt); err != nil {
			return nil, err
		}
	}
	// The cross-check's pricer simulates the recorded run without its
	// bill, at the models that made the calls.
	var own *runPricer
	if billed {
		if own, err = newRunPricer(r, fit, crossCheckOptions(t, opt)); err != nil {
			return nil, err
		}
	}
	observe := ropt.Observe
	ropt.Observe = func(k int, s *replay.Step) error {
		if k < len(main) {
			main[k].Observe(s)
		}
		if k == rec && own != nil {
			own.Observe(s)
		}
		if k >= len(policies) {
			return nil
		}
		if observe != nil {
			if err := observe(k, s); err != nil {
				return err
			}
		}
		if opt.Observe != nil {
			pc, ok := main[k].Last()
			if !ok {
				return opt.Observe(k, s, nil)
			}
			return opt.Observe(k, s, &pc)
		}
		return nil
	}
	runs, err := r.ReplayAll(ctx, ps, ropt, 0)
	if err != nil {
		return nil, err
	}
	s := &Session{Transcript: t, Runs: runs[:len(policies)], Recorded: recRun, Constant: fit.Constant(), fit: fit}
	if rec >= 0 && rec < len(policies) {
		s.Recorded = runs[rec]
	}
	if err := s.price(main); err != nil {
		return nil, err
	}
	if !billed {
		return s, nil
	}
	return s, s.bill(opt, func() (*RunCost, error) { return own.Finish(runs[rec]) })
}

// price prices every run, or sets NotPriced.
func (s *Session) price(pricers []*runPricer) error {
	costs := make([]*RunCost, len(s.Runs))
	for k, run := range s.Runs {
		rc, err := pricers[k].Finish(run)
		if pricing.NotPriced(err) {
			s.NotPriced = err
			return nil
		}
		if err != nil {
			return err
		}
		costs[k] = rc
	}
	s.Costs = costs
	return nil
}

// bill prices the recorded usage, or sets BillNotPriced; recorded is the
// recorded policy's run priced at the models that made its calls.
func (s *Session) bill(opt Options, recorded func() (*RunCost, error)) error {
	t := s.Transcript
	// The bill is what the calls cost at their own models; a call that
	// records none is priced at the transcript's first model, or, with
	// none recorded at all, at the what-if model.
	b, err := billOf(t, opt.prices(), billModel(t, opt))
	s.BilledPerCall, s.BilledByModel = b.perCall(), b.byModel
	if pricing.NotPriced(err) {
		s.BillNotPriced, s.BilledPerCall, s.BilledByModel = err, nil, nil
		return nil
	}
	if err != nil {
		return err
	}
	s.Billed = &b.total
	if a := s.fit.anchor; a != nil {
		if s.Misses, s.MissTotals, err = cacheMisses(a.pr, a.calls); err != nil {
			return err
		}
	}
	// A bill shared out over the calls measures no call's: there is no
	// out-of-sample test to make ([spread]).
	if s.fit.spreadOf() != nil {
		return nil
	}
	// The cross-check is the out-of-sample test: the recorded policy,
	// fitted on the first calls, its later calls priced without their
	// bill, against their bill; both at the models that made the calls,
	// whatever model a what-if prices the policies at.
	sim, err := recorded()
	if pricing.NotPriced(err) {
		return nil
	}
	if err != nil {
		return err
	}
	s.CrossCheck, err = crossCheck(t, sim, b)
	return err
}

// crossCheck is the out-of-sample test of sim, the recorded run of t
// priced without the bill after its fit, against b, t's bill; nil when
// no call came after the fit.
func crossCheck(t *transcript.Transcript, sim *RunCost, b billedUsage) (*CrossCheck, error) {
	if sim.afterCalls == 0 {
		return nil, nil
	}
	x, err := newHeldOut(sim, b.calls)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.File, err)
	}
	return x, nil
}

// crossCheckOptions are the options of the cross-check's pricer, opt
// being the policies': each call at the model that made it, fitted on
// t's first calls (opt.FitCalls, by default [defaultFitCalls]).
func crossCheckOptions(t *transcript.Transcript, opt Options) Options {
	opt.Model = ""
	if opt.FitCalls == 0 {
		opt.FitCalls = defaultFitCalls(t)
	}
	return opt
}

// billModel is the model that prices a call of t recording none: t's
// first model, or, with none recorded at all, opt's what-if model.
func billModel(t *transcript.Transcript, opt Options) string {
	if len(t.Models) > 0 {
		return t.Models[0]
	}
	return opt.Model
}

// SweepError returns the error of r's transcript's cross-check, as
// [Replay] makes it with the same ropt and opt and [CrossCheck.SessionError] reads
// it, for a command that prices its runs otherwise ([SweepPricer]):
// its recorded run fitted on the first calls, the later ones priced
// without their bill, against it. ok is false when the transcript
// counts in no projection error: fewer than 20 calls, no bill, or a model with no price.
func SweepError(ctx context.Context, r *replay.Replayer, ropt replay.Options, opt Options) (errPct float64, ok bool, err error) {
	t := r.Transcript()
	if t.Calls < projection.MinErrorCalls || t.Usage().Prompt() == 0 {
		return 0, false, nil
	}
	ropt, opt = withEstimator(ropt, opt)
	recorded, err := window.Parse("recorded")
	if err != nil {
		return 0, false, err
	}
	fit, _, err := fitRecorded(ctx, r, recorded, ropt, opt)
	if err != nil {
		return 0, false, err
	}
	if fit.spreadOf() != nil {
		return 0, false, nil // no call's bill to check against
	}
	own, err := newRunPricer(r, fit, crossCheckOptions(t, opt))
	if err != nil {
		return 0, false, err
	}
	ropt.Estimators, ropt.NoSteps, ropt.NoRetention = []estimate.Estimator{opt.Estimator}, true, true
	ropt.Observe = func(_ int, s *replay.Step) error { own.Observe(s); return nil }
	run, err := r.Replay(ctx, recorded, ropt)
	if err != nil {
		return 0, false, err
	}
	b, err := billOf(t, opt.prices(), billModel(t, opt))
	if pricing.NotPriced(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	sim, err := own.Finish(run)
	if pricing.NotPriced(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	x, err := crossCheck(t, sim, b)
	if err != nil {
		return 0, false, err
	}
	errPct, ok = x.SessionError(t.Calls)
	return errPct, ok, nil
}

// withEstimator returns ropt and opt with their estimators: the runs
// count with cl100k_base unless told otherwise, pricing with their first.
func withEstimator(ropt replay.Options, opt Options) (replay.Options, Options) {
	if len(ropt.Estimators) == 0 {
		ropt.Estimators = []estimate.Estimator{estimate.MustNew("cl100k_base", estimate.OverheadNone)}
	}
	if opt.Estimator == nil {
		opt.Estimator = ropt.Estimators[0]
	}
	return ropt, opt
}

// defaultFitCalls is the number of calls the cross-check fits on when
// [Options.FitCalls] is 0: the first half of t's calls, at least one.
func defaultFitCalls(t *transcript.Transcript) int { return max(1, t.Calls/2) }

// Cost returns the cost of the run of the policy named name (the first
// such run), or nil when the session is not priced or has no such run.
func (s *Session) Cost(name string) *RunCost {
	for k, r := range s.Runs {
		if r.Policy == name && s.Costs != nil {
			return s.Costs[k]
		}
	}
	return nil
}

// fitRecorded replays t under recorded, counted with opt's estimator
// alone and keeping no step, into the fit pricing takes from it
// ([newAnchoredFit]); it returns the fit and the run.
func fitRecorded(ctx context.Context, r *replay.Replayer, recorded window.Policy, ropt replay.Options, opt Options) (*recordedFit, *replay.Run, error) {
	fit := newAnchoredFit(r, opt)
	ropt.Estimators, ropt.NoSteps, ropt.NoRetention = []estimate.Estimator{opt.Estimator}, true, true
	ropt.Observe = func(_ int, s *replay.Step) error { fit.Add(s); return nil }
	run, err := r.Replay(ctx, recorded, ropt)
	if err == nil {
		t := r.Transcript()
		fit.spreadBill(t, billModel(t, opt))
	}
	return fit, run, err
}

// SweepPricer fits the recorded run of r's transcript t, as [Replay]
// does, and returns what prices each run of a sweep of t as Replay
// prices it ([replay.Sweeper.Price]): ropt are the sweep's options;
// opt.Estimator defaults to their first estimator. It returns nil, and
// no error, when t cannot be priced (no model, a model with no price, or
// no call).
func SweepPricer(ctx context.Context, r *replay.Replayer, ropt replay.Options, opt Options) (func() replay.RunCoster, error) {
	if opt.Estimator == nil && len(ropt.Estimators) > 0 {
		opt.Estimator = ropt.Estimators[0]
	}
	recorded, err := window.Parse("recorded")
	if err != nil {
		return nil, err
	}
	fit, _, err := fitRecorded(ctx, r, recorded, ropt, opt)
	if err != nil {
		return nil, err
	}
	probe, err := newRunPricer(r, fit, opt)
	if err == nil {
		err = probe.NotPriced()
	}
	if pricing.NotPriced(err) || err == nil && len(probe.pr.calls) == 0 {
		return nil, nil // a transcript of no call prices no model
	}
	if err != nil {
		return nil, err
	}
	return func() replay.RunCoster {
		p, _ := newRunPricer(r, fit, opt) // as the one above: no error
		return sweepCoster{p}
	}, nil
}

// sweepCoster is a runPricer as a sweep's [replay.RunCoster].
type sweepCoster struct{ p *runPricer }

func (c sweepCoster) Observe(s *replay.Step) { c.p.Observe(s) }

func (c sweepCoster) Finish(r *replay.Run) (int64, error) {
	rc, err := c.p.Finish(r)
	if err != nil {
		return 0, err
	}
	return int64(rc.Total), nil
}

// SessionError returns the error of the cross-check of a transcript of
// calls calls, in percent of the bill, and whether it counts in a
// projection error: the transcript has 20 calls or more and the cross-check compared
// calls after the fit with their bill. A nil cross-check counts in none.
func (x *CrossCheck) SessionError(calls int) (float64, bool) {
	if calls < projection.MinErrorCalls || x == nil || x.AfterFit == nil || x.AfterFit.Calls == 0 || x.AfterFit.Billed.Total() <= 0 {
		return 0, false
	}
	return x.ErrorPct, true
}
