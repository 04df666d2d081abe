package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/batch"
	"github.com/ctxbench/ctxbench/internal/projection"
	"github.com/ctxbench/ctxbench/internal/recommend"
	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/internal/suitecheck"
	"github.com/ctxbench/ctxbench/internal/sweepgrid"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// answerFlags are the flags of the commands that end in a
// recommendation.
type answerFlags struct {
	MinProbeScore float64 `name:"min-probe-score" default:"${min_probe_score}" placeholder:"SHARE" help:"The least share of the probes a recommended setting keeps, 0 to 1."`
}

// floor is the probe score flag, checked.
func (a answerFlags) floor() (float64, error) {
	if !(a.MinProbeScore > 0 && a.MinProbeScore <= 1) {
		return 0, fmt.Errorf("--min-probe-score: %g is not a share in (0, 1]", a.MinProbeScore)
	}
	return a.MinProbeScore, nil
}

type sweepCmd struct {
	inputFlags      `group:"input"`
	summarizerFlags `group:"summarizer"`
	Policy          string   `required:"" placeholder:"SPEC" help:"The policy to sweep: NAME, or NAME:key=value,… for the fixed parameters."`
	Grid            []string `required:"" sep:"none" placeholder:"KEY=LO:HI:STEP|KEY=V1,V2" help:"A parameter and its values, repeatable; every combination is replayed."`
	answerFlags
	Estimator    string   `short:"e" default:"cl100k_base" placeholder:"NAME" help:"Estimator for the token columns."`
	Workers      int      `help:"Parallel workers (default: one per CPU; at most 1,024); the result does not depend on it."`
	MaxPoints    int      `name:"max-points" default:"100000" placeholder:"N" help:"Refuse a grid of more than N points (0: no limit)."`
	Prices       string   `placeholder:"FILE" help:"Prices: ctxbench's JSON or LiteLLM's model_prices_and_context_window.json (default: the embedded table)."`
	PricingModel string   `name:"pricing-model" placeholder:"M" help:"Price every call as this model, a what-if (default: each call at the model that made it)."`
	NoCost       bool     `name:"no-cost" help:"Do not price the points (pricing a run can take longer than replaying it)."`
	JSON         bool     `help:"Print one JSON document."`
	CSV          string   `placeholder:"FILE" help:"Also write the table as CSV to FILE (atomically)."`
	Paths        []string `arg:"" optional:"" name:"path" help:"Transcript files, directories, or - for standard input. None: Claude Code's sessions (~/.claude/projects or $CLAUDE_CONFIG_DIR/projects) (--samples: the embedded samples)."`
}

func (c *sweepCmd) Run(e *env) error {
	pol, err := window.Parse(c.Policy)
	if err != nil {
		return fmt.Errorf("--policy: %w", err)
	}
	floor, err := c.floor()
	if err != nil {
		return err
	}
	var grid []replay.GridKey
	for _, g := range c.Grid {
		k, err := sweepgrid.ParseGrid(g)
		if err != nil {
			return fmt.Errorf("--grid: %w", err)
		}
		if _, exists := sweepgrid.Changed(pol)[k.Key]; exists {
			return fmt.Errorf("--grid: %s is both fixed in --policy and swept", k.Key)
		}
		grid = append(grid, k)
	}
	if _, err := sweepgrid.GridPoints(grid, c.MaxPoints); err != nil {
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
	prices, err := loadPrices(c.Prices)
	if err != nil {
		return err
	}
	// Each transcript's runs start as soon as it is read, while the next
	// ones are read; a large one is swept alone ([replay.Sweeper.Add]).
	// Each point's runs are priced as cost prices them, and each
	// transcript's cross-check measures how far those prices may be off.
	progress, stop := progressBar(e.stderr)
	var errs []float64
	p := batch.New(batch.Spec{Replay: replay.Options{Estimators: []estimate.Estimator{est}, Summarizer: sum},
		Cost: cost.Options{Prices: prices, Model: c.PricingModel}, NoCost: c.NoCost,
		Sweep:   &suitecheck.SweepSpec{Policy: pol.Name(), Base: sweepgrid.Changed(pol), Grid: grid},
		Workers: c.Workers, Progress: progress, SweepError: func(pct float64) { errs = append(errs, pct) }})
	if err := p.Start(e.ctx); err != nil {
		stop()
		return fmt.Errorf("sweep: %w", err)
	}
	trs := 0
	// Its counts and retention artifacts, in a Replayer of its own let
	// go with it, are made by the goroutine that read it.
	_, rerr := readPrepared(e, c.Paths, c.inputFlags, true, p.Prepare, func(t *transcript.Transcript, pr batch.Prepared) error {
		trs++
		return p.Add(e.ctx, t, pr)
	})
	res, err := p.Finish()
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
	if c.CSV != "" {
		err := report.WriteTo(c.CSV, e.stdout, func(w *bufio.Writer) error { return report.WriteCSV(w, report.SweepCSV(res)) })
		if err != nil {
			return err
		}
	}
	ans := recommend.Answer(res, floor)
	// The cost of a point is a projection: how far it may be off is the
	// error measured on these transcripts (none measured when unpriced).
	var pe *projection.ProjectionError
	if res.Costed {
		pe = new(projection.MeasureProjectionError(errs))
	}
	if c.JSON {
		return e.writeJSON(struct {
			*replay.SweepResult
			Answer          recommend.SweepAnswer       `json:"answer"`
			ProjectionError *projection.ProjectionError `json:"projection_error,omitempty"`
		}{res, ans, pe})
	}
	return report.WriteSweepText(e.stdout, res, &ans, pe, trs)
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
