package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
)

// The page's style: it fits 1280 px with a scroll bar. A table scrolls
// inside its own box, under a sticky header; a word breaks only at a
// hyphen, after a policy's separators (policyHTML) or a "/" (cellHTML),
// a probes cell (class t) only before its parenthesis; a session's
// table is set small enough for its columns to fit. Figures are at
// most 560 px; a subagent's section sits inside its session's.
const css = `body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:1232px;padding:0 1em;color:#222;line-height:1.4}
h2{margin-top:1.6em;border-bottom:1px solid #ddd}.lede{font-size:16px}.rec{background:#f4f8ee;border-left:4px solid #6a9a3a;padding:.6em 1em;font-size:16px}
.box{overflow:auto;max-width:100%;max-height:75vh;margin:1em 0}table{border-collapse:collapse;font-size:14px}
th,td{border:1px solid #ccc;padding:4px 8px;vertical-align:top}th{background:#f2f2f2;position:sticky;top:0;z-index:1}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}td.t{white-space:normal}td.w{white-space:normal;max-width:16em;overflow-wrap:anywhere}
td.p{min-width:8em;max-width:18em}.key{display:inline-block;width:1.4em;margin-right:.4em;vertical-align:middle}
table.session{font-size:13px}table.session th{font-size:12px}table.session th,table.session td{padding:3px 4px}table.session td.w{min-width:6em}table.session td.p{min-width:7em}
tr.pareto td:first-child{font-weight:600}.star{color:#b8860b}.bad{color:#b00020}.good{color:#1b6e20}
details{margin:.6em 0;border:1px solid #ddd;border-radius:4px;padding:.3em .6em}summary{cursor:pointer;font-weight:600}
figure{display:inline-block;margin:1em;max-width:560px;vertical-align:top}figure img{width:100%}figcaption{font-size:13px;color:#555}
.notes li{margin:.3em 0;color:#444}code{overflow-wrap:anywhere}`

//go:embed page.html.tmpl
var pageTemplate string

// page is the report's page: html/template escapes every value by its
// context.
var page = template.Must(template.New("page").Funcs(template.FuncMap{"policy": policyHTML, "cell": cellHTML}).Parse(pageTemplate))

// policyHTML is a policy's label, escaped, that may break after its
// separators (":", ",", "_") and nowhere else.
func policyHTML(label string) template.HTML {
	return template.HTML(wordBreaks.Replace(template.HTMLEscapeString(label)))
}

var wordBreaks = strings.NewReplacer(":", ":<wbr>", ",", ",<wbr>", "_", "_<wbr>")

// cellHTML is a cell's text, escaped, that may break after a "/" too.
func cellHTML(text string) template.HTML {
	return template.HTML(strings.ReplaceAll(template.HTMLEscapeString(text), "/", "/<wbr>"))
}

// keyStyle is the style of policy k's key on the page: its plots' line,
// the same colour and dashes in every plot ([style]).
func keyStyle(k int) template.CSS {
	ls := style(k)
	r, g, b, _ := ls.Color.RGBA()
	dash := "solid"
	switch {
	case len(ls.Dashes) > 0 && ls.Dashes[0] > ls.Dashes[1]:
		dash = "dashed"
	case len(ls.Dashes) > 0:
		dash = "dotted"
	}
	return template.CSS(fmt.Sprintf("border-top:3px %s #%02x%02x%02x", dash, r>>8, g>>8, b>>8))
}

// writeHTML writes the report's page: what was replayed and the
// recommendation, then one row per policy over every session with the
// Pareto-best marked, then each session in a section of its own (its
// subagents inside it; the costliest open, and its session if it is a
// subagent), then the plots across
// sessions and the files beside the page, each a link.
func writeHTML(w io.Writer, r *Report, figs []figure, show []bool) error {
	if err := page.ExecuteTemplate(w, "head", headOf(r, show)); err != nil {
		return err
	}
	labels := uniqueLabels(r.Transcripts)
	open := r.costliest(show)
	under, inner := subagents(r.Transcripts, show)
	var write func(i int, inside bool) error
	write = func(i int, inside bool) error {
		t, err := r.transcript(i)
		if err != nil {
			return err
		}
		s := sessionOf(r, &t, i, labels[i], figs)
		s.Open = i == open || slices.Contains(under[i], open)
		if inside {
			s.Label = subagentName(&t)
		} else if t.Parent != "" {
			s.Parent = t.Parent
		}
		if err := page.ExecuteTemplate(w, "session", s); err != nil {
			return err
		}
		for _, j := range under[i] {
			if err := write(j, true); err != nil {
				return err
			}
		}
		_, err = io.WriteString(w, "</details>\n")
		return err
	}
	for i := range r.Transcripts {
		if show[i] && !inner[i] {
			if err := write(i, false); err != nil {
				return err
			}
		}
	}
	tail := pageTail{Sweep: r.Sweep != nil}
	for _, f := range figs {
		if f.session < 0 {
			tail.Across = append(tail.Across, figureOf(f))
		}
	}
	return page.ExecuteTemplate(w, "tail", tail)
}

// subagents are the shown sessions' shown subagents, by the index of
// their session, in the report's order, and which sessions they are
// (inner). A subagent nests one level: under a session of no parent.
func subagents(ts []TranscriptResult, show []bool) (under map[int][]int, inner []bool) {
	byID := map[string]int{}
	for i := range ts {
		if _, ok := byID[ts[i].ID]; !ok && show[i] && ts[i].Parent == "" {
			byID[ts[i].ID] = i
		}
	}
	under, inner = map[int][]int{}, make([]bool, len(ts))
	for i := range ts {
		if p, ok := byID[ts[i].Parent]; ok && show[i] && ts[i].Parent != "" {
			under[p] = append(under[p], i)
			inner[i] = true
		}
	}
	return under, inner
}

