package report

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/internal/projection"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
)

// run is a policy's result of one session: kept is both its retention
// and its probe score, the session holding 100 probes.
func run(label string, tokens int64, kept float64, usd *float64, breakUSD float64, violations map[string]int) PolicyResult {
	loss := probe.Loss{Lost: map[probe.Kind]int{probe.Artifact: int(math.Round((1 - kept) * 100))}, Of: map[probe.Kind]int{probe.Artifact: 100}}
	p := PolicyResult{Label: label, CostUSD: usd, Summary: replay.Summary{Calls: 10, InputTokens: map[string]int64{"cl100k_base": tokens},
		MeanRetention: kept, ProbeLoss: loss, ProbeScore: loss.Score(), Violations: violations}}
	if usd != nil {
		p.CacheBreaks = &cost.CacheBreaks{Cost: pricing.Money(breakUSD * 1e12)}
	}
	return p
}

func usd(v float64) *float64 { return &v }

// TestTotals: a policy's totals add its sessions up (its probes pooled),
// a session not priced is named and never counted as $0, and the
// Pareto-best are the policies no other is cheaper than while losing
// fewer probes.
func TestTotals(t *testing.T) {
	r := &Report{Estimator: "cl100k_base", Policies: []string{"none", "window", "clear"}, Transcripts: []TranscriptResult{
		{File: "a.jsonl", Runs: []PolicyResult{run("none", 1000, 1, usd(1), 0, nil), run("window", 300, 0.8, usd(1.5), 0.9, map[string]int{"tool_pairing": 2}), run("clear", 600, 0.95, usd(0.7), 0.1, nil)}},
		{File: "b.jsonl", NotPriced: "model x-1", Runs: []PolicyResult{run("none", 1000, 1, nil, 0, nil), run("window", 300, 0.8, nil, 0, nil), run("clear", 600, 0.97, nil, 0, nil)}},
	}}
	got := r.Totals()
	if got[1].Tokens != 600 || got[1].ShareOfNone != 0.3 || got[1].Calls != 20 || got[1].Clean() || got[1].Violations["tool_pairing"] != 2 {
		t.Errorf("window: %+v", got[1])
	}
	if lost, of := got[2].Probes.Totals(); lost != 8 || of != 200 || got[2].ProbeScore != 0.96 {
		t.Errorf("clear's probes: %d lost of %d, score %v; want 8 of 200, 0.96", lost, of, got[2].ProbeScore)
	}
	if got[2].Cost() != "$0.7000 (1 of 2 sessions priced)" || !cmp.Equal(got[2].NotPriced, []string{"model x-1"}) {
		t.Errorf("clear's cost %q, not priced %v", got[2].Cost(), got[2].NotPriced)
	}
	var pareto []string
	for _, p := range got {
		if p.Pareto {
			pareto = append(pareto, p.Label)
		}
	}
	// none keeps the most, clear costs the least; window is beaten by both.
	if !cmp.Equal(pareto, []string{"none", "clear"}) {
		t.Errorf("Pareto-best %v, want none and clear", pareto)
	}
	rec := recommendation(got, 0, nil)
	for _, want := range []string{"Recommended: clear, $0.7000 (the cost of the 1 of 2 priced), 30% less than none, sending everything ($1.0000): it keeps 96% of the probes (8 of 200 lost; floor 90%) and breaks no invariant.",
		"window sends 70% fewer tokens than none yet costs $0.5000 more: its changes break the prompt cache ($0.9000 re-billed)"} {
		if !strings.Contains(rec, want) {
			t.Errorf("the recommendation %q lacks %q", rec, want)
		}
	}
	// The setting's cost is a projection: how far it may be off is said,
	// measured or not.
	pe := &projection.ProjectionError{Sessions: 3, MinCalls: projection.MinErrorCalls, MedianPct: 5, P90Pct: 10, WorstPct: 12}
	if rec, want := recommendation(got, 0, pe), "The cost of clear is a projection: on these sessions the projection lands 5.0% from the bill at the median, 10.0% at p90 and 12.0% at worst (3 sessions of 20 calls or more), so it lies in $0.6300–$0.7700 (± the p90)."; !strings.Contains(rec, want) {
		t.Errorf("with a projection error, %q lacks %q", rec, want)
	}
	if rec := recommendation(got, 0, &projection.ProjectionError{MinCalls: projection.MinErrorCalls}); !strings.Contains(rec, "The cost of clear is a projection, not measured on these sessions") {
		t.Errorf("with no session measured, %q does not say so", rec)
	}
	// Nothing priced: tokens are compared, and no cost is shown as $0.
	for i := range r.Transcripts[0].Runs {
		r.Transcripts[0].Runs[i].CostUSD = nil
	}
	r.Transcripts[0].NotPriced = "no model recorded"
	got = r.Totals()
	if rec := recommendation(got, 0, pe); got[0].Cost() != "not priced" || strings.Contains(rec, "projection") || !strings.HasPrefix(rec, "Recommended: clear, 1,200 tokens, 40% less than none, sending everything (2,000 tokens): it keeps 96% of the probes (8 of 200 lost; floor 90%)") {
		t.Errorf("unpriced: %q; %q", got[0].Cost(), rec)
	}
	// A floor above what clear keeps: none, and clear the closest.
	if rec, want := recommendation(got, 0.97, nil), "Recommended: none (send everything), 2,000 tokens: no policy that sends less keeps 97% of the probes with no invariant broken; closest: clear, 96% of probes (floor 97%), 1,200 tokens."; rec != want {
		t.Errorf("floor 97%%:\n got  %q\n want %q", rec, want)
	}
}

