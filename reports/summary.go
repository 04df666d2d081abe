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
		ret, cost := 0.0, 0.0
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
			}
			n++
		}
		share := "-"
		if baseline > 0 {
			share = fmt.Sprintf("%.1f%%", float64(in)/float64(baseline)*100)
		}
		t.Rows = append(t.Rows, []string{label, Int(n), Int(in), share, Int(peak),
			fmt.Sprintf("%.1f%%", ret/float64(max(1, n))*100), Int(nv), USD(cost)})
	}
	return t.WriteText(w)
}
