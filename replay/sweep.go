package replay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/countcache"
	"github.com/ctxbench/ctxbench/internal/metric"
	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A GridKey is one swept parameter and its values, in order.
type GridKey struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// A Point is one grid point's result over every transcript.
type Point struct {
	Params map[string]string `json:"params"`
	// Label names a baseline ([Sweeper.AddBaselines]); "" for a grid
	// point.
	Label        string           `json:"label,omitempty"`
	Transcripts  int              `json:"transcripts"`
	Calls        int              `json:"calls"`
	PeakMessages int              `json:"peak_messages"`
	PeakTokens   int              `json:"peak_tokens"`
	InputTokens  int64            `json:"input_tokens"`
	ShareOfNone  float64          `json:"share_of_none"`
	Evictions    int              `json:"evictions"`
	Truncations  int              `json:"truncations"`
	Summaries    int              `json:"summaries"`
	SummaryUsage transcript.Usage `json:"summary_usage"`
	// MeanRetention is the mean over transcripts of the runs' mean
	// retention.
	MeanRetention float64 `json:"mean_retention"`
	// Probes are the runs' probes, asked and kept, and ProbeLoss the
	// session's probes and those lost, summed over the transcripts;
	// ProbeScore is the share of the transcripts' probes not lost.
	Probes     probe.Score    `json:"probes"`
	ProbeLoss  probe.Loss     `json:"probe_loss"`
	ProbeScore float64        `json:"probe_score"`
	Violations map[string]int `json:"violations"`
	// Cost is what the point's runs cost, summed over the Priced
	// transcripts ([Sweeper.Price]; none without it), in pico-dollars and
	// in dollars.
	Cost    int64   `json:"cost_pusd"`
	CostUSD float64 `json:"cost_usd"`
	Priced  int     `json:"priced_transcripts"`
	// Metrics are the point's metrics every table shows
	// ([metric.Shown]), each folded over the transcripts as it says.
	Metrics metric.Values `json:"metrics,omitempty"`
	// Cautions are what the policy says of its settings at this point
	// before replaying them (a Cautions method, [window.Policy]).
	Cautions []string `json:"cautions,omitempty"`
}

// A SweepResult is a sweep: the points in grid order (the first key
// varying slowest), and the combinations the policy rejected.
type SweepResult struct {
	Policy string `json:"policy"`
	// Base holds the fixed parameters every point shares.
	Base      map[string]string `json:"base"`
	Estimator string            `json:"estimator"`
	Grid      []GridKey         `json:"grid"`
	Points    []Point           `json:"points"`
	// Baselines are the runs of none, recorded and the agent's own
	// policy ([Sweeper.AddBaselines]), over the same transcripts.
	Baselines []Point  `json:"baselines,omitempty"`
	Invalid   []string `json:"invalid_points"`
	// Costed says the runs were priced ([Sweeper.Price]).
	Costed bool `json:"costed"`
}

// A Sweeper replays transcripts under one policy at every point of a
// grid of its parameters, the transcripts given one at a time, as they
// are read: each one's runs start as soon as it is added, while the next
// ones are read. Its result is the same whatever the number of workers:
// each point summed over the transcripts in the order they were added.
type Sweeper struct {
	// Price, when set before the first [Sweeper.Add], prices each run:
	// given a transcript's Replayer and the sweep's options, it returns
	// what makes one RunCoster per run, or nil when the transcript is not
	// priced. It is called on the goroutine that adds the transcript.
	Price func(r *Replayer, opt Options) (func() RunCoster, error)
	// Done, when set before the first [Sweeper.Add], is given each
	// transcript's part of the sweep once its runs are done, i the
	// transcript's place in the order added, in that order, one call at
	// a time, on a goroutine of the sweep: what [Sweeper.AddSwept] adds
	// to another sweep of the same grid.
	Done func(i int, st SweptTranscript)

	ctx      context.Context
	opt      Options
	policies []window.Policy
	none     window.Policy
	// baselines is the index in policies of the first baseline (the
	// points' count); own, the index of the agent's own policy's
	// (-1: none), replayed as ownPolicy picks; owns, the policies it
	// picked, each once, in order.
	baselines int
	own       int
	owns      []string
	ownBy     map[transcript.Format]window.Policy
	res       *SweepResult
	progress  func(done, total int)

	jobs    chan sweepJob
	stopped chan struct{} // closed when a run fails: no more jobs are taken
	stop    sync.Once
	err     error // the first run's failure, set by stop
	wg      sync.WaitGroup
	total   atomic.Int64 // jobs added
	done    atomic.Int64

	// The transcripts' runs are added into the points as soon as they
	// and every transcript added before them are done, so that a sweep
	// keeps no transcript it has finished: trs are the transcripts not
	// yet added (nil once they are), from the added-th on.
	mu        sync.Mutex
	trs       []*sweptTranscript
	added     int
	noneTotal int64
	// retention is each added transcript's mean retention at each point,
	// a transcript's points after another's: a point's mean is their sum
	// over the transcripts divided by their number, known at the end.
	retention []float64
	// metrics fold each point's shown metrics over the transcripts
	// added.
	metrics []metric.Folder
}

