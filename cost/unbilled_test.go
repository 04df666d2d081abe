package cost

import (
	"math"
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
)

// TestCrossCheckLeavesUnbilledOut: a Codex rollout whose last turn ends
// with no token_count after it has a call with no bill. The cross-check
// leaves it out of both sides, and says so, instead of comparing its
// projected cost with $0: the five other calls after the fit land within
// 2% of their bill, where counting it put them 17.9% above it.
func TestCrossCheckLeavesUnbilledOut(t *testing.T) {
	ts, err := transcript.ReadFile("testdata/codex-last-turn-unbilled.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := ts[0]
	last := tr.Messages[len(tr.Messages)-1]
	if tr.Calls != 12 || last.Role != transcript.RoleAssistant || last.Usage != nil {
		t.Fatalf("%d calls, the last %s with usage %v; want 12, an assistant's with none", tr.Calls, last.Role, last.Usage)
	}
	o := afterFit(t, tr, 6)
	if o.Calls != 5 || o.Unbilled != 1 || math.Abs(o.ErrorPct) > 2 {
		t.Errorf("after the fit: %d calls compared, %d without a bill, %+.1f%% (simulated %v, billed %v); want 5, 1 and within 2%%",
			o.Calls, o.Unbilled, o.ErrorPct, o.Simulated.Total(), o.Billed.Total())
	}
	// A session whose calls are all billed leaves none out: the same
	// error as with the unbilled call's message gone.
	b := billedSession{turns: 16, size: 2000, constant: 5000, alpha: 1.3}.transcript()
	full := afterFit(t, b, 8)
	b.Messages[len(b.Messages)-1].Usage = nil
	cut := afterFit(t, b, 8)
	if full.Unbilled != 0 || cut.Unbilled != 1 || cut.Calls != full.Calls-1 || math.Abs(cut.ErrorPct) > math.Abs(full.ErrorPct)+1 {
		t.Errorf("all billed: %d calls, %d unbilled, %+.2f%%; last unbilled: %d calls, %d unbilled, %+.2f%%",
			full.Calls, full.Unbilled, full.ErrorPct, cut.Calls, cut.Unbilled, cut.ErrorPct)
	}
}
