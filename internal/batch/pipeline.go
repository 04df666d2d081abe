package batch

import (
	"context"
	"errors"
	"sync"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/suitecheck"
	"github.com/ctxbench/ctxbench/internal/tracefmt"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A Spec says what a [Pipeline] does with each transcript: the
// policies it replays and prices, what it counts, the sweep it starts,
// and who is given the results.
type Spec struct {
	// Policies are the policies replayed, in order.
	Policies []window.Labeled
	// Holds, when set, says which of the policies to replay t under (a
	// shard's cases); a transcript under none is passed over.
	Holds func(t *transcript.Transcript, lp window.Labeled) bool
	// Replay configures the replays; its first estimator counts the
	// series' tokens (default cl100k_base).
	Replay replay.Options
	// Cost configures the pricing.
	Cost cost.Options
	// NoCost prices no run: the policies' runs are replayed alone
	// ([replay.Replayer.ReplayAll]; the SessionRun's Session holds their
	// Runs alone), the sweep's points are not priced.
	NoCost bool
	// Compare compares each transcript's runs with none's ([cost.Compare]:
	// the SessionRun's Comparison), as ctxbench cost prices them.
	Compare bool
	// Observe, when set, returns what is given each step of t's runs as
	// they are priced (the cost options' Observe): called once for each
	// transcript replayed, on the goroutine of Add, before its runs.
	Observe func(t *transcript.Transcript) func(run int, s *replay.Step, priced *tracefmt.PricedCall) error
	// NoSeries keeps no run's series call by call ([suitecheck.SessionRun]
	// Series): what a check, which draws none, sets.
	NoSeries bool
	// Estimators count each message ([suitecheck.SessionRun] Counts); none: no
	// counts.
	Estimators []estimate.Estimator
	// Sweep, if not nil, is swept over every transcript added, by
	// Workers (0: one per CPU), Progress told of the runs done.
	Sweep    *suitecheck.SweepSpec
	Workers  int
	Progress func(done, total int)
	// SweepError, when set, is given each transcript's error of the
	// sweep's prices ([cost.SweepError]), where it is measured: on a
	// goroutine of the sweep, one call at a time.
	SweepError func(pct float64)
	// Runs is given each transcript's runs, in the order added, on the
	// goroutine of Add.
	Runs func(*suitecheck.SessionRun) error
	// Swept, when set, is given each transcript's part of the sweep, by
	// its place in the order added, once its runs of the sweep are done:
	// on a goroutine of the sweep, one call at a time.
	Swept func(i int, st replay.SweptTranscript)
}

// A Pipeline is the work of a command over many transcripts, one
// transcript at a time: [Pipeline.Add] replays a transcript under the
// spec's policies and prices the runs ([cost.Replay]), keeping each
// run's series call by call, counts its messages with the estimators,
// and starts its runs of the sweep; [Pipeline.Finish] waits for the
// sweep. What it makes of a transcript goes to the spec's Runs as a
// [suitecheck.SessionRun] while the transcript is live, and is let go with
// it: the caller keeps what it draws.
type Pipeline struct {
	spec     Spec
	sweeper  *replay.Sweeper // started by Start, or the first Add or AddSwept
	sweepErr error
	adds     int
	errMu    sync.Mutex // held by SweepError's calls
}

// New returns the pipeline of spec: what every command runs its
// transcripts through.
func New(spec Spec) *Pipeline {
	if len(spec.Replay.Estimators) == 0 {
		spec.Replay.Estimators = []estimate.Estimator{estimate.MustNew("cl100k_base", estimate.OverheadNone)}
	}
	return &Pipeline{spec: spec}
}

// Estimator returns the name of the estimator the series' tokens are
// counted with.
func (p *Pipeline) Estimator() string { return p.spec.Replay.Estimators[0].Name() }

// Estimators returns the estimators the runs count with, the series'
// first.
func (p *Pipeline) Estimators() []estimate.Estimator { return p.spec.Replay.Estimators }

// Prepared is what [Pipeline.Prepare] made of a transcript, for
// [Pipeline.Add].
type Prepared struct {
	// policies are those t is replayed under; none: t is passed over.
	policies []window.Labeled
	// counts are t's counts ([suitecheck.SessionRun] Counts), or countsErr why
	// there are none. The counts themselves are let go as soon as they
	// are made: on a long session they are tens of MB.
	counts    []int
	countsErr error
	// r replays the transcript, its counts made ahead, or rErr says why
	// it cannot.
	r    *replay.Replayer
	rErr error
	done bool
}

// policiesOf returns the policies t is replayed under.
func (p *Pipeline) policiesOf(t *transcript.Transcript) []window.Labeled {
	if p.spec.Holds == nil {
		return p.spec.Policies
	}
	var out []window.Labeled
	for _, lp := range p.spec.Policies {
		if p.spec.Holds(t, lp) {
			out = append(out, lp)
		}
	}
	return out
}

// Prepare does the part of [Pipeline.Add] that needs no other
// transcript — t's counts with every estimator, and the replay's counts
// ([replay.Replayer.Prepare]) — on the calling goroutine: what a reader
// calls as soon as it has read t ([transcript.WalkPrepared]). It is safe
// for concurrent use, with Add too, once the sweep (if any) is started:
// a caller that prepares on other goroutines calls [Pipeline.Start]
// before them, as sweep does (Add starts it otherwise, and Prepare reads
// it).
func (p *Pipeline) Prepare(t *transcript.Transcript) Prepared {
	pr := Prepared{done: true, policies: p.policiesOf(t)}
	if len(pr.policies) == 0 && p.spec.Sweep == nil {
		return pr
	}
	if len(pr.policies) == 0 && p.sweeper != nil {
		// The sweep's alone: its counts and retention artifacts.
		pr.r, pr.rErr = p.sweeper.Prepare(t)
		return pr
	}
	if pr.r, pr.rErr = replay.NewReplayer(t); pr.rErr != nil {
		return pr
	}
	if len(p.spec.Estimators) > 0 {
		var c *estimate.Counts
		if c, pr.countsErr = estimate.Analyze(t, p.spec.Estimators); pr.countsErr == nil {
			pr.counts = c.Rows()
		}
	}
	pr.r.Prepare(p.spec.Replay)
	return pr
}

// Add replays t under the policies, gives its runs to Runs and starts
// its runs of the sweep; pr is what Prepare made of t, or the zero
// Prepared (Add then does it). Add is called from one goroutine.
func (p *Pipeline) Add(ctx context.Context, t *transcript.Transcript, pr Prepared) error {
	if !pr.done {
		pr = p.Prepare(t)
	}
	if len(pr.policies) == 0 {
		if pr.rErr != nil {
			return pr.rErr
		}
		return p.sweep(ctx, pr.r)
	}
	sr, err := p.replay(ctx, t, pr)
	if err != nil {
		return err
	}
	if p.spec.Runs != nil {
		if err := p.spec.Runs(sr); err != nil {
			return err
		}
	}
	return p.sweep(ctx, pr.r)
}

// Replay replays and prices t under the policies, as Add does, and
// returns its runs instead of giving them to Runs; it starts no sweep.
// A transcript under no policy has no runs (nil).
func (p *Pipeline) Replay(ctx context.Context, t *transcript.Transcript, pr Prepared) (*suitecheck.SessionRun, error) {
	if !pr.done {
		pr = p.Prepare(t)
	}
	if len(pr.policies) == 0 {
		return nil, nil
	}
	return p.replay(ctx, t, pr)
}

// replay is Add's and Replay's: t's runs, the next in the order added.
func (p *Pipeline) replay(ctx context.Context, t *transcript.Transcript, pr Prepared) (*suitecheck.SessionRun, error) {
	if pr.rErr != nil {
		return nil, pr.rErr
	}
	if pr.countsErr != nil {
		return nil, pr.countsErr
	}
	sr, err := p.run(ctx, t, pr)
	if err != nil {
		return nil, err
	}
	p.adds++
	return sr, nil
}

// run replays and prices t: its SessionRun.
func (p *Pipeline) run(ctx context.Context, t *transcript.Transcript, pr Prepared) (*suitecheck.SessionRun, error) {
	est := p.spec.Replay.Estimators[0]
	sr := &suitecheck.SessionRun{Index: p.adds, Transcript: t, Policies: pr.policies, Estimator: est.Name(), Counts: pr.counts}
	ps := make([]window.Policy, len(pr.policies))
	for k, lp := range pr.policies {
		ps[k] = lp.Policy
	}
	// The runs keep no steps: each run's series are taken as the steps
	// are made (a run's on its own goroutine).
	ropt := p.spec.Replay
	ropt.NoSteps = true
	if !p.spec.NoSeries {
		sr.Series = make([]suitecheck.Series, len(pr.policies))
		ropt.Observe = seriesObserver(sr.Series, est.Name())
	}
	copt := p.spec.Cost
	if p.spec.Observe != nil {
		copt.Observe = p.spec.Observe(t)
	}
	var err error
	if p.spec.NoCost {
		if obs := copt.Observe; obs != nil {
			ropt.Observe = func(k int, s *replay.Step) error { return obs(k, s, nil) }
		}
		sr.Session = &cost.Session{}
		sr.Session.Runs, err = pr.r.ReplayAll(ctx, ps, ropt, 0)
	} else if p.spec.Compare {
		sr.Comparison, sr.Session, err = cost.Compare(ctx, pr.r, pr.policies, ropt, copt)
	} else {
		sr.Session, err = cost.Replay(ctx, pr.r, ps, ropt, copt)
	}
	if err != nil {
		return nil, err
	}
	sr.NoneInputTokens = pr.r.NoneInputTokens(est)
	return sr, nil
}

// seriesObserver returns the Observe that appends each step of run k to
// series[k], its tokens counted by est.
func seriesObserver(series []suitecheck.Series, est string) func(int, *replay.Step) error {
	return func(k int, st *replay.Step) error {
		s := &series[k]
		if len(st.Evicted) > 0 || len(st.Truncated) > 0 || st.Summary != nil {
			s.Events = append(s.Events, st.Step)
		}
		s.Messages = append(s.Messages, st.Messages)
		s.Tokens = append(s.Tokens, st.Tokens[est])
		s.Retention = append(s.Retention, st.Retention)
		s.ProbesAsked = append(s.ProbesAsked, st.ProbesAsked)
		s.ProbesKept = append(s.ProbesKept, st.ProbesKept)
		return nil
	}
}

// Start starts the sweep, if there is one and it has not started: what
// a caller that would know of a grid it cannot sweep before it reads a
// transcript calls first. Add and AddSwept start it otherwise.
func (p *Pipeline) Start(ctx context.Context) error {
	if p.spec.Sweep == nil {
		return nil
	}
	return p.startSweep(ctx)
}

// startSweep starts the sweep, once.
func (p *Pipeline) startSweep(ctx context.Context) error {
	if p.sweeper != nil {
		return nil
	}
	opt := p.spec.Replay
	opt.Estimators = opt.Estimators[:1]
	sp := p.spec.Sweep
	sw, err := replay.NewSweeper(ctx, sp.Policy, sp.Base, sp.Grid, opt, p.spec.Workers, p.spec.Progress)
	if err != nil {
		return err
	}
	if err := sw.AddBaselines(); err != nil {
		return err
	}
	// Its points are priced as the policies are, for its answer, and
	// each transcript's cross-check measures how far those prices may be
	// off.
	if !p.spec.NoCost {
		sw.Price = func(r *replay.Replayer, opt replay.Options) (func() replay.RunCoster, error) {
			pricer, err := cost.SweepPricer(ctx, r, opt, p.spec.Cost)
			if err != nil || pricer == nil || p.spec.SweepError == nil {
				return pricer, err
			}
			pct, ok, err := cost.SweepError(ctx, r, opt, p.spec.Cost)
			if ok {
				p.errMu.Lock()
				p.spec.SweepError(pct)
				p.errMu.Unlock()
			}
			return pricer, err
		}
	}
	sw.Done = p.spec.Swept
	p.sweeper = sw
	return nil
}

// sweep starts the runs of the sweep of r's transcript, with the counts
// its replay made.
func (p *Pipeline) sweep(ctx context.Context, r *replay.Replayer) error {
	if p.spec.Sweep == nil {
		return nil
	}
	if err := p.startSweep(ctx); err != nil {
		return err
	}
	if err := p.sweeper.Add(r); err != nil {
		_, p.sweepErr = p.sweeper.Result() // why it stopped
		return p.sweepErr
	}
	return nil
}

// AddSwept adds a transcript's part of the sweep made by another
// Pipeline of the same spec (a shard's, the spec's Swept), as Add adds
// a transcript's runs of the sweep.
func (p *Pipeline) AddSwept(ctx context.Context, st replay.SweptTranscript) error {
	if p.spec.Sweep == nil {
		return errors.New("a part of a sweep added to a pipeline that sweeps nothing")
	}
	if err := p.startSweep(ctx); err != nil {
		return err
	}
	return p.sweeper.AddSwept(st)
}

// Finish waits for the sweep over the transcripts added and returns it,
// its points in the grid's order (nil without a sweep).
func (p *Pipeline) Finish() (*replay.SweepResult, error) {
	if p.sweepErr != nil {
		return nil, p.sweepErr
	}
	if p.sweeper == nil {
		return nil, nil
	}
	s, err := p.sweeper.Result()
	if err != nil {
		return nil, err
	}
	s.SortPoints()
	return s, nil
}
