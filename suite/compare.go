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
var checkedMetrics = []string{"peak_tokens", "peak_messages", "input_tokens", "cost_usd", "evictions", "summaries", "retention", "violations"}

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

// A Regression is a metric that moved beyond its tolerance.
type Regression struct {
	Key    string  `json:"key"`
	Metric string  `json:"metric"`
	Want   float64 `json:"want"`
	Got    float64 `json:"got"`
	Tol    Tol     `json:"tolerance"`
}

func (r Regression) String() string {
	return fmt.Sprintf("%s: %s moved from %s to %s (tolerance %.3g relative, %.3g absolute)", r.Key, r.Metric, fmtNum(r.Want), fmtNum(r.Got), r.Tol.Relative, r.Tol.Absolute)
}

func fmtNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.4g", v)
}

// Compare returns the metrics of got that moved from want beyond tol.
func Compare(key string, want, got Metrics, tol Tolerances) []Regression {
	var out []Regression
	check := func(metric, name string, w, g float64) {
		t := tol.of(metric)
		if math.Abs(g-w) > math.Max(t.Relative*math.Abs(w), t.Absolute)+1e-12 {
			out = append(out, Regression{Key: key, Metric: name, Want: w, Got: g, Tol: t})
		}
	}
	for _, m := range []struct {
		name string
		w, g float64
	}{
		{"peak_tokens", float64(want.PeakTokens), float64(got.PeakTokens)},
		{"peak_messages", float64(want.PeakMessages), float64(got.PeakMessages)},
		{"input_tokens", float64(want.InputTokens), float64(got.InputTokens)},
		{"cost_usd", want.CostUSD, got.CostUSD},
		{"evictions", float64(want.Evictions), float64(got.Evictions)},
		{"summaries", float64(want.Summaries), float64(got.Summaries)},
		{"retention", want.Retention, got.Retention},
	} {
		check(m.name, m.name, m.w, m.g)
	}
	names := maps.Clone(want.Violations)
	if names == nil {
		names = map[string]int{}
	}
	maps.Copy(names, got.Violations)
	for _, k := range slices.Sorted(maps.Keys(names)) {
		check("violations", "violations."+k, float64(want.Violations[k]), float64(got.Violations[k]))
	}
	return out
}

// A BudgetFailure is a metric over its budget.
type BudgetFailure struct {
	Key    string  `json:"key"`
	Budget string  `json:"budget"`
	Limit  float64 `json:"limit"`
	Got    float64 `json:"got"`
}

func (b BudgetFailure) String() string {
	return fmt.Sprintf("%s: %s is %s, the budget is %s", b.Key, b.Budget, fmtNum(b.Got), fmtNum(b.Limit))
}

// Budgets lists the budgets a config may set.
var Budgets = []string{"max_context_tokens", "max_messages", "max_cost_usd", "min_retention"}

// CheckBudgets returns the budgets m exceeds. A budget not in [Budgets]
// is an error ([LoadConfig] rejects it first).
func CheckBudgets(key string, m Metrics, budgets map[string]float64) ([]BudgetFailure, error) {
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
		case "min_retention":
			got = m.Retention
			over = got < limit
		default:
			return nil, fmt.Errorf("budgets: unknown budget %q (valid: %s)", name, strings.Join(Budgets, ", "))
		}
		if over {
			out = append(out, BudgetFailure{Key: key, Budget: name, Limit: limit, Got: got})
		}
	}
	return out, nil
}
