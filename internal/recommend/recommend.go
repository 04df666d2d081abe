// Package recommend weighs the settings a report or a sweep compares
// (`ctxbench sweep`, `ctxbench report`): which are Pareto-best in spend
// and probes kept, the one to recommend above a probe-score floor, and
// what a sweep's grid keys changed.
package recommend

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/window"
)

// DefaultMinProbeScore is the probe score a recommended setting keeps at
// least unless told otherwise: it loses at most a tenth of the probes.
const DefaultMinProbeScore = 0.9

// A Candidate is a setting the recommendation weighs, over the same
// transcripts as the others: a sweep's point or baseline, or a
// report's policy.
type Candidate struct {
	Label string `json:"label"`
	// Baseline marks none, recorded and the agent's own policy: rows to
	// compare with, in the Pareto front like any other.
	Baseline bool `json:"baseline,omitempty"`
	// CostUSD is what the runs cost over the Priced transcripts; Tokens
	// what they sent.
	CostUSD float64 `json:"cost_usd"`
	Priced  int     `json:"priced"`
	// Transcripts are those it ran on (sessions, for a report's policy).
	Transcripts int   `json:"transcripts"`
	Tokens      int64 `json:"tokens"`
	// ProbeScore is the share of the probes not lost, of Probes.
	ProbeScore float64 `json:"probe_score"`
	ProbesLost int     `json:"probes_lost"`
	Probes     int     `json:"probes"`
	// Violations are the invariants broken, by name, and how often.
	Violations map[string]int `json:"violations,omitempty"`
}

// Clean reports whether c breaks no invariant.
func (c *Candidate) Clean() bool {
	for _, n := range c.Violations {
		if n > 0 {
			return false
		}
	}
	return true
}

// comparesByCost reports whether candidates compare by cost: each prices the
// same transcripts, one at least; else they compare by tokens sent.
func comparesByCost(cs []Candidate) bool {
	if len(cs) == 0 {
		return false
	}
	for _, c := range cs {
		if c.Priced == 0 || c.Priced != cs[0].Priced {
			return false
		}
	}
	return true
}

// spender is what a candidate spends: dollars when byCost, else tokens.
func spender(byCost bool) func(c *Candidate) float64 {
	if byCost {
		return func(c *Candidate) float64 { return c.CostUSD }
	}
	return func(c *Candidate) float64 { return float64(c.Tokens) }
}

// Pareto marks the candidates that break no invariant and that no other
// such candidate, baselines included, beats on both spend (fewer dollars
// when each is priced over the same transcripts, else fewer tokens) and
// probe score (more); a candidate that is no baseline is also not marked
// when a baseline matches it on both (it adds nothing to the baseline).
func Pareto(cs []Candidate) []bool {
	spend := spender(comparesByCost(cs))
	best := make([]bool, len(cs))
	for i := range cs {
		p := &cs[i]
		best[i] = p.Clean()
		for j := 0; best[i] && j < len(cs); j++ {
			q := &cs[j]
			if j != i && q.Clean() && spend(q) <= spend(p) && q.ProbeScore >= p.ProbeScore &&
				(spend(q) < spend(p) || q.ProbeScore > p.ProbeScore || q.Baseline && !p.Baseline) {
				best[i] = false
			}
		}
	}
	return best
}

