package recommend

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/replay"
)

// cand is a candidate spending usd (over one priced transcript) and
// keeping score of 100 probes, breaking pairing viol times.
func cand(label string, baseline bool, usd, score float64, viol int) Candidate {
	return Candidate{Label: label, Baseline: baseline, CostUSD: usd, Priced: 1, Transcripts: 1, Tokens: int64(usd * 1000), ProbeScore: score,
		ProbesLost: int(math.Round((1 - score) * 100)), Probes: 100, Violations: map[string]int{"tool_pairing": viol}}
}

// TestPareto: a candidate is best when it breaks no invariant and no
// other such candidate spends less and keeps more probes; equal points
// both are, a point with violations never is, and a point a baseline
// matches is not.
func TestPareto(t *testing.T) {
	got := Pareto([]Candidate{cand("a", false, 100, 0.9, 0), cand("b", false, 100, 0.9, 0), cand("c", false, 120, 0.8, 0), cand("d", false, 80, 0.95, 3), cand("e", false, 150, 0.95, 0)})
	if want := []bool{true, true, false, false, true}; !slices.Equal(got, want) {
		t.Errorf("best %v, want %v", got, want)
	}
	// none (a baseline) costs less than the larger windows and keeps
	// every probe: only it and the cheap window are best.
	got = Pareto([]Candidate{cand("w20", false, 40, 0.5, 0), cand("w50", false, 150, 0.8, 0), cand("w110", false, 100, 1, 0), cand("none", true, 100, 1, 0)})
	if want := []bool{true, false, false, true}; !slices.Equal(got, want) {
		t.Errorf("with none: best %v, want %v", got, want)
	}
}

// TestRecommend: the cheapest clean candidate keeping the floor is
// chosen, recorded aside, with its saving against none and recorded;
// when only none qualifies, the closest cheaper one is named with what
// it lacks; when no point costs less than none, that is said.
func TestRecommend(t *testing.T) {
	cs := []Candidate{cand("w10", false, 30, 0.85, 0), cand("w20", false, 50, 0.92, 0), cand("w5", false, 20, 0.99, 2),
		cand("none", true, 100, 1, 0), cand("recorded", true, 10, 0.95, 0)}
	r := Recommend(cs, 0)
	if r.MinProbeScore != DefaultMinProbeScore || label(r.Best) != "w20" || r.VsNone == nil || math.Abs(*r.VsNone-0.5) > 1e-9 || r.VsRecorded == nil || math.Abs(*r.VsRecorded+4) > 1e-9 || r.AllCostMore {
		t.Errorf("got %+v; want w20, 50%% less than none, 400%% more than recorded", r)
	}
	// A higher floor: only none keeps it; the closest is the clean w20.
	r = Recommend(cs, 0.95)
	if label(r.Best) != "none" || label(r.Closest) != "w20" || r.Lacks != "92% of probes (floor 95%)" {
		t.Errorf("floor 95%%: best %q, closest %q lacking %q", label(r.Best), label(r.Closest), r.Lacks)
	}
	// Only broken points cost less: the closest lacks the invariant.
	r = Recommend([]Candidate{cand("w5", false, 20, 0.99, 2), cand("none", true, 100, 1, 0)}, 0)
	if label(r.Best) != "none" || r.Lacks != "breaks tool pairing" || !strings.Contains(r.NoStar, "every point breaks tool pairing") {
		t.Errorf("broken: best %q, lacks %q, no star %q", label(r.Best), r.Lacks, r.NoStar)
	}
	// Nothing keeps the floor: no choice, and the answer is still a
	// JSON document (no NaN in it).
	r = Recommend([]Candidate{cand("w5", false, 20, 0.5, 0), cand("none", true, 100, 0.99, 0)}, 1)
	if b, err := json.Marshal(r); err != nil || r.Best != nil || label(r.Closest) != "w5" || strings.Contains(string(b), `"best"`) {
		t.Errorf("nothing qualifies: %s, %v", b, err)
	}
	// Every point costs more than none, none matches the rest.
	r = Recommend([]Candidate{cand("w50", false, 150, 0.8, 0), cand("w110", false, 100, 1, 0), cand("none", true, 100, 1, 0)}, 0)
	if label(r.Best) != "none" || r.ClosestIndex >= 0 || !r.AllCostMore || !strings.Contains(r.NoStar, "as much as none") {
		t.Errorf("costlier: %+v", r)
	}
}

// TestSweepAnswer: a sweep's answer names the grid key that changed no
// row at the larger values of another, and, when every point breaks
// tool pairing, suggests pair_safe.
func TestSweepAnswer(t *testing.T) {
	pt := func(mm, pl string, tokens int64, viol int) replay.Point {
		return replay.Point{Params: map[string]string{"max_messages": mm, "preserve_last_n": pl}, InputTokens: tokens, ProbeScore: 1, Violations: map[string]int{"tool_pairing": viol}}
	}
	res := &replay.SweepResult{Policy: "aidf", Grid: []replay.GridKey{{Key: "max_messages", Values: []string{"20", "50", "80"}}, {Key: "preserve_last_n", Values: []string{"8", "20"}}},
		Points:    []replay.Point{pt("20", "8", 10, 1), pt("20", "20", 12, 1), pt("50", "8", 30, 1), pt("50", "20", 30, 1), pt("80", "8", 40, 1), pt("80", "20", 40, 1)},
		Baselines: []replay.Point{{Label: "none", InputTokens: 50, ProbeScore: 1, Violations: map[string]int{}}}}
	a := Answer(res, 0)
	if want := []string{"preserve_last_n (8, 20) changed no row at max_messages ≥ 50"}; !slices.Equal(a.Unchanged, want) {
		t.Errorf("unchanged %q, want %q", a.Unchanged, want)
	}
	if a.Hint != "pair_safe=true" || !strings.Contains(a.NoStar, "tool pairing") {
		t.Errorf("no star %q, hint %q", a.NoStar, a.Hint)
	}
	res.Points[1].InputTokens = 10
	if a := Answer(res, 0); !slices.Equal(a.Unchanged, []string{"preserve_last_n (8, 20) changed nothing on these sessions"}) {
		t.Errorf("unchanged %q", a.Unchanged)
	}
	res.Base = map[string]string{"pair_safe": "true"}
	if a := Answer(res, 0); a.Hint != "" {
		t.Errorf("pair_safe already set: hint %q", a.Hint)
	}
}

// label is c's label, "" for nil.
func label(c *Candidate) string {
	if c == nil {
		return ""
	}
	return c.Label
}

// TestPercent: a share reads as the table's whole percentage where that
// is below it, else to one decimal below it, never above.
func TestPercent(t *testing.T) {
	for s, want := range map[float64]string{
		0.9: "90%", 0.896: "89.6%", 0.8999: "89.9%", 1: "100%", 0: "0%",
		0.546: "54.6%", 0.544: "54%", 512.0 / 938: "54.5%", 0.95: "95%",
	} {
		if got := Percent(s); got != want {
			t.Errorf("Percent(%v) = %s, want %s", s, got, want)
		}
	}
}
