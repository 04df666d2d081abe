package cost

import (
	"github.com/google/go-cmp/cmp"

	"context"
	"errors"
	"testing"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/noprice"
	"github.com/ctxbench/ctxbench/internal/projection"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// replayerOf returns tr's Replayer; tr is not read measured.
func replayerOf(tr *transcript.Transcript) *replay.Replayer {
	r, err := replay.NewReplayer(tr)
	if err != nil {
		panic(err)
	}
	return r
}

func policies(t *testing.T, specs ...string) []window.Policy {
	t.Helper()
	var out []window.Policy
	for _, s := range specs {
		p, err := window.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func corpusFile(t testing.TB, name string) *transcript.Transcript {
	t.Helper()
	ts, err := transcript.ReadFile("../fixtures/corpus/"+name, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}

// TestSessionPriced: a session prices every run at the transcript's model,
// reuses the recorded run when the policies include it, and its
// cross-check is the recorded run's cost against the bill.
func TestSessionPriced(t *testing.T) {
	tr := corpusFile(t, "spotter/subagent.jsonl")
	s, err := Replay(context.Background(), replayerOf(tr), policies(t, "none", "recorded", "aidf:max_messages=10,preserve_last_n=4"), replay.Options{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.NotPriced != nil || len(s.Costs) != 3 || len(s.Runs) != 3 {
		t.Fatalf("not priced: %v, %d costs, %d runs", s.NotPriced, len(s.Costs), len(s.Runs))
	}
	if s.Recorded != s.Runs[1] {
		t.Error("the recorded run listed was replayed again")
	}
	if s.Costs[0].Model != "claude-opus-4-6" || s.Constant <= 0 {
		t.Errorf("model %q, constant %d", s.Costs[0].Model, s.Constant)
	}
	bill, _, err := billedCost(tr, pricing.Default(), "")
	if err != nil || s.Billed == nil || *s.Billed != bill {
		t.Fatalf("bill %+v, want %+v (%v)", s.Billed, bill, err)
	}
	// The recorded run is the bill, component by component; the
	// cross-check is its simulation without the bill.
	if got := s.Costs[1].Calls; got != bill {
		t.Errorf("recorded run %+v, bill %+v", got, bill)
	}
	var after pricing.Money
	for _, c := range s.BilledPerCall[defaultFitCalls(tr):] {
		after += c
	}
	if x := s.CrossCheck; x == nil || x.AfterFit == nil || x.AfterFit.FitCalls != defaultFitCalls(tr) || x.AfterFit.Billed.Total() != after || x.AfterFit.Simulated.Total() == after {
		t.Errorf("cross-check %+v against the bill's %v after the first %d calls", s.CrossCheck, after, defaultFitCalls(tr))
	}
	if len(s.BilledPerCall) != tr.Calls {
		t.Errorf("%d calls billed of %d", len(s.BilledPerCall), tr.Calls)
	}
	var sum pricing.Money
	for _, m := range s.BilledPerCall {
		sum += m
	}
	if sum != bill.Total() {
		t.Errorf("the calls' bills sum to %v, the bill is %v", sum, bill.Total())
	}
	if got := s.Cost("aidf"); got != s.Costs[2] {
		t.Error("Cost(aidf) is not aidf's run's cost")
	}
}

// TestSessionNotPriced: a transcript whose model has no price, or that
// records none, is not an error: the session says why, prices nothing,
// and keeps its runs; a model given prices it.
func TestSessionNotPriced(t *testing.T) {
	ps := policies(t, "none")
	unknown := corpusFile(t, "codemie-code/tests/integration/metrics/fixtures/gemini/session-2025-12-01T21-45-5b959dae.json")
	s, err := Replay(context.Background(), replayerOf(unknown), ps, replay.Options{}, Options{})
	var u *noprice.UnknownModelError
	if err != nil || !errors.As(s.NotPriced, &u) || s.Costs != nil || len(s.Runs) != 1 || s.CrossCheck != nil {
		t.Errorf("unknown model: err %v, NotPriced %v, costs %v", err, s.NotPriced, s.Costs)
	}
	noModel := corpusFile(t, "codemie-code/src/agents/plugins/codex/__tests__/fixtures/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl")
	s, err = Replay(context.Background(), replayerOf(noModel), ps, replay.Options{}, Options{})
	if err != nil || !errors.Is(s.NotPriced, noprice.ErrNoModel) || s.Costs != nil {
		t.Errorf("no model: err %v, NotPriced %v", err, s.NotPriced)
	}
	s, err = Replay(context.Background(), replayerOf(noModel), ps, replay.Options{}, Options{Model: "gpt-5"})
	if err != nil || s.NotPriced != nil || s.Costs[0].Model != "gpt-5" {
		t.Errorf("a model given: err %v, NotPriced %v", err, s.NotPriced)
	}
	// Any other failure is an error: a cancelled context.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Replay(ctx, replayerOf(unknown), ps, replay.Options{}, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestPriceRunNeedsSteps: a run that kept no steps cannot be priced: an
// error, never $0.
func TestPriceRunNeedsSteps(t *testing.T) {
	tr := corpusFile(t, "spotter/tool_heavy.jsonl")
	e := estimate.MustNew("cl100k_base", estimate.OverheadNone)
	run, err := replay.Replay(context.Background(), tr, policies(t, "none")[0], replay.Options{Estimators: []estimate.Estimator{e}, NoSteps: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := priceRun(run, run, replayerOf(tr), Options{Estimator: e}); !errors.Is(err, errNoSteps) || pricing.NotPriced(err) {
		t.Errorf("a summary-only run priced: %v", err)
	}
}

// TestMixedModels: a Claude Code session whose calls go to two models —
// derived from a corpus Opus session that switches to Haiku (/model) for
// its last third, its usage as recorded — is billed and simulated call by
// call at each call's model, each model with its own cache. The recorded
// policy's simulation stays within 5% of the bill; priced at one model for
// all calls, as ctxbench once priced every session, it is far off.
func TestMixedModels(t *testing.T) {
	tr := corpusFile(t, "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	haiku := 0
	calls := callMessages(tr)
	for i, k := range calls {
		if i >= 2*len(calls)/3 {
			tr.Messages[k].Model = "claude-haiku-4-5-20251001"
			haiku++
		}
	}
	tr.Models = append(tr.Models, "claude-haiku-4-5-20251001")
	rec := policies(t, "recorded")
	e := estimate.MustNew("cl100k_base", estimate.OverheadNone)
	run, err := replay.Replay(context.Background(), tr, rec[0], replay.Options{Estimators: []estimate.Estimator{e}})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := priceRun(run, run, replayerOf(tr), Options{Estimator: e})
	if err != nil {
		t.Fatal(err)
	}
	bill, _, err := billedCost(tr, pricing.Default(), "")
	if err != nil {
		t.Fatal(err)
	}
	off := errorPct(rc.Calls.Total(), bill.Total())
	t.Logf("%d of %d calls to Haiku: simulated $%.4f, billed $%.4f (%+.1f%%)", haiku, tr.Calls, rc.Calls.Total().USD(), bill.Total().USD(), off)
	if off < -5 || off > 5 {
		t.Errorf("priced call by call, the simulation is %+.1f%% off the bill", off)
	}
	if len(rc.ByModel) != 2 || rc.ByModel[0].Model != "claude-opus-4-6" || rc.ByModel[1].Model != "claude-haiku-4-5" || rc.ByModel[1].Calls != haiku {
		t.Errorf("by model: %+v", rc.ByModel)
	}
	var sum pricing.Money
	for _, m := range rc.ByModel {
		sum += m.Cost.Total()
	}
	if sum != rc.Calls.Total() {
		t.Errorf("the models' costs sum to %v, the calls' to %v", sum, rc.Calls.Total())
	}
	// One model for every call is the wrong bill's twin.
	one, err := Replay(context.Background(), replayerOf(tr), rec, replay.Options{}, Options{Model: "claude-opus-4-6"})
	if err != nil {
		t.Fatal(err)
	}
	if e := errorPct(one.Costs[0].Calls.Total(), bill.Total()); e < 20 {
		t.Errorf("every call at Opus: %+.1f%% off the bill, want the error per-call pricing removes", e)
	}
}

// TestWhatIfCrossCheck: pricing the policies as another model leaves the
// cross-check where it was — the recorded policy at the models that made
// the calls against the bill — so a what-if never looks confirmed or
// refuted by a bill of other models.
func TestWhatIfCrossCheck(t *testing.T) {
	tr := corpusFile(t, "spotter/subagent.jsonl")
	ps := policies(t, "none", "recorded")
	own, err := Replay(context.Background(), replayerOf(tr), ps, replay.Options{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	whatIf, err := Replay(context.Background(), replayerOf(tr), ps, replay.Options{}, Options{Model: "gpt-4o-mini"})
	if err != nil {
		t.Fatal(err)
	}
	if whatIf.Costs[1].Model != "gpt-4o-mini" || whatIf.Costs[1].Calls.Total() >= own.Costs[1].Calls.Total()/5 {
		t.Errorf("what-if priced as %s at %v, own models %v", whatIf.Costs[1].Model, whatIf.Costs[1].Calls.Total(), own.Costs[1].Calls.Total())
	}
	if own.CrossCheck == nil || whatIf.CrossCheck == nil || !cmp.Equal(own.CrossCheck, whatIf.CrossCheck) {
		t.Errorf("cross-check at own models %+v, under a what-if %+v", own.CrossCheck, whatIf.CrossCheck)
	}
}

// TestSweepErrorIsReplays: the cross-check a sweep measures without
// pricing the runs as Replay does is Replay's, error for error, on every
// corpus session that counts in a projection error, and not measured on
// one that does not (too few calls), under a what-if model too.
func TestSweepErrorIsReplays(t *testing.T) {
	files := []string{"spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl", "spotter/subagent.jsonl"}
	measured := 0
	for _, name := range files {
		for _, o := range []Options{{}, {Model: "gpt-4o-mini"}} {
			tr := corpusFile(t, name)
			s, err := Replay(context.Background(), replayerOf(tr), policies(t, "none"), replay.Options{}, o)
			if err != nil {
				t.Fatal(err)
			}
			want, wantOK := s.CrossCheck.SessionError(tr.Calls)
			got, ok, err := SweepError(context.Background(), replayerOf(tr), replay.Options{}, o)
			if err != nil {
				t.Fatal(err)
			}
			if ok != wantOK || got != want {
				t.Errorf("%s %+v: sweep's error %v (counts %v), Replay's %v (counts %v)", name, o, got, ok, want, wantOK)
			}
			if ok {
				measured++
			}
		}
	}
	if measured == 0 {
		t.Error("no session measured: the test compares nothing")
	}
	short := corpusFile(t, "spotter/subagent.jsonl")
	short.Calls = projection.MinErrorCalls - 1
	if _, ok, err := SweepError(context.Background(), replayerOf(short), replay.Options{}, Options{}); ok || err != nil {
		t.Errorf("a session of %d calls: measured %v, error %v", short.Calls, ok, err)
	}
}
