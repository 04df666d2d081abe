package stats

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFitMissRate: the fit recovers a rate that rises with idle time
// from calls drawn from it, and keeps a constant rate where the idle
// times say nothing or are not known.
func TestFitMissRate(t *testing.T) {
	want := MissRate{A: -3*math.Log(60) - 0.5, B: 3} // one in two after 71 s
	var obs []MissObs
	for _, idle := range []time.Duration{5 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute} {
		p := want.At(idle)
		for k := range 100 {
			obs = append(obs, MissObs{Idle: idle, Missed: k < int(math.Round(p*100)), Weight: 1000})
		}
	}
	got := FitMissRate(obs)
	for _, idle := range []time.Duration{10 * time.Second, 45 * time.Second, 3 * time.Minute} {
		if g, w := got.At(idle), want.At(idle); math.Abs(g-w) > 0.03 {
			t.Errorf("after %s: fitted chance %.3f, want %.3f (%+v)", idle, g, w, got)
		}
	}
	if s := got.String(); !strings.Contains(s, "one in two after 1m1") {
		t.Errorf("%q does not say one in two after 70 to 79 s", s)
	}
	// Every idle time missed one call in four: no rise.
	obs = obs[:0]
	for _, idle := range []time.Duration{0, 10 * time.Second, 3 * time.Minute} {
		for k := range 40 {
			obs = append(obs, MissObs{Idle: idle, Missed: k%4 == 0, Weight: 1})
		}
	}
	if got := FitMissRate(obs); got != (MissRate{Mean: 0.25}) {
		t.Errorf("idle times that say nothing: fitted %+v, want a constant 0.25", got)
	}
	// Misses only after long spells: a steep rise, capped.
	obs = obs[:0]
	for range 20 {
		obs = append(obs, MissObs{Idle: time.Minute, Weight: 1}, MissObs{Idle: 4 * time.Minute, Missed: true, Weight: 1})
	}
	if got := FitMissRate(obs); got.B != 8 || got.At(time.Minute) > 0.01 || got.At(4*time.Minute) < 0.99 {
		t.Errorf("misses after long spells only: fitted %+v: %.3f after a minute, %.3f after 4", got, got.At(time.Minute), got.At(4*time.Minute))
	}
	// Idle times far apart: the fit stays a number.
	obs = obs[:0]
	for range 10 {
		obs = append(obs, MissObs{Idle: time.Second, Weight: 1}, MissObs{Idle: 1000 * time.Hour, Missed: true, Weight: 1})
	}
	if got := FitMissRate(obs); math.IsNaN(got.A) || math.IsInf(got.A, 0) || got.At(time.Second) > 0.01 || got.At(1000*time.Hour) < 0.99 {
		t.Errorf("idle times far apart: fitted %+v", got)
	}
	// The rate is weighed by the tokens at stake: one small miss in two
	// calls is a small share.
	if got := FitMissRate([]MissObs{{Missed: true, Weight: 1000}, {Weight: 9000}}); got != (MissRate{Mean: 0.1}) {
		t.Errorf("weighed: fitted %+v, want a constant 0.1", got)
	}
	if got := FitMissRate(nil); got != (MissRate{}) {
		t.Errorf("no calls: fitted %+v", got)
	}
}

// TestApportion: the shares sum to the total, each within a unit of its
// exact part.
func TestApportion(t *testing.T) {
	for _, c := range []struct {
		total   int64
		weights []float64
	}{
		{100, []float64{1, 1, 1}}, {7, []float64{0.5, 0, 2.5, 1}}, {0, []float64{3, 4}}, {5, []float64{0, 0}}, {123457, []float64{1e4, 3.3e4, 1.7, 9e5}},
	} {
		got := Apportion(c.total, c.weights)
		var sum int64
		w := 0.0
		for _, x := range c.weights {
			w += x
		}
		for i, x := range got {
			sum += x
			if w > 0 && math.Abs(float64(x)-c.weights[i]/w*float64(c.total)) >= 1 {
				t.Errorf("Apportion(%d, %v)[%d] = %d, over a unit from %.2f", c.total, c.weights, i, x, c.weights[i]/w*float64(c.total))
			}
		}
		if sum != c.total {
			t.Errorf("Apportion(%d, %v) = %v, summing to %d", c.total, c.weights, got, sum)
		}
	}
}

// TestMedianP90: an odd count's middle value, an even count's mean of
// the middle two, the value at rank ⌈0.9 n⌉.
func TestMedianP90(t *testing.T) {
	for _, c := range []struct {
		v        []float64
		med, p90 float64
	}{
		{[]float64{7}, 7, 7},
		{[]float64{1, 2, 3}, 2, 3},
		{[]float64{1, 2, 3, 4}, 2.5, 4},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 5.5, 9},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 6, 10},
	} {
		if med, p90 := MedianP90(c.v); med != c.med || p90 != c.p90 {
			t.Errorf("MedianP90(%v) = %v, %v; want %v, %v", c.v, med, p90, c.med, c.p90)
		}
	}
}

// TestMedianFloor: the upper middle value, never below 0.
func TestMedianFloor(t *testing.T) {
	for _, c := range []struct {
		d    []int
		want int
	}{
		{nil, 0}, {[]int{3}, 3}, {[]int{5, 1, 3}, 3}, {[]int{4, 1, 3, 2}, 3}, {[]int{-7, -2, -5}, 0},
	} {
		if got := MedianFloor(slices.Clone(c.d)); got != c.want {
			t.Errorf("MedianFloor(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}

// TestAbsSpread: the spread of the absolute values, whatever their sign
// and order.
func TestAbsSpread(t *testing.T) {
	med, p90, worst := AbsSpread([]float64{-4, 1, -2, 3})
	if med != 2.5 || p90 != 4 || worst != 4 {
		t.Errorf("AbsSpread = %v, %v, %v; want 2.5, 4, 4", med, p90, worst)
	}
	if med, p90, worst := AbsSpread(nil); med != 0 || p90 != 0 || worst != 0 {
		t.Errorf("AbsSpread(nil) = %v, %v, %v", med, p90, worst)
	}
}
