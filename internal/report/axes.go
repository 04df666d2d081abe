package report

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// A plot is given only what its axes can show. gonum/plot panics on a
// log axis whose range reaches 0 (LogTicks), and widens a range of one
// value by 1 either side, to 0 for a value of 1; a NaN or infinite point
// is an error, and a range near the largest float64 overflows its
// ticks' arithmetic. So every point a chart draws goes through
// [drawable], and every plot is drawn by [drawPlot], which first makes
// its axes' ranges ones their scales can draw ([fitAxis]).

// An axis shows values of at most maxShown in magnitude, and on a log
// scale of at least minShown: room for a chart's padding and a range's
// widening to stay finite.
const maxShown, minShown = 1e300, 1e-300

// shows reports whether axis a can show v: v is finite and at most
// maxShown in magnitude, and on a log scale at least minShown.
func shows(a *plot.Axis, v float64) bool {
	_, log := a.Scale.(plot.LogScale)
	return showable(v) && (!log || v >= minShown)
}

// showable reports whether a linear scale can show v: v is finite and at
// most maxShown in magnitude.
func showable(v float64) bool { return !math.IsNaN(v) && math.Abs(v) <= maxShown }

// drawable returns the points of pts that p's axes can show ([shows]),
// in their order; pts itself when that is all of them.
func drawable(p *plot.Plot, pts plotter.XYs) plotter.XYs {
	for i, pt := range pts {
		if shows(&p.X, pt.X) && shows(&p.Y, pt.Y) {
			continue
		}
		out := append(plotter.XYs(nil), pts[:i]...)
		for _, pt := range pts[i+1:] {
			if shows(&p.X, pt.X) && shows(&p.Y, pt.Y) {
				out = append(out, pt)
			}
		}
		return out
	}
	return pts
}

// fitAxis makes a's range, Min to Max, one its scale can draw. A bound
// that is NaN or infinite (no value set it), or 0 or below on a log
// scale, takes the other's value, or both take 0 and 1 (1 and 10 on a
// log scale) when neither has one; the bounds are put in order and
// brought within what the axis shows; and a range of one value is
// widened around it, within the same: to a decade either side on a log
// scale, by half the value either side on a linear one (0 to 1 for 0).
func fitAxis(a *plot.Axis) {
	_, log := a.Scale.(plot.LogScale)
	set := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && (!log || v > 0) }
	lo, hi := a.Min, a.Max
	switch setLo, setHi := set(lo), set(hi); {
	case !setLo && !setHi:
		lo, hi = 0, 1
		if log {
			lo, hi = 1, 10
		}
	case !setLo:
		lo = hi
	case !setHi:
		hi = lo
	}
	floor := -maxShown
	if log {
		floor = minShown
	}
	within := func(v float64) float64 { return min(max(v, floor), maxShown) }
	lo, hi = within(min(lo, hi)), within(max(lo, hi))
	if lo == hi {
		switch {
		case log:
			lo, hi = within(lo/10), within(hi*10)
		case lo == 0:
			hi = 1
		default:
			lo, hi = within(lo-math.Abs(lo)/2), within(hi+math.Abs(hi)/2)
		}
	}
	a.Min, a.Max = lo, hi
}

// drawPlot draws p on c, its axes first fitted to their scales
// ([fitAxis]).
func drawPlot(p *plot.Plot, c draw.Canvas) {
	fitAxis(&p.X)
	fitAxis(&p.Y)
	p.Draw(c)
}
