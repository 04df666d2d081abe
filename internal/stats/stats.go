// Package stats holds the statistics of the cost projection (package
// cost and internal/projection), fed plain numbers: the median and 90th
// percentile of a distribution, the sharing of a total out by weights,
// and the chance of a cache miss by idle time fitted to observed calls.
package stats

import (
	"math"
	"slices"
)

// MedianP90 returns the median of sorted, a non-empty sorted slice (of
// an even count, the mean of the middle two), and its 90th percentile:
// the value at rank ⌈0.9 n⌉.
func MedianP90(sorted []float64) (med, p90 float64) {
	n := len(sorted)
	med = sorted[n/2]
	if n%2 == 0 {
		med = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return med, sorted[int(math.Ceil(0.9*float64(n)))-1]
}

// Apportion shares total out in proportion to weights (each at least
// 0), in whole units that sum to total: each share is the rounded
// running sum less the one before, so no share passes its weight's
// exact part by a unit or more. With no weight, the last takes it all.
func Apportion(total int64, weights []float64) []int64 {
	out := make([]int64, len(weights))
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	if len(out) == 0 {
		return out
	}
	if sum <= 0 {
		out[len(out)-1] = total
		return out
	}
	run, prev := 0.0, int64(0)
	for i, w := range weights {
		run += w
		cum := int64(math.Round(run / sum * float64(total)))
		if i == len(weights)-1 {
			cum = total
		}
		out[i], prev = cum-prev, cum
	}
	return out
}

// MedianFloor returns the upper median of d (of an even count, the
// larger of the middle two), at least 0; 0 for no value. It sorts d.
func MedianFloor(d []int) int {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return max(0, d[len(d)/2])
}

// AbsSpread returns the median of v's absolute values (of an even count,
// the mean of the middle two), their 90th percentile (the value at rank
// ⌈0.9 n⌉) and the largest; 0, 0 and 0 for no value.
func AbsSpread(v []float64) (med, p90, worst float64) {
	a := make([]float64, len(v))
	for i, x := range v {
		a[i] = math.Abs(x)
	}
	slices.Sort(a)
	if len(a) == 0 {
		return 0, 0, 0
	}
	med, p90 = MedianP90(a)
	return med, p90, a[len(a)-1]
}
