package replay

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/countcache"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A Replayer replays one transcript, under as many policies and options
// as asked. It owns what the transcript's runs share — the token counts
// of its messages with each estimator, their retention artifacts — each
// found once, and lets them go with it: a run made by a Replayer costs
// its own work only, and the runs give the results [Replay] gives. It is
// safe for concurrent use.
type Replayer struct {
	t      *transcript.Transcript
	counts *countcache.Cache
	arts   *artifactCache

	mu sync.Mutex
	// warmed are the estimators whose counts of every message were made
	// ahead, and retained says the artifacts were.
	warmed   map[estimate.Estimator]bool
	retained bool
}

// NewReplayer returns a Replayer of t. A transcript read measured
// ([transcript.Transcript.Measured]) holds no content to send: refused.
func NewReplayer(t *transcript.Transcript) (*Replayer, error) {
	if err := replayable(t); err != nil {
		return nil, err
	}
	return &Replayer{t: t, counts: countcache.New(), arts: newArtifactCache(), warmed: map[estimate.Estimator]bool{}}, nil
}

// Transcript returns the transcript replayed.
func (r *Replayer) Transcript() *transcript.Transcript { return r.t }

// with returns opt with r's caches.
func (r *Replayer) with(opt Options) Options {
	if opt.counts == nil {
		opt.counts = r.counts
	}
	if opt.arts == nil {
		opt.arts = r.arts
	}
	return opt
}

// Replay runs the transcript through p, as [Replay] does.
func (r *Replayer) Replay(ctx context.Context, p window.Policy, opt Options) (*Run, error) {
	return Replay(ctx, r.t, p, r.with(opt))
}

// ReplayAll replays the transcript under each policy, workers runs at a
// time, and returns the runs in the policies' order: the same runs as
// one Replay after another, whatever the number of workers. workers 0
// means up to four runs per CPU at once: the runs then share the CPUs,
// so a long run started last does not finish alone on one (how long each
// run takes is not known beforehand). opt's summarizer must be safe for
// concurrent use, as every summarizer of package summarize is.
func (r *Replayer) ReplayAll(ctx context.Context, ps []window.Policy, opt Options, workers int) ([]*Run, error) {
	cpus := runtime.GOMAXPROCS(0)
	if workers <= 0 {
		workers = runsPerCPU * cpus
	}
	workers = min(workers, maxWorkers)
	opt = r.with(opt)
	r.warm(opt, min(workers, cpus))
	runs := make([]*Run, len(ps))
	errs := make([]error, len(ps))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(ps)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(ps) {
					return
				}
				o := opt
				o.run = i
				runs[i], errs[i] = Replay(ctx, r.t, ps[i], o)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return runs, nil
}

// Prepare counts the transcript's messages with opt's estimators now, on
// every CPU: what a reader calls as soon as it has read the transcript
// ([transcript.WalkPrepared]), so that the runs find the counts made
// while the transcripts before it were replayed. The retention artifacts
// are left to the runs: found ahead too, for the transcripts read ahead,
// they would hold the memory of many transcripts at once.
func (r *Replayer) Prepare(opt Options) {
	opt.NoRetention = true
	r.warm(opt, runtime.GOMAXPROCS(0))
}

// Warm finds now, on every CPU, what opt's runs of the transcript need
// (the counts, and the retention artifacts unless opt.NoRetention): what
// a caller that replays one run at a time calls first, so that the work
// is not done on one CPU. [Replayer.ReplayAll] does it itself.
func (r *Replayer) Warm(opt Options) {
	r.warm(opt, runtime.GOMAXPROCS(0))
}

// warm makes ahead, on workers goroutines, the counts and artifacts opt's
// runs need and r has not made yet.
func (r *Replayer) warm(opt Options, workers int) {
	opt = r.with(opt)
	r.mu.Lock()
	var ests []estimate.Estimator
	for _, e := range opt.estimators() {
		if !r.warmed[e] {
			ests = append(ests, e)
		}
	}
	retention := !opt.NoRetention && !r.retained
	r.mu.Unlock()
	if len(ests) == 0 && !retention {
		return
	}
	warm(r.t, opt.counts, opt.arts, ests, retention, workers)
	if opt.counts != r.counts || opt.arts != r.arts {
		return // a test's own caches
	}
	r.mu.Lock()
	for _, e := range ests {
		r.warmed[e] = true
	}
	r.retained = r.retained || retention
	r.mu.Unlock()
}

// NoneInputTokens returns the input tokens e counts when every call sends
// the whole history — what a replay under the none policy reports as
// Summary.InputTokens[e.Name()] — in one pass over the transcript instead
// of a replay, whose steps list and check contexts that grow with every
// call. It is the baseline of "share of none".
func (r *Replayer) NoneInputTokens(e estimate.Estimator) int64 {
	return noneInputTokens(r.t, e, r.counts)
}

// Counter returns a count of the transcript's items with the counts its
// runs share: the transcript's messages by index, other items
// (summaries, truncated copies) by message. It is not safe for
// concurrent use: each goroutine takes its own.
func (r *Replayer) Counter() func(e estimate.Estimator, it window.Item) int {
	return newCounter(r.counts, r.t).Count
}
