package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"

	"github.com/ctxbench/ctxbench/internal/metric"
)

// A runColumn is a run's metric as every per-run table shows it: the
// report's summary.csv and its Markdown session tables (name, csv), the
// page's session tables (page, pageCell) and `ctxbench replay`'s table
// (text, textCell). A heading "" leaves the column out of that table. A
// metric shown beside each run is one entry here for every table.
type runColumn struct {
	name, page, text string
	// left: `ctxbench replay` aligns it left (text, not a number).
	left bool
	// csv is the summary.csv value, and the Markdown's when c.human;
	// textCell is replay's value, and pageCell the page's with its
	// class (nil: textCell's, class "n").
	csv      func(c *runCell) string
	textCell func(c *runCell) string
	pageCell func(c *runCell) (class, text string)
}

// A runCell is what a run's columns are drawn from.
type runCell struct {
	p   *PolicyResult
	t   *TranscriptResult // nil in `ctxbench replay`'s table
	est string            // the estimator the tokens are counted with
	// human: the Markdown's numbers, grouped, and its dashes for what is
	// not priced.
	human bool
}

// num is an integer as the CSV (plain) or the Markdown (grouped) shows it.
func (c *runCell) num(n int64) string {
	if c.human {
		return Int(n)
	}
	return strconv.FormatInt(n, 10)
}

func (c *runCell) cost() string {
	switch {
	case c.p.CostUSD != nil:
		return fmt.Sprintf("%.4f", *c.p.CostUSD)
	case c.human:
		return "not priced"
	}
	return ""
}

// breaks is a column of the run's cache breaks: empty when they were not
// weighed, a dash in the Markdown when the run is not priced.
func (c *runCell) breaks(f func(c *runCell) string) string {
	switch {
	case c.p.CacheBreaks != nil:
		return f(c)
	case c.human && c.p.CostUSD == nil:
		return "-"
	}
	return ""
}

func percent(v float64) string { return fmt.Sprintf("%.1f%%", v*100) }

