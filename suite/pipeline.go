package suite

import (
	"context"
	"errors"
	"sync"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A SweepSpec is a sweep of one policy: its fixed parameters and a grid
// of two keys.
type SweepSpec struct {
	Policy string
	Base   map[string]string
	Grid   []replay.GridKey
}

// A Pipeline is the work a report of many sessions is drawn from, one
// transcript at a time: [Pipeline.Add] replays a transcript under every
// policy and prices the runs ([cost.Replay]), keeping each run's series
// call by call, counts its messages with the estimators, and starts its
// runs of the sweep; [Pipeline.Finish] waits for the sweep. What it
// makes of a transcript goes to Runs as a [SessionRun] while the
// transcript is live, and is let go with it: the caller keeps what it
// draws. `ctxbench report` gives it to a reports.Builder.
type Pipeline struct {
	// Policies are the policies replayed, in order.
	Policies []window.Labeled
	// Replay configures the replays; its first estimator counts the
	// series' tokens (default cl100k_base).
	Replay replay.Options
	// Cost configures the pricing.
	Cost cost.Options
	// Estimators count each message ([SessionRun.Counts]); none: no
	// counts.
	Estimators []estimate.Estimator
	// Sweep, if not nil, is swept over every transcript added.
	Sweep *SweepSpec
	// Runs is given each transcript's runs, in the order added, on the
	// goroutine of Add.
	Runs func(*SessionRun) error
	// Swept, when set, is given each transcript's part of the sweep, by
	// its place in the order added, once its runs of the sweep are done:
	// on a goroutine of the sweep, one call at a time.
	Swept func(i int, st replay.SweptTranscript)

	once     sync.Once
	sweeper  *replay.Sweeper // started by the first Add or AddSwept
	sweepErr error
	adds     int
}

// A SessionRun is a transcript replayed and priced under a pipeline's
// policies.
type SessionRun struct {
	// Index is its place in the order the transcripts were added, from 0.
	Index      int
	Transcript *transcript.Transcript
	// Session is its runs, in the order of the policies, priced.
	Session *cost.Session
	// Series are each run's per-call series, in the same order.
	Series []Series
	// Estimator names the estimator the series' tokens are counted with,
	// and NoneInputTokens is what it counts of the calls sending the
	// whole history: what a run's share of none divides.
	Estimator       string
	NoneInputTokens int64
	// Counts are each message's counts, one per estimator of the
	// pipeline in its order (nil without Estimators).
	Counts []int
}

// A Series is a run's values call by call: the messages sent, their
// tokens, the retention and the probes asked and kept
// ([replay.Step]), and Events, the calls (0-based) at which the policy
// evicted, truncated or summarized.
type Series struct {
	Messages    []int
	Tokens      []int
	Retention   []float64
	ProbesAsked []int
	ProbesKept  []int
	Events      []int
}

// Prepared is what [Pipeline.Prepare] made of a transcript, for
// [Pipeline.Add].
type Prepared struct {
	// counts are t's counts ([SessionRun.Counts]), or countsErr why there
	// are none. The counts themselves are let go as soon as they are
	// made: on a long session they are tens of MB.
	counts    []int
	countsErr error
	// r replays the transcript, its counts made ahead, or rErr says why
	// it cannot.
	r    *replay.Replayer
	rErr error
}

func (p *Pipeline) init() { p.once.Do(p.setup) }

func (p *Pipeline) setup() {
	if len(p.Replay.Estimators) == 0 {
		p.Replay.Estimators = []estimate.Estimator{estimate.MustNew("cl100k_base", estimate.OverheadNone)}
	}
}

// Estimator returns the name of the estimator the series' tokens are
// counted with.
func (p *Pipeline) Estimator() string {
	p.init()
	return p.Replay.Estimators[0].Name()
}

// Prepare does the part of [Pipeline.Add] that needs no other
// transcript — t's counts with every estimator, and the replay's counts
// ([replay.Replayer.Prepare]) — on the calling goroutine: what a reader
// calls as soon as it has read t ([transcript.WalkPrepared]). It is safe
// for concurrent use, with Add too.
func (p *Pipeline) Prepare(t *transcript.Transcript) Prepared {
	p.init()
	var pr Prepared
	if pr.r, pr.rErr = replay.NewReplayer(t); pr.rErr != nil {
		return pr
	}
	if len(p.Estimators) > 0 {
		var c *estimate.Counts
		if c, pr.countsErr = estimate.Analyze(t, p.Estimators); pr.countsErr == nil {
			pr.counts = c.Rows()
		}
	}
	pr.r.Prepare(p.Replay)
	return pr
}

// Add replays t under every policy, gives its runs to Runs and starts
// its runs of the sweep; pr is what Prepare made of t, or the zero
// Prepared (Add then does it). Add is called from one goroutine.
func (p *Pipeline) Add(ctx context.Context, t *transcript.Transcript, pr Prepared) error {
	p.init()
	if pr.r == nil && pr.rErr == nil {
		pr = p.Prepare(t)
	}
	if pr.rErr != nil {
		return pr.rErr
	}
	if pr.countsErr != nil {
		return pr.countsErr
	}
	sr, err := p.run(ctx, t, pr)
	if err != nil {
		return err
	}
	if p.Runs != nil {
		if err := p.Runs(sr); err != nil {
			return err
		}
	}
	p.adds++
	return p.sweep(ctx, pr.r)
}

// run replays and prices t: its SessionRun.
func (p *Pipeline) run(ctx context.Context, t *transcript.Transcript, pr Prepared) (*SessionRun, error) {
	est := p.Replay.Estimators[0]
	sr := &SessionRun{Index: p.adds, Transcript: t, Series: make([]Series, len(p.Policies)), Estimator: est.Name(), Counts: pr.counts}
	ps := make([]window.Policy, len(p.Policies))
	for k, lp := range p.Policies {
		ps[k] = lp.Policy
	}
	// The runs keep no steps: each run's series are taken as the steps
	// are made (a run's on its own goroutine).
	ropt := p.Replay
	ropt.NoSteps = true
	ropt.Observe = seriesObserver(sr.Series, est.Name())
	var err error
	if sr.Session, err = cost.Replay(ctx, pr.r, ps, ropt, p.Cost); err != nil {
		return nil, err
	}
	sr.NoneInputTokens = pr.r.NoneInputTokens(est)
	return sr, nil
}

// seriesObserver returns the Observe that appends each step of run k to
// series[k], its tokens counted by est.
func seriesObserver(series []Series, est string) func(int, *replay.Step) error {
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

// startSweep starts the sweep, once.
func (p *Pipeline) startSweep(ctx context.Context) error {
	if p.sweeper != nil {
		return nil
	}
	opt := p.Replay
	opt.Estimators = opt.Estimators[:1]
	sw, err := replay.NewSweeper(ctx, p.Sweep.Policy, p.Sweep.Base, p.Sweep.Grid, opt, 0, nil)
	if err != nil {
		return err
	}
	if err := sw.AddBaselines(); err != nil {
		return err
	}
	// Its points are priced as the policies are, for its answer.
	sw.Price = func(r *replay.Replayer, opt replay.Options) (func() replay.RunCoster, error) {
		return cost.SweepPricer(ctx, r, opt, p.Cost)
	}
	sw.Done = p.Swept
	p.sweeper = sw
	return nil
}

// sweep starts the runs of the sweep of r's transcript, with the counts
// its replay made.
func (p *Pipeline) sweep(ctx context.Context, r *replay.Replayer) error {
	if p.Sweep == nil {
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
// Pipeline of the same settings (a shard's, [Pipeline.Swept]), as Add
// adds a transcript's runs of the sweep.
func (p *Pipeline) AddSwept(ctx context.Context, st replay.SweptTranscript) error {
	p.init()
	if p.Sweep == nil {
		return errors.New("a part of a sweep added to a pipeline that sweeps nothing")
	}
	if err := p.startSweep(ctx); err != nil {
		return err
	}
	return p.sweeper.AddSwept(st)
}

// Finish waits for the sweep over the transcripts added and returns it,
// its points in the grid's order (nil without Sweep).
func (p *Pipeline) Finish() (*replay.SweepResult, error) {
	p.init()
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
	replay.SortPoints(s.Points, p.Sweep.Grid)
	return s, nil
}
