// Package reports prints what package cost measures as the text tables
// the ctxbench command prints: a transcript's bill against each policy's
// cost ([WriteComparison], from [cost.Compare] or [cost.Recorded]), and
// the recorded usage and its bill by session, model and day
// ([WriteLedger], from a [cost.Ledger]).
//
// Numbers are formatted by hand: integers with thousands separators,
// dollars to 4 decimals, right-aligned. Output carries no colour and no
// terminal-dependent width, so it is the same bytes on every machine and
// can be kept in golden files. The command's other output (the report
// folder with its page and plots, sweeps, a check's JUnit and
// annotations, the rows files) is drawn by its own internal package.
package reports

import (
	"io"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/internal/report"
)

// WriteComparison writes `ctxbench cost`'s table of a transcript: what
// each policy costs by component against what the recorded usage was
// billed, then the cache's misses and breaks, the assumptions and the
// out-of-sample cross-check.
func WriteComparison(w io.Writer, c *cost.Comparison) error {
	return report.WriteComparison(w, c)
}

// WriteLedger writes the bill of the recorded usage a ledger totalled:
// by session (subagents beneath), by model and by day.
func WriteLedger(w io.Writer, l *cost.Ledger) error {
	return report.WriteLedger(w, l)
}
