package report

import (
	"html/template"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/internal/metric"
	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/internal/recommend"
	"github.com/ctxbench/ctxbench/replay"
)

// TestRunColumns holds every per-run table to the one list of columns:
// each shows a cell under each of its headings, and a change to one
// metric of a run changes that metric's cell, and only it, in every table
// that shows it.
func TestRunColumns(t *testing.T) {
	const est = "cl100k_base"
	usd := 1.25
	base := PolicyResult{Label: "aidf", ShareOfNone: 0.5, CostUSD: &usd, CacheBreaks: &cost.CacheBreaks{Breaks: 2},
		Summary: replay.Summary{Calls: 9, PeakMessages: 7, PeakTokens: map[string]int{est: 700}, InputTokens: map[string]int64{est: 3000},
			Evictions: 3, Truncations: 1, Summaries: 2, MeanRetention: 0.75, ProbeScore: 0.8,
			ProbeLoss: probe.Loss{}, Violations: map[string]int{"cap": 1}}}
	tr := &TranscriptResult{File: "a.jsonl", CacheMisses: &cost.CacheMisses{Calls: 1, CostUSD: 0.5}}

	views := func(p PolicyResult) map[string][]string {
		var text strings.Builder
		if err := WriteRunTable(&text, []PolicyResult{p}, est); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(text.String(), "\n")
		var textRow []string
		for _, c := range strings.Split(strings.Trim(lines[3], "|"), "|") {
			textRow = append(textRow, strings.TrimSpace(c))
		}
		var page []string
		for _, c := range pageRow(tr, &p, est) {
			page = append(page, c.Text)
		}
		return map[string][]string{"csv": summaryRow(tr, &p, est, false), "markdown": summaryRow(tr, &p, est, true), "page": page, "text": textRow}
	}
	heads := map[string][]string{"csv": summaryHeader(), "markdown": summaryHeader(), "page": nil, "text": nil}
	for _, h := range pageHeader() {
		heads["page"] = append(heads["page"], string(h))
	}
	for _, col := range runColumns {
		if col.text != "" {
			heads["text"] = append(heads["text"], col.text)
		}
	}
	got := views(base)
	for v, row := range got {
		if len(row) != len(heads[v]) {
			t.Errorf("%s: %d cells under %d headings: %q", v, len(row), len(heads[v]), row)
		}
	}

	changes := []struct {
		metric map[string]string // view → the heading whose cell changes ("": none)
		change func(p *PolicyResult)
	}{
		{map[string]string{"csv": "evicted", "page": "evicted", "text": "evicted"}, func(p *PolicyResult) { p.Summary.Evictions = 4 }},
		{map[string]string{"csv": "peak tokens", "page": "peak tokens", "text": "peak tokens"}, func(p *PolicyResult) { p.Summary.PeakTokens = map[string]int{est: 701} }},
		{map[string]string{"csv": "share of none", "page": "of none", "text": "of none"}, func(p *PolicyResult) { p.ShareOfNone = 0.25 }},
		{map[string]string{"csv": "mean retention", "page": "mean retention", "text": "retention"}, func(p *PolicyResult) { p.Summary.MeanRetention = 0.5 }},
		{map[string]string{"csv": "violations", "page": "violations", "text": "violations"}, func(p *PolicyResult) { p.Summary.Violations = map[string]int{"cap": 2} }},
		{map[string]string{"csv": "cache breaks", "page": "cache breaks"}, func(p *PolicyResult) { p.CacheBreaks = &cost.CacheBreaks{Breaks: 3} }},
	}
	for _, c := range changes {
		p := base
		p.Summary.PeakTokens = maps.Clone(base.Summary.PeakTokens)
		c.change(&p)
		after := views(p)
		for v, row := range after {
			head := c.metric[v]
			if v == "markdown" {
				head = c.metric["csv"]
			}
			for i := range row {
				if changed := row[i] != got[v][i]; changed != (heads[v][i] == head) {
					t.Errorf("%s, changing %s: %q became %q under %q", v, head, got[v][i], row[i], heads[v][i])
				}
			}
			if head != "" && !slices.Contains(heads[v], head) {
				t.Errorf("%s shows no %q", v, head)
			}
		}
	}
}

