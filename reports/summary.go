package reports

import (
	"fmt"
	"io"
)

// WriteSummary writes, per policy, its totals over the report's
// transcripts: input tokens and their share of sending everything, the
// peak tokens, the probe score, the mean retention, the violations and the cost of the
// sessions priced.
func (r *Report) WriteSummary(w io.Writer) error {
	t := Table{Header: []string{"policy", "transcripts", "input tokens", "of none", "peak tokens", "probes", "mean retention", "violations", "cost (priced sessions)"},
		Right: []bool{false, true, true, true, true, true, true, true, true}}
	for _, p := range r.Totals() {
		nv := 0
		for _, n := range p.Violations {
			nv += n
		}
		t.Rows = append(t.Rows, []string{p.Label, Int(p.Sessions), Int(p.Tokens), p.Share(), Int(p.PeakTokens),
			ProbeText(p.Probes), fmt.Sprintf("%.1f%%", p.Retention*100), Int(nv), p.Cost()})
	}
	return t.WriteText(w)
}