// TestTotalsParetoAsTheSweep: the ★ is [recommend.Pareto]'s: the cheapest
// policy, which keeps the most probes after none, is not starred when it
// breaks an invariant, and a policy that none matches on both counts is
// not starred, nor one that the agent's own policy matches; the baselines
// and a clean policy that beats them are.
func TestTotalsParetoAsTheSweep(t *testing.T) {
	r := &Report{Estimator: "cl100k_base", Policies: []string{"none", "agent", "same", "broken", "clear", "as-agent"}, Transcripts: []TranscriptResult{
		{File: "a.jsonl", Runs: []PolicyResult{run("none", 1000, 1, usd(1), 0, nil), run("agent", 900, 0.98, usd(0.9), 0, nil),
			run("same", 1000, 1, usd(1), 0, nil), run("broken", 300, 0.99, usd(0.3), 0, map[string]int{"tool_pairing": 1}),
			run("clear", 600, 0.95, usd(0.6), 0, nil), run("as-agent", 900, 0.98, usd(0.9), 0, nil)}},
	}}
	var starred []string
	for _, p := range r.Totals() {
		if p.Pareto {
			starred = append(starred, p.Label)
		}
	}
	if want := []string{"none", "agent", "clear"}; !cmp.Equal(starred, want) {
		t.Errorf("starred %v, want %v", starred, want)
	}
	var md strings.Builder
	writeMarkdownTotals(&md, r.Totals())
	for _, line := range strings.Split(md.String(), "\n") {
		if strings.HasPrefix(line, "| broken ") || strings.HasPrefix(line, "| same ") {
			if strings.Contains(line, "★") {
				t.Errorf("report.md stars %q", line)
			}
		}
	}
	var page []string
	for _, row := range headOf(r, []bool{true}).Totals {
		if row.Pareto {
			page = append(page, row.Label)
		}
	}
	if want := []string{"none", "agent", "clear"}; !cmp.Equal(page, want) {
		t.Errorf("the page stars %v, want %v", page, want)
	}
}

// TestRecommendationBesideRecorded: what the agent sent is no policy to
// recommend, though it is the cheapest; the recommendation compares the
// best policy with it.
func TestRecommendationBesideRecorded(t *testing.T) {
	r := &Report{Estimator: "cl100k_base", Policies: []string{"none", "recorded", "clear", "window"}, Transcripts: []TranscriptResult{
		{File: "a.jsonl", Runs: []PolicyResult{run("none", 1000, 1, usd(1), 0, nil), run("recorded", 500, 0.95, usd(0.5), 0, nil),
			run("clear", 600, 0.95, usd(0.6), 0, nil), run("window", 800, 0.97, usd(0.8), 0, nil)}},
	}}
	want := "Recommended: clear, $0.6000, 40% less than none, sending everything ($1.0000), 20% more than what the agent sent (recorded) ($0.5000): it keeps 95% of the probes (5 of 100 lost; floor 90%) and breaks no invariant." +
		" The cost of clear is a projection, not measured on these sessions: no session has the 20 calls or more it is checked on (fitted on the first half, the rest priced without the bill against it)."
	if got := r.Recommendation(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestUniqueLabels: sessions are named by the shortest ending of their
// path no other shares, and the transcripts of one file by their ids.
func TestUniqueLabels(t *testing.T) {
	got := uniqueLabels([]TranscriptResult{
		{File: "embedded:a/execute/agent_log_raw.txt", ID: "1"}, {File: "embedded:b/execute/agent_log_raw.txt", ID: "2"},
		{File: "x/s.jsonl", ID: "s"}, {File: "x/s.jsonl", ID: "s/agent-1"}, {File: "y/t.jsonl", ID: "t"},
	})
	want := []string{"a/execute/agent_log_raw.txt", "b/execute/agent_log_raw.txt", "s.jsonl (s)", "s.jsonl (s/agent-1)", "t.jsonl"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestMergeSeries: series with equal values are one line, labelled
// together; the reference line stays apart.
func TestMergeSeries(t *testing.T) {
	got := mergeSeries([]Series{{Label: "none", Y: []float64{1, 2}}, {Label: "aidf", Y: []float64{1, 1}}, {Label: "codex", Y: []float64{1, 2}},
		{Label: "billed", Y: []float64{1, 2}, Reference: true}})
	var labels []string
	for _, s := range got {
		labels = append(labels, s.Label)
	}
	if !cmp.Equal(labels, []string{"none = codex", "aidf", "billed"}) {
		t.Errorf("merged: %v", labels)
	}
	if w := wrapLabel("none = aidf:max_messages=30,summarize_on_trim=true = two-tier = prune", 40); strings.Count(w, "\n") != 2 {
		t.Errorf("wrapped: %q", w)
	}
}
