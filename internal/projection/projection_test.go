package projection

import (
	"math"
	"testing"

	"github.com/ctxbench/ctxbench/pricing"
)

// TestProject: a spread's total and per-session figures, and the
// projection of its mean to a day and 30 days, each in the range the
// measured error's 90th percentile puts it in; with no session
// measured there is no range.
func TestProject(t *testing.T) {
	pe := MeasureProjectionError([]float64{-5, 10, 2, -20, 1, 3, 4, 6, 8, 7})
	if pe.Sessions != 10 || pe.MinCalls != MinErrorCalls || pe.WorstPct != 20 || pe.P90Pct != 10 {
		t.Fatalf("projection error %+v", pe)
	}
	s := SpreadOf("none", []pricing.Money{pricing.Money(1e12), pricing.Money(3e12), pricing.Money(2e12)}, pe)
	if s.Sessions != 3 || s.TotalUSD != 6 || s.SessionUSD != 2 || s.MedianUSD != 2 || s.LowUSD == nil || !near(*s.LowUSD, 5.4) || !near(*s.HighUSD, 6.6) {
		t.Fatalf("spread %+v", s)
	}
	p := Project(s, 100, pe)
	if p.DayUSD != 200 || p.MonthUSD != 6000 || p.DayLowUSD == nil || !near(*p.DayLowUSD, 180) || !near(*p.MonthHighUSD, 6600) {
		t.Errorf("projection %+v", p)
	}
	if p := Project(s, 100, ProjectionError{}); p.DayLowUSD != nil || p.DayUSD != 200 {
		t.Errorf("no session measured: projection %+v", p)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }
