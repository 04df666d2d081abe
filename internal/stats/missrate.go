package stats

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// A MissRate is the chance that a call misses its model's cache, as a
// function of how long the model sat idle before it: logit(chance) = A +
// B·ln(idle in seconds), B ≥ 0 (an entry the provider may evict before
// its lifetime ends is likelier gone the longer it sat unused; a call
// routed to a replica without it misses whatever the idle time). With B
// = 0, or the idle time unknown, the chance is Mean, the share of the
// fit's calls that missed.
type MissRate struct {
	Mean, A, B float64
}

// String says the rate as the assumption lines do.
func (r MissRate) String() string {
	if r.B == 0 {
		return fmt.Sprintf("missed %.1f%% of calls", r.Mean*100)
	}
	half := time.Duration(math.Exp(-r.A/r.B) * float64(time.Second))
	return fmt.Sprintf("missed %.1f%% of calls, more the longer the model sat idle (one in two after %s)", r.Mean*100, half.Round(time.Second))
}

// At returns the chance of a miss after idle (0: unknown).
func (r MissRate) At(idle time.Duration) float64 {
	if r.B == 0 || idle <= 0 {
		return r.Mean
	}
	return 1 / (1 + math.Exp(-(r.A + r.B*math.Log(idle.Seconds()))))
}

// A MissObs is one call of a fit: how long its model sat idle before it
// (0: unknown), whether it missed, and its weight: the tokens an ideal
// cache would have read.
type MissObs struct {
	Idle   time.Duration
	Missed bool
	Weight float64
}

// FitMissRate fits a MissRate to obs by maximum likelihood, each call
// weighed by the tokens at stake: b over a grid from 0 to 8 in steps of
// a quarter (8: the chance goes from 1 in 9 to 8 in 9 as the idle time
// grows by two thirds; a steeper rise, from a fit on few calls, is not
// believed), a for each b by Newton's method. A b above 0 is kept only
// when it is likelier than 0 by more than a rounding error, so that idle
// times that say nothing fit a constant rate. Calls are pooled by idle
// time to 5%, so that the fit's work does not grow with the calls.
func FitMissRate(obs []MissObs) MissRate {
	type pool struct{ lnIdle, missed, hit float64 }
	pools := map[int]*pool{}
	var keys []int
	var total, missed float64
	for _, o := range obs {
		total += o.Weight
		if o.Missed {
			missed += o.Weight
		}
		if o.Idle <= 0 {
			continue
		}
		k := int(math.Round(math.Log(o.Idle.Seconds()) * 20))
		p := pools[k]
		if p == nil {
			p = &pool{lnIdle: float64(k) / 20}
			pools[k] = p
			keys = append(keys, k)
		}
		if o.Missed {
			p.missed += o.Weight
		} else {
			p.hit += o.Weight
		}
	}
	if total <= 0 {
		return MissRate{}
	}
	r := MissRate{Mean: missed / total}
	var known, knownMissed float64
	for _, p := range pools {
		known += p.missed + p.hit
		knownMissed += p.missed
	}
	if knownMissed == 0 || knownMissed == known {
		return r
	}
	slices.Sort(keys)
	var meanLn float64
	for _, k := range keys {
		meanLn += pools[k].lnIdle * (pools[k].missed + pools[k].hit) / known
	}
	// Weights of mean 1, so that the likelihood is as sure as the calls
	// are many.
	scale := float64(len(obs)) / total
	chance := func(a, b, lnIdle float64) float64 { return 1 / (1 + math.Exp(-(a + b*lnIdle))) }
	loglik := func(a, b float64) float64 {
		var l float64
		for _, k := range keys {
			p, c := pools[k], chance(a, b, pools[k].lnIdle)
			if p.missed > 0 { // 0 · log 0 would be NaN
				l += scale * p.missed * math.Log(c)
			}
			if p.hit > 0 {
				l += scale * p.hit * math.Log1p(-c)
			}
		}
		return l
	}
	// bestA solves d loglik / da = Σ missed − Σ (missed + hit)·chance = 0
	// by Newton's method: loglik is concave in a, and some calls missed
	// and some did not, so the root exists.
	bestA := func(b float64) float64 {
		a := math.Log(knownMissed/(known-knownMissed)) - b*meanLn
		for range 100 {
			var d, dd float64
			for _, k := range keys {
				p := pools[k]
				c := chance(a, b, p.lnIdle)
				d += p.missed - (p.missed+p.hit)*c
				dd += (p.missed + p.hit) * c * (1 - c)
			}
			if dd == 0 { // every chance is 0 or 1 to the float: as far as it goes
				break
			}
			step := max(-5, min(5, d/dd))
			a += step
			if math.Abs(step) < 1e-9 {
				break
			}
		}
		return a
	}
	best, bestB := loglik(bestA(0), 0), 0.0
	for step := 1; step <= 32; step++ {
		b := float64(step) / 4
		if l := loglik(bestA(b), b); l > best+1e-9 {
			best, bestB = l, b
		}
	}
	if bestB > 0 {
		r.A, r.B = bestA(bestB), bestB
	}
	return r
}
