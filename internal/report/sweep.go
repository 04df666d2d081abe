package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/metric"
	"github.com/ctxbench/ctxbench/internal/projection"
	"github.com/ctxbench/ctxbench/internal/recommend"
	"github.com/ctxbench/ctxbench/replay"
)

// A sweepColumn is a sweep point's column, as `ctxbench sweep --csv`,
// the report's sweep.csv and the sweep's text table show it: its CSV name
// and value, and its text heading and value ("": not in the text
// table). A column is one entry here for every view.
type sweepColumn struct {
	name, head string
	// costed: the text table shows it when the sweep priced its points;
	// left: the text table aligns it left (text, not a number).
	costed, left bool
	csv, text    func(c *sweepCell) string
}

// A sweepCell is what a point's column is drawn from.
type sweepCell struct {
	res    *replay.SweepResult
	p      *replay.Point
	pareto bool
	trs    int // the transcripts swept
}

var sweepColumns = append(append([]sweepColumn{
	{name: "calls", csv: func(c *sweepCell) string { return fmt.Sprint(c.p.Calls) }},
	{name: "peak_messages", head: "peak msgs", csv: func(c *sweepCell) string { return fmt.Sprint(c.p.PeakMessages) },
		text: func(c *sweepCell) string { return Int(c.p.PeakMessages) }},
	{name: "peak_tokens", head: "peak tokens", csv: func(c *sweepCell) string { return fmt.Sprint(c.p.PeakTokens) },
		text: func(c *sweepCell) string { return Int(c.p.PeakTokens) }},
	{name: "input_tokens", head: "input tokens", csv: func(c *sweepCell) string { return fmt.Sprint(c.p.InputTokens) },
		text: func(c *sweepCell) string { return Int(c.p.InputTokens) }},
	{name: "share_of_none", head: "of none", csv: func(c *sweepCell) string { return fmt.Sprintf("%.4f", c.p.ShareOfNone) },
		text: func(c *sweepCell) string { return fmt.Sprintf("%.1f%%", c.p.ShareOfNone*100) }},
	{name: "cost_usd", head: "cost", costed: true, csv: pointCostCSV, text: pointCostText},
	{name: "priced_transcripts", csv: func(c *sweepCell) string { return fmt.Sprint(c.p.Priced) }},
	{name: "evictions", head: "evicted", csv: func(c *sweepCell) string { return fmt.Sprint(c.p.Evictions) },
		text: func(c *sweepCell) string { return Int(c.p.Evictions) }},
	{name: "truncations", head: "truncated", csv: func(c *sweepCell) string { return fmt.Sprint(c.p.Truncations) },
		text: func(c *sweepCell) string { return Int(c.p.Truncations) }},
	{name: "summaries", head: "summaries", csv: func(c *sweepCell) string { return fmt.Sprint(c.p.Summaries) },
		text: func(c *sweepCell) string { return Int(c.p.Summaries) }},
	{name: "probes_lost", csv: func(c *sweepCell) string { n, _ := c.p.ProbeLoss.Totals(); return fmt.Sprint(n) }},
	{name: "probes", head: "probes", csv: func(c *sweepCell) string { _, n := c.p.ProbeLoss.Totals(); return fmt.Sprint(n) },
		text: func(c *sweepCell) string { return ProbeText(c.p.ProbeLoss) }},
	{name: "probe_score", csv: func(c *sweepCell) string { return fmt.Sprintf("%.4f", c.p.ProbeScore) }},
	{name: "mean_retention", head: "retention", csv: func(c *sweepCell) string { return fmt.Sprintf("%.4f", c.p.MeanRetention) },
		text: func(c *sweepCell) string { return fmt.Sprintf("%.1f%%", c.p.MeanRetention*100) }},
	{name: "violations", head: "violations", left: true, csv: func(c *sweepCell) string { return fmt.Sprint(violationTotal(c.p.Violations)) },
		text: func(c *sweepCell) string { return violationText(c.p.Violations) }},
}, metricSweepColumns()...),
	sweepColumn{name: "pareto", left: true, csv: func(c *sweepCell) string { return fmt.Sprint(c.pareto) },
		text: func(c *sweepCell) string { return map[bool]string{true: "★"}[c.pareto] }},
)

// metricSweepColumns are the columns of the shown metrics in a sweep's
// tables: its name in the CSV, its heading in the text.
func metricSweepColumns() []sweepColumn {
	var cols []sweepColumn
	for _, m := range metric.Shown() {
		cols = append(cols, sweepColumn{name: m.Name, head: m.Heading,
			csv:  func(c *sweepCell) string { return metricCSV(m, c.p.Metrics[m.Name], 4) },
			text: func(c *sweepCell) string { return metricText(m, c.p.Metrics[m.Name]) }})
	}
	return cols
}