// subagentName names a subagent's transcript under its session:
// "subagent " and its ID less its session's.
func subagentName(t *TranscriptResult) string {
	return "subagent " + strings.TrimPrefix(t.ID, t.Parent+"/")
}

// pageHead is the page up to its sessions.
type pageHead struct {
	CSS                           template.CSS
	Overview, Policies, Estimator string
	TotalHead                     []string
	Totals                        []totalRow
	NotPriced                     string
	CostTables                    []costTableRows
	Recommendation, ProbeNote     string
	ParetoNote                    string
	Notes                         []string
	// Detail says which sessions are shown one by one ("": all).
	Detail string
}

// A totalRow is a policy's row over all sessions; Key is the style of
// its lines in every plot.
type totalRow struct {
	Label         string
	Key           template.CSS
	Pareto, Clean bool
	Cells         []totalCell
	Verdict       string
}

// costTableRows is a cost table as the page writes it.
type costTableRows struct {
	ID, Title string
	Header    []string
	Rows      []costRow
}

type costRow struct {
	First string
	Cells []costCell
}

type costCell struct {
	Text   string
	Number bool
}

func headOf(r *Report, show []bool) pageHead {
	h := pageHead{CSS: template.CSS(css), Overview: overviewText(r.Overview()), Policies: Count(len(r.Policies), "policy", "policies"),
		Estimator: r.Estimator, ProbeNote: ProbeNote, ParetoNote: paretoNote, Notes: r.Notes}
	totals := r.Totals()
	h.TotalHead = totalPageHeader()
	for _, p := range totals {
		h.Totals = append(h.Totals, totalRow{Label: p.Label, Key: keyStyle(slices.Index(r.Policies, p.Label)), Pareto: p.Pareto, Clean: p.Clean(), Cells: totalPageCells(&p), Verdict: p.Verdict()})
	}
	if len(totals) > 0 && len(totals[0].NotPriced) > 0 {
		h.NotPriced = strings.Join(totals[0].NotPriced, "; ")
	}
	for _, g := range costTables(r) {
		t := costTableRows{ID: g.id, Title: g.title, Header: g.header}
		for _, row := range g.rows {
			cr := costRow{First: row[0]}
			for k, c := range row[1:] {
				cr.Cells = append(cr.Cells, costCell{Text: c, Number: !(g.lastText && k == len(row)-2)})
			}
			t.Rows = append(t.Rows, cr)
		}
		h.CostTables = append(h.CostTables, t)
	}
	h.Recommendation = recommendation(totals, r.MinProbeScore, new(r.ProjectionError()))
	if n := countTrue(show); n < len(show) {
		h.Detail = detailText(n, len(show), r.Detail.By)
	}
	return h
}

// pageSession is a session's section.
type pageSession struct {
	N                                 int
	Open                              bool
	Label, Calls, Model, File, Format string
	Head                              []template.HTML
	Runs                              [][]pageCell
	Billed                            string
	Notes                             []string
	FewCalls                          bool
	// NoCache: the session's runs read and wrote no prompt cache, so
	// it has no cache plot.
	NoCache bool
	// Parent is the session of a subagent shown apart from it.
	Parent  string
	Figures []pageFigure
}

func sessionOf(r *Report, t *TranscriptResult, i int, label string, figs []figure) pageSession {
	s := pageSession{N: i + 1, Label: label, Calls: plural(t.Calls, "call"), Model: sessionModel(t), File: t.File, Format: string(t.Format),
		Notes: t.Notes, FewCalls: t.Calls < 2, NoCache: t.Calls >= 2 && cacheUnused(t)}
	s.Head = pageHeader()
	for k := range t.Runs {
		s.Runs = append(s.Runs, pageRow(t, &t.Runs[k], r.Estimator))
	}
	if t.BilledUSD != nil {
		s.Billed = USD(*t.BilledUSD)
	}
	for _, f := range figs {
		if f.session == i {
			s.Figures = append(s.Figures, figureOf(f))
		}
	}
	return s
}

// pageTail is the page after its sessions.
type pageTail struct {
	Across []pageFigure
	Sweep  bool
}

// A pageFigure is a plot as its PNG, linked to its SVG.
type pageFigure struct{ PNG, SVG, Caption string }

func figureOf(f figure) pageFigure {
	return pageFigure{PNG: f.file, SVG: strings.TrimSuffix(f.file, ".png") + ".svg", Caption: f.caption}
}

// overviewText says what was replayed: sessions, calls, models, period.
func overviewText(o Overview) string {
	s := plural(o.Sessions, "session") + " (" + plural(o.Calls, "call") + ")"
	if len(o.Models) > 0 {
		s += " of " + strings.Join(o.Models, ", ")
	}
	if !o.Start.IsZero() {
		from, to := o.Start.UTC().Format("2006-01-02"), o.End.UTC().Format("2006-01-02")
		if from == to {
			s += ", on " + from
		} else {
			s += ", from " + from + " to " + to
		}
	}
	return s
}

// sessionModel names the model that priced a session, or why none did.
func sessionModel(t *TranscriptResult) string {
	if t.Model != "" {
		return t.Model
	}
	return "not priced (" + t.notPricedReason() + ")"
}

// costValue is a total's cost for the browser test: the dollars of its
// priced sessions, "" when none is.
func costValue(p PolicyTotal) string {
	if p.Priced == 0 {
		return ""
	}
	return strconv.FormatFloat(p.CostUSD, 'f', -1, 64)
}

// Count is n and its noun: "1 call", "2,000 calls".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Int(n) + " " + many
}
