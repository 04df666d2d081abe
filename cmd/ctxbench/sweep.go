package main

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/replay/probe"
	"github.com/ctxbench/ctxbench/reports"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

type sweepCmd struct {
	inputFlags
	summarizerFlags
	Policy       string   `required:"" placeholder:"SPEC" help:"The policy to sweep: NAME, or NAME:key=value,… for the fixed parameters."`
	Grid         []string `required:"" sep:"none" placeholder:"KEY=LO:HI:STEP|KEY=V1,V2" help:"A parameter and its values, repeatable; every combination is replayed."`
	Estimator    string   `short:"e" default:"cl100k_base" placeholder:"NAME" help:"Estimator for the token columns."`
	Workers      int      `help:"Parallel workers (default: one per CPU; at most 1,024); the result does not depend on it."`
	MaxPoints    int      `name:"max-points" default:"100000" placeholder:"N" help:"Refuse a grid of more than N points (0: no limit)."`
	Prices       string   `placeholder:"FILE" help:"Prices: ctxbench's JSON or LiteLLM's model_prices_and_context_window.json (default: the embedded table)."`
	PricingModel string   `name:"pricing-model" placeholder:"M" help:"Price every call as this model, a what-if (default: each call at the model that made it)."`
	NoCost       bool     `name:"no-cost" help:"Do not price the points (pricing a run can take longer than replaying it)."`
	JSON         bool     `help:"Print one JSON document."`
	CSV          string   `placeholder:"FILE" help:"Also write the table as CSV to FILE (atomically)."`
	Paths        []string `arg:"" optional:"" name:"path" help:"Transcript files, directories, or - for standard input. None: Claude Code's sessions (~/.claude/projects or $CLAUDE_CONFIG_DIR/projects) where found, else the embedded samples (--samples)."`
}

func (c *sweepCmd) Run(e *env) error {
	p, err := window.Parse(c.Policy)
	if err != nil {
		return fmt.Errorf("--policy: %w", err)
	}
	var grid []replay.GridKey
	for _, g := range c.Grid {
		k, err := replay.ParseGrid(g)
		if err != nil {
			return fmt.Errorf("--grid: %w", err)
		}
		if _, exists := window.Changed(p)[k.Key]; exists {
			return fmt.Errorf("--grid: %s is both fixed in --policy and swept", k.Key)
		}
		grid = append(grid, k)
	}
	if _, err := replay.GridPoints(grid, c.MaxPoints); err != nil {
		return withHint(fmt.Errorf("--grid: %w", err), "sweep fewer values, or pass --max-points N")
	}
	est, err := estimate.New(c.Estimator, estimate.OverheadNone)
	if err != nil {
		return fmt.Errorf("--estimator: %w", err)
	}
	sum, prun, err := c.build(e)
	if err != nil {
		return err
	}
	// Each transcript's runs start as soon as it is read, while the next
	// ones are read.
	opt := replay.Options{Estimators: []estimate.Estimator{est}, Summarizer: sum}
	progress, stop := progressBar(e.stderr)
	prices, err := loadPrices(c.Prices)
	if err != nil {
		stop()
		return err
	}
	sw, err := replay.NewSweeper(e.ctx, p.Name(), window.Changed(p), grid, opt, c.Workers, progress)
	if err != nil {
		stop()
		return fmt.Errorf("sweep: %w", err)
	}
	// Each point's runs are priced as cost prices them.
	if !c.NoCost {
		copt := cost.Options{Prices: prices, Model: c.PricingModel}
		sw.Price = func(r *replay.Replayer, opt replay.Options) (func() replay.RunCoster, error) {
			return cost.SweepPricer(e.ctx, r, opt, copt)
		}
	}
	trs := 0
	// Its counts and retention artifacts, in a Replayer of its own let
	// go with it, are made by the goroutine that read it.
	prepare := func(t *transcript.Transcript) prepared {
		r, err := sw.Prepare(t)
		return prepared{r, err}
	}
	_, rerr := readPrepared(e, c.Paths, c.inputFlags, true, prepare, func(_ *transcript.Transcript, p prepared) error {
		if p.err != nil {
			return p.err
		}
		trs++
		return sw.Add(p.r)
	})
	res, err := sw.Result()
	stop()
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if rerr != nil {
		return rerr
	}
	if err := prun.finish(e); err != nil {
		return err
	}
	replay.SortPoints(res.Points, grid)
	rows := sweepRows(res)
	if c.CSV != "" {
		err := reports.WriteTo(c.CSV, e.stdout, func(w *bufio.Writer) error {
			cw := csv.NewWriter(w)
			if err := cw.WriteAll(append([][]string{sweepHeader(res)}, rows...)); err != nil {
				return err
			}
			cw.Flush()
			return cw.Error()
		})
		if err != nil {
			return err
		}
	}
	if c.JSON {
		return e.writeJSON(res)
	}
	return writeSweepText(e.stdout, res, trs)
}

