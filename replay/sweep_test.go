package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctxbench/ctxbench/internal/countcache"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// TestSweepDeterministic: one worker and eight give the same bytes.
func TestSweepDeterministic(t *testing.T) {
	trs := []*transcript.Transcript{generated(t, 80), corpus(t)[0]}
	grid := []GridKey{{Key: "max_messages", Values: []string{"5", "10", "20", "40"}}, {Key: "summarize_on_trim", Values: []string{"false", "true"}},
		{Key: "preserve_last_n", Values: []string{"4", "30"}}}
	var out []string
	for _, w := range []int{1, 8} {
		opt := Options{Summarizer: &summarize.Mock{}, counts: countcache.New()}
		res, err := sweep(context.Background(), trs, "aidf", map[string]string{"preserve_first_n": "1"}, grid, opt, w, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		out = append(out, string(b))
		// preserve_last_n=30 above max_messages 5, 10 and 20 is replayed,
		// as AIDF runs it: those points break the cap.
		if len(res.Points) != 16 || len(res.Invalid) != 0 {
			t.Errorf("%d points, %d invalid; want 16 and 0", len(res.Points), len(res.Invalid))
		}
		for _, pt := range res.Points {
			over := pt.Params["preserve_last_n"] == "30" && pt.Params["max_messages"] != "40"
			if broke := pt.Violations[invCap] > 0; over && !broke {
				t.Errorf("%v: head and tail above the cap, and no cap violation", pt.Params)
			}
		}
	}
	if out[0] != out[1] {
		t.Error("1 and 8 workers gave different results")
	}
}

// TestSweepRejects: a value its parameter never takes (out of range, not
// a number) stops the sweep before it runs, naming the value, as an
// unknown parameter or policy does, whatever its error's words; values
// at odds with each other are skipped (TestSweepSkipsInvalid).
func TestSweepRejects(t *testing.T) {
	trs := []*transcript.Transcript{generated(t, 10)}
	for _, v := range []string{"-1", "abc"} {
		_, err := sweep(context.Background(), trs, "aidf", map[string]string{"preserve_last_n": "4"}, []GridKey{{Key: "max_messages", Values: []string{v, "10"}}}, Options{}, 1, nil)
		if err == nil || !strings.Contains(err.Error(), "max_messages="+v) {
			t.Errorf("max_messages=%s: error %v, want the value named", v, err)
		}
	}
	for _, tc := range []struct{ policy, key string }{{"aidf", "max_mesages"}, {"aidff", "max_messages"}} {
		if _, err := sweep(context.Background(), trs, tc.policy, nil, []GridKey{{Key: tc.key, Values: []string{"10"}}}, Options{}, 1, nil); err == nil {
			t.Errorf("%s %s: no error", tc.policy, tc.key)
		}
	}
}

// TestReplayAllMatchesReplay: runs made side by side, sharing caches,
// are the runs made one after another, whatever the number of workers.
func TestReplayAllMatchesReplay(t *testing.T) {
	calls := 200
	if testing.Short() {
		calls = 80
	}
	tr := generated(t, calls)
	var ps []window.Policy
	for _, spec := range specs {
		ps = append(ps, must(t, spec))
	}
	opt := Options{Summarizer: &summarize.Mock{}}
	var want []*Run
	for _, p := range ps {
		r, err := Replay(context.Background(), tr, p, opt)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	workers := []int{1, 3, 8, 0} // 0: the default, every run at once here
	if testing.Short() {
		workers = []int{1, 0} // make long: all four
	}
	for _, workers := range workers {
		got, err := mustReplayer(t, tr).ReplayAll(context.Background(), ps, opt, workers)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Step{})); diff != "" {
			t.Fatalf("%d workers (-one after another +side by side):\n%s", workers, diff)
		}
	}
}

