package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/batch"
	"github.com/ctxbench/ctxbench/internal/suitecheck"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// shapeReport is the report `ctxbench report` makes of the transcripts
// of data (one file, named file) ([commandReport]): replayed under a few policies, one
// with a cap, priced at the embedded table, its messages counted by the
// accuracy plots' estimators, and swept over two keys. A file the reader
// refuses skips the test.
func shapeReport(t testing.TB, file string, data []byte) *Report {
	t.Helper()
	ts, err := transcript.Parse(data, file, transcript.Options{})
	if err != nil {
		t.Skipf("not a transcript: %v", err)
	}
	return commandReport(t, ts)
}

// commandReport is the report shapeReport makes of ts.
func commandReport(t testing.TB, ts []*transcript.Transcript) *Report {
	t.Helper()
	b, p := commandPipeline(t)
	return finished(t, b, p, ts)
}

// commandPipeline is the builder and pipeline of commandReport.
func commandPipeline(t testing.TB) (*Builder, *batch.Pipeline) {
	t.Helper()
	ps, err := window.ParseLabeled([]string{"none", "recorded", "aidf:max_messages=2,preserve_first_n=0,preserve_last_n=1"})
	if err != nil {
		t.Fatal(err)
	}
	b := &Builder{Policies: ps, CountedWith: AccuracyEstimators(), Swept: true}
	spec := batch.Spec{Policies: ps, Cost: cost.Options{Prices: pricing.Default()}, Runs: b.AddRuns,
		Sweep: &suitecheck.SweepSpec{Policy: "aidf", Base: map[string]string{"preserve_last_n": "1"}, Grid: []replay.GridKey{
			{Key: "max_messages", Values: []string{"2", "4"}}, {Key: "preserve_first_n", Values: []string{"0", "1"}}}}}
	for _, n := range b.CountedWith {
		spec.Estimators = append(spec.Estimators, estimate.MustNew(n, estimate.OverheadNone))
	}
	return b, batch.New(spec)
}

var mdFigure = regexp.MustCompile(`(?m)^!\[[^\n]*\]\(([^()\s]+)\)$`)

// checkFigures writes r and checks each figure report.md shows: its PNG
// decodes at the plots' size and its SVG is there. It returns the
// figures' files.
func checkFigures(t testing.TB, r *Report) []string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := WriteReport(dir, r); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, m := range mdFigure.FindAllStringSubmatch(string(md), -1) {
		files = append(files, m[1])
		f, err := os.Open(filepath.Join(dir, m[1]))
		if err != nil {
			t.Error(err)
			continue
		}
		c, err := png.DecodeConfig(f)
		f.Close()
		if w := int(plotW / vg.Inch * plotDPI); err != nil || c.Width != w {
			t.Errorf("%s: %d px wide, %v; want %d", m[1], c.Width, err, w)
		}
		if _, err := os.Stat(filepath.Join(dir, strings.TrimSuffix(m[1], ".png")+".svg")); err != nil {
			t.Error(err)
		}
	}
	return files
}

// TestFigureShapes: a report of each shape of session whose values a
// plot's scale cannot take as they are — one call, every message of
// one token (the estimates' log axes of one value), empty messages
// (no count above 0), two calls alike (every series flat), no usage —
// is written, and each figure it shows is drawn.
func TestFigureShapes(t *testing.T) {
	for _, c := range []struct {
		file string
		// figures are the figures the report shows: the estimates'
		// two and the sweep's always, the Pareto chart's when some
		// session is priced, and the session's when it has two calls
		// (its cache traffic when its bill has a prompt cache: aidf's
		// cap evicts; else the page says there is none).
		figures []string
	}{
		{"one-call.jsonl", []string{"pareto.png", "estimate-scatter.png", "estimate-error.png", "sweep-heatmap.png", "sweep-cost.png"}},
		{"one-empty-call.jsonl", []string{"pareto.png", "estimate-scatter.png", "estimate-error.png", "sweep-heatmap.png", "sweep-cost.png"}},
		{"empty-content.jsonl", []string{"growth-messages-1.png", "growth-tokens-1.png", "cost-1.png", "pareto.png", "estimate-scatter.png", "estimate-error.png", "sweep-heatmap.png", "sweep-cost.png"}},
		{"two-equal-calls.jsonl", []string{"growth-messages-1.png", "growth-tokens-1.png", "cost-1.png", "pareto.png", "estimate-scatter.png", "estimate-error.png", "sweep-heatmap.png", "sweep-cost.png"}},
		{"no-usage.jsonl", []string{"growth-messages-1.png", "growth-tokens-1.png", "estimate-scatter.png", "estimate-error.png", "sweep-heatmap.png"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "shapes", c.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := checkFigures(t, shapeReport(t, c.file, data)); strings.Join(got, " ") != strings.Join(c.figures, " ") {
				t.Errorf("figures %v, want %v", got, c.figures)
			}
		})
	}
}