func sweepHeader(res *replay.SweepResult) []string {
	var h []string
	for _, g := range res.Grid {
		h = append(h, g.Key)
	}
	return append(h, "calls", "peak_messages", "peak_tokens", "input_tokens", "share_of_none", "cost_usd", "priced_transcripts", "evictions", "truncations", "summaries", "violations", "probes_lost", "probes", "probe_score", "mean_retention", "pareto")
}

// sweepRows are the table's rows with plain numbers (CSV); the text table
// formats them for people.
func sweepRows(res *replay.SweepResult) [][]string {
	var rows [][]string
	best := paretoPoints(res.Points)
	for i, p := range res.Points {
		var row []string
		for _, g := range res.Grid {
			row = append(row, p.Params[g.Key])
		}
		nv := 0
		for _, v := range p.Violations {
			nv += v
		}
		row = append(row, fmt.Sprint(p.Calls), fmt.Sprint(p.PeakMessages), fmt.Sprint(p.PeakTokens), fmt.Sprint(p.InputTokens),
			fmt.Sprintf("%.4f", p.ShareOfNone), pointCostCSV(res, p), fmt.Sprint(p.Priced), fmt.Sprint(p.Evictions), fmt.Sprint(p.Truncations), fmt.Sprint(p.Summaries), fmt.Sprint(nv),
			fmt.Sprint(probesLost(p.ProbeLoss)), fmt.Sprint(probesOf(p.ProbeLoss)), fmt.Sprintf("%.4f", p.ProbeScore), fmt.Sprintf("%.4f", p.MeanRetention), fmt.Sprint(best[i]))
		rows = append(rows, row)
	}
	return rows
}

