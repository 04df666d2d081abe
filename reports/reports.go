// Package reports prints what packages cost and replay measure as the
// text tables the ctxbench command prints: a transcript's bill against
// each policy's cost ([WriteComparison], from [cost.Compare] or
// [cost.Recorded]), each policy's cost over many sessions
// ([WritePolicyCosts], from [cost.SpreadOf]), the recorded usage and its
// bill by session, model and day ([WriteLedger], from a [cost.Ledger]),
// and a sweep of a policy's parameters with its answer ([WriteSweepText],
// from [replay.Sweep]).
//
// Numbers are formatted by hand: integers with thousands separators,
// dollars to 4 decimals, right-aligned. Output carries no colour and no
// terminal-dependent width, so it is the same bytes on every machine and
// can be kept in golden files. The command's other output (the report
// folder with its page and plots, a check's JUnit and annotations, the
// rows files) is drawn by its own internal package.
package reports

import (
	"io"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/replay"
)

// WriteComparison writes `ctxbench cost`'s table of a transcript: what
// each policy costs by component against what the recorded usage was
// billed, then the cache's misses and breaks, the assumptions and the
// out-of-sample cross-check.
func WriteComparison(w io.Writer, c *cost.Comparison) error {
	return report.WriteComparison(w, c)
}

// WritePolicyCosts writes `ctxbench cost`'s table of each policy's cost
// over every session priced, when there are two or more (it writes
// nothing for fewer): the total, its range by the measured projection
// error, and per session the mean, the median and the 90th percentile.
func WritePolicyCosts(w io.Writer, totals []cost.Spread) error {
	return report.WritePolicyCosts(w, totals)
}

// WriteLedger writes the bill of the recorded usage a ledger totalled:
// by session (subagents beneath), by model and by day.
func WriteLedger(w io.Writer, l *cost.Ledger) error {
	return report.WriteLedger(w, l)
}

// WriteSweepText writes `ctxbench sweep`'s table: a line naming the
// sweep, a row per point then per baseline, the Pareto-best starred, then
// the answer a (from [replay.SweepResult.Answer]), the cautions the
// policy gave and the combinations it skipped. pe is the projection error
// measured on the transcripts swept (nil when the sweep is not priced);
// transcripts is how many were swept.
func WriteSweepText(w io.Writer, res *replay.SweepResult, a *replay.SweepAnswer, pe *cost.ProjectionError, transcripts int) error {
	return report.WriteSweepText(w, res, a, pe, transcripts)
}
