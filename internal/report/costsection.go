package report

import (
	"github.com/ctxbench/ctxbench/internal/projection"
)

// CostSectionTitle is the title of the report's manager-ready section:
// the bill, each policy's cost with its spread over the sessions, and
// how close the projection lands on them.
const CostSectionTitle = "What your sessions cost, what each policy would have cost, how sure we are"

// ProjectionError returns how close the projection lands on the
// report's sessions: each transcript's cross-check
// ([TranscriptResult.ProjectionErrorPct]), as `ctxbench cost` measures
// it ([projection.MeasureProjectionError]).
func (r *Report) ProjectionError() projection.ProjectionError {
	return projection.MeasureProjectionError(r.facts().errs)
}

// costFacts are what the cost section takes of each transcript as it is
// added, before a spool keeps only its header: its bill, summed by
// session as `ctxbench cost` sums it ([sessionIndex]), and its
// cross-check's error, where it has them.
type costFacts struct {
	sessions sessionIndex
	// billed is each session's bill, and hasBill whether a transcript
	// of it has one.
	billed  []float64
	hasBill []bool
	errs    []float64
}

func (f *costFacts) add(t *TranscriptResult) {
	s, first := f.sessions.of(t)
	if first {
		f.billed, f.hasBill = append(f.billed, 0), append(f.hasBill, false)
	}
	if t.BilledUSD != nil {
		f.billed[s] += *t.BilledUSD
		f.hasBill[s] = true
	}
	if t.ProjectionErrorPct != nil {
		f.errs = append(f.errs, *t.ProjectionErrorPct)
	}
}

// bills are the bills of the sessions that have one, in the order
// first seen.
func (f *costFacts) bills() []float64 {
	var out []float64
	for s, b := range f.billed {
		if f.hasBill[s] {
			out = append(out, b)
		}
	}
	return out
}

// facts returns the report's cost facts: the Builder's, or, for a report
// made otherwise, its transcripts'.
func (r *Report) facts() *costFacts {
	if r.costFacts == nil {
		r.costFacts = &costFacts{}
		for i := range r.Transcripts {
			r.costFacts.add(&r.Transcripts[i])
		}
	}
	return r.costFacts
}

// costSection is the section's table: the bill of the sessions that
// record usage, then each policy priced on some session, its total, its
// median and p90 per session (sessions as `ctxbench cost` counts them,
// a subagent's transcript in its parent's) and the range the measured
// projection error puts its total in (total × (1 ± the p90 error)), and
// last how sure we are: the projection error. False when no session is
// priced.
func costSection(r *Report) (costTable, bool) {
	totals, spread := r.Totals(), r.Spread()
	pe := r.ProjectionError()
	t := costTable{id: "cost-answer", title: CostSectionTitle, lastText: true,
		header: []string{"", "sessions priced", "total", "per session (median)", "per session (p90)", "range of the total"}}
	if billed := r.facts().bills(); len(billed) > 0 {
		var bill float64
		for _, b := range billed {
			bill += b
		}
		med, p90 := projection.MedianP90(billed)
		t.rows = append(t.rows, []string{"billed (recorded usage)", Int(len(billed)), USD(bill), USD(med), USD(p90), "the bill: no range"})
	}
	for k, p := range totals {
		if p.Priced == 0 || k >= len(spread) {
			continue
		}
		rng := "-"
		if p.Label == "recorded" {
			rng = "the bill: no range" // the recorded policy at its own models
		} else if lo, hi, ok := pe.Range(p.CostUSD); ok {
			rng = USD(lo) + "–" + USD(hi)
		}
		t.rows = append(t.rows, []string{p.Label, Int(spread[k].Priced), USD(p.CostUSD), USD(spread[k].Median), USD(spread[k].P90), rng})
	}
	if len(t.rows) == 0 {
		return costTable{}, false
	}
	t.rows = append(t.rows, []string{"how sure we are", "", "", "", "", ProjectionErrorText(pe, 0)})
	return t, true
}
