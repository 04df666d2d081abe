package main

import (
	"fmt"
	"path/filepath"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/internal/tracefmt"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// costRows writes --parquet's and --jsonl's rows (docs/rows.md), a
// transcript at a time.
type costRows struct {
	writers []*report.RowsWriter
}

// newCostRows starts the writers of the folders given (none: nil), which
// hold none of the inputs, named or read with f ([inputFlags.replaces]).
func newCostRows(f *inputFlags, parquetDir, jsonlDir string, inputs []string) (*costRows, error) {
	if parquetDir != "" && filepath.Clean(parquetDir) == filepath.Clean(jsonlDir) {
		return nil, fmt.Errorf("--parquet and --jsonl name the same folder, %s: give each its own", parquetDir)
	}
	if err := f.replaces("--parquet", parquetDir, inputs); err != nil {
		return nil, err
	}
	if err := f.replaces("--jsonl", jsonlDir, inputs); err != nil {
		return nil, err
	}
	r := &costRows{}
	for _, d := range []struct{ dir, format string }{{parquetDir, report.RowsParquet}, {jsonlDir, report.RowsJSONL}} {
		if d.dir == "" {
			continue
		}
		w, err := report.NewRowsWriter(d.dir, d.format)
		if err != nil {
			r.abort()
			return nil, fmt.Errorf("--%s: %w", d.format, err)
		}
		r.writers = append(r.writers, w)
	}
	if len(r.writers) == 0 {
		return nil, nil
	}
	return r, nil
}

// observeRows returns cost.Options.Observe for a transcript priced
// under policies runs, and what it gathers: each run's steps, counted
// by est (policies beyond runs, none replayed for the saving, are left
// out).
func observeRows(runs int, est string) (func(int, *replay.Step, *tracefmt.PricedCall) error, []report.RunSteps) {
	steps := make([]report.RunSteps, runs)
	return func(k int, s *replay.Step, _ *tracefmt.PricedCall) error {
		if k < runs { // each run on its own goroutine: steps[k] is its own
			steps[k].Add(s, est)
		}
		return nil
	}, steps
}

// takeSummaries gives each run's steps what its summary holds: what the
// run lost of the session's probes, and its metrics (runs past steps,
// none replayed for the saving, are left out).
func takeSummaries(steps []report.RunSteps, runs []*replay.Run) {
	for k := range steps {
		if k < len(runs) {
			steps[k].Loss = runs[k].Summary.ProbeLoss
			steps[k].Metrics = runs[k].Summary.Metrics()
		}
	}
}

// rowsOf returns t's rows (docs/rows.md); steps are what observeRows
// gathered (nil: priced from the bill, not replayed).
func rowsOf(t *transcript.Transcript, pols []window.Labeled, c *cost.Comparison, steps []report.RunSteps) ([]report.RunRow, []report.CallRow) {
	costs := make([]*cost.RunCost, len(c.Policies))
	for k, p := range c.Policies {
		costs[k] = p.RunCost
	}
	return report.RowsOf(t, pols, costs, steps, c.Misses, c.CacheMisses)
}

// write writes a transcript's rows.
func (r *costRows) write(runs []report.RunRow, calls []report.CallRow) error {
	for _, w := range r.writers {
		if err := w.Add(runs, calls); err != nil {
			return err
		}
	}
	return nil
}

// close finishes the folders; abort leaves them as they were.
func (r *costRows) close() error {
	for i, w := range r.writers {
		if err := w.Close(); err != nil {
			for _, rest := range r.writers[i+1:] {
				rest.Abort()
			}
			return err
		}
	}
	return nil
}

func (r *costRows) abort() {
	for _, w := range r.writers {
		w.Abort()
	}
}