func writeSweepText(w io.Writer, res *replay.SweepResult, transcripts int) error {
	fmt.Fprintf(w, "sweep of %s: %s over %s (tokens: %s)\n", res.Policy, reports.Count(len(res.Points), "point", "points"), reports.Count(transcripts, "transcript", "transcripts"), res.Estimator)
	t := reports.Table{}
	for _, g := range res.Grid {
		t.Header = append(t.Header, g.Key)
		t.Right = append(t.Right, true)
	}
	t.Header = append(t.Header, "peak msgs", "peak tokens", "input tokens", "of none")
	if res.Costed {
		t.Header = append(t.Header, "cost")
	}
	t.Header = append(t.Header, "evicted", "truncated", "summaries", "probes", "retention", "violations", "")
	for range len(t.Header) - len(t.Right) - 2 {
		t.Right = append(t.Right, true)
	}
	t.Right = append(t.Right, false, false)
	best := paretoPoints(res.Points)
	for i, p := range res.Points {
		var row []string
		for _, g := range res.Grid {
			row = append(row, p.Params[g.Key])
		}
		row = append(row, reports.Int(p.PeakMessages), reports.Int(p.PeakTokens), reports.Int(p.InputTokens), fmt.Sprintf("%.1f%%", p.ShareOfNone*100))
		if res.Costed {
			row = append(row, pointCost(p, p.Transcripts))
		}
		row = append(row, reports.Int(p.Evictions), reports.Int(p.Truncations), reports.Int(p.Summaries),
			reports.ProbeText(p.ProbeLoss), fmt.Sprintf("%.1f%%", p.MeanRetention*100), violationSummary(p.Violations), map[bool]string{true: "★"}[best[i]])
		t.Rows = append(t.Rows, row)
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	if slices.Contains(best, true) {
		if byCost(res.Points) {
			fmt.Fprintln(w, "★ Pareto-best: no other point that breaks no invariant costs less and keeps more probes")
		} else {
			fmt.Fprintln(w, "★ Pareto-best: no other point that breaks no invariant sends fewer tokens and keeps more probes")
		}
		fmt.Fprintln(w, reports.ProbeNote)
	}
	writeSweepCautions(w, res)
	for _, inv := range res.Invalid {
		fmt.Fprintf(w, "skipped an invalid combination: %s\n", inv)
	}
	return nil
}

// writeSweepCautions writes each caution the policy gave, once, with the
// points it applies to.
func writeSweepCautions(w io.Writer, res *replay.SweepResult) {
	var order []string
	at := map[string][]string{}
	for _, p := range res.Points {
		var params []string
		for _, g := range res.Grid {
			params = append(params, g.Key+"="+p.Params[g.Key])
		}
		for _, c := range p.Cautions {
			if _, ok := at[c]; !ok {
				order = append(order, c)
			}
			at[c] = append(at[c], strings.Join(params, ","))
		}
	}
	for _, c := range order {
		if points := at[c]; len(points) < len(res.Points) {
			fmt.Fprintf(w, "caution, at %s: %s\n", strings.Join(points, "; "), c)
		} else {
			fmt.Fprintf(w, "caution, at every point: %s\n", c)
		}
	}
}

// pointCost says what a point costs over the transcripts priced: not
// priced, or the sum and, when some are not priced, how many are.
func pointCost(p replay.Point, transcripts int) string {
	switch {
	case p.Priced == 0:
		return "not priced"
	case p.Priced < transcripts:
		return fmt.Sprintf("%s (%d of %d priced)", reports.USD(p.CostUSD), p.Priced, transcripts)
	}
	return reports.USD(p.CostUSD)
}

// pointCostCSV is a point's cost in dollars, empty when the sweep priced
// nothing.
func pointCostCSV(res *replay.SweepResult, p replay.Point) string {
	if !res.Costed || p.Priced == 0 {
		return ""
	}
	return strconv.FormatFloat(p.CostUSD, 'f', -1, 64)
}

// byCost reports whether the points are compared by cost: some
// transcript is priced (every point prices the same ones).
func byCost(ps []replay.Point) bool { return len(ps) > 0 && ps[0].Priced > 0 }

// paretoPoints marks the points that break no invariant and that no other
// such point beats on both what it spends (fewer dollars over the
// transcripts priced when some are, else fewer tokens) and probe score
// (more).
func paretoPoints(ps []replay.Point) []bool {
	spend := func(p *replay.Point) float64 { return float64(p.InputTokens) }
	if byCost(ps) {
		spend = func(p *replay.Point) float64 { return float64(p.Cost) }
	}
	clean := make([]bool, len(ps))
	for i := range ps {
		clean[i] = true
		for _, n := range ps[i].Violations {
			clean[i] = clean[i] && n == 0
		}
	}
	best := make([]bool, len(ps))
	for i := range ps {
		p := &ps[i]
		best[i] = clean[i]
		for j := 0; best[i] && j < len(ps); j++ {
			q := &ps[j]
			if clean[j] && spend(q) <= spend(p) && q.ProbeScore >= p.ProbeScore &&
				(spend(q) < spend(p) || q.ProbeScore > p.ProbeScore) {
				best[i] = false
			}
		}
	}
	return best
}

// probesLost returns how many probes l counts lost, and probesOf of
// how many.
func probesLost(l probe.Loss) int {
	n, _ := l.Totals()
	return n
}

func probesOf(l probe.Loss) int {
	_, n := l.Totals()
	return n
}

// progressBar returns a progress callback that draws on w when w is a
// terminal and the work has taken more than a second, and a stop function.
func progressBar(w io.Writer) (func(done, total int), func()) {
	f, ok := w.(*os.File)
	if !ok {
		return nil, func() {}
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil, func() {}
	}
	start := time.Now()
	var mu sync.Mutex
	drawn := false
	return func(done, total int) {
			if time.Since(start) < time.Second {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(f, "\rctxbench: sweep %d/%d replays", done, total)
			drawn = true
		}, func() {
			mu.Lock()
			defer mu.Unlock()
			if drawn {
				fmt.Fprint(f, "\r\033[K")
			}
		}
}
