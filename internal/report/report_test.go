package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gonum.org/v1/plot/plotter"

	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/replay"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func fixtureReport() *Report {
	cost := func(v float64) *float64 { return &v }
	billed := 0.5
	return &Report{
		Estimator: "cl100k_base",
		Policies:  []string{"none", "aidf:max_messages=3"},
		Notes:     []string{"a note"},
		Transcripts: []TranscriptResult{{
			File: "embedded:spotter/short.jsonl", ID: "s1", Format: "claude-code", Calls: 4, Model: "claude-opus-4-6",
			BilledUSD: &billed, Billed: []float64{0.1, 0.1, 0.1, 0.2},
			Runs: []PolicyResult{
				{Label: "none", ShareOfNone: 1, CostUSD: cost(0.6), Messages: []int{1, 3, 5, 7}, Tokens: []int{10, 30, 50, 70},
					Retention: []float64{1, 1, 1, 1}, ProbesAsked: []int{0, 0, 0, 0}, ProbesKept: []int{0, 0, 0, 0}, Cost: []float64{0.1, 0.1, 0.2, 0.2},
					Summary: replay.Summary{Calls: 4, PeakMessages: 7, PeakTokens: map[string]int{"cl100k_base": 70}, InputTokens: map[string]int64{"cl100k_base": 160},
						MeanRetention: 1, MinRetention: 1, Violations: map[string]int{},
						ProbeLoss: probe.Loss{Lost: map[probe.Kind]int{}, Of: map[probe.Kind]int{probe.Artifact: 6, probe.Continuation: 4}}, ProbeScore: 1}},
				{Label: "aidf:max_messages=3", ShareOfNone: 0.6875, CostUSD: cost(0.4), MessageCap: 3, Messages: []int{1, 3, 3, 3}, Tokens: []int{10, 30, 30, 40},
					Retention: []float64{1, 1, 0.75, 0.5}, ProbesAsked: []int{0, 0, 3, 2}, ProbesKept: []int{0, 0, 1, 0}, Cost: []float64{0.1, 0.1, 0.1, 0.1},
					Summary: replay.Summary{Calls: 4, PeakMessages: 3, PeakTokens: map[string]int{"cl100k_base": 40}, InputTokens: map[string]int64{"cl100k_base": 110},
						Evictions: 4, MeanRetention: 0.8125, MinRetention: 0.5, Violations: map[string]int{"tool_pairing": 2},
						Probes:    probe.Score{Kept: map[probe.Kind]int{probe.Artifact: 1}, Total: map[probe.Kind]int{probe.Artifact: 3, probe.Continuation: 2}},
						ProbeLoss: probe.Loss{Lost: map[probe.Kind]int{probe.Artifact: 2, probe.Continuation: 2}, Of: map[probe.Kind]int{probe.Artifact: 6, probe.Continuation: 4}}, ProbeScore: 0.6}},
			},
		}},
	}
}

