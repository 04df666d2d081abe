// Package sweepgrid reads the grid a sweep runs over (`ctxbench sweep
// --grid`): each swept parameter's values, from a range or a list, and
// how many points their product has.
package sweepgrid

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/window"
)

// ParseGrid reads KEY=LO:HI:STEP (finite numbers, both ends included,
// STEP > 0, at most 100 000 values) or KEY=V1,V2,… (each value
// once).
func ParseGrid(s string) (replay.GridKey, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return replay.GridKey{}, fmt.Errorf("grid %.80q: want KEY=LO:HI:STEP or KEY=V1,V2,…", s)
	}
	g := replay.GridKey{Key: k}
	if parts := strings.Split(v, ":"); len(parts) == 3 {
		var f [3]float64
		isInt := true
		for i, p := range parts {
			x, err := strconv.ParseFloat(p, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return replay.GridKey{}, fmt.Errorf("grid %s: %.40q is not a finite number", k, p)
			}
			f[i] = x
			isInt = isInt && !strings.ContainsAny(p, ".eE")
		}
		lo, hi, step := f[0], f[1], f[2]
		if step <= 0 || hi < lo {
			return replay.GridKey{}, fmt.Errorf("grid %s: want LO ≤ HI and STEP > 0", k)
		}
		n := math.Floor((hi-lo)/step+1e-9) + 1
		if n > maxGridValues {
			return replay.GridKey{}, fmt.Errorf("grid %s: %.4g values, more than %d", k, n, maxGridValues)
		}
		for i := range int(n) {
			x := lo + float64(i)*step
			if isInt {
				g.Values = append(g.Values, strconv.FormatInt(int64(math.Round(x)), 10))
			} else {
				g.Values = append(g.Values, strconv.FormatFloat(math.Round(x*1e9)/1e9, 'g', -1, 64))
			}
		}
	} else {
		for _, x := range strings.Split(v, ",") {
			if strings.Contains(x, ":") {
				// Not a list: a range without all three of its numbers.
				return replay.GridKey{}, fmt.Errorf("grid %s: %.40q: want LO:HI:STEP (three numbers) or V1,V2,…", k, x)
			}
			if x = strings.TrimSpace(x); x != "" {
				g.Values = append(g.Values, x)
			}
		}
	}
	if len(g.Values) == 0 {
		return replay.GridKey{}, fmt.Errorf("grid %s: no values", k)
	}
	seen := map[string]bool{}
	for _, x := range g.Values {
		if seen[x] {
			return replay.GridKey{}, fmt.Errorf("grid %s: the value %.40q twice (a step finer than the values' precision?)", k, x)
		}
		seen[x] = true
	}
	return g, nil
}

// maxGridValues is the most values one grid key may take.
const maxGridValues = 100_000

// GridPoints returns how many points the grid has, after checking that
// no key is given twice; a count over limit is an error (limit ≤ 0:
// none). It does not overflow: it stops counting past the limit.
func GridPoints(grid []replay.GridKey, limit int) (int, error) {
	seen := map[string]bool{}
	n := 1
	for _, g := range grid {
		if seen[g.Key] {
			return 0, fmt.Errorf("grid %s given twice", g.Key)
		}
		seen[g.Key] = true
		if limit > 0 && n > limit/max(len(g.Values), 1) {
			return 0, fmt.Errorf("the grid has more than %d points", limit)
		}
		n *= len(g.Values)
	}
	if limit > 0 && n > limit {
		return 0, fmt.Errorf("the grid has %d points, more than %d", n, limit)
	}
	return n, nil
}

// Changed returns the parameters of p that differ from their defaults,
// what a sweep's points share (a chain's named "policy.param", as its
// Params are).
func Changed(p window.Policy) map[string]string {
	out := map[string]string{}
	chain := strings.Contains(p.Name(), "+")
	for k, v := range p.Params() {
		name, key := p.Name(), k
		if chain {
			name, key, _ = strings.Cut(k, ".")
		}
		s, err := window.Lookup(name)
		if err != nil {
			continue
		}
		for _, pa := range s.Params {
			if pa.Name == key && v != pa.Default {
				out[k] = v
			}
		}
	}
	return out
}
