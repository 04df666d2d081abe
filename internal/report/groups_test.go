package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// TestCostGroups: the priced runs sum by model and by the UTC day of the
// session's first call; a session priced under one policy only is
// counted as such, one without a time comes last, one not priced is in
// no group, and the page and report.md show both tables.
func TestCostGroups(t *testing.T) {
	usd := func(v float64) *float64 { return &v }
	day := func(s string) time.Time {
		d, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	r := &Report{Estimator: "cl100k_base", Policies: []string{"none", "aidf"}}
	for _, s := range []struct {
		model     string
		start     time.Time
		none, cut *float64
	}{
		{"claude-sonnet-4-5", day("2026-11-02T23:30:00-02:00"), usd(4), usd(1)}, // 2026-11-03 UTC
		{"gpt-5", day("2026-11-02T10:00:00Z"), usd(2), usd(2)},
		{"claude-sonnet-4-5", day("2026-11-03T08:00:00Z"), usd(6), nil},
		{"claude-sonnet-4-5", time.Time{}, usd(1), usd(0.5)},
		{"", day("2026-11-02T11:00:00Z"), nil, nil}, // not priced
	} {
		r.Transcripts = append(r.Transcripts, TranscriptResult{File: "s.jsonl", Model: s.model, Start: s.start,
			Runs: []PolicyResult{{Label: "none", CostUSD: s.none}, {Label: "aidf", CostUSD: s.cut}}})
	}
	wantModel := []CostGroup{
		{Key: "claude-sonnet-4-5", Sessions: 3, Priced: []int{3, 2}, USD: []float64{11, 1.5}},
		{Key: "gpt-5", Sessions: 1, Priced: []int{1, 1}, USD: []float64{2, 2}},
	}
	if diff := cmp.Diff(wantModel, r.CostByModel()); diff != "" {
		t.Errorf("by model (-want +got):\n%s", diff)
	}
	wantDay := []CostGroup{
		{Key: "2026-11-02", Sessions: 1, Priced: []int{1, 1}, USD: []float64{2, 2}},
		{Key: "2026-11-03", Sessions: 2, Priced: []int{2, 1}, USD: []float64{10, 1}},
		{Key: NoDay, Sessions: 1, Priced: []int{1, 1}, USD: []float64{1, 0.5}},
	}
	if diff := cmp.Diff(wantDay, r.CostByDay()); diff != "" {
		t.Errorf("by day (-want +got):\n%s", diff)
	}
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := WriteReport(dir, r); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		"index.html": {`<h3 id="by-model">Cost by model</h3>`, `<h3 id="by-day">Cost by day</h3>`, "$1.0000 (1 of 2)", "<td class=\"p\">" + NoDay},
		"report.md":  {"### Cost by model\n\n| model | sessions priced | none | aidf |\n|---|--:|--:|--:|\n| claude-sonnet-4-5 | 3 | $11.0000 | $1.5000 (2 of 3) |", "| 2026-11-03 | 2 | $10.0000 | $1.0000 (1 of 2) |"},
	} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s: no %q in\n%s", name, w, b)
			}
		}
	}
	// One model and one day: the table of policies says it all.
	r.Transcripts = r.Transcripts[1:2]
	if got := groupTables(r); len(got) != 0 {
		t.Errorf("one session: tables %+v, want none", got)
	}
}

// TestUnplottedCost: the cost curves' caption says what a policy's total
// holds beyond its calls (what the log attributes to no call), read off a
// run that made no summary, and nothing when the calls sum to it.
func TestUnplottedCost(t *testing.T) {
	usd := func(v float64) *float64 { return &v }
	summarized := PolicyResult{Label: "two-tier", CostUSD: usd(9), Cost: []float64{1, 2}}
	summarized.Summary.Summaries = 1 // its total holds the summary call
	tr := &TranscriptResult{Runs: []PolicyResult{{Label: "recorded"}, summarized, {Label: "none", CostUSD: usd(3.6), Cost: []float64{1, 2}}}}
	if got := unplottedCost(tr); !strings.Contains(got, "end $0.6000 below the table's totals") {
		t.Errorf("caption %q", got)
	}
	tr.Runs[2].CostUSD = usd(3)
	if got := unplottedCost(tr); got != "" {
		t.Errorf("calls summing to the total: caption %q", got)
	}
}

// TestUnplottedCostIsTheUnattributed: on a real Agent SDK log, what the
// cost curves leave out is what the log attributes to no call — its
// unstreamed output at the session's model, and the calls it shows no
// record of at their own models — priced here apart from the report.
func TestUnplottedCostIsTheUnattributed(t *testing.T) {
	ts, err := transcript.ReadFile("../../fixtures/corpus/ai-workflow-agent/issue-113/04_implementation/execute/agent_log_raw.txt", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	prices := pricing.Default()
	var want float64
	tr := ts[0]
	if tr.Unattributed == nil || len(tr.UnattributedByModel) == 0 || len(tr.Models) != 1 {
		t.Fatalf("the log no longer has output and calls attributed to no call: %+v, %+v, %v", tr.Unattributed, tr.UnattributedByModel, tr.Models)
	}
	price, _, err := prices.Lookup(tr.Models[0])
	if err != nil {
		t.Fatal(err)
	}
	c, err := price.CallCost(transcript.Usage{Output: tr.Unattributed.Output})
	if err != nil {
		t.Fatal(err)
	}
	want += c.Total().USD()
	for _, mu := range tr.UnattributedByModel {
		p, _, err := prices.Lookup(mu.Model)
		if err != nil {
			t.Fatal(err)
		}
		c, err := p.CallCost(mu.Usage)
		if err != nil {
			t.Fatal(err)
		}
		want += c.Total().USD()
	}
	ps, err := window.ParseLabeled([]string{"none"})
	if err != nil {
		t.Fatal(err)
	}
	r := built(t, &Builder{Policies: ps}, cost.Options{Prices: prices}, ts[:1])
	run := r.Transcripts[0].Runs[0]
	var calls float64
	for _, c := range run.Cost {
		calls += c
	}
	if got := *run.CostUSD - calls; math.Abs(got-want) > 1e-6 {
		t.Errorf("the curves leave out $%.6f; the log attributes $%.6f to no call", got, want)
	}
	if got := unplottedCost(&r.Transcripts[0]); !strings.Contains(got, USD(want)) {
		t.Errorf("caption %q, want %s named", got, USD(want))
	}
}