// A RunCoster prices one run as it is replayed: each step as it is made
// (valid during the call only), then the run, in pico-dollars.
type RunCoster interface {
	Observe(s *Step)
	Finish(r *Run) (int64, error)
}

// An inertPolicy can tell, before a replay, that it will send every
// history of a transcript as given: a replay under it is then a replay
// under none, which a sweep makes once per transcript for all such
// points.
type inertPolicy interface {
	InertOn(t *transcript.Transcript) bool
}

// A cautioner says, before a replay, where its settings promise what it
// does not keep or the replay does not check.
type cautioner interface {
	Cautions() []string
}

// sweptTranscript is a transcript of a sweep and its runs' summaries, one
// per point.
type sweptTranscript struct {
	// t and opt (the options, with t's caches) are let go when the last
	// of t's runs is done: left counts them down, and noneTokens is then
	// what the none policy sends of t.
	t          *transcript.Transcript
	file       string // t's, kept
	opt        Options
	left       atomic.Int64
	ran        chan struct{} // closed once left reached 0 and finish ran
	finished   bool          // left reached 0; under the Sweeper's mu
	noneTokens int64
	runs       []sweptRun
	// own names the agent's own policy the own baseline replays t under
	// ("": recorded).
	own string
	// coster makes each run's RunCoster (nil: not priced); priced says
	// it did.
	coster func() RunCoster
	priced bool
	// none is the none policy's run, made once when a point's policy is
	// inert on the transcript (it replays it as none does).
	none struct {
		once sync.Once
		sum  Summary
		cost int64
		err  error
	}
}

type sweepJob struct {
	tr *sweptTranscript
	p  int
}

// NewSweeper checks the grid's points against policy name (a point whose
// values the policy rejects together is listed in the result's Invalid; a
// value its parameter never takes, or another error, is returned before
// anything runs) and starts workers goroutines (0: one per CPU; at
// most 1024).
func NewSweeper(ctx context.Context, name string, base map[string]string, grid []GridKey,
	opt Options, workers int, progress func(done, total int)) (*Sweeper, error) {
	res := &SweepResult{Policy: name, Base: map[string]string{}, Grid: grid, Points: []Point{}, Invalid: []string{}}
	for k, v := range base {
		res.Base[k] = v
	}
	res.Estimator = opt.estimators()[0].Name()
	var policies []window.Policy
	for _, params := range product(grid) {
		all := map[string]string{}
		for k, v := range base {
			all[k] = v
		}
		for k, v := range params {
			all[k] = v
		}
		p, err := window.New(name, all)
		var invalid *window.ParamError
		if errors.As(err, &invalid) && invalid.Param == "" {
			res.Invalid = append(res.Invalid, err.Error())
			continue
		}
		if err != nil {
			return nil, err
		}
		policies = append(policies, p)
		pt := Point{Params: params, Violations: map[string]int{}, Probes: probe.Score{Kept: map[probe.Kind]int{}, Total: map[probe.Kind]int{}},
			ProbeLoss: probe.Loss{Lost: map[probe.Kind]int{}, Of: map[probe.Kind]int{}}}
		if c, ok := p.(cautioner); ok {
			pt.Cautions = c.Cautions()
		}
		res.Points = append(res.Points, pt)
	}
	none, err := window.Parse("none")
	if err != nil {
		return nil, err
	}
	// Only each run's summary is kept: a sweep's memory is its points, not
	// its points × steps.
	opt.NoSteps, opt.countViolations, opt.items = true, true, &sync.Pool{}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, maxWorkers)
	sw := &Sweeper{ctx: ctx, opt: opt, policies: policies, none: none, res: res, progress: progress, baselines: len(policies), own: -1,
		jobs: make(chan sweepJob), stopped: make(chan struct{}), metrics: make([]metric.Folder, len(res.Points))}
	for range workers {
		sw.wg.Go(sw.work)
	}
	return sw, nil
}

