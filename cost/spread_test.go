package cost

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
)

// TestExecStreamRecordedIsTheBill: a `codex exec --json` stream records
// usage per turn (turn.completed, the thread's total so far), not per
// call: three turns of 4, 3 and 5 calls. The recorded policy costs the bill, component by
// component, where the simulation alone priced it 25% under; its calls'
// shares sum to the turns' usage; a policy that sends less costs no more
// than the bill's prompt, less its output; and the output says that no
// call's split is measured, with no cross-check.
func TestExecStreamRecordedIsTheBill(t *testing.T) {
	ts, err := transcript.ReadFile("testdata/codex-exec-turn-usage.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := ts[0]
	if tr.Calls != 12 || tr.Unattributed == nil || tr.Unattributed.Prompt() != 176763 {
		t.Fatalf("%d calls, unattributed %+v; want 12 and the turns' 176,763 prompt tokens", tr.Calls, tr.Unattributed)
	}
	e := estimate.MustNew("cl100k_base", estimate.OverheadNone)
	s, err := Replay(context.Background(), replayerOf(tr), append(policies(t, "recorded", "none"), &dropMessage{index: 2}),
		replay.Options{Estimators: []estimate.Estimator{e}}, Options{Model: "gpt-5"})
	if err != nil {
		t.Fatal(err)
	}
	if s.NotPriced != nil || s.Billed == nil {
		t.Fatalf("not priced: %v, bill %v", s.NotPriced, s.Billed)
	}
	for k, name := range []string{"recorded", "none"} {
		if got := s.Costs[k].Calls; got != *s.Billed {
			t.Errorf("%s: %+v (%v), bill %+v (%v)", name, got, got.Total(), *s.Billed, s.Billed.Total())
		}
	}
	var sum transcript.Usage
	for _, u := range s.Costs[0].PerStepUsage {
		if u.Input < 0 || u.CacheRead < 0 || u.CacheWrite < 0 {
			t.Errorf("a call's share is negative: %+v", u)
		}
		sum.Add(u)
	}
	want := *tr.Unattributed
	want.Output = 0 // every run's, priced apart
	if sum != want {
		t.Errorf("the calls' shares sum to %+v; want the turns' %+v", sum, want)
	}
	drop := s.Costs[2]
	if drop.Total >= s.Billed.Total() || drop.Calls.Output != s.Billed.Output || drop.Calls.CacheRead > s.Billed.CacheRead {
		t.Errorf("dropping a message: %+v (%v); want under the bill %+v (%v), its output, no more read", drop.Calls, drop.Total, *s.Billed, s.Billed.Total())
	}
	if s.CrossCheck != nil || len(s.Misses) > 0 {
		t.Errorf("cross-check %+v, misses %v; want none: no call's bill is known", s.CrossCheck, s.Misses)
	}
	said := strings.Join(s.Costs[0].Assumptions, "\n")
	if !strings.Contains(said, "shared out over the 12 calls") || !strings.Contains(said, "no cross-check") {
		t.Errorf("assumptions %q do not say the split is not measured", said)
	}
	if m := s.Costs[0].ByModel[0]; m.AlphaFittedOn != 0 {
		t.Errorf("alpha %v said fitted on %d growths of shared-out prompts", m.Alpha, m.AlphaFittedOn)
	}
	if _, ok, err := SweepError(context.Background(), replayerOf(tr), replay.Options{Estimators: []estimate.Estimator{e}}, Options{Model: "gpt-5"}); err != nil || ok {
		t.Errorf("SweepError: ok %v, %v; want no error measured", ok, err)
	}
}

// TestSpreadScalesEstimatesPastTheBill: where the estimates alone pass
// the bill's prompts (outputs the agent cut before sending), alpha is
// the bill over the estimates and the constant 0, and the shares still
// sum to the bill.
func TestSpreadScalesEstimatesPastTheBill(t *testing.T) {
	ts, err := transcript.ReadFile("testdata/codex-exec-turn-usage.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := ts[0]
	u := *tr.Unattributed
	u.Input, u.CacheRead = 2000, 8000 // far under the transcript's estimate
	tr.Unattributed = &u
	e := estimate.MustNew("cl100k_base", estimate.OverheadNone)
	s, err := Replay(context.Background(), replayerOf(tr), policies(t, "recorded"), replay.Options{Estimators: []estimate.Estimator{e}}, Options{Model: "gpt-5"})
	if err != nil {
		t.Fatal(err)
	}
	m := s.Costs[0].ByModel[0]
	if m.Constant != 0 || m.Alpha >= 1 || s.Costs[0].Calls != *s.Billed {
		t.Errorf("constant %d, alpha %.3f, %+v against the bill %+v; want 0, under 1, the bill", m.Constant, m.Alpha, s.Costs[0].Calls, *s.Billed)
	}
}