// FuzzReportFigures writes the report of generated sessions of one to
// three calls, each call's question and answer (empty ones too) and
// usage given, and checks that each figure it shows is drawn: no input
// a reader takes may make a plot panic or fail. A session whose call
// costs past [pricing.MaxCall] is refused as such, never drawn.
func FuzzReportFigures(f *testing.F) {
	// TestFigureShapes has the shapes of a call or two; these are the
	// others.
	f.Add(uint8(2), "what does main.go do?", "it prints", int64(1e12), int64(1e9), "claude-opus-4-6")
	f.Add(uint8(2), "x", "", int64(-5), int64(3), "")
	f.Add(uint8(1), "big", "ok", int64(1e8), int64(1e6), "claude-opus-4-6")
	f.Fuzz(func(t *testing.T, calls uint8, question, answer string, prompt, completion int64, model string) {
		var lines []string
		for i := range 1 + int(calls%3) {
			user, _ := json.Marshal(map[string]any{"role": "user", "content": question})
			call, _ := json.Marshal(map[string]any{"role": "assistant", "content": answer, "model": model,
				"usage": map[string]int64{"prompt_tokens": prompt + int64(i), "completion_tokens": completion}})
			lines = append(lines, string(user), string(call))
		}
		ts, err := transcript.Parse([]byte(strings.Join(lines, "\n")+"\n"), "fuzz.jsonl", transcript.Options{})
		if err != nil {
			t.Skipf("not a transcript: %v", err)
		}
		b, p := commandPipeline(t)
		r, err := finish(b, p, ts)
		if amount := (*pricing.AmountError)(nil); errors.As(err, &amount) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		checkFigures(t, r)
	})
}

// TestFitAxis: whatever range an axis is given, it leaves with one its
// scale can draw — finite, increasing, above 0 on a log scale — holding
// the range given when that was one already.
func TestFitAxis(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, log := range []bool{false, true} {
		for _, c := range [][2]float64{
			{1, 1}, {0, 0}, {-3, -3}, {0, 1}, {2, 5}, {5, 2}, {inf, 0}, {inf, -inf}, {nan, nan}, {nan, 3},
			{-inf, inf}, {0, 10}, {-1, 1}, {1e-320, 1e-320}, {1e308, 1e308}, {-1e308, 1e308}, {0.001, 0.001},
		} {
			a := plot.New().X
			if log {
				a.Scale = plot.LogScale{}
			}
			a.Min, a.Max = c[0], c[1]
			fitAxis(&a)
			check := func(ok bool, what string) {
				t.Helper()
				if !ok {
					t.Errorf("log %v, %v: %v..%v: %s", log, c, a.Min, a.Max, what)
				}
			}
			check(shows(&a, a.Min) && shows(&a, a.Max), "a bound the axis cannot show")
			check(a.Min < a.Max, "not increasing")
			if given := [2]float64{c[0], c[1]}; shows(&a, given[0]) && shows(&a, given[1]) && given[0] < given[1] {
				check(a.Min == given[0] && a.Max == given[1], "a drawable range changed")
			}
			if log {
				check(len(plot.LogTicks{}.Ticks(a.Min, a.Max)) > 0, "no ticks")
			} else {
				check(len(plot.DefaultTicks{}.Ticks(a.Min, a.Max)) > 0, "no ticks")
			}
		}
	}
}

// TestChartsTakeAnyValue: each chart, given values its scales cannot
// show (NaN, infinities, values past any bill, 0 on a log axis), empty
// series, one point and values all equal, draws what it can and returns
// no error.
func TestChartsTakeAnyValue(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	dir := t.TempDir()
	check := func(what string, files []string, err error) {
		t.Helper()
		if err != nil || len(files) != 2 {
			t.Errorf("%s: %v, %v", what, files, err)
		}
	}
	// Each chart once with a series of each shape, once with only
	// values it cannot show, once with every value equal.
	for i, ys := range [][][]float64{{{nan, 1, 2}, {inf, -inf}, {}, {3}, {1e305, 2e305}, {-1, -1}}, {{nan}, {inf, -inf}}, {{5, 5, 5}}} {
		var series []Series
		for k, y := range ys {
			series = append(series, Series{Label: fmt.Sprint(k), Y: y, Marks: []int{0, 1}, MarkLabel: "m"})
		}
		files, err := LineChart(dir, fmt.Sprint("line-", i), "t", "USD", series, []Level{{"cap", nan, "0"}, {"cap", 2, "0"}})
		check(fmt.Sprint("line ", ys), files, err)
	}
	for i, pts := range [][]Point{{{"a", inf, 1}, {"b", 1, 0.5}, {"c", nan, nan}}, {{"a", nan, nan}, {"b", inf, 1}}, {{"a", 1, 1}, {"b", 1, 1}}} {
		files, err := ParetoChart(dir, fmt.Sprint("pareto-", i), pts)
		check(fmt.Sprint("pareto ", pts), files, err)
	}
	for i, z := range [][][]float64{{{nan, inf}, {-inf, nan}}, {{7, 7}, {7, 7}}} {
		files, err := Heatmap(dir, fmt.Sprint("heat-", i), "t", "x", "y", "z", []float64{1, 2}, []float64{1, 2}, z)
		check(fmt.Sprint("heatmap ", z), files, err)
	}
	// The estimates' counts: none above 0; one message, its counts
	// equal.
	for i, rows := range [][]int{{0, 0, 0, 0, 0, 0}, {1, 1, 1}} {
		pc := NewPlotCounts("cl100k_base", []string{"chars4", "gemini"})
		if err := pc.addRows(rows); err != nil {
			t.Fatal(err)
		}
		files, err := pc.Plot(filepath.Join(dir, fmt.Sprint("counts-", i)))
		if err != nil || len(files) != 4 {
			t.Errorf("counts %v: %v, %v", rows, files, err)
		}
	}
	p := plot.New()
	p.Y.Scale = plot.LogScale{}
	if got := drawable(p, plotter.XYs{{X: 1, Y: 1}, {X: nan, Y: 1}, {X: 2, Y: 0}, {X: inf, Y: 3}, {X: 3, Y: 3}}); len(got) != 2 || got[0].X != 1 || got[1].X != 3 {
		t.Errorf("drawable on a log Y axis: %v", got)
	}
}
