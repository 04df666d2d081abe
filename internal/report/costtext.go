package report

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/internal/printable"
	"github.com/ctxbench/ctxbench/internal/projection"
	"github.com/ctxbench/ctxbench/internal/shortfall"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/transcript"
)

// WriteProjection writes what each policy would cost per session (the
// mean, the median and the 90th percentile), per day of perDay sessions
// and per 30 days, projected from the sessions priced, with the range
// the measured projection error puts the mean's in.
func WriteProjection(w io.Writer, proj []projection.Projection, sessions int, perDay float64) error {
	if len(proj) == 0 {
		return nil
	}
	t := Table{Header: []string{"policy", "per session (mean)", "median", "p90", fmt.Sprintf("per day (%g sessions)", perDay), "per 30 days", "per 30 days (range)"},
		Right: []bool{false, true, true, true, true, true, true}}
	for _, p := range proj {
		t.Rows = append(t.Rows, []string{p.Label, USD(p.SessionUSD), USD(p.MedianUSD), USD(p.P90USD), USD(p.DayUSD), USD(p.MonthUSD), usdRange(p.MonthLowUSD, p.MonthHighUSD)})
	}
	fmt.Fprintf(w, "\nProjection over the %s above\n", Count(sessions, "session", "sessions"))
	return t.WriteText(w)
}

// ShortOutputText says that a transcript's recorded output falls short
// of the estimate of what its calls wrote ([shortfall.ShortOutput]).
func ShortOutputText(o shortfall.OutputShortfall) string {
	return fmt.Sprintf("recorded output is %.0f%% of the estimate of what the calls wrote (%s of ≈%s tokens over %s): the file records the stream's start; the bill, like ccusage's, under-counts output",
		o.Share()*100, Int(o.Recorded), Int(roundTo(o.Estimated, 100)), Count(o.Calls, "call", "calls"))
}

// roundTo rounds v to a multiple of step.
func roundTo(v, step int64) int64 { return (v + step/2) / step * step }

// usdRange formats a range of dollars, "-" without one.
func usdRange(low, high *float64) string {
	if low == nil || high == nil {
		return "-"
	}
	return USD(*low) + "–" + USD(*high)
}

// ProjectionErrorText says how close the projection lands on the
// sessions priced ([projection.ProjectionError]); fitCalls is --fit-calls (0:
// each session fitted on its first half).
func ProjectionErrorText(pe projection.ProjectionError, fitCalls int) string {
	if pe.Sessions == 0 {
		return fmt.Sprintf("projection error: no session of %d calls or more to measure the projection on", pe.MinCalls)
	}
	fit := "its first half"
	if fitCalls > 0 {
		fit = fmt.Sprintf("its first %s calls", Int(fitCalls))
	}
	return fmt.Sprintf("projection error on these sessions: median %.1f%%, worst %.1f%% (%s of %d calls or more; each fitted on %s, the rest priced without the bill against it; range: ± the p90, %.1f%%)",
		pe.MedianPct, pe.WorstPct, Count(pe.Sessions, "session", "sessions"), pe.MinCalls, fit, pe.P90Pct)
}

// ProjectedCostText says how far the projected cost usd of the setting
// label may be off: the projection error pe measured on the same
// sessions, and the range its p90 puts the cost in.
func ProjectedCostText(label string, usd float64, pe projection.ProjectionError) string {
	lo, hi, ok := pe.Range(usd)
	if !ok {
		return fmt.Sprintf("The cost of %s is a projection, not measured on these sessions: no session has the %d calls or more it is checked on (fitted on the first half, the rest priced without the bill against it).", label, pe.MinCalls)
	}
	return fmt.Sprintf("The cost of %s is a projection: on these sessions the projection lands %.1f%% from the bill at the median, %.1f%% at p90 and %.1f%% at worst (%s of %d calls or more), so it lies in %s–%s (± the p90).",
		label, pe.MedianPct, pe.P90Pct, pe.WorstPct, Count(pe.Sessions, "session", "sessions"), pe.MinCalls, USD(lo), USD(hi))
}

