package suite

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// A Tol is a tolerance: a change passes when it is within Relative × the
// baseline value or within Absolute, whichever is larger.
type Tol struct {
	Relative float64 `json:"relative"`
	Absolute float64 `json:"absolute"`
}

// The metrics a tolerance can name.
var checkedMetrics = []string{"peak_tokens", "peak_messages", "input_tokens", "cost_usd", "cache_breaks", "cache_break_usd", "cache_miss_usd", "evictions", "summaries", "retention",
	"probe_score", "probe_artifact", "probe_recall", "probe_decision", "probe_continuation", "violations"}

// HigherIsBetter says which way a metric improves: retention and the
// probe scores up; every other metric — tokens, messages, cost, cache
// breaks, evictions, summaries, violations — down.
func HigherIsBetter(metric string) bool {
	return metric == "retention" || strings.HasPrefix(metric, "probe_")
}

// DefaultTolerance is what applies to a metric the config does not name:
// 2% relative for the numbers, and no change at all in the violations.
var DefaultTolerance = Tol{Relative: 0.02}

// Tolerances are per metric, with a default.
type Tolerances map[string]Tol

func (t Tolerances) of(metric string) Tol {
	if metric == "violations" {
		if v, ok := t[metric]; ok {
			return v
		}
		return Tol{}
	}
	if v, ok := t[metric]; ok {
		return v
	}
	if v, ok := t["default"]; ok {
		return v
	}
	return DefaultTolerance
}

// A Verdict is what a change of a metric means.
type Verdict int

const (
	// Within: the change is within its tolerance.
	Within Verdict = iota
	// Better: beyond its tolerance, in the direction the metric improves.
	Better
	// Worse: beyond its tolerance, in the other direction.
	Worse
)

func (v Verdict) String() string {
	return [...]string{"within", "better", "worse"}[v]
}

// A Delta is a metric that changed from the baseline.
type Delta struct {
	// Metric names it; a violation count is "violations.INVARIANT".
	Metric  string  `json:"metric"`
	Base    float64 `json:"baseline"`
	Now     float64 `json:"now"`
	Verdict Verdict `json:"verdict"`
	Tol     Tol     `json:"tolerance"`
}

// Pct is the change in percent of the baseline; ±Inf from 0.
func (d Delta) Pct() float64 {
	if d.Base == 0 {
		return math.Copysign(math.Inf(1), d.Now-d.Base)
	}
	return (d.Now - d.Base) / math.Abs(d.Base) * 100
}

// IsViolation reports whether the delta counts broken invariants.
func (d Delta) IsViolation() bool { return strings.HasPrefix(d.Metric, "violations.") }

// Compare returns the metrics that changed from base to now, each with
// its verdict: within its tolerance, better or worse. A count of broken
// invariants that grows is worse — a violation the baseline records is
// known, and fails only when it happens more often.
func Compare(base, now Metrics, tol Tolerances) []Delta {
	var out []Delta
	check := func(metric, name string, b, n float64) {
		if b == n {
			return
		}
		t := tol.of(metric)
		d := Delta{Metric: name, Base: b, Now: n, Tol: t}
		if math.Abs(n-b) > math.Max(t.Relative*math.Abs(b), t.Absolute)+1e-12 {
			if (n > b) == HigherIsBetter(metric) {
				d.Verdict = Better
			} else {
				d.Verdict = Worse
			}
		}
		out = append(out, d)
	}
	for _, m := range []struct {
		name string
		b, n float64
	}{
		{"peak_tokens", float64(base.PeakTokens), float64(now.PeakTokens)},
		{"peak_messages", float64(base.PeakMessages), float64(now.PeakMessages)},
		{"input_tokens", float64(base.InputTokens), float64(now.InputTokens)},
		{"cost_usd", base.CostUSD, now.CostUSD},
		{"evictions", float64(base.Evictions), float64(now.Evictions)},
		{"summaries", float64(base.Summaries), float64(now.Summaries)},
		{"retention", base.Retention, now.Retention},
	} {
		check(m.name, m.name, m.b, m.n)
	}
	// The cache breaks, where both runs were priced and the baseline
	// measured them.
	if base.CacheBreaks != nil && now.CacheBreaks != nil {
		check("cache_breaks", "cache_breaks", float64(*base.CacheBreaks), float64(*now.CacheBreaks))
	}
	if base.CacheBreakUSD != nil && now.CacheBreakUSD != nil {
		check("cache_break_usd", "cache_break_usd", *base.CacheBreakUSD, *now.CacheBreakUSD)
	}
	if base.CacheMissUSD != nil && now.CacheMissUSD != nil {
		check("cache_miss_usd", "cache_miss_usd", *base.CacheMissUSD, *now.CacheMissUSD)
	}
	// The probe scores, where the baseline asked probes (of the kind).
	for k, b := range base.probeShares() {
		if n := now.probeShares()[k]; b.v != nil && n.v != nil {
			check(b.name, b.name, *b.v, *n.v)
		}
	}
	names := maps.Clone(base.Violations)
	if names == nil {
		names = map[string]int{}
	}
	maps.Copy(names, now.Violations)
	for _, k := range slices.Sorted(maps.Keys(names)) {
		check("violations", "violations."+k, float64(base.Violations[k]), float64(now.Violations[k]))
	}
	return out
}

