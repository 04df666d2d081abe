package projection

import (
	"slices"

	"github.com/ctxbench/ctxbench/internal/stats"
)

// MinErrorCalls is the fewest calls a session needs for its cross-check
// to count in a [ProjectionError]: fewer leave too few calls to fit on.
const MinErrorCalls = 20

// A ProjectionError is how close the projection lands on a set of
// sessions: the distribution of the absolute errors of their
// cross-checks (package cost's CrossCheck.SessionError), each session fitted on
// its first calls (by default half) and its later calls priced without
// their bill.
type ProjectionError struct {
	// Sessions counts the sessions measured (0: none had MinCalls calls).
	Sessions  int     `json:"sessions"`
	MinCalls  int     `json:"min_calls"`
	MedianPct float64 `json:"median_pct"`
	P90Pct    float64 `json:"p90_pct"`
	WorstPct  float64 `json:"worst_pct"`
}

// MeasureProjectionError returns the distribution of errs, the sessions'
// errors in percent: the median of their absolute values (of an even
// count, the mean of the middle two), the 90th percentile (the value at
// rank ⌈0.9 n⌉) and the largest.
func MeasureProjectionError(errs []float64) ProjectionError {
	p := ProjectionError{Sessions: len(errs), MinCalls: MinErrorCalls}
	p.MedianPct, p.P90Pct, p.WorstPct = stats.AbsSpread(errs)
	return p
}

// MedianP90 returns the median of v (of an even count, the mean of the
// middle two) and its 90th percentile, the value at rank ⌈0.9 n⌉ in
// sorted order; 0 and 0 for no value.
func MedianP90(v []float64) (med, p90 float64) {
	if len(v) == 0 {
		return 0, 0
	}
	return stats.MedianP90(slices.Sorted(slices.Values(v)))
}

// Range returns the interval a projected cost lands in by the measured
// error: usd × (1 − p90) to usd × (1 + p90), the lower end at least 0;
// ok is false when no session was measured.
func (p ProjectionError) Range(usd float64) (low, high float64, ok bool) {
	if p.Sessions == 0 {
		return 0, 0, false
	}
	e := p.P90Pct / 100
	return max(0, usd*(1-e)), usd * (1 + e), true
}