// WriteComparison writes `ctxbench cost`'s table of a transcript: what
// each policy costs by component against what the recorded usage was
// billed, then the cache's misses and breaks, the assumptions and the
// out-of-sample cross-check.
func WriteComparison(w io.Writer, ct *cost.Comparison) error {
	usd := USD
	head := ct.Policies[0]
	fmt.Fprintf(w, "%s (%s; %s)\n", printable.String(ct.File), printable.String(ct.ID), printable.String(pricedAs(head.RunCost)))
	t := Table{Header: []string{"policy", "input", "cache read", "cache write", "output", "summaries", "total", "saving vs none"},
		Right: []bool{false, true, true, true, true, true, true, true}}
	for _, p := range ct.Policies {
		t.Rows = append(t.Rows, []string{p.Label, usd(p.Calls.Input.USD()), usd(p.Calls.CacheRead.USD()), usd(p.Calls.CacheWrite.USD()),
			usd(p.Calls.Output.USD()), usd(p.Summaries.Total().USD()), usd(p.TotalUSD), percentOf(p.SavingVsNone)})
	}
	if b := ct.Billed; b != nil {
		t.Rows = append(t.Rows, []string{"billed (recorded usage)", usd(b.Input.USD()), usd(b.CacheRead.USD()), usd(b.CacheWrite.USD()),
			usd(b.Output.USD()), "", usd(b.TotalUSD), ""})
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	if b := ct.Billed; b != nil && len(b.ByModel) > 1 {
		var parts []string
		for _, m := range b.ByModel {
			parts = append(parts, fmt.Sprintf("%s %s calls %s", m.Model, Int(m.Calls), usd(m.Cost.Total().USD())))
		}
		fmt.Fprintf(w, "billed by model: %s\n", strings.Join(parts, "; "))
	}
	if m, b := ct.CacheMisses, ct.Billed; m != nil && b != nil && m.Calls > 0 {
		fmt.Fprintln(w, CacheMissText(*m, b.TotalUSD))
	}
	for _, p := range ct.Policies {
		if p.BreakTotals.Breaks > 0 {
			fmt.Fprintf(w, "cache: %s: %s\n", p.Label, CacheBreakText(p.BreakTotals, p.Breaks))
		}
	}
	for _, a := range head.Assumptions {
		fmt.Fprintf(w, "assumption: %s\n", a)
	}
	if x := ct.CrossCheck; x != nil && x.AfterFit != nil {
		o := x.AfterFit
		fmt.Fprintf(w, "cross-check after the fit: the recorded policy's %s calls after the first %s, priced without their bill, cost %s against %s billed (%+.1f%%): input %s/%s, cache read %s/%s, cache write %s/%s, output %s/%s\n",
			Int(o.Calls), Int(o.FitCalls), usd(x.SimulatedUSD), usd(x.BilledUSD), x.ErrorPct,
			usd(o.Simulated.Input.USD()), usd(o.Billed.Input.USD()), usd(o.Simulated.CacheRead.USD()), usd(o.Billed.CacheRead.USD()),
			usd(o.Simulated.CacheWrite.USD()), usd(o.Billed.CacheWrite.USD()), usd(o.Simulated.Output.USD()), usd(o.Billed.Output.USD()))
		if o.Unbilled > 0 {
			say := "calls after the fit have no bill and are"
			if o.Unbilled == 1 {
				say = "call after the fit has no bill and is"
			}
			fmt.Fprintf(w, "  cross-check: %s %s left out of both sides\n", Int(o.Unbilled), say)
		}
		for _, a := range o.Assumptions {
			fmt.Fprintf(w, "  cross-check assumption: %s\n", a)
		}
	}
	if b := ct.Billed; b != nil && b.ReportedUSD > 0 {
		fmt.Fprintf(w, "the agent itself reported %s\n", usd(b.ReportedUSD))
	}
	_, err := fmt.Fprintln(w)
	return err
}

// pricedAs says which models priced a run's calls, with which cache and
// constant.
func pricedAs(rc *cost.RunCost) string {
	if rc.FromBill() {
		var parts []string
		for _, m := range rc.ByModel {
			parts = append(parts, fmt.Sprintf("%s %s calls", m.Model, Int(m.Calls)))
		}
		return "priced from the bill, no token counted: " + strings.Join(parts, ", ")
	}
	if len(rc.ByModel) == 1 {
		m := rc.ByModel[0]
		return fmt.Sprintf("priced as %s; cache: %s; %s tokens per call not in the transcript%s", rc.Model, rc.CacheSim, Int(rc.Constant), alphaText(m))
	}
	var parts []string
	for _, m := range rc.ByModel {
		parts = append(parts, fmt.Sprintf("%s %s calls (cache: %s; %s tokens per call not in the transcript%s)", m.Model, Int(m.Calls), m.CacheSim, Int(m.Constant), alphaText(m)))
	}
	return "priced per call: " + strings.Join(parts, ", ")
}

// alphaText says how many billed tokens an estimated one stood for.
func alphaText(m cost.ModelCost) string {
	switch {
	case m.Alpha == 0:
		return ""
	case m.AlphaFittedOn == 0 && m.AlphaFamily != "":
		return fmt.Sprintf("; alpha %.3f billed per estimated token, %s's over the corpus (too few prompt growths to fit)", m.Alpha, m.AlphaFamily)
	case m.AlphaFittedOn == 0:
		return "; alpha 1 (too few prompt growths to fit, and no figure for the model's family)"
	}
	return fmt.Sprintf("; alpha %.3f billed per estimated token (%s growths)", m.Alpha, Int(m.AlphaFittedOn))
}

// WritePrices writes the price table: each model's prices per million
// tokens, context window, long-context and earlier prices, and source.
func WritePrices(w io.Writer, prices pricing.Prices) error {
	t := Table{Header: []string{"model", "provider", "input", "output", "cache read", "cache write", "window", "long context, earlier prices", "source"},
		Right: []bool{false, false, true, true, true, true, true, false, false}}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, n := range slices.Sorted(maps.Keys(prices)) {
		p := prices[n]
		src := p.Source
		if p.Date != "" {
			src += ", " + p.Date
		}
		var notes []string
		if p.InputAbove > 0 {
			notes = append(notes, fmt.Sprintf("above %s: %s/%s", Int(p.LongContextThreshold()), g(p.InputAbove), g(p.OutputAbove)))
		}
		for _, e := range p.Before {
			notes = append(notes, fmt.Sprintf("until %s: %s/%s", e.Until, g(e.Input), g(e.Output)))
		}
		t.Rows = append(t.Rows, []string{n, p.Provider, g(p.Input), g(p.Output), g(p.CacheRead), g(p.CacheWrite5m), Int(p.MaxInput),
			strings.Join(notes, "; "), src})
	}
	fmt.Fprintln(w, "USD per million tokens (input/output where two are given); cache write is the 5-minute one")
	return t.WriteText(w)
}

// WriteLedger writes the bill of the recorded usage a ledger totalled:
// by session (subagents beneath), by model and by day.
func WriteLedger(w io.Writer, l *cost.Ledger) error {
	st, mt, dt, err := l.Totals()
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "Recorded usage and its bill, by session")
	if err := writeSessions(w, l.Sessions, l.Duplicates, true, &st); err != nil {
		return err
	}
	models, days := usageTable("model", true), usageTable("day (UTC)", true)
	for _, m := range l.ByModel {
		models.Rows = append(models.Rows, usageRow(m.Model, m.Calls, m.Usage, &m.Cost))
	}
	for _, d := range l.ByDay {
		days.Rows = append(days.Rows, usageRow(d.Day, d.Calls, d.Usage, &d.Cost))
	}
	models.Rows = append(models.Rows, usageRow("total", mt.Calls, mt.Usage, &mt.Cost))
	dayTotal := "total"
	if dt.Cost.Total() != st.Cost.Total() {
		dayTotal = "total (calls with a time)"
	}
	days.Rows = append(days.Rows, usageRow(dayTotal, dt.Calls, dt.Usage, &dt.Cost))
	for _, t := range []struct {
		title string
		table Table
	}{{"By model", models}, {"By day", days}} {
		fmt.Fprintf(w, "\n%s\n", t.title)
		if err := t.table.WriteText(w); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintln(w)
	return err
}

// reportedTolerance is how far, as a share of the agent's own figure,
// ctxbench's bill of a session may be from the cost the agent reported
// before the two are flagged as differing.
const reportedTolerance = 0.01

// WriteReported writes, for each session whose agent reported its cost,
// that cost beside ctxbench's bill of its recorded usage, flagged when
// they differ by more than reportedTolerance.
func WriteReported(w io.Writer, sessions []*cost.SessionBill) error {
	for _, s := range sessions {
		if s.ReportedUSD <= 0 {
			continue
		}
		d := (s.TotalUSD - s.ReportedUSD) / s.ReportedUSD
		flag := ""
		if math.Abs(d) > reportedTolerance {
			flag = fmt.Sprintf(": they differ by more than %.0f%%", reportedTolerance*100)
		}
		if _, err := fmt.Fprintf(w, "session %s: the agent reported %s, the bill of its recorded usage is %s (%+.1f%%)%s\n",
			s.ID, USD(s.ReportedUSD), USD(s.TotalUSD), d*100, flag); err != nil {
			return err
		}
	}
	return nil
}

// WriteSessions writes the sessions' usage, and their cost when priced,
// each session's transcripts beneath it when it has subagents.
func WriteSessions(w io.Writer, sessions []*cost.SessionBill, duplicates int, priced bool) error {
	return writeSessions(w, sessions, duplicates, priced, nil)
}

// writeSessions is [WriteSessions], with a total row when total is not
// nil.
func writeSessions(w io.Writer, sessions []*cost.SessionBill, duplicates int, priced bool, total *cost.BillTotal) error {
	t := usageTable("session (subagents beneath)", priced)
	c := func(c *pricing.Cost) *pricing.Cost {
		if priced {
			return c
		}
		return nil
	}
	for _, s := range sessions {
		t.Rows = append(t.Rows, usageRow(s.ID, s.Calls, s.Usage, c(&s.Cost)))
		if len(s.Transcripts) > 1 {
			for _, tb := range s.Transcripts {
				t.Rows = append(t.Rows, usageRow("└ "+cmp.Or(tb.Subagent, "the session's own"), tb.Calls, tb.Usage, c(&tb.Cost)))
			}
		}
	}
	if total != nil {
		t.Rows = append(t.Rows, usageRow("total", total.Calls, total.Usage, c(&total.Cost)))
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	if duplicates > 0 {
		_, err := fmt.Fprintf(w, "%s calls copied from an earlier file (a resumed session) were counted once\n", Int(duplicates))
		return err
	}
	return nil
}

// usageTable is a table of usage by what first names, with cost when
// priced.
func usageTable(first string, priced bool) Table {
	t := Table{Header: []string{first, "calls", "input", "output", "cache read", "cache write"}, Right: []bool{false, true, true, true, true, true}}
	if priced {
		t.Header, t.Right = append(t.Header, "cost"), append(t.Right, true)
	}
	return t
}

func usageRow(name string, calls int, u transcript.Usage, c *pricing.Cost) []string {
	row := []string{name, Int(calls), Int(u.Input), Int(u.Output), Int(u.CacheRead), Int(u.CacheWrite)}
	if c != nil {
		row = append(row, USD(c.Total().USD()))
	}
	return row
}

// percentOf formats a share as a percentage; "" when there is none.
func percentOf(share *float64) string {
	if share == nil {
		return ""
	}
	return fmt.Sprintf("%.1f%%", *share*100)
}

// WritePolicyCosts writes `ctxbench cost`'s table of each policy's cost
// over every session priced, when there are two or more (one session's
// table says it): the total, its range by the measured projection error,
// and per session the mean, the median and the 90th percentile.
func WritePolicyCosts(w io.Writer, totals []projection.Spread) error {
	if len(totals) == 0 || totals[0].Sessions < 2 {
		return nil
	}
	t := Table{Header: []string{"policy", "total", "total (range)", "per session (mean)", "median", "p90"}, Right: []bool{false, true, true, true, true, true}}
	for _, p := range totals {
		t.Rows = append(t.Rows, []string{p.Label, USD(p.TotalUSD), usdRange(p.LowUSD, p.HighUSD), USD(p.SessionUSD), USD(p.MedianUSD), USD(p.P90USD)})
	}
	fmt.Fprintf(w, "\nPolicies over the %s priced (subagents in their sessions)\n", Count(totals[0].Sessions, "session", "sessions"))
	return t.WriteText(w)
}
