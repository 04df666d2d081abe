package replay

import "github.com/ctxbench/ctxbench/internal/metric"

// shown are the metrics every table shows ([metric.Shown]).
var shown = metric.Shown()

// shownOf computes each of the metrics every table shows, by name, from
// the summary of a run.
var shownOf = map[string]func(s *Summary) float64{
	"worst_retention": func(s *Summary) float64 { return s.MinRetention },
}

// Metrics returns the metrics every table shows of the run s
// summarizes, by name; nil when no metric is shown.
func (s *Summary) Metrics() metric.Values {
	if len(shown) == 0 {
		return nil
	}
	v := metric.Values{}
	for _, m := range shown {
		if of, ok := shownOf[m.Name]; ok {
			v[m.Name] = of(s)
		}
	}
	return v
}

// Counts returns what the run s summarizes counts, its tokens by the
// estimator est.
func (s *Summary) Counts(est string) metric.Counts {
	return metric.Counts{Calls: s.Calls, PeakMessages: s.PeakMessages, PeakTokens: s.PeakTokens[est], InputTokens: s.InputTokens[est],
		Evictions: s.Evictions, Truncations: s.Truncations, Summaries: s.Summaries}
}
