package report

import (
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/recommend"
	"github.com/ctxbench/ctxbench/replay"
)

// TestSweepColumns: the CSV and the text table of a sweep are drawn from
// the one list of columns: every CSV row has a cell per header, the text
// table's headings are the columns that have one, in the same order, and
// the cost shows in text only when the sweep priced its points; the CSV
// has the baselines' rows as the text table has them, named.
func TestSweepColumns(t *testing.T) {
	res := &replay.SweepResult{Policy: "aidf", Estimator: "cl100k_base", Grid: []replay.GridKey{{Key: "max_messages", Values: []string{"10", "20"}}},
		Points: []replay.Point{
			{Params: map[string]string{"max_messages": "10"}, Calls: 4, InputTokens: 100, ProbeScore: 0.5, Violations: map[string]int{"cap": 1}},
			{Params: map[string]string{"max_messages": "20"}, Calls: 4, InputTokens: 120, ProbeScore: 0.9, Violations: map[string]int{}},
		},
		Baselines: []replay.Point{
			{Label: "none", Calls: 4, InputTokens: 400, ProbeScore: 1, Violations: map[string]int{}},
			{Label: "recorded", Calls: 4, InputTokens: 90, ProbeScore: 0.8, Violations: map[string]int{}},
		}}
	rows := SweepCSV(res)
	if len(rows) != 5 || rows[0][0] != "max_messages" || rows[0][1] != "baseline" || len(rows[0]) != 2+len(sweepColumns) {
		t.Fatalf("header %v, %d rows", rows[0], len(rows))
	}
	for _, r := range rows[1:] {
		if len(r) != len(rows[0]) {
			t.Errorf("row %v: %d cells, %d headers", r, len(r), len(rows[0]))
		}
	}
	for i, want := range [][2]string{{"10", ""}, {"20", ""}, {"", "none"}, {"", "recorded"}} {
		if got := [2]string{rows[i+1][0], rows[i+1][1]}; got != want {
			t.Errorf("row %d: max_messages %q, baseline %q; want %q", i+1, got[0], got[1], want)
		}
	}
	var pareto []string
	for _, r := range rows[1:] {
		pareto = append(pareto, r[len(r)-1])
	}
	// 20 keeps more than recorded and sends less than none: each is best
	// on its own terms; 10 breaks the cap.
	if want := []string{"false", "true", "true", "true"}; !slices.Equal(pareto, want) {
		t.Errorf("pareto cells %v, want %v", pareto, want)
	}
	for _, costed := range []bool{false, true} {
		res.Costed = costed
		var b strings.Builder
		if err := WriteSweepText(&b, res, new(recommend.Answer(res, 0)), nil, 1); err != nil {
			t.Fatal(err)
		}
		head := strings.Split(b.String(), "\n")[2]
		at := 0
		for _, col := range sweepColumns {
			if col.text == nil || col.head == "" {
				continue
			}
			i := strings.Index(head[at:], "| "+col.head+" ")
			if (i >= 0) != (!col.costed || costed) {
				t.Errorf("costed %v: heading %q shown %v", costed, col.head, i >= 0)
			}
			if i >= 0 {
				at += i
			}
		}
	}
}

// TestSweepHeatmaps: a priced two-key sweep draws its probe score and
// its cost, the recommended cell outlined in red and named in the
// caption; a sweep whose every point costs more than none outlines none.
func TestSweepHeatmaps(t *testing.T) {
	pt := func(mm, pf string, usd, score float64) replay.Point {
		return replay.Point{Params: map[string]string{"max_messages": mm, "preserve_first_n": pf}, Transcripts: 1, Priced: 1, CostUSD: usd,
			InputTokens: int64(usd * 1000), ProbeScore: score, Violations: map[string]int{}}
	}
	res := &replay.SweepResult{Policy: "aidf", Costed: true, Grid: []replay.GridKey{{Key: "max_messages", Values: []string{"10", "20"}}, {Key: "preserve_first_n", Values: []string{"0", "1"}}},
		Points:    []replay.Point{pt("10", "0", 1, 0.5), pt("10", "1", 1.1, 0.6), pt("20", "0", 1.5, 0.95), pt("20", "1", 1.6, 0.96)},
		Baselines: []replay.Point{{Label: "none", Transcripts: 1, Priced: 1, CostUSD: 2, InputTokens: 2000, ProbeScore: 1, Violations: map[string]int{}}}}
	red := func(path string) int {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if r>>8 == 0xd6 && g>>8 == 0x27 && bl>>8 == 0x28 {
					n++
				}
			}
		}
		return n
	}
	for _, tc := range []struct {
		noneUSD float64
		caption string
		marked  bool
	}{
		{2, "the recommended cell (max_messages=20, preserve_first_n=0) outlined", true},
		{1.2, "no cell recommended: none keeps 90% of the probes for less", false},
	} {
		res.Baselines[0].CostUSD, res.Baselines[0].InputTokens = tc.noneUSD, int64(tc.noneUSD*1000)
		dir := t.TempDir()
		var figs figureList
		if err := sweepFigures(dir, &Report{Sweep: res}, res, &figs); err != nil {
			t.Fatal(err)
		}
		if len(figs.figs) != 2 || figs.figs[1].file != "sweep-cost.png" {
			t.Fatalf("none at $%v: figures %+v", tc.noneUSD, figs.figs)
		}
		for _, f := range figs.figs {
			if !strings.Contains(f.caption, tc.caption) {
				t.Errorf("none at $%v: caption %q lacks %q", tc.noneUSD, f.caption, tc.caption)
			}
			if n := red(filepath.Join(dir, f.file)); (n > 0) != tc.marked {
				t.Errorf("none at $%v: %s has %d outline pixels, marked %v", tc.noneUSD, f.file, n, tc.marked)
			}
		}
	}
}