// TestTotalColumns holds the tables of totals — the page's, the
// Markdown's and the command's summary — to their one list: as many
// cells as headings, and a change to one total changes its cell in each.
func TestTotalColumns(t *testing.T) {
	base := PolicyTotal{Label: "aidf", Sessions: 2, Calls: 9, Tokens: 3000, ShareOfNone: 0.5, PeakTokens: 700, CostUSD: 1.5, Priced: 2,
		Retention: 0.75, Violations: map[string]int{"cap": 1}}
	cells := func(p PolicyTotal) (md, page, text []string) {
		var b strings.Builder
		writeMarkdownTotals(&b, []PolicyTotal{p})
		lines := strings.Split(b.String(), "\n")
		for i, l := range lines[:3] {
			n := strings.Count(l, "|") - 1
			if i == 0 && n != len(totalPageHeader())+2 {
				t.Errorf("Markdown header %q: %d cells for %d columns", l, n, len(totalPageHeader())+2)
			}
			if i > 0 && n != strings.Count(lines[0], "|")-1 {
				t.Errorf("Markdown line %q: %d cells", l, n)
			}
		}
		md = strings.Split(lines[2], " | ")
		for _, c := range totalPageCells(&p) {
			page = append(page, c.Text)
		}
		b.Reset()
		if err := writeTotalsText(&b, []PolicyTotal{p}); err != nil {
			t.Fatal(err)
		}
		lines = strings.Split(b.String(), "\n")
		if h, r := strings.Count(lines[1], "|"), strings.Count(lines[3], "|"); h != r {
			t.Errorf("summary: %d cells under %d headings", r-1, h-1)
		}
		text = strings.Split(lines[3], "|")
		return md, page, text
	}
	md0, page0, text0 := cells(base)
	if len(page0) != len(totalPageHeader()) {
		t.Errorf("page: %d cells under %d headings", len(page0), len(totalPageHeader()))
	}
	p := base
	p.Tokens = 4000
	md1, page1, text1 := cells(p)
	for _, d := range []struct {
		name     string
		old, new []string
	}{{"Markdown", md0, md1}, {"page", page0, page1}, {"summary", text0, text1}} {
		changed := 0
		for i := range d.old {
			if d.old[i] != d.new[i] {
				changed++
			}
		}
		if changed != 1 {
			t.Errorf("%s: a change of the tokens sent changed %d cells: %q to %q", d.name, changed, d.old, d.new)
		}
	}
}

// TestMetricColumns: each shown metric ([metric.Shown]) is a column of
// every per-run table, every sweep table and every table of totals, its
// value read from the run, the point or the totals.
func TestMetricColumns(t *testing.T) {
	const est = "cl100k_base"
	s := replay.Summary{Calls: 4, PeakTokens: map[string]int{est: 10}, InputTokens: map[string]int64{est: 30},
		MeanRetention: 0.5, MinRetention: 0.25, Violations: map[string]int{}}
	p := PolicyResult{Label: "aidf", Summary: s}
	tr := &TranscriptResult{File: "a.jsonl"}
	point := replay.Point{Params: map[string]string{"max_messages": "10"}, Metrics: s.Metrics()}
	sweep := &replay.SweepResult{Grid: []replay.GridKey{{Key: "max_messages", Values: []string{"10"}}}, Points: []replay.Point{point}}
	total := PolicyTotal{Label: "aidf", Sessions: 1, Metrics: s.Metrics(), Violations: map[string]int{}}
	var text, sweepText, totalsText strings.Builder
	if err := WriteRunTable(&text, []PolicyResult{p}, est); err != nil {
		t.Fatal(err)
	}
	if err := WriteSweepText(&sweepText, sweep, new(recommend.Answer(sweep, 0)), nil, 1); err != nil {
		t.Fatal(err)
	}
	if err := writeTotalsText(&totalsText, []PolicyTotal{total}); err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	writeMarkdownTotals(&md, []PolicyTotal{total})
	csv, rows := summaryHeader(), SweepCSV(sweep)
	for _, m := range metric.Shown() {
		v := s.Metrics()[m.Name]
		if i := slices.Index(csv, m.Heading); i < 0 || summaryRow(tr, &p, est, false)[i] != metricCSV(m, v, 3) {
			t.Errorf("%s: summary.csv %q, row %q", m.Name, csv, summaryRow(tr, &p, est, false))
		}
		if i := slices.Index(rows[0], m.Name); i < 0 || rows[1][i] != metricCSV(m, v, 4) {
			t.Errorf("%s: sweep CSV %q", m.Name, rows)
		}
		if !slices.Contains(pageHeader(), template.HTML(m.Heading)) || !slices.Contains(totalPageHeader(), m.Heading) {
			t.Errorf("%s: not on the page", m.Name)
		}
		for name, out := range map[string]string{"replay": text.String(), "sweep": sweepText.String(), "totals": totalsText.String(), "markdown totals": md.String()} {
			if !strings.Contains(out, m.Heading) || !strings.Contains(out, metricText(m, v)) {
				t.Errorf("%s: %s table without it:\n%s", m.Name, name, out)
			}
		}
	}
}

func TestMetricFormat(t *testing.T) {
	for _, c := range []struct {
		unit      metric.Unit
		v         float64
		csv, text string
	}{
		{metric.Share, 0.25, "0.250", "25.0%"},
		{metric.USD, 1234.5, "1234.5000", "$1,234.5000"},
		{metric.Count, 12345, "12345", "12,345"},
		{metric.Count, 2.5, "2.5", "2.5"},
	} {
		m := metric.Metric{Name: "m", Unit: c.unit}
		if got := metricCSV(m, c.v, 3); got != c.csv {
			t.Errorf("%s %v: CSV %q, want %q", c.unit, c.v, got, c.csv)
		}
		if got := metricText(m, c.v); got != c.text {
			t.Errorf("%s %v: text %q, want %q", c.unit, c.v, got, c.text)
		}
	}
}
