package reports

import (
	"fmt"
	"html"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The page's style: tables wrap or scroll inside their own box, with a
// sticky header, so the page fits 1280 px; figures are at most 560 px.
const css = `body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;color:#222;line-height:1.4}
h2{margin-top:1.6em;border-bottom:1px solid #ddd}.lede{font-size:16px}.rec{background:#f4f8ee;border-left:4px solid #6a9a3a;padding:.6em 1em}
.box{overflow:auto;max-width:100%;max-height:75vh;margin:1em 0}table{border-collapse:collapse;font-size:14px}
th,td{border:1px solid #ccc;padding:4px 8px;vertical-align:top}th{background:#f2f2f2;position:sticky;top:0;z-index:1}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}td.w{white-space:normal;max-width:16em;overflow-wrap:anywhere}
td.p{max-width:18em;overflow-wrap:anywhere}
tr.pareto td:first-child{font-weight:600}.star{color:#b8860b}.bad{color:#b00020}.good{color:#1b6e20}
details{margin:.6em 0;border:1px solid #ddd;border-radius:4px;padding:.3em .8em}summary{cursor:pointer;font-weight:600}
figure{display:inline-block;margin:1em;max-width:560px;vertical-align:top}figure img{width:100%}figcaption{font-size:13px;color:#555}
.notes li{margin:.3em 0;color:#444}code{overflow-wrap:anywhere}`

// writeHTML writes the report's page: what was replayed, then one row per
// policy over every session with the Pareto-best marked and a
// recommendation, then each session in a section of its own, then the
// plots across sessions and the files beside the page, each a link.
func writeHTML(w io.Writer, r *Report, figs []figure, show []bool) error {
	e := html.EscapeString
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>ctxbench report</title><style>%s</style></head><body>\n", css)
	o := r.Overview()
	fmt.Fprintf(w, "<h1>ctxbench report</h1>\n<p class=\"lede\">%s replayed under %s; tokens are %s counts.</p>\n",
		e(overviewText(o)), e(Count(len(r.Policies), "policy", "policies")), e(r.Estimator))

	totals := r.Totals()
	fmt.Fprint(w, "<h2 id=\"policies\">Policies over all sessions</h2>\n")
	fmt.Fprint(w, "<div class=\"box\"><table id=\"summary\"><thead><tr><th>policy</th><th>sessions</th><th>calls</th><th>tokens sent</th><th>of none</th><th>cost (cache simulated)</th><th>cache-break cost</th><th>probes</th><th>mean retention</th><th>violations</th><th>verdict</th></tr></thead><tbody>\n")
	for _, p := range totals {
		class, name := "", e(p.Label)
		if p.Pareto {
			class, name = " class=\"pareto\"", name+" <span class=\"star\" title=\"Pareto-best: no policy costs less and loses fewer probes\">★</span>"
		}
		verdict := fmt.Sprintf("<span class=\"%s\">%s</span>", pick(p.Clean(), "good", "bad"), p.Verdict())
		fmt.Fprintf(w, "<tr%s data-policy=\"%s\"><td class=\"p\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\" data-v=\"%d\">%s</td><td class=\"n\">%s</td><td class=\"n w\" data-v=\"%s\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%.1f%%</td><td class=\"w\">%s</td><td>%s</td></tr>\n",
			class, e(p.Label), name, Int(p.Sessions), Int(p.Calls), p.Tokens, Int(p.Tokens), p.Share(), costValue(p), e(p.Cost()), p.Breaks(),
			e(ProbeText(p.Probes)), p.Retention*100, e(violationText(p.Violations)), verdict)
	}
	fmt.Fprint(w, "</tbody></table></div>\n")
	if len(totals) > 0 && len(totals[0].NotPriced) > 0 {
		fmt.Fprintf(w, "<p>Not priced (no cost is counted for them, never $0): %s.</p>\n", e(strings.Join(totals[0].NotPriced, "; ")))
	}
	for _, g := range costTables(r) {
		fmt.Fprintf(w, "<h3 id=\"%s\">%s</h3>\n<div class=\"box\"><table id=\"%s\"><thead><tr>", g.id, g.title, g.id)
		for _, h := range g.header {
			fmt.Fprintf(w, "<th>%s</th>", e(h))
		}
		fmt.Fprint(w, "</tr></thead><tbody>\n")
		for _, row := range g.rows {
			fmt.Fprintf(w, "<tr><td class=\"p\">%s</td>", e(row[0]))
			for k, c := range row[1:] {
				fmt.Fprintf(w, "<td%s>%s</td>", pick(g.lastText && k == len(row)-2, "", ` class="n"`), e(c))
			}
			fmt.Fprint(w, "</tr>\n")
		}
		fmt.Fprint(w, "</tbody></table></div>\n")
	}
	if rec := Recommendation(totals); rec != "" {
		fmt.Fprintf(w, "<p class=\"rec\" id=\"recommendation\">%s</p>\n", e(rec))
	}
	fmt.Fprintf(w, "<p>★ Pareto-best: no other policy is both cheaper (or, when some session is not priced, sends fewer tokens) and has a higher probe score. In the tables, %s; a verdict fails on any broken invariant.</p>\n", e(ProbeNote))
	if len(r.Notes) > 0 {
		fmt.Fprint(w, "<ul class=\"notes\">")
		for _, n := range r.Notes {
			fmt.Fprintf(w, "<li>%s</li>", e(n))
		}
		fmt.Fprint(w, "</ul>\n")
	}

	fmt.Fprint(w, "<h2 id=\"sessions\">Sessions</h2>\n")
	if n := countTrue(show); n < len(show) {
		fmt.Fprintf(w, "<p>%s, in the order read. Every session is in <a href=\"summary.csv\">summary.csv</a>, <a href=\"steps.csv\">steps.csv</a> and <a href=\"results.json\">results.json</a>.</p>\n",
			e(detailText(n, len(show), r.Detail.By)))
	}
	labels := uniqueLabels(r.Transcripts)
	first := true
	err := r.each(show, func(i int, t *TranscriptResult) error {
		fmt.Fprintf(w, "<details id=\"session-%d\"%s><summary>%s — %s, %s</summary>\n<p><code>%s</code> (%s)</p>\n",
			i+1, openIf(first), e(labels[i]), e(plural(t.Calls, "call")), e(sessionModel(t)), e(t.File), e(string(t.Format)))
		first = false
		writeSessionTable(w, r, t)
		if len(t.Notes) > 0 {
			fmt.Fprint(w, "<ul class=\"notes\">")
			for _, n := range t.Notes {
				fmt.Fprintf(w, "<li>%s</li>", e(n))
			}
			fmt.Fprint(w, "</ul>\n")
		}
		if t.Calls < 2 {
			fmt.Fprint(w, "<p>No plots: a session of fewer than 2 calls draws no line.</p>\n")
		}
		for _, f := range figs {
			if f.session == i {
				writeFigure(w, f)
			}
		}
		fmt.Fprint(w, "</details>\n")
		return nil
	})
	if err != nil {
		return err
	}

	if slices.ContainsFunc(figs, func(f figure) bool { return f.session < 0 }) {
		fmt.Fprint(w, "<h2 id=\"across\">Across sessions</h2>\n")
		for _, f := range figs {
			if f.session < 0 {
				writeFigure(w, f)
			}
		}
	}
	fmt.Fprint(w, "<h2 id=\"files\">Files beside this page</h2>\n<ul>")
	for _, f := range [][2]string{{"results.json", "every number of this page, and the per-call series"}, {"summary.csv", "one row per session and policy"},
		{"steps.csv", "one row per call"}, {"report.md", "this report as Markdown"}} {
		fmt.Fprintf(w, "<li><a href=\"%s\">%s</a>: %s</li>", f[0], f[0], e(f[1]))
	}
	if r.Sweep != nil {
		fmt.Fprint(w, "<li><a href=\"sweep.csv\">sweep.csv</a>: the sweep's points</li>")
	}
	fmt.Fprint(w, "</ul>\n")
	// The browser test reads what this script finds: every image loaded
	// with a size, and the elements wider than the window.
	fmt.Fprint(w, `<script>window.addEventListener('load',function(){
var ok=Array.prototype.every.call(document.images,function(i){return i.complete&&i.naturalWidth>0});
document.body.setAttribute('data-images',ok?'loaded':'broken');
var wide=[],vw=document.documentElement.clientWidth;
document.querySelectorAll('body *').forEach(function(el){var r=el.getBoundingClientRect();if(r.width>0&&r.right>vw+1&&!el.closest('.box')){wide.push(el.tagName+(el.id?'#'+el.id:''))}});
document.body.setAttribute('data-wide',wide.length?wide.slice(0,10).join(' '):'none');
document.body.setAttribute('data-page-width',String(document.documentElement.scrollWidth));})</script>
`)
	_, err = fmt.Fprint(w, "</body></html>\n")
	return err
}

// writeSessionTable writes one session's row per policy.
func writeSessionTable(w io.Writer, r *Report, t *TranscriptResult) {
	e := html.EscapeString
	fmt.Fprint(w, "<div class=\"box\"><table class=\"session\"><thead><tr><th>policy</th><th>peak messages</th><th>peak tokens</th><th>tokens sent</th><th>of none</th><th>evicted</th><th>truncated</th><th>summaries</th><th>probes</th><th>mean retention</th><th>violations</th><th>cost</th><th>cache breaks</th><th>cache misses (the provider's)</th></tr></thead><tbody>\n")
	// Every policy inherits the provider's misses the bill shows.
	misses := "-"
	if m := t.CacheMisses; m != nil {
		misses = fmt.Sprintf("%s, %s", Int(m.Calls), USD(m.CostUSD))
	}
	for _, p := range t.Runs {
		s := p.Summary
		cost, costClass, breaks := "not priced ("+t.notPricedReason()+")", "n w", "-"
		if p.CostUSD != nil {
			cost, costClass = USD(*p.CostUSD), "n"
		}
		if b := p.CacheBreaks; b != nil {
			breaks = fmt.Sprintf("%s, %s re-billed", Int(b.Breaks), USD(b.Cost.USD()))
		}
		fmt.Fprintf(w, "<tr><td class=\"p\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%.1f%%</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%.1f%%</td><td class=\"w\">%s</td><td class=\"%s\">%s</td><td class=\"n w\">%s</td><td class=\"n w\">%s</td></tr>\n",
			e(p.Label), Int(s.PeakMessages), Int(s.PeakTokens[r.Estimator]), Int(s.InputTokens[r.Estimator]), p.ShareOfNone*100,
			Int(s.Evictions), Int(s.Truncations), Int(s.Summaries), e(ProbeText(s.ProbeLoss)), s.MeanRetention*100, e(violationText(s.Violations)), costClass, e(cost), e(breaks), e(misses))
	}
	fmt.Fprint(w, "</tbody></table></div>\n")
	if t.BilledUSD != nil {
		fmt.Fprintf(w, "<p>Billed (the recorded usage, priced): %s.</p>\n", e(USD(*t.BilledUSD)))
	}
}

// writeFigure writes a plot as its PNG, linked to its SVG.
func writeFigure(w io.Writer, f figure) {
	e := html.EscapeString
	svg := strings.TrimSuffix(f.file, ".png") + ".svg"
	fmt.Fprintf(w, "<figure><a href=\"%s\"><img src=\"%s\" alt=\"%s\"></a><figcaption>%s (<a href=\"%s\">SVG</a>)</figcaption></figure>\n",
		e(svg), e(f.file), e(f.caption), e(f.caption), e(svg))
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

// violationText lists violations by invariant: "none", or "cap 3, tool_pairing 12".
func violationText(v map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(v)) {
		if v[k] > 0 {
			parts = append(parts, k+" "+Int(v[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// costValue is a total's cost for the browser test: the dollars of its
// priced sessions, "" when none is.
func costValue(p PolicyTotal) string {
	if p.Priced == 0 {
		return ""
	}
	return strconv.FormatFloat(p.CostUSD, 'f', -1, 64)
}

func openIf(b bool) string {
	if b {
		return " open"
	}
	return ""
}

// Count is n and its noun: "1 call", "2,000 calls".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Int(n) + " " + many
}
