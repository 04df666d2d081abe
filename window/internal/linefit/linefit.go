// Package linefit fits the usage a provider reports for a call to an
// estimate of what the call sent, a line per model: the policies that
// model an agent's "last response's usage" (Claude Code's) or a
// provider's own count (Anthropic's context edits) read it.
package linefit

import "math"

// Fits are a line per model, made on first use.
type Fits map[string]*Fit

// Of returns the line of model.
func (fs Fits) Of(model string) *Fit {
	f := fs[model]
	if f == nil {
		f = &Fit{}
		fs[model] = f
	}
	return f
}

// A Fit fits y = a + b·x by least squares, for the usage of a call
// from the estimate of what it sent.
type Fit struct {
	n, sx, sy, sxx, sxy float64
}

// Add adds the point (x, y).
func (f *Fit) Add(x, y int) {
	fx, fy := float64(x), float64(y)
	f.n++
	f.sx += fx
	f.sy += fy
	f.sxx += fx * fx
	f.sxy += fx * fy
}

// At returns the fitted y at x: with no point, x; with one (or all at
// one x), x plus the offset seen.
func (f *Fit) At(x int) int {
	if f.n == 0 {
		return x
	}
	b := f.Slope()
	a := (f.sy - b*f.sx) / f.n
	return int(math.Round(a + b*float64(x)))
}

// Slope is the line's slope: 1 with fewer than two distinct x, or when
// the fit is not positive.
func (f *Fit) Slope() float64 {
	if v := f.n*f.sxx - f.sx*f.sx; f.n > 1 && v > 0 {
		if s := (f.n*f.sxy - f.sx*f.sy) / v; s > 0 {
			return s
		}
	}
	return 1
}