var runColumns = append([]runColumn{
	{name: "transcript", csv: func(c *runCell) string { return shortLabel(c.t.File) }},
	{name: "policy", page: "policy", text: "policy", left: true,
		csv:      func(c *runCell) string { return c.p.Label },
		textCell: func(c *runCell) string { return c.p.Label },
		pageCell: func(c *runCell) (string, string) { return "p", c.p.Label }},
	{name: "calls", csv: func(c *runCell) string { return c.num(int64(c.p.Summary.Calls)) }},
	{name: "peak messages", page: "peak messages", text: "peak msgs",
		csv:      func(c *runCell) string { return c.num(int64(c.p.Summary.PeakMessages)) },
		textCell: func(c *runCell) string { return Int(c.p.Summary.PeakMessages) }},
	{name: "peak tokens", page: "peak tokens", text: "peak tokens",
		csv:      func(c *runCell) string { return c.num(int64(c.p.Summary.PeakTokens[c.est])) },
		textCell: func(c *runCell) string { return Int(c.p.Summary.PeakTokens[c.est]) }},
	{name: "input tokens", page: "tokens sent", text: "input tokens sent",
		csv:      func(c *runCell) string { return c.num(c.p.Summary.InputTokens[c.est]) },
		textCell: func(c *runCell) string { return Int(c.p.Summary.InputTokens[c.est]) }},
	{name: "share of none", page: "of none", text: "of none",
		csv:      func(c *runCell) string { return fmt.Sprintf("%.3f", c.p.ShareOfNone) },
		textCell: func(c *runCell) string { return percent(c.p.ShareOfNone) }},
	{name: "evicted", page: "evicted", text: "evicted",
		csv:      func(c *runCell) string { return c.num(int64(c.p.Summary.Evictions)) },
		textCell: func(c *runCell) string { return Int(c.p.Summary.Evictions) }},
	{name: "truncated", page: "truncated", text: "truncated",
		csv:      func(c *runCell) string { return c.num(int64(c.p.Summary.Truncations)) },
		textCell: func(c *runCell) string { return Int(c.p.Summary.Truncations) }},
	{name: "summaries", page: "summaries", text: "summaries",
		csv:      func(c *runCell) string { return c.num(int64(c.p.Summary.Summaries)) },
		textCell: summariesText,
		pageCell: func(c *runCell) (string, string) { return "n", Int(c.p.Summary.Summaries) }},
	{page: "probes", text: "probes",
		textCell: func(c *runCell) string { return ProbeText(c.p.Summary.ProbeLoss) },
		pageCell: func(c *runCell) (string, string) { return "n t", unbrokenParens(ProbeText(c.p.Summary.ProbeLoss)) }},
	{name: "probe score", csv: func(c *runCell) string { return fmt.Sprintf("%.3f", c.p.Summary.ProbeScore) }},
	{name: "probes lost", csv: func(c *runCell) string { lost, _ := c.p.Summary.ProbeLoss.Totals(); return c.num(int64(lost)) }},
	{name: "mean retention", page: "mean retention", text: "retention",
		csv:      func(c *runCell) string { return fmt.Sprintf("%.3f", c.p.Summary.MeanRetention) },
		textCell: func(c *runCell) string { return percent(c.p.Summary.MeanRetention) }},
	{name: "violations", page: "violations", text: "violations", left: true,
		csv:      func(c *runCell) string { return c.num(int64(violationTotal(c.p.Summary.Violations))) },
		textCell: func(c *runCell) string { return violationText(c.p.Summary.Violations) },
		pageCell: func(c *runCell) (string, string) { return "w", violationText(c.p.Summary.Violations) }},
	{name: "cost (USD)", page: "cost", csv: (*runCell).cost, pageCell: runCostCell},
	{name: "cache breaks", page: "cache breaks",
		csv: func(c *runCell) string {
			return c.breaks(func(c *runCell) string { return c.num(int64(c.p.CacheBreaks.Breaks)) })
		},
		pageCell: breaksCell},
	{name: "re-billed (USD)", csv: func(c *runCell) string {
		return c.breaks(func(c *runCell) string { return fmt.Sprintf("%.4f", c.p.CacheBreaks.Cost.USD()) })
	}},
	{name: "net of breaks (USD)", csv: func(c *runCell) string {
		return c.breaks(func(c *runCell) string { return fmt.Sprintf("%+.4f", c.p.CacheBreaks.Net().USD()) })
	}},
	// The provider's misses, which every policy of the session inherits:
	// empty without a bill.
	{name: "cache misses (USD)", page: "cache misses (the provider's)", csv: missesCSV, pageCell: missesCell},
}, metricRunColumns()...)

// metricRunColumns are the columns of the shown metrics
// ([metric.Shown]), under their headings in every per-run table.
func metricRunColumns() []runColumn {
	var cols []runColumn
	for _, m := range metric.Shown() {
		cols = append(cols, runColumn{name: m.Heading, page: m.Heading, text: m.Heading,
			csv: func(c *runCell) string {
				v := c.p.Summary.Metrics()[m.Name]
				if c.human && m.Unit.Whole() {
					return metricText(m, v)
				}
				return metricCSV(m, v, 3)
			},
			textCell: func(c *runCell) string { return metricText(m, c.p.Summary.Metrics()[m.Name]) }})
	}
	return cols
}