// A Recommendation is the answer to "what should I set?": the cheapest
// setting that keeps at least MinProbeScore of the probes and breaks no
// invariant (recorded, which no one can set, aside), or, when none that
// spends less than sending everything does, the closest one and what it
// lacks.
type Recommendation struct {
	MinProbeScore float64 `json:"min_probe_score"`
	// ByCost: spends compare in dollars, else in tokens sent.
	ByCost bool `json:"by_cost"`
	// Best is the chosen candidate (nil when nothing qualifies) and
	// BestIndex its index (-1: none).
	Best      *Candidate `json:"best,omitempty"`
	BestIndex int        `json:"best_index"`
	// Closest is, when nothing that spends less than none qualifies, the
	// candidate spending less than none nearest to qualifying (clean
	// first, then the highest probe score), and Lacks what it lacks;
	// ClosestIndex -1: no candidate spends less than none.
	Closest      *Candidate `json:"closest,omitempty"`
	ClosestIndex int        `json:"closest_index"`
	Lacks        string     `json:"lacks,omitempty"`
	// None and Recorded are the baselines' indices (-1: not weighed);
	// VsNone and VsRecorded the share of their spend Best saves
	// (negative: it spends more; nil: no such baseline, one that spends
	// nothing, or no Best).
	None       int      `json:"none_index"`
	Recorded   int      `json:"recorded_index"`
	VsNone     *float64 `json:"vs_none,omitempty"`
	VsRecorded *float64 `json:"vs_recorded,omitempty"`
	// AllCostMore: no candidate but the baselines spends less than
	// none.
	AllCostMore bool `json:"all_cost_more"`
	// Pareto marks the Pareto-best candidates ([Pareto]); NoStar says,
	// when no candidate but a baseline is, why ("" when one is).
	Pareto []bool `json:"pareto"`
	NoStar string `json:"no_star,omitempty"`
}

// Recommend weighs cs, floor being the least probe score a recommended
// setting keeps (≤ 0: [DefaultMinProbeScore]). A baseline is found by
// its label: "none" and "recorded".
func Recommend(cs []Candidate, floor float64) Recommendation {
	if floor <= 0 {
		floor = DefaultMinProbeScore
	}
	by := comparesByCost(cs)
	spend := spender(by)
	r := Recommendation{MinProbeScore: floor, ByCost: by, BestIndex: -1, ClosestIndex: -1,
		None:     slices.IndexFunc(cs, func(c Candidate) bool { return c.Label == "none" }),
		Recorded: slices.IndexFunc(cs, func(c Candidate) bool { return c.Label == "recorded" }),
		Pareto:   Pareto(cs)}
	for k := range cs {
		c := &cs[k]
		if k == r.Recorded || !c.Clean() || c.ProbeScore < floor {
			continue
		}
		if b := r.BestIndex; b < 0 || spend(c) < spend(&cs[b]) || spend(c) == spend(&cs[b]) && c.Baseline && !cs[b].Baseline {
			r.BestIndex = k // a baseline over a setting that spends as much
		}
	}
	if r.BestIndex >= 0 {
		r.Best = &cs[r.BestIndex]
		share := func(i int) *float64 {
			if i < 0 || spend(&cs[i]) <= 0 {
				return nil
			}
			return new(1 - spend(r.Best)/spend(&cs[i]))
		}
		r.VsNone, r.VsRecorded = share(r.None), share(r.Recorded)
	}
	if r.None >= 0 && (r.BestIndex < 0 || r.BestIndex == r.None) {
		r.closest(cs, spend)
	}
	if r.None >= 0 {
		r.AllCostMore = slices.ContainsFunc(cs, func(c Candidate) bool { return !c.Baseline }) &&
			!slices.ContainsFunc(cs, func(c Candidate) bool { return !c.Baseline && spend(&c) < spend(&cs[r.None]) })
	}
	r.NoStar = noStar(cs, r.Pareto, spend, by)
	return r
}

// closest sets the candidate spending less than none nearest to
// qualifying, and what it lacks.
func (r *Recommendation) closest(cs []Candidate, spend func(*Candidate) float64) {
	for k := range cs {
		c := &cs[k]
		if k == r.Recorded || k == r.None || spend(c) >= spend(&cs[r.None]) {
			continue
		}
		if r.ClosestIndex < 0 {
			r.ClosestIndex = k
			continue
		}
		b := &cs[r.ClosestIndex]
		if c.Clean() != b.Clean() {
			if c.Clean() {
				r.ClosestIndex = k
			}
			continue
		}
		if c.ProbeScore > b.ProbeScore || c.ProbeScore == b.ProbeScore && spend(c) < spend(b) {
			r.ClosestIndex = k
		}
	}
	if r.ClosestIndex < 0 {
		return
	}
	c := &cs[r.ClosestIndex]
	r.Closest = c
	var lacks []string
	if c.ProbeScore < r.MinProbeScore {
		lacks = append(lacks, fmt.Sprintf("%s of probes (floor %s)", Percent(c.ProbeScore), Percent(r.MinProbeScore)))
	}
	if !c.Clean() {
		lacks = append(lacks, "breaks "+invariantList(c.Violations))
	}
	r.Lacks = strings.Join(lacks, ", ")
}

