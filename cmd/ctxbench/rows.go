package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/reports"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// costRows writes --parquet's and --jsonl's rows (docs/rows.md), a
// transcript at a time.
type costRows struct {
	writers []*reports.RowsWriter
	est     string
}

// newCostRows starts the writers of the folders given (none: nil).
func newCostRows(parquetDir, jsonlDir, est string) (*costRows, error) {
	r := &costRows{est: est}
	for _, d := range []struct{ dir, format string }{{parquetDir, reports.RowsParquet}, {jsonlDir, reports.RowsJSONL}} {
		if d.dir == "" {
			continue
		}
		w, err := reports.NewRowsWriter(d.dir, d.format)
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

// A stepFact is what the rows take from a replayed step.
type stepFact struct {
	tokens    int
	retention float64
}

// observer returns cost.Options.Observe for a transcript priced under
// policies runs, and what it gathers: each run's steps (policies beyond
// runs, none replayed for the saving, are left out).
func (r *costRows) observer(runs int) (func(int, *replay.Step, *replay.PricedCall) error, [][]stepFact) {
	steps := make([][]stepFact, runs)
	return func(k int, s *replay.Step, _ *replay.PricedCall) error {
		if k < runs { // each run on its own goroutine: steps[k] is its own
			steps[k] = append(steps[k], stepFact{s.Tokens[r.est], s.Retention})
		}
		return nil
	}, steps
}

// add writes t's rows: one per policy, and one per policy and call.
// steps are what observer gathered (nil: priced from the bill, not
// replayed).
func (r *costRows) add(t *transcript.Transcript, pols []window.Labeled, c *cost.Comparison, steps [][]stepFact) error {
	times := t.CallTimes()
	day := ""
	for _, at := range times {
		if !at.IsZero() {
			day = at.UTC().Format(time.DateOnly)
			break
		}
	}
	missed := map[int]bool{}
	for _, m := range c.Misses {
		missed[m.Call] = true
	}
	var misses, missCost int64
	if c.CacheMisses != nil {
		misses, missCost = int64(c.CacheMisses.Calls), int64(c.CacheMisses.Cost)
	}
	session := cmp.Or(t.Parent, t.ID)
	var runs []reports.RunRow
	var calls []reports.CallRow
	for k, p := range c.Policies {
		rc := p.RunCost
		var ss []stepFact
		if k < len(steps) && len(steps[k]) == len(rc.PerStep) {
			ss = steps[k]
		}
		run := reports.RunRow{Session: session, Transcript: t.ID, File: t.File, Agent: string(t.Format), Model: rc.Model, Day: day,
			Policy: p.Label, PolicyName: pols[k].Policy.Name(), Params: paramString(pols[k].Policy.Params()), Calls: int64(len(rc.PerStep)),
			CacheReadTokens: rc.Usage.CacheRead, CacheWriteTokens: rc.Usage.CacheWrite, UncachedInputTokens: rc.Usage.Input, OutputTokens: rc.Usage.Output,
			InputPUSD: int64(rc.Calls.Input), CacheReadPUSD: int64(rc.Calls.CacheRead), CacheWritePUSD: int64(rc.Calls.CacheWrite), OutputPUSD: int64(rc.Calls.Output),
			SummariesPUSD: int64(rc.Summaries.Total()), TotalPUSD: int64(rc.Total), TotalUSD: rc.Total.USD(),
			CacheBreaks: int64(rc.BreakTotals.Breaks), CacheBreakPUSD: int64(rc.BreakTotals.Cost), CacheMisses: misses, CacheMissPUSD: missCost}
		breaks := map[int]bool{}
		for _, b := range rc.Breaks {
			breaks[b.Step] = true
		}
		var sent int64
		var kept float64
		for i, c := range rc.PerStep {
			u := rc.PerStepUsage[i]
			row := reports.CallRow{Session: session, Transcript: t.ID, Policy: p.Label, Call: int64(i),
				CacheReadTokens: u.CacheRead, CacheWriteTokens: u.CacheWrite, UncachedInputTokens: u.Input, OutputTokens: u.Output,
				CostPUSD: int64(c), CacheBreak: breaks[i], CacheMiss: missed[i]}
			if i < len(times) && !times[i].IsZero() {
				row.Time = times[i].UTC().Format(time.RFC3339)
			}
			if ss != nil {
				n, ret := int64(ss[i].tokens), ss[i].retention
				row.TokensSent, row.Retention = &n, &ret
				sent += n
				kept += ret
			}
			calls = append(calls, row)
		}
		if ss != nil {
			run.TokensSent = &sent
			if len(ss) > 0 {
				mean := kept / float64(len(ss))
				run.Retention = &mean
			}
		}
		runs = append(runs, run)
	}
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

// paramString is a policy's parameters as key=value, sorted by key.
func paramString(v window.Values) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(v)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + "=" + v[k])
	}
	return b.String()
}