// work runs jobs until there are none left or a run fails.
func (sw *Sweeper) work() {
	for j := range sw.jobs {
		select {
		case <-sw.stopped:
			continue // drained: Add does not wait on a stopped sweep
		default:
		}
		if err := sw.ctx.Err(); err != nil {
			sw.fail(err)
			continue
		}
		s, cost, err := sw.run(j)
		if err != nil {
			sw.fail(err)
			continue
		}
		j.tr.runs[j.p] = sweptRunOf(s, sw.res.Estimator)
		j.tr.runs[j.p].Cost = cost
		if j.tr.left.Add(-1) == 0 {
			tr := j.tr
			tr.noneTokens = noneInputTokens(tr.t, tr.opt.estimators()[0], tr.opt.counts)
			tr.t, tr.opt = nil, Options{}
			sw.finish(tr)
			close(tr.ran)
		}
		if sw.progress != nil {
			sw.progress(int(sw.done.Add(1)), int(sw.total.Load()))
		}
	}
}

// finish marks tr's runs done and adds into the points every transcript
// whose runs are done and all before it, in the order they were added.
func (sw *Sweeper) finish(tr *sweptTranscript) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	tr.finished = true
	for sw.added < len(sw.trs) && sw.trs[sw.added].finished {
		sw.addRuns(sw.added, sw.trs[sw.added])
		sw.trs[sw.added] = nil
		sw.added++
	}
}

// addRuns adds tr, the i-th transcript added, into the points, its mean
// retentions kept apart.
func (sw *Sweeper) addRuns(i int, tr *sweptTranscript) {
	if sw.Done != nil {
		sw.Done(i, SweptTranscript{Runs: tr.runs, NoneTokens: tr.noneTokens, Priced: tr.priced, File: tr.file, Own: tr.own})
	}
	sw.noneTotal += tr.noneTokens
	if tr.own != "" && !slices.Contains(sw.owns, tr.own) {
		sw.owns = append(sw.owns, tr.own)
	}
	for p := range sw.policies {
		pt, s := sw.point(p), tr.runs[p]
		pt.Transcripts++
		pt.Calls += s.Calls
		pt.PeakMessages = max(pt.PeakMessages, s.PeakMessages)
		pt.PeakTokens = max(pt.PeakTokens, s.PeakTokens)
		pt.InputTokens += s.InputTokens
		pt.Evictions += s.Evictions
		pt.Truncations += s.Truncations
		pt.Summaries += s.Summaries
		pt.SummaryUsage.Add(s.SummaryUsage)
		for k, v := range s.Violations {
			pt.Violations[k] += v
		}
		if tr.priced {
			sum := pt.Cost + s.Cost
			if (pt.Cost^sum)&(s.Cost^sum) < 0 { // wrapped
				sw.fail(fmt.Errorf("%s: adding its cost to the sweep's point %d passes $9,223,372.0369, the most ctxbench counts", cmp.Or(tr.file, fmt.Sprintf("transcript %d", i+1)), p+1))
			}
			pt.Cost = sum
			pt.Priced++
		}
		pt.Probes.Merge(s.Probes)
		pt.ProbeLoss.Merge(s.ProbeLoss)
		sw.retention = append(sw.retention, s.MeanRetention)
		sw.metrics[p].Add(s.Metrics)
	}
}

// fail stops the sweep at its first failure.
func (sw *Sweeper) fail(err error) {
	sw.stop.Do(func() {
		sw.err = err
		close(sw.stopped)
	})
}

// A sweptRun is what a point's Summary of a transcript adds to the point:
// kept, for every transcript, until the sweep's result, it holds no
// firing nor warning, and the sweep's estimator's tokens alone.
type sweptRun struct {
	metric.Counts
	SummaryUsage  transcript.Usage `json:"summary_usage"`
	MeanRetention float64          `json:"mean_retention"`
	Probes        probe.Score      `json:"probes"`
	ProbeLoss     probe.Loss       `json:"probe_loss"`
	Violations    map[string]int   `json:"violations,omitempty"`
	Cost          int64            `json:"cost_pusd"`
	Metrics       metric.Values    `json:"metrics,omitempty"`
}