// A BudgetFailure is a metric beyond its budget.
type BudgetFailure struct {
	Budget string  `json:"budget"`
	Limit  float64 `json:"limit"`
	Got    float64 `json:"got"`
}

func (b BudgetFailure) String() string {
	switch b.Budget {
	case "min_retention":
		return fmt.Sprintf("retention %s is under the minimum %s (min_retention)", FormatNum(b.Got), FormatNum(b.Limit))
	case "min_probe_score":
		return fmt.Sprintf("probe score %s is under the minimum %s (min_probe_score)", FormatNum(b.Got), FormatNum(b.Limit))
	}
	return fmt.Sprintf("%s is over the budget %s (%s)", FormatNum(b.Got), FormatNum(b.Limit), b.Budget)
}

// FormatNum writes a metric's value: whole numbers with thousands
// separators, others to four significant digits.
func FormatNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		s := fmt.Sprintf("%.0f", math.Abs(v))
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		if v < 0 {
			s = "-" + s
		}
		return s
	}
	return fmt.Sprintf("%.4g", v)
}

// Budgets lists the budgets a config may set.
var Budgets = []string{"max_context_tokens", "max_messages", "max_cost_usd", "max_cache_break_usd", "max_cache_miss_usd", "min_retention", "min_probe_score"}

// CheckBudgets returns the budgets m exceeds. A budget not in [Budgets]
// is an error ([LoadConfig] rejects it first).
func CheckBudgets(m Metrics, budgets map[string]float64) ([]BudgetFailure, error) {
	var out []BudgetFailure
	for _, name := range slices.Sorted(maps.Keys(budgets)) {
		limit := budgets[name]
		var got float64
		over := false
		switch name {
		case "max_context_tokens":
			got = float64(m.PeakTokens)
			over = got > limit
		case "max_messages":
			got = float64(m.PeakMessages)
			over = got > limit
		case "max_cost_usd":
			got = m.CostUSD
			over = got > limit
		case "max_cache_break_usd":
			// What re-billing after the policy's cache breaks cost (not
			// priced: nil, which Run refuses first).
			if m.CacheBreakUSD != nil {
				got = *m.CacheBreakUSD
			}
			over = got > limit
		case "max_cache_miss_usd":
			// What the provider's cache misses cost (nothing billed: nil).
			if m.CacheMissUSD != nil {
				got = *m.CacheMissUSD
			}
			over = got > limit
		case "min_retention":
			got = m.Retention
			over = got < limit
		case "min_probe_score":
			// The share of the probes kept (a run measured before
			// ctxbench asked probes has none: 1, nothing lost is known).
			got = 1
			if m.ProbeScore != nil {
				got = *m.ProbeScore
			}
			over = got < limit
		default:
			return nil, fmt.Errorf("budgets: unknown budget %q (valid: %s)", name, strings.Join(Budgets, ", "))
		}
		if over {
			out = append(out, BudgetFailure{Budget: name, Limit: limit, Got: got})
		}
	}
	return out, nil
}