// SweepCSV is a sweep's table with plain numbers: a header, then a row
// per point and then per baseline, as the text table has them: the
// grid's parameters first (empty for a baseline), then the baseline's
// name (empty for a point).
func SweepCSV(res *replay.SweepResult) [][]string {
	var head []string
	for _, g := range res.Grid {
		head = append(head, g.Key)
	}
	head = append(head, "baseline")
	for _, col := range sweepColumns {
		head = append(head, col.name)
	}
	out := [][]string{head}
	best := recommend.Answer(res, 0).Pareto
	rows := append(slices.Clone(res.Points), res.Baselines...)
	for i := range rows {
		c := &sweepCell{res: res, p: &rows[i], pareto: best[i]}
		var row []string
		for _, g := range res.Grid {
			row = append(row, c.p.Params[g.Key])
		}
		row = append(row, c.p.Label)
		for _, col := range sweepColumns {
			row = append(row, col.csv(c))
		}
		out = append(out, row)
	}
	return out
}

// WriteSweepText writes a sweep's table for people: a line naming it, a
// row per point then per baseline, the Pareto-best starred (a ★ column
// only when some row is), then the answer ([SweepAnswerText]), the
// cautions the policy gave and the combinations it skipped.
func WriteSweepText(w io.Writer, res *replay.SweepResult, a *recommend.SweepAnswer, pe *projection.ProjectionError, transcripts int) error {
	fmt.Fprintf(w, "sweep of %s: %s over %s (tokens: %s)\n", res.Policy, Count(len(res.Points), "point", "points"), Count(transcripts, "transcript", "transcripts"), res.Estimator)
	t := Table{}
	for _, g := range res.Grid {
		t.Header = append(t.Header, g.Key)
		t.Right = append(t.Right, true)
	}
	starred := slices.Contains(a.Pareto, true)
	var cols []sweepColumn
	for _, col := range sweepColumns {
		if col.text != nil && (!col.costed || res.Costed) && (col.name != "pareto" || starred) {
			cols = append(cols, col)
		}
	}
	for _, col := range cols {
		t.Header = append(t.Header, col.head)
		t.Right = append(t.Right, !col.left)
	}
	rows := append(slices.Clone(res.Points), res.Baselines...)
	for i := range rows {
		c := &sweepCell{res: res, p: &rows[i], pareto: a.Pareto[i], trs: transcripts}
		var row []string
		for k, g := range res.Grid {
			if c.p.Label != "" {
				// A baseline: its name under the grid's keys.
				row = append(row, map[bool]string{true: c.p.Label}[k == 0])
				continue
			}
			row = append(row, c.p.Params[g.Key])
		}
		for _, col := range cols {
			row = append(row, col.text(c))
		}
		t.Rows = append(t.Rows, row)
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	if starred {
		if a.ByCost {
			fmt.Fprintln(w, "★ Pareto-best: no other row that breaks no invariant costs less and keeps more probes, and no baseline (none, recorded, the agent's own policy) matches it")
		} else {
			fmt.Fprintln(w, "★ Pareto-best: no other row that breaks no invariant sends fewer tokens and keeps more probes, and no baseline (none, recorded, the agent's own policy) matches it")
		}
		fmt.Fprintln(w, ProbeNote)
	}
	writeSweepCautions(w, res)
	for _, inv := range res.Invalid {
		fmt.Fprintf(w, "skipped an invalid combination: %s\n", inv)
	}
	for _, l := range SweepAnswerText(a, pe) {
		fmt.Fprintln(w, l)
	}
	return nil
}

// SweepAnswerText is a sweep's answer, a sentence a line: the
// recommendation ([RecommendationLines]; pe the projection error
// measured on the transcripts swept, nil when not priced), why no point
// is starred, and the grid keys that changed nothing.
func SweepAnswerText(a *recommend.SweepAnswer, pe *projection.ProjectionError) []string {
	out := RecommendationLines(&a.Recommendation, a.Candidates, "point", pe)
	if a.NoStar != "" {
		s := "No point of the grid is ★: " + a.NoStar
		if a.Hint != "" {
			s += ": try " + a.Hint
		}
		out = append(out, s+".")
	}
	for _, u := range a.Unchanged {
		out = append(out, u+".")
	}
	return out
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

// pointCostText says what a point costs over the transcripts priced: not
// priced, or the sum and, when some are not priced, how many are.
func pointCostText(c *sweepCell) string {
	switch p := c.p; {
	case p.Priced == 0:
		return "not priced"
	case p.Priced < c.trs:
		return fmt.Sprintf("%s (%d of %d priced)", USD(p.CostUSD), p.Priced, c.trs)
	}
	return USD(c.p.CostUSD)
}

// pointCostCSV is a point's cost in dollars, empty when the sweep priced
// nothing.
func pointCostCSV(c *sweepCell) string {
	if !c.res.Costed || c.p.Priced == 0 {
		return ""
	}
	return strconv.FormatFloat(c.p.CostUSD, 'f', -1, 64)
}