// noStar says why no candidate but a baseline is Pareto-best: every one
// breaks an invariant (naming those every one breaks), or a baseline
// beats each; "" when one is.
func noStar(cs []Candidate, best []bool, spend func(*Candidate) float64, byCost bool) string {
	var own []int
	for k := range cs {
		if !cs[k].Baseline {
			own = append(own, k)
			if best[k] {
				return ""
			}
		}
	}
	if len(own) == 0 {
		return ""
	}
	if !slices.ContainsFunc(own, func(k int) bool { return cs[k].Clean() }) {
		// The invariants every point breaks.
		var common map[string]int
		for _, k := range own {
			v := cs[k].Violations
			if common == nil {
				common = maps.Clone(v)
			}
			for name := range common {
				if v[name] == 0 {
					delete(common, name)
				}
			}
		}
		if len(common) > 0 {
			return "every point breaks " + invariantList(common)
		}
		return "every point breaks an invariant"
	}
	for _, b := range cs {
		if !b.Baseline || !b.Clean() {
			continue
		}
		beats := true
		for _, k := range own {
			c := &cs[k]
			if c.Clean() && !(spend(&b) <= spend(c) && b.ProbeScore >= c.ProbeScore) {
				beats = false
				break
			}
		}
		if beats {
			return "every point that breaks no invariant " + map[bool]string{true: "costs", false: "sends"}[byCost] + " at least as much as " + b.Label + " and keeps no more probes"
		}
	}
	return "every point that breaks no invariant is beaten by a baseline"
}

// invariantList names the invariants broken in v, in order.
func invariantList(v map[string]int) string {
	var names []string
	for _, k := range slices.Sorted(maps.Keys(v)) {
		if v[k] > 0 {
			names = append(names, strings.ReplaceAll(k, "_", " "))
		}
	}
	return strings.Join(names, ", ")
}

// Percent is a share as a whole percentage where that is exact to the
// unit, and to one decimal, floored, where a whole one would round: 89.6%
// neither reads as the 90% it misses nor contradicts the 90% a table
// rounds it to.
func Percent(s float64) string {
	p := s * 100
	if whole := math.Floor(p + 1e-9); math.Round(p) == whole {
		return fmt.Sprintf("%d%%", int(whole))
	}
	return fmt.Sprintf("%.1f%%", math.Floor(p*10+1e-9)/10)
}

// A SweepAnswer is a sweep's recommendation: its points, then its
// baselines, as candidates, weighed; the grid keys that changed
// nothing; and, when no point is Pareto-best, a setting to try.
type SweepAnswer struct {
	Recommendation
	// Candidates are the points, in order, then the baselines.
	Candidates []Candidate `json:"-"`
	// Unchanged says of each grid key that changed no row where it did
	// not.
	Unchanged []string `json:"unchanged,omitempty"`
	// Hint is a setting to try when no point is Pareto-best ("": none).
	Hint string `json:"hint,omitempty"`
}

// Answer weighs the sweep r's points and baselines against each other,
// floor being the least probe score a recommended one keeps (≤ 0:
// [DefaultMinProbeScore]).
func Answer(r *replay.SweepResult, floor float64) SweepAnswer {
	var cs []Candidate
	for i := range r.Points {
		cs = append(cs, candidate(r, &r.Points[i]))
	}
	for i := range r.Baselines {
		cs = append(cs, candidate(r, &r.Baselines[i]))
	}
	a := SweepAnswer{Recommendation: Recommend(cs, floor), Candidates: cs, Unchanged: unchanged(r)}
	if strings.Contains(a.NoStar, "tool pairing") && r.Base["pair_safe"] != "true" && !slices.ContainsFunc(r.Grid, func(g replay.GridKey) bool { return g.Key == "pair_safe" }) {
		if s, err := window.Lookup(r.Policy); err == nil && hasParam(s, "pair_safe") {
			a.Hint = "pair_safe=true"
		}
	}
	return a
}

