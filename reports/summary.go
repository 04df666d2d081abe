package reports

import (
	"fmt"
	"io"
)

// WriteSummary writes, per policy, its totals over the report's
// transcripts: input tokens and their share of sending everything, the
// peak tokens, the mean retention, the violations and the cost of the
// sessions priced.
func (r *Report) WriteSummary(w io.Writer) error {
	t := Table{Header: []string{"policy", "transcripts", "input tokens", "of none", "peak tokens", "mean retention", "violations", "cost (priced sessions)"},
		Right: []bool{false, true, true, true, true, true, true, true}}
	var baseline int64
	for _, tr := range r.Transcripts {
		for _, p := range tr.Runs {
			if p.Label == "none" {
				baseline += p.Summary.InputTokens[r.Estimator]
			}
		}
	}
	for k, label := range r.Policies {
		var in int64
		peak, nv, n := 0, 0, 0
		ret, cost, priced := 0.0, 0.0, 0
		for _, tr := range r.Transcripts {
			p := tr.Runs[k]
			in += p.Summary.InputTokens[r.Estimator]
			peak = max(peak, p.Summary.PeakTokens[r.Estimator])
			ret += p.Summary.MeanRetention
			for _, v := range p.Summary.Violations {
				nv += v
			}
			if p.CostUSD != nil {
				cost += *p.CostUSD
				priced++
			}
			n++
		}
		share := "-"
		if baseline > 0 {
			share = fmt.Sprintf("%.1f%%", float64(in)/float64(baseline)*100)
		}
		t.Rows = append(t.Rows, []string{label, Int(n), Int(in), share, Int(peak),
			fmt.Sprintf("%.1f%%", ret/float64(max(1, n))*100), Int(nv), pricedCost(cost, priced, n)})
	}
	return t.WriteText(w)
}

// pricedCost shows the cost of the priced sessions, and how many of them
// there are when some are not priced: never $0 for sessions not priced.
func pricedCost(usd float64, priced, n int) string {
	switch priced {
	case n:
		return USD(usd)
	case 0:
		return "not priced"
	}
	return fmt.Sprintf("%s (%d of %d priced)", USD(usd), priced, n)
}