// metricCSV is a metric's value in a CSV: a share to places decimals,
// dollars to four, a count whole.
func metricCSV(m metric.Metric, v float64, places int) string {
	switch m.Unit {
	case metric.Share:
		return strconv.FormatFloat(v, 'f', places, 64)
	case metric.USD:
		return fmt.Sprintf("%.4f", v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// metricText is a metric's value for people: a share in percent,
// dollars as USD writes them, a count grouped.
func metricText(m metric.Metric, v float64) string {
	switch m.Unit {
	case metric.Share:
		return percent(v)
	case metric.USD:
		return USD(v)
	}
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return Int(int64(v))
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// summariesText is the summaries made, and those that failed.
func summariesText(c *runCell) string {
	s := Int(c.p.Summary.Summaries)
	if n := c.p.Summary.SummaryFailures; n > 0 {
		s += fmt.Sprintf(" (+%d failed)", n)
	}
	return s
}

// unbrokenParens is s whose parenthesised parts do not break across
// lines: their spaces are no-break spaces.
func unbrokenParens(s string) string {
	b, depth := []rune(s), 0
	for i, r := range b {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case r == ' ' && depth > 0:
			b[i] = '\u00a0'
		}
	}
	return string(b)
}

func runCostCell(c *runCell) (string, string) {
	if c.p.CostUSD == nil {
		return "n w", "not priced (" + c.t.notPricedReason() + ")"
	}
	return "n", USD(*c.p.CostUSD)
}

func breaksCell(c *runCell) (string, string) {
	if b := c.p.CacheBreaks; b != nil {
		return "n w", fmt.Sprintf("%s, %s re\u2011billed", Int(b.Breaks), USD(b.Cost.USD())) // a no-break hyphen
	}
	return "n w", "-"
}

func missesCSV(c *runCell) string {
	switch m := c.t.CacheMisses; {
	case m != nil:
		return fmt.Sprintf("%.4f", m.CostUSD)
	case c.human:
		return "-"
	}
	return ""
}

func missesCell(c *runCell) (string, string) {
	if m := c.t.CacheMisses; m != nil {
		return "n w", fmt.Sprintf("%s, %s", Int(m.Calls), USD(m.CostUSD))
	}
	return "n w", "-"
}

// summaryHeader is summary.csv's header.
func summaryHeader() []string {
	var head []string
	for _, col := range runColumns {
		if col.csv != nil {
			head = append(head, col.name)
		}
	}
	return head
}

// summaryRow is a run's row of summary.csv, or of the Markdown's session
// table when human.
func summaryRow(t *TranscriptResult, p *PolicyResult, est string, human bool) []string {
	c := &runCell{p: p, t: t, est: est, human: human}
	var row []string
	for _, col := range runColumns {
		if col.csv != nil {
			row = append(row, col.csv(c))
		}
	}
	return row
}

// A pageCell is a cell of the page's session table.
type pageCell struct{ Class, Text string }

// pageHeader is the page's session table's header: the columns' own
// headings, written as they are.
func pageHeader() []template.HTML {
	var head []template.HTML
	for _, col := range runColumns {
		if col.page != "" {
			head = append(head, template.HTML(col.page))
		}
	}
	return head
}

// pageRow is a run's row of the page's session table.
func pageRow(t *TranscriptResult, p *PolicyResult, est string) []pageCell {
	c := &runCell{p: p, t: t, est: est}
	var row []pageCell
	for _, col := range runColumns {
		switch {
		case col.page == "":
		case col.pageCell != nil:
			class, text := col.pageCell(c)
			row = append(row, pageCell{class, text})
		default:
			row = append(row, pageCell{"n", col.textCell(c)})
		}
	}
	return row
}

// WriteRunTable writes `ctxbench replay`'s table of a transcript's runs:
// a row per run, its tokens counted with the estimator named est.
func WriteRunTable(w io.Writer, runs []PolicyResult, est string) error {
	t := Table{}
	for _, col := range runColumns {
		if col.text != "" {
			t.Header = append(t.Header, col.text)
			t.Right = append(t.Right, !col.left)
		}
	}
	for i := range runs {
		c := &runCell{p: &runs[i], est: est}
		var row []string
		for _, col := range runColumns {
			if col.text != "" {
				row = append(row, col.textCell(c))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t.WriteText(w)
}

// A totalColumn is a policy's total over the report's sessions as every
// table of totals shows it: the page's and the Markdown's (page, cell)
// and `ctxbench report`'s summary (text, textCell: nil for cell). A
// heading "" leaves the column out of that table; the policy's name
// starts every row and the page's and Markdown's verdict ends theirs.
type totalColumn struct {
	page, text string
	// left: the Markdown aligns it left (text, not a number); class is
	// the page's; data is the number the page's sorting reads (nil:
	// none).
	left     bool
	class    string
	cell     func(p *PolicyTotal) string
	textCell func(p *PolicyTotal) string
	data     func(p *PolicyTotal) string
}

var totalColumns = append([]totalColumn{
	{page: "sessions", text: "transcripts", class: "n", cell: func(p *PolicyTotal) string { return Int(p.Sessions) }},
	{page: "calls", class: "n", cell: func(p *PolicyTotal) string { return Int(p.Calls) }},
	{page: "tokens sent", text: "input tokens", class: "n", cell: func(p *PolicyTotal) string { return Int(p.Tokens) },
		data: func(p *PolicyTotal) string { return strconv.FormatInt(p.Tokens, 10) }},
	{page: "of none", text: "of none", class: "n", cell: (*PolicyTotal).Share},
	{text: "peak tokens", textCell: func(p *PolicyTotal) string { return Int(p.PeakTokens) }},
	{page: "cost (cache simulated)", text: "cost (priced sessions)", class: "n w", cell: (*PolicyTotal).Cost, data: func(p *PolicyTotal) string { return costValue(*p) }},
	{page: "cache-break cost", class: "n", cell: (*PolicyTotal).Breaks},
	{page: "probes", text: "probes", class: "n", cell: func(p *PolicyTotal) string { return ProbeText(p.Probes) }},
	{page: "mean retention", text: "mean retention", class: "n", cell: func(p *PolicyTotal) string { return percent(p.Retention) }},
	{page: "violations", text: "violations", left: true, class: "w", cell: func(p *PolicyTotal) string { return violationText(p.Violations) },
		textCell: func(p *PolicyTotal) string { return Int(violationTotal(p.Violations)) }},
}, metricTotalColumns()...)

// metricTotalColumns are the columns of the shown metrics, under their
// headings in every table of totals, each folded over the sessions as
// it says.
func metricTotalColumns() []totalColumn {
	var cols []totalColumn
	for _, m := range metric.Shown() {
		cols = append(cols, totalColumn{page: m.Heading, text: m.Heading, class: "n",
			cell: func(p *PolicyTotal) string { return metricText(m, p.Metrics[m.Name]) }})
	}
	return cols
}

// A totalCell is a cell of the page's table of totals: HasData says
// whether it carries Data, the number its column sorts by.
type totalCell struct {
	Class, Text, Data string
	HasData           bool
}

// totalPageHeader is the page's table of totals' metric headings.
func totalPageHeader() []string {
	var head []string
	for _, col := range totalColumns {
		if col.page != "" {
			head = append(head, col.page)
		}
	}
	return head
}

// totalPageCells are a policy's metric cells on the page.
func totalPageCells(p *PolicyTotal) []totalCell {
	var cells []totalCell
	for _, col := range totalColumns {
		if col.page == "" {
			continue
		}
		c := totalCell{Class: col.class, Text: col.cell(p)}
		if col.data != nil {
			c.Data, c.HasData = col.data(p), true
		}
		cells = append(cells, c)
	}
	return cells
}

// writeMarkdownTotals writes the Markdown's table of totals.
func writeMarkdownTotals(w io.Writer, totals []PolicyTotal) {
	head, align := "| policy |", "|---|"
	for _, col := range totalColumns {
		if col.page != "" {
			head += " " + col.page + " |"
			align += map[bool]string{false: "--:|", true: "---|"}[col.left]
		}
	}
	fmt.Fprintf(w, "%s verdict |\n%s---|\n", head, align)
	for i := range totals {
		p := &totals[i]
		name := p.Label + pick(p.Pareto, " ★", "")
		line := "| " + mdCell(name) + " |"
		for _, col := range totalColumns {
			if col.page != "" {
				line += " " + mdCell(col.cell(p)) + " |"
			}
		}
		fmt.Fprintf(w, "%s %s |\n", line, mdCell(p.Verdict()))
	}
}

// WriteSummary writes, per policy, its totals over the report's
// transcripts: input tokens and their share of sending everything, the
// cost of the sessions priced, the peak tokens, the probe score, the mean
// retention and the violations.
func (r *Report) WriteSummary(w io.Writer) error { return writeTotalsText(w, r.Totals()) }

func writeTotalsText(w io.Writer, totals []PolicyTotal) error {
	t := Table{Header: []string{"policy"}, Right: []bool{false}}
	for _, col := range totalColumns {
		if col.text != "" {
			t.Header = append(t.Header, col.text)
			t.Right = append(t.Right, true)
		}
	}
	for _, p := range totals {
		row := []string{p.Label}
		for _, col := range totalColumns {
			switch {
			case col.text == "":
			case col.textCell != nil:
				row = append(row, col.textCell(&p))
			default:
				row = append(row, col.cell(&p))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t.WriteText(w)
}