// candidate is p, a point of r, as a candidate.
func candidate(r *replay.SweepResult, p *replay.Point) Candidate {
	lost, of := p.ProbeLoss.Totals()
	return Candidate{Label: r.PointLabel(p), Baseline: p.Label != "", CostUSD: p.CostUSD, Priced: p.Priced, Transcripts: p.Transcripts, Tokens: p.InputTokens,
		ProbeScore: p.ProbeScore, ProbesLost: lost, Probes: of, Violations: p.Violations}
}

// sameRow reports whether two points have the same results.
func sameRow(a, b *replay.Point) bool {
	al, ao := a.ProbeLoss.Totals()
	bl, bo := b.ProbeLoss.Totals()
	return a.InputTokens == b.InputTokens && a.Cost == b.Cost && al == bl && ao == bo && a.Evictions == b.Evictions &&
		a.Truncations == b.Truncations && a.Summaries == b.Summaries && a.PeakMessages == b.PeakMessages &&
		maps.Equal(nonZero(a.Violations), nonZero(b.Violations))
}

func nonZero(v map[string]int) map[string]int {
	out := map[string]int{}
	for k, n := range v {
		if n != 0 {
			out[k] = n
		}
	}
	return out
}

// unchanged says of each of r's grid keys of two values or more that changed no
// row, "K changed nothing on these sessions", or, when it changed rows
// only below some value of another numeric key, "K (V1, V2) changed no
// row at O ≥ X".
func unchanged(r *replay.SweepResult) []string {
	var out []string
	for k, g := range r.Grid {
		if len(g.Values) < 2 {
			continue
		}
		// The points that differ in g's value alone, grouped.
		groups := map[string][]*replay.Point{}
		var order []string
		for i := range r.Points {
			p := &r.Points[i]
			var kv []string
			for o, h := range r.Grid {
				if o != k {
					kv = append(kv, h.Key+"="+p.Params[h.Key])
				}
			}
			key := strings.Join(kv, ",")
			if _, ok := groups[key]; !ok {
				order = append(order, key)
			}
			groups[key] = append(groups[key], p)
		}
		same := map[string]bool{}
		all := len(order) > 0
		for _, key := range order {
			ps := groups[key]
			same[key] = len(ps) > 1 && !slices.ContainsFunc(ps[1:], func(p *replay.Point) bool { return !sameRow(ps[0], p) })
			all = all && same[key]
		}
		values := strings.Join(g.Values, ", ")
		if all {
			out = append(out, fmt.Sprintf("%s (%s) changed nothing on these sessions", g.Key, values))
			continue
		}
		// Another numeric key above whose threshold g changes nothing.
		for o, h := range r.Grid {
			if o == k || len(h.Values) < 2 {
				continue
			}
			if at := unchangedFrom(groups, order, same, h); at != "" {
				out = append(out, fmt.Sprintf("%s (%s) changed no row at %s ≥ %s", g.Key, values, h.Key, at))
				break
			}
		}
	}
	return out
}

// unchangedFrom returns the least value of h from which on (h's values
// in increasing numeric order) every group of points is the same, h
// changing rows below it; "" when there is none such.
func unchangedFrom(groups map[string][]*replay.Point, order []string, same map[string]bool, h replay.GridKey) string {
	vals := make([]float64, len(h.Values))
	for i, v := range h.Values {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return ""
		}
		vals[i] = x
	}
	// sameAt[v]: every group whose h is v is the same.
	sameAt := map[string]bool{}
	for _, v := range h.Values {
		sameAt[v] = true
	}
	for _, key := range order {
		v := groups[key][0].Params[h.Key]
		sameAt[v] = sameAt[v] && same[key]
	}
	idx := make([]int, len(vals))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(vals[a], vals[b]) })
	from := len(idx)
	for from > 0 && sameAt[h.Values[idx[from-1]]] {
		from--
	}
	if from == 0 || from == len(idx) {
		return ""
	}
	return h.Values[idx[from]]
}

// hasParam reports whether the policy s takes the parameter name.
func hasParam(s *window.Spec, name string) bool {
	for _, p := range s.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}
