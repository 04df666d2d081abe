package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ctxbench/ctxbench/internal/suitecheck"
)

// CheckVerdict is `ctxbench check`'s last line: how many cases fail or
// pass, improved, and pass with the violations the baseline records.
func CheckVerdict(rep *suitecheck.Report) string {
	failed, improved := rep.Failed(), rep.Improved()
	s := fmt.Sprintf("ctxbench check: %d of %d transcript × policy cases fail", failed, len(rep.Cases))
	if failed == 0 {
		s = fmt.Sprintf("ctxbench check: %s", Count(len(rep.Cases), "transcript × policy case passes", "transcript × policy cases pass"))
	}
	if improved > 0 {
		s += fmt.Sprintf("; %d improved (run --update to record)", improved)
	}
	if known := rep.KnownViolations(); known > 0 {
		s += fmt.Sprintf("; %d with the violations the baseline records", known)
	}
	return s
}

// checkCells formats a row as the table's cells: case, metric, baseline,
// now, Δ%, verdict and note.
func checkCells(r suitecheck.Row, strict bool) []string {
	base, now, pct := "", "", ""
	if r.HasValues {
		now = suitecheck.FormatNum(r.Now)
		if r.Kind != suitecheck.KindBudget && !(r.Kind == suitecheck.KindViolation && !r.HasPct) {
			base = suitecheck.FormatNum(r.Base)
		}
		if r.Kind == suitecheck.KindBudget {
			base = "limit " + suitecheck.FormatNum(r.Base)
		}
	}
	if r.HasPct {
		pct = "new"
		if !math.IsInf(r.Pct, 0) {
			pct = fmt.Sprintf("%+.1f%%", r.Pct)
		}
	}
	verdict := map[suitecheck.Kind]string{suitecheck.KindBudget: "✗ over budget", suitecheck.KindRegression: "↓ worse", suitecheck.KindViolation: "↓ worse",
		suitecheck.KindMissing: "✗ missing", suitecheck.KindRemoved: "✗ removed", suitecheck.KindParam: "changed", suitecheck.KindBetter: "↑ better", suitecheck.KindWithin: "~"}[r.Kind]
	if r.Kind == suitecheck.KindBetter && strict {
		verdict = "↑ better (fails: --strict)"
	}
	return []string{r.File, r.Shown, r.Metric, base, now, pct, verdict, r.Note}
}

// WriteCheckRows writes `ctxbench check`'s table of a report's rows
// ([suitecheck.Report.Rows]), the failing ones only when failingOnly; nothing
// when there are none.
func WriteCheckRows(w io.Writer, rep *suitecheck.Report, failingOnly bool) error {
	t := Table{Header: []string{"transcript", "policy", "metric", "baseline", "now", "Δ%", "verdict", "note"},
		Right: []bool{false, false, false, true, true, true, false, false}}
	for _, r := range rep.Rows() {
		if failingOnly && !r.Kind.Fails(rep.Strict) {
			continue
		}
		t.Rows = append(t.Rows, checkCells(r, rep.Strict))
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t.WriteText(w)
}

// WriteCheckAnnotations writes GitHub workflow commands: at most one per case
// and kind of failure, in the table's order (a parameter changed first,
// then worst first), pointing at the transcript (at names it) and, for
// violations, the line of the first call; parameter changes and
// improvements as notices.
func WriteCheckAnnotations(w io.Writer, rep *suitecheck.Report, at func(file string) string) error {
	esc := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	prop := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
	type group struct {
		first suitecheck.Row
		n     int
	}
	var order []string
	groups := map[string]*group{}
	for _, r := range rep.Rows() {
		if r.Kind == suitecheck.KindWithin {
			continue
		}
		k := suitecheck.Key(r.File, r.Policy) + "\x00" + r.Kind.String()
		if g := groups[k]; g != nil {
			g.n++
			continue
		}
		groups[k] = &group{first: r, n: 1}
		order = append(order, k)
	}
	for _, k := range order {
		g := groups[k]
		r := g.first
		level := "error"
		if !r.Kind.Fails(rep.Strict) {
			level = "notice"
		}
		loc := "file=" + prop.Replace(at(r.File))
		if r.Line > 0 {
			loc += fmt.Sprintf(",line=%d", r.Line)
		}
		msg := annotation(r, rep.Strict)
		if g.n > 1 {
			msg += fmt.Sprintf(" (and %d more)", g.n-1)
		}
		fmt.Fprintf(w, "::%s %s,title=%s::%s\n", level, loc, prop.Replace("ctxbench "+r.Shown+": "+r.Kind.String()), esc.Replace(msg))
	}
	_, err := fmt.Fprintln(w, CheckVerdict(rep))
	return err
}

// annotation says a row in a line: metric, values, change, verdict, note.
func annotation(r suitecheck.Row, strict bool) string {
	if r.Kind == suitecheck.KindBudget || r.Kind == suitecheck.KindMissing || r.Kind == suitecheck.KindRemoved {
		return r.Note
	}
	cells := checkCells(r, strict)
	var parts []string
	for k, c := range []string{cells[2], cells[3], "→", cells[4], cells[5], cells[6], cells[7]} {
		if c != "" && !(k == 2 && cells[3] == "") {
			parts = append(parts, c)
		}
	}
	return strings.Join(parts, " ")
}

// WriteCheckJUnit writes one test case per transcript × policy, its failing
// rows as the failure text.
func WriteCheckJUnit(w io.Writer, rep *suitecheck.Report) error {
	var jc []JUnitCase
	failing := map[string][]string{}
	for _, r := range rep.Rows() {
		if r.Kind.Fails(rep.Strict) {
			k := suitecheck.Key(r.File, r.Policy)
			failing[k] = append(failing[k], annotation(r, rep.Strict))
		}
	}
	for i := range rep.Cases {
		c := &rep.Cases[i]
		jc = append(jc, JUnitCase{Class: c.File, Name: c.Policy, Failures: failing[c.Key()]})
	}
	return WriteJUnit(w, "ctxbench check", jc)
}

// WriteCheckMarkdown writes the report for a CI job's summary page.
func WriteCheckMarkdown(w io.Writer, rep *suitecheck.Report) error {
	fmt.Fprintf(w, "## %s\n\n", CheckVerdict(rep))
	rows := rep.Rows()
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "Every metric as in the baseline.")
		return err
	}
	fmt.Fprintln(w, "| transcript | policy | metric | baseline | now | Δ% | verdict | note |")
	fmt.Fprintln(w, "|:--|:--|:--|--:|--:|--:|:--|:--|")
	cell := strings.NewReplacer("|", `\|`, "\n", " ")
	for _, r := range rows {
		cells := checkCells(r, rep.Strict)
		for i := range cells {
			cells[i] = cell.Replace(cells[i])
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	return nil
}