func TestReportGolden(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	index, err := WriteReport(dir, fixtureReport())
	if err != nil {
		t.Fatal(err)
	}
	if index != filepath.Join(dir, "index.html") {
		t.Errorf("index %s", index)
	}
	for _, name := range []string{"report.md", "summary.csv", "steps.csv", "results.json"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "report-"+name)
		if *update {
			os.MkdirAll("testdata", 0o755)
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test ./reports -update creates it)", err)
		}
		if string(want) != string(got) {
			t.Errorf("%s differs from %s; run go test ./reports -update if intended", name, golden)
		}
	}
	html, _ := os.ReadFile(index)
	for _, want := range []string{"<title>ctxbench report</title>", `<table id="summary">`, `<img src="growth-messages-1.png"`, `<img src="cost-1.png"`, "aidf:max_messages=3"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	for _, f := range []string{"growth-messages-1.png", "growth-tokens-1.svg", "cost-1.png", "pareto.png", MarkerFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestReportReplaces only what ctxbench made.
func TestReportReplaces(t *testing.T) {
	base := t.TempDir()
	mine := filepath.Join(base, "mine")
	os.MkdirAll(mine, 0o755)
	os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("keep"), 0o644)
	if _, err := WriteReport(mine, fixtureReport()); err == nil || !strings.Contains(err.Error(), "not made by ctxbench") {
		t.Errorf("a user's folder was not protected: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(mine, "notes.txt")); string(b) != "keep" {
		t.Error("the user's file changed")
	}
	out := filepath.Join(base, "out")
	for range 2 {
		if _, err := WriteReport(out, fixtureReport()); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(base)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left behind: %v", names)
	}
}

// TestNotPricedNeverZero: a transcript whose model has no price shows as
// "not priced" in the tables people read (empty in the CSV), and the
// summary says how many sessions its cost covers — never $0.
func TestNotPricedNeverZero(t *testing.T) {
	r := fixtureReport()
	unpriced := r.Transcripts[0]
	unpriced.File, unpriced.Model, unpriced.BilledUSD, unpriced.Billed = "acme.jsonl", "", nil, nil
	unpriced.Runs = append([]PolicyResult(nil), unpriced.Runs...)
	for k := range unpriced.Runs {
		unpriced.Runs[k].CostUSD, unpriced.Runs[k].Cost = nil, nil
	}
	for _, c := range []struct {
		transcripts []TranscriptResult
		summary     string
	}{
		{[]TranscriptResult{r.Transcripts[0], unpriced}, "$0.6000 (1 of 2 sessions priced)"},
		{[]TranscriptResult{unpriced}, "not priced"},
	} {
		r.Transcripts = c.transcripts
		var sum strings.Builder
		if err := r.WriteSummary(&sum); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(sum.String(), " "+c.summary+" |") || strings.Contains(sum.String(), "$0.0000") {
			t.Errorf("summary of %d transcripts, want %q:\n%s", len(c.transcripts), c.summary, sum.String())
		}
		// The cost, then the cache breaks' count, cost and net, then the
		// provider's misses (no bill: none).
		human, err := summaryRows(r, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := summaryRows(r, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		costCol := slices.Index(human[0], "cost (USD)")
		for _, row := range human[1:] {
			if row[0] == "acme.jsonl" && !slices.Equal(row[costCol:costCol+5], []string{"not priced", "-", "-", "-", "-"}) {
				t.Errorf("report row %v", row)
			}
		}
		for _, row := range plain[1:] {
			if row[0] == "acme.jsonl" && !slices.Equal(row[costCol:costCol+5], []string{"", "", "", "", ""}) {
				t.Errorf("CSV row %v", row)
			}
		}
	}
}

// TestDecimate: a long line is drawn with at most about maxPlotPoints
// points, keeping every run's peak and trough and the last point; a
// short one is drawn whole.
func TestDecimate(t *testing.T) {
	var pts plotter.XYs
	for i := range 50_000 {
		y := float64(i % 97) // a sawtooth
		if i == 31_337 {
			y = 1e6 // one spike
		}
		pts = append(pts, plotter.XY{X: float64(i + 1), Y: y})
	}
	got := decimate(pts, maxPlotPoints)
	if len(got) > maxPlotPoints+1 || len(got) < maxPlotPoints/2 {
		t.Fatalf("%d points drawn for 50,000", len(got))
	}
	maxY, minY := 0.0, 1e9
	for i, p := range got {
		if i > 0 && p.X <= got[i-1].X {
			t.Fatalf("point %d at x=%v after x=%v", i, p.X, got[i-1].X)
		}
		maxY, minY = max(maxY, p.Y), min(minY, p.Y)
	}
	if maxY != 1e6 || minY != 0 || got[len(got)-1] != pts[len(pts)-1] {
		t.Errorf("decimated: max %v, min %v, last %v; want the spike, 0 and %v", maxY, minY, got[len(got)-1], pts[len(pts)-1])
	}
	if short := pts[:maxPlotPoints]; len(decimate(short, maxPlotPoints)) != maxPlotPoints {
		t.Error("a line of maxPlotPoints points was decimated")
	}
}

// TestResultsStreamed: results.json written a run at a time is the bytes
// an indenting encoder writes of the whole report, with no transcript,
// one, and runs with no call.
func TestResultsStreamed(t *testing.T) {
	r := fixtureReport()
	two := *r
	second := r.Transcripts[0]
	second.File, second.Runs = "b <&> \"q\".jsonl", append([]PolicyResult{{Label: "x", Messages: []int{}}}, second.Runs...)
	two.Transcripts = append(slices.Clone(r.Transcripts), second)
	empty := *r
	empty.Transcripts = nil
	noRuns := *r
	noRuns.Transcripts = []TranscriptResult{{File: "c", Runs: []PolicyResult{}}, {File: "d"}}
	none := *r
	none.Transcripts = []TranscriptResult{}
	for _, rep := range []*Report{r, &two, &empty, &noRuns, &none} {
		var whole, streamed bytes.Buffer
		enc := json.NewEncoder(&whole)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			t.Fatal(err)
		}
		if err := writeResults(&streamed, rep); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(whole.String(), streamed.String()); diff != "" {
			t.Errorf("%d transcripts (-whole +streamed):\n%s", len(rep.Transcripts), diff)
		}
	}
}