// A SweptTranscript is what a transcript adds to a sweep's points: its
// runs, one per point, what none sends of it, and whether it was
// priced ([Sweeper.Price]).
type SweptTranscript struct {
	Runs       []sweptRun `json:"runs"`
	NoneTokens int64      `json:"none_tokens"`
	Priced     bool       `json:"priced,omitempty"`
	// File is the transcript's, for an error to name.
	File string `json:"file,omitempty"`
	// Own names the agent's own policy its baseline replayed
	// ([Sweeper.AddBaselines]; "": recorded, or no baselines).
	Own string `json:"own,omitempty"`
}

// sweptRunOf returns what the run s summarizes adds to a point, its
// tokens by the estimator est.
func sweptRunOf(s Summary, est string) sweptRun {
	if len(s.Violations) == 0 {
		s.Violations = nil
	}
	return sweptRun{Counts: s.Counts(est), SummaryUsage: s.SummaryUsage,
		MeanRetention: s.MeanRetention, Probes: s.Probes, ProbeLoss: s.ProbeLoss, Violations: s.Violations, Metrics: s.Metrics()}
}

// run replays job j's transcript at its point, and prices it when the
// transcript is priced; a point whose policy is inert on the transcript
// replays it as none does, made and priced once.
func (sw *Sweeper) run(j sweepJob) (Summary, int64, error) {
	t, opt := j.tr.t, j.tr.opt
	p := sw.policies[j.p]
	if j.p == sw.own {
		p = sw.ownPolicy(t)
	}
	if in, ok := p.(inertPolicy); ok && in.InertOn(t) || p.Name() == "none" {
		nr := &j.tr.none
		nr.once.Do(func() {
			nr.sum, nr.cost, nr.err = sw.replay(j.tr, sw.none, opt)
		})
		return nr.sum, nr.cost, nr.err
	}
	return sw.replay(j.tr, p, opt)
}

// replay replays tr's transcript under p, priced by a RunCoster of its
// own when tr is priced.
func (sw *Sweeper) replay(tr *sweptTranscript, p window.Policy, opt Options) (Summary, int64, error) {
	var c RunCoster
	if tr.coster != nil {
		c = tr.coster()
		opt.Observe = func(_ int, s *Step) error {
			c.Observe(s)
			return nil
		}
	}
	r, err := Replay(sw.ctx, tr.t, p, opt)
	if err != nil {
		return Summary{}, 0, err
	}
	if c == nil {
		return r.Summary, 0, nil
	}
	cost, err := c.Finish(r)
	return r.Summary, cost, err
}

// Prepare returns t's Replayer, with the counts and artifacts of t's
// messages found on the calling goroutine ([Replayer.Warm]): what a
// reader calls as soon as it has read t, before [Sweeper.Add]. It is safe
// for concurrent use.
func (sw *Sweeper) Prepare(t *transcript.Transcript) (*Replayer, error) {
	r, err := NewReplayer(t)
	if err != nil {
		return nil, err
	}
	r.Warm(sw.opt)
	return r, nil
}

// Add starts the runs of r's transcript, one per point, and returns
// once a worker has taken each of them; a transcript of more than
// 16 MiB of text is swept alone: Add returns once its runs
// are done, so that a reader reads the next transcript after it (the
// sweep holds one large transcript, not two). It returns an error when
// the sweep has stopped (a run failed, or ctx is done): [Sweeper.Result]
// says why. The sweep keeps each run's summary; the transcript and r are
// let go once its runs are done.
func (sw *Sweeper) Add(r *Replayer) error {
	t := r.t
	tr := &sweptTranscript{t: t, file: t.File, runs: make([]sweptRun, len(sw.policies)), ran: make(chan struct{})}
	if sw.own >= 0 {
		if p := sw.ownPolicy(t); p.Name() != window.Recorded {
			tr.own = p.Name()
		}
	}
	tr.opt = r.with(sw.opt)
	if sw.Price != nil {
		var err error
		if tr.coster, err = sw.Price(r, sw.opt); err != nil {
			sw.fail(err)
			return err
		}
		tr.priced = tr.coster != nil
	}
	tr.left.Store(int64(len(sw.policies)))
	sw.mu.Lock()
	sw.trs = append(sw.trs, tr)
	sw.mu.Unlock()
	sw.total.Add(int64(len(sw.policies)))
	for p := range sw.policies {
		select {
		case sw.jobs <- sweepJob{tr, p}:
		case <-sw.stopped:
			return errSweepStopped
		case <-sw.ctx.Done():
			return sw.ctx.Err()
		}
	}
	if textBytes(t) <= sweptAlone {
		return nil
	}
	select {
	case <-tr.ran:
		return nil
	case <-sw.stopped:
		return errSweepStopped
	case <-sw.ctx.Done():
		return sw.ctx.Err()
	}
}