// TestInertRunsAreNoneRuns: a policy that says it is inert on a
// transcript replays it exactly as none does (the summary a sweep takes
// from the none run), and says so only when the cap cannot be reached.
func TestInertRunsAreNoneRuns(t *testing.T) {
	trs := append(corpus(t), generated(t, 50))
	opt := Options{Summarizer: &summarize.Mock{}, counts: countcache.New(), arts: newArtifactCache()}
	inert := 0
	for _, tr := range trs {
		none, err := Replay(context.Background(), tr, must(t, "none"), opt)
		if err != nil {
			t.Fatal(err)
		}
		n := len(tr.Messages)
		for _, spec := range []string{
			fmt.Sprintf("aidf:max_messages=%d,preserve_last_n=2", n), fmt.Sprintf("aidf:max_messages=%d,pair_safe=true,preserve_first_n=3,preserve_last_n=1", n+5),
			fmt.Sprintf("aidf:max_messages=%d,summarize_on_trim=true,preserve_last_n=2", n+100), "aidf:max_messages=0",
		} {
			p := must(t, spec)
			if !p.(inertPolicy).InertOn(tr) {
				t.Errorf("%s on %s (%d messages): not inert", spec, tr.ID, n)
				continue
			}
			run, err := Replay(context.Background(), tr, p, opt)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(none.Summary, run.Summary); diff != "" {
				t.Fatalf("%s on %s: an inert run differs from none's (-none +inert):\n%s", spec, tr.ID, diff)
			}
			inert++
		}
		if n > 3 {
			if below := must(t, fmt.Sprintf("aidf:max_messages=%d,preserve_last_n=1", n-1)); below.(inertPolicy).InertOn(tr) {
				t.Errorf("aidf at %d on %s (%d messages): inert below the transcript's length", n-1, tr.ID, n)
			}
		}
	}
	t.Logf("%d inert runs equal to none's", inert)
}

// TestSweepSkipsInvalid: a grid point the policy refuses is listed as
// skipped with its reason, and the others run.
func TestSweepSkipsInvalid(t *testing.T) {
	grid := []GridKey{{Key: "preserve", Values: []string{"0.3", "1"}}}
	res, err := sweep(context.Background(), []*transcript.Transcript{generated(t, 20)}, "gemini-cli", nil, grid, Options{Summarizer: &summarize.Mock{}}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 1 || len(res.Invalid) != 1 || !strings.Contains(fmt.Sprint(res.Invalid[0]), "preserve must be below 1") {
		t.Errorf("%d points, invalid %v; want 1 point and preserve=1 refused", len(res.Points), res.Invalid)
	}
}

// TestNoRetentionChangesNothingElse: a run that measures no retention is
// the run that does, step for step, but for the retention and the probe
// score it leaves at 0;
// and ReplayAll's warming of such runs gives the same runs.
func TestNoRetentionChangesNothingElse(t *testing.T) {
	tr := generated(t, 80)
	var ps []window.Policy
	for _, spec := range specs {
		ps = append(ps, must(t, spec))
	}
	opt := Options{Summarizer: &summarize.Mock{}}
	want, err := mustReplayer(t, tr).ReplayAll(context.Background(), ps, opt, 0)
	if err != nil {
		t.Fatal(err)
	}
	opt.NoRetention = true
	got, err := mustReplayer(t, tr).ReplayAll(context.Background(), ps, opt, 0)
	if err != nil {
		t.Fatal(err)
	}
	measured, asked := false, false
	for k, run := range got {
		if s := run.Summary; s.MeanRetention != 0 || s.MinRetention != 0 || s.ProbeScore != 0 || s.Probes.Total != nil || s.ProbeLoss.Of != nil || !s.RetentionNotMeasured {
			t.Errorf("%s: retention %v, %v, probes %v %+v, not measured %v with NoRetention", run.Policy, s.MeanRetention, s.MinRetention, s.ProbeScore, s.Probes, s.RetentionNotMeasured)
		}
		run.Summary.RetentionNotMeasured = false
		measured = measured || want[k].Summary.MeanRetention > 0
		asked = asked || want[k].Summary.ProbeScore < 1
		for i := range run.Steps {
			st, w := &run.Steps[i], &want[k].Steps[i]
			if st.Retention != 0 || st.ProbesAsked != 0 {
				t.Fatalf("%s step %d: retention %v, %d probes with NoRetention", run.Policy, i, st.Retention, st.ProbesAsked)
			}
			st.Retention, st.ProbesAsked, st.ProbesKept = w.Retention, w.ProbesAsked, w.ProbesKept
		}
		run.Summary.MeanRetention, run.Summary.MinRetention = want[k].Summary.MeanRetention, want[k].Summary.MinRetention
		run.Summary.Probes, run.Summary.ProbeLoss, run.Summary.ProbeScore = want[k].Summary.Probes, want[k].Summary.ProbeLoss, want[k].Summary.ProbeScore
	}
	if !measured || !asked {
		t.Fatal("no run measured any retention, or lost a probe: the comparison proves nothing")
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Step{})); diff != "" {
		t.Fatalf("(-retention +none):\n%s", diff)
	}
}