// sweptAloneBytes is the text above which [Sweeper.Add] waits for a
// transcript's runs: the least a reader reads ahead at once
// (transcript.WalkPrepared reads a file larger than its budget alone).
const sweptAloneBytes = 16 << 20

// sweptAlone is sweptAloneBytes, lowered by tests.
var sweptAlone int64 = sweptAloneBytes

// textBytes is the text of t's blocks, in bytes.
func textBytes(t *transcript.Transcript) int64 {
	var n int64
	for i := range t.Messages {
		for _, b := range t.Messages[i].Blocks {
			n += int64(len(b.Text) + len(b.Input) + len(b.Raw))
		}
	}
	return n
}

var errSweepStopped = errors.New("the sweep has stopped")

// AddSwept adds a transcript's part of another sweep of the same policy
// and grid ([Sweeper.Done]), as [Sweeper.Add] adds a transcript once its
// runs are done.
func (sw *Sweeper) AddSwept(st SweptTranscript) error {
	if len(st.Runs) != len(sw.policies) {
		return fmt.Errorf("a transcript's sweep of %d points, this sweep has %d", len(st.Runs), len(sw.policies))
	}
	tr := &sweptTranscript{runs: st.Runs, noneTokens: st.NoneTokens, priced: st.Priced, file: st.File, own: st.Own}
	sw.mu.Lock()
	sw.trs = append(sw.trs, tr)
	sw.mu.Unlock()
	sw.finish(tr)
	return nil
}

// Result waits for the runs and returns the sweep: the points in grid
// order (the first key varying slowest), each summed over the
// transcripts in the order they were added.
func (sw *Sweeper) Result() (*SweepResult, error) {
	close(sw.jobs)
	sw.wg.Wait()
	if sw.err != nil {
		return nil, sw.err
	}
	if err := sw.ctx.Err(); err != nil {
		return nil, err
	}
	res, n := sw.res, float64(len(sw.trs))
	res.Costed = sw.Price != nil
	for i, tr := range sw.trs[sw.added:] {
		sw.addRuns(sw.added+i, tr) // a sweep of no points
	}
	for p := range sw.policies {
		pt := sw.point(p)
		for i := range len(sw.trs) {
			pt.MeanRetention += sw.retention[i*len(sw.policies)+p] / n
		}
		pt.ProbeScore = pt.ProbeLoss.Score()
		pt.Metrics = sw.metrics[p].Values()
		pt.ShareOfNone = metric.ShareOfNone(pt.InputTokens, sw.noneTotal)
		pt.CostUSD = float64(pt.Cost) / 1e12
	}
	if sw.own >= 0 {
		if len(sw.owns) == 0 {
			// No transcript has an own policy: its row is recorded's.
			res.Baselines = slices.Delete(res.Baselines, sw.own-sw.baselines, sw.own-sw.baselines+1)
		} else {
			res.Baselines[sw.own-sw.baselines].Label = strings.Join(sw.owns, "/")
		}
	}
	return res, nil
}

// point is the p-th policy's point: a grid point, then the baselines.
func (sw *Sweeper) point(p int) *Point {
	if p < sw.baselines {
		return &sw.res.Points[p]
	}
	return &sw.res.Baselines[p-sw.baselines]
}

// AddBaselines adds the baselines to the sweep, each a row of the result
// over the same transcripts ([SweepResult.Baselines]): none (sending
// everything), recorded (what the agent sent), and the agent's own
// policy for its own files (claude-code for Claude Code sessions, codex
// for Codex rollouts; recorded for any other format), its row labelled
// with the policies it replayed and left out when it replayed none. It
// is called before the first [Sweeper.Add] or [Sweeper.AddSwept].
func (sw *Sweeper) AddBaselines() error {
	if len(sw.trs) > 0 || len(sw.policies) > sw.baselines {
		return errors.New("baselines added twice, or after a transcript")
	}
	rec, err := window.Parse(window.Recorded)
	if err != nil {
		return err
	}
	sw.ownBy = map[transcript.Format]window.Policy{}
	for f, name := range OwnPolicies {
		if sw.ownBy[f], err = window.Parse(name); err != nil {
			return err
		}
	}
	sw.policies = append(sw.policies, sw.none, rec, rec)
	sw.own = len(sw.policies) - 1
	for _, l := range []string{"none", window.Recorded, "own"} {
		sw.res.Baselines = append(sw.res.Baselines, Point{Label: l, Params: map[string]string{}, Violations: map[string]int{},
			Probes: probe.Score{Kept: map[probe.Kind]int{}, Total: map[probe.Kind]int{}}, ProbeLoss: probe.Loss{Lost: map[probe.Kind]int{}, Of: map[probe.Kind]int{}}})
	}
	sw.metrics = append(sw.metrics, make([]metric.Folder, 3)...)
	return nil
}

// ownPolicy is the agent's own policy for t ([OwnPolicies]), else
// recorded.
func (sw *Sweeper) ownPolicy(t *transcript.Transcript) window.Policy {
	if p, ok := sw.ownBy[t.Format]; ok {
		return p
	}
	return sw.policies[sw.own]
}

// product returns every combination of the grid's values, the first key
// varying slowest.
func product(grid []GridKey) []map[string]string {
	out := []map[string]string{{}}
	for _, g := range grid {
		var next []map[string]string
		for _, m := range out {
			for _, v := range g.Values {
				c := map[string]string{g.Key: v}
				for k, x := range m {
					c[k] = x
				}
				next = append(next, c)
			}
		}
		out = next
	}
	return out
}

// PointLabel names a point: the policy and its grid values, or the
// baseline's label.
func (r *SweepResult) PointLabel(p *Point) string {
	if p.Label != "" {
		return p.Label
	}
	var kv []string
	for _, g := range r.Grid {
		kv = append(kv, g.Key+"="+p.Params[g.Key])
	}
	return r.Policy + ":" + strings.Join(kv, ",")
}

// SortPoints orders s's points by the grid keys' values, numerically
// where they are numbers, the first key first.
func (s *SweepResult) SortPoints() {
	points, grid := s.Points, s.Grid
	less := func(a, b string) int {
		fa, ea := strconv.ParseFloat(a, 64)
		fb, eb := strconv.ParseFloat(b, 64)
		if ea == nil && eb == nil {
			switch {
			case fa < fb:
				return -1
			case fa > fb:
				return 1
			}
			return 0
		}
		return strings.Compare(a, b)
	}
	sort.SliceStable(points, func(i, j int) bool {
		for _, g := range grid {
			if c := less(points[i].Params[g.Key], points[j].Params[g.Key]); c != 0 {
				return c < 0
			}
		}
		return false
	})
}

// maxWorkers is the most runs a sweep or [Replayer.ReplayAll] makes at once,
// whatever it is asked: enough to wait on a summarizing provider many
// calls at a time, few enough that the workers' queue and their runs'
// state stay a small part of memory.
const maxWorkers = 1024

// runsPerCPU bounds how many runs ReplayAll keeps at once per CPU by
// default: enough to share the CPUs among the runs of a usual replay, few
// enough that many policies do not hold all their runs' state at once.
const runsPerCPU = 4

// warm fills counts and arts with the counts (with ests) and, when
// retention, the artifacts of t's messages, on workers goroutines, each
// taking every workers-th message: the runs then find them, instead of
// computing the same ones at once.
func warm(t *transcript.Transcript, counts *countcache.Cache, arts *artifactCache, ests []estimate.Estimator, retention bool, workers int) {
	tables := make([]*countcache.Table, len(ests))
	for k, e := range ests {
		tables[k] = counts.Table(e, t)
	}
	var probes *probeIndex
	if retention {
		probes = arts.probesOf(t)
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(t.Messages); i += workers {
				for _, tb := range tables {
					tb.Count(i)
				}
				if probes != nil {
					arts.artifacts(&t.Messages[i], true)
					probes.ex.Prepare(i)
				}
			}
		})
	}
	wg.Wait()
	// What every run of t starts from, made once here rather than by
	// each of the first runs at once.
	if retention {
		arts.ofTranscript(t)
	}
	arts.toolsOf(t)
}