// TestSweeperStops: a sweep whose context is cancelled while transcripts
// are still being added stops taking them (Add says so, rather than wait
// on workers that no longer run), and Result returns why.
func TestSweeperStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	grid := []GridKey{{Key: "max_messages", Values: []string{"4", "8", "16"}}}
	sw, err := NewSweeper(ctx, "aidf", nil, grid, Options{}, 2, func(done, _ int) {
		if done == 5 {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := generated(t, 40)
	added := 0
	for range 1000 {
		if err := sw.Add(mustReplayer(t, tr)); err != nil {
			break
		}
		added++
	}
	if added == 1000 {
		t.Error("Add took every transcript after the sweep was cancelled")
	}
	if _, err := sw.Result(); !errors.Is(err, context.Canceled) {
		t.Errorf("Result: %v, want context.Canceled", err)
	}
}

// TestSweeperWorkersBounded: a sweep asked for more workers than
// maxWorkers starts maxWorkers (a million took 4.7 GB in goroutines and
// their queue), and its result is the same as with two.
func TestSweeperWorkersBounded(t *testing.T) {
	grid := []GridKey{{Key: "max_messages", Values: []string{"4", "8"}}}
	tr := generated(t, 30)
	results := map[int]*SweepResult{}
	for _, workers := range []int{2, 3 * maxWorkers} {
		before := runtime.NumGoroutine()
		sw, err := NewSweeper(context.Background(), "aidf", nil, grid, Options{}, workers, nil)
		if err != nil {
			t.Fatal(err)
		}
		if started := runtime.NumGoroutine() - before; started > min(workers, maxWorkers) {
			t.Errorf("asked %d workers: %d goroutines started, want at most %d", workers, started, maxWorkers)
		}
		if err := sw.Add(mustReplayer(t, tr)); err != nil {
			t.Fatal(err)
		}
		if results[workers], err = sw.Result(); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(results[2], results[3*maxWorkers]); diff != "" {
		t.Errorf("(-2 workers +%d):\n%s", 3*maxWorkers, diff)
	}
}

// TestSweeperLetsGo: once a transcript's runs are done, the sweep holds
// neither it nor its caches (a sweep held every transcript to its end),
// nor its runs' summaries, added into the points, only their mean
// retentions; and its result is the one a sweep sharing one cache gives.
func TestSweeperLetsGo(t *testing.T) {
	grid := []GridKey{{Key: "max_messages", Values: []string{"4", "8"}}}
	sw, err := NewSweeper(context.Background(), "aidf", nil, grid, Options{}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var gone []weak.Pointer[transcript.Transcript]
	for range 3 {
		tr := generated(t, 30)
		gone = append(gone, weak.Make(tr))
		r, err := sw.Prepare(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := sw.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	// The runs end on their own: wait for the last one, a minute at most.
	added := func() int {
		sw.mu.Lock()
		defer sw.mu.Unlock()
		return sw.added
	}
	for deadline := time.Now().Add(time.Minute); added() < 3 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	sw.mu.Lock()
	if sw.added != 3 || slices.ContainsFunc(sw.trs, func(tr *sweptTranscript) bool { return tr != nil }) || len(sw.retention) != 3*len(grid[0].Values) {
		t.Errorf("%d of 3 transcripts added into the points, %d retentions kept", sw.added, len(sw.retention))
	}
	sw.mu.Unlock()
	res, err := sw.Result()
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	for i, w := range gone {
		if w.Value() != nil {
			t.Errorf("transcript %d still held after its runs", i)
		}
	}
	shared, err := sweep(context.Background(), []*transcript.Transcript{generated(t, 30), generated(t, 30), generated(t, 30)}, "aidf", nil, grid,
		Options{counts: countcache.New(), arts: newArtifactCache()}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(shared, res); diff != "" {
		t.Errorf("(-shared caches +each its own):\n%s", diff)
	}
	runtime.KeepAlive(sw)
}

// TestSweeperLargeAlone: a transcript of more text than sweptAloneBytes
// is swept alone: Add returns once its runs are done and it is added
// into the points (Done is called); one of that much text or less is
// returned as soon as workers have taken its runs, done or not.
func TestSweeperLargeAlone(t *testing.T) {
	defer func(n int64) { sweptAlone = n }(sweptAlone)
	tr := generated(t, 40)
	size := textBytes(tr)
	grid := []GridKey{{Key: "max_messages", Values: []string{"4", "8", "16"}}}
	sweptAlone = size - 1
	sw, err := NewSweeper(context.Background(), "aidf", nil, grid, Options{}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var done atomic.Int64
	sw.Done = func(int, SweptTranscript) { done.Add(1) }
	for i := range 3 {
		if err := sw.Add(mustReplayer(t, tr)); err != nil {
			t.Fatal(err)
		}
		if n := done.Load(); n != int64(i+1) {
			t.Errorf("%d bytes, over %d: transcript %d's Add returned with %d transcripts done", size, sweptAlone, i, n)
		}
	}
	if _, err := sw.Result(); err != nil {
		t.Fatal(err)
	}
	// At the bound, Add does not wait: the two workers hold their runs
	// until it has returned.
	sweptAlone = size
	release := make(chan struct{})
	two := []GridKey{{Key: "max_messages", Values: []string{"4", "8"}}}
	sw, err = NewSweeper(context.Background(), "aidf", nil, two, Options{}, 2, func(int, int) { <-release })
	if err != nil {
		t.Fatal(err)
	}
	sw.Done = func(int, SweptTranscript) { done.Add(1) }
	done.Store(0)
	added := make(chan error, 1)
	go func() { added <- sw.Add(mustReplayer(t, tr)) }()
	select {
	case err := <-added:
		if err != nil || done.Load() != 0 {
			t.Errorf("at the bound: Add returned %v with %d transcripts done", err, done.Load())
		}
	case <-time.After(time.Minute):
		t.Error("at the bound: Add waited for the runs")
	}
	close(release)
	if _, err := sw.Result(); err != nil {
		t.Fatal(err)
	}
}

// TestSortPoints: points sort by the first grid key, then the next, in
// number order where the values are numbers and text order where not.
func TestSortPoints(t *testing.T) {
	pt := func(a, b string) Point { return Point{Params: map[string]string{"a": a, "b": b}} }
	s := &SweepResult{Grid: []GridKey{{Key: "a"}, {Key: "b"}},
		Points: []Point{pt("10", "y"), pt("9", "y"), pt("10", "x"), pt("9.5", "x"), pt("9", "x")}}
	s.SortPoints()
	var got []string
	for _, p := range s.Points {
		got = append(got, p.Params["a"]+p.Params["b"])
	}
	if want := []string{"9x", "9y", "9.5x", "10x", "10y"}; !slices.Equal(got, want) {
		t.Errorf("sorted %q, want %q", got, want)
	}
}

// sweep replays every transcript under policy name at every grid point
// with a Sweeper on workers goroutines (0: one per CPU), adding them in
// order; progress, if not nil, is called with the number of jobs done
// and the total.
func sweep(ctx context.Context, trs []*transcript.Transcript, name string, base map[string]string, grid []GridKey,
	opt Options, workers int, progress func(done, total int)) (*SweepResult, error) {
	sw, err := NewSweeper(ctx, name, base, grid, opt, workers, progress)
	if err != nil {
		return nil, err
	}
	for _, t := range trs {
		r, err := NewReplayer(t)
		if err == nil {
			err = sw.Add(r)
		}
		if err != nil {
			sw.fail(err)
			break // Result says why
		}
	}
	return sw.Result()
}
