package suitecheck

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/metric"
)

// A Tol is a tolerance: a change passes when it is within Relative × the
// baseline value or within Absolute, whichever is larger.
type Tol struct {
	Relative float64 `json:"relative"`
	Absolute float64 `json:"absolute"`
}

// DefaultTolerance is what applies to a metric the config does not name:
// 2% relative for the numbers, and no change at all in the violations.
var DefaultTolerance = Tol{Relative: 0.02}

// Tolerances are per metric, with a default.
type Tolerances map[string]Tol

func (t Tolerances) of(name string) Tol {
	if name == "violations" {
		if v, ok := t[name]; ok {
			return v
		}
		return Tol{}
	}
	if v, ok := t[name]; ok {
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
	check := func(checked, name string, b, n float64) {
		if b == n {
			return
		}
		t := tol.of(checked)
		d := Delta{Metric: name, Base: b, Now: n, Tol: t}
		if math.Abs(n-b) > math.Max(t.Relative*math.Abs(b), t.Absolute)+1e-12 {
			if (n > b) == higherIsBetter(checked) {
				d.Verdict = Better
			} else {
				d.Verdict = Worse
			}
		}
		out = append(out, d)
	}
	for _, mt := range metric.All() {
		// A metric either run does not measure is not compared.
		b, okb := mt.Of(&base)
		n, okn := mt.Of(&now)
		if okb && okn {
			check(mt.Name, mt.Name, b, n)
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
	if mt, ok := metric.Budgeted(b.Budget); ok && mt.HigherIsBetter {
		return fmt.Sprintf("%s %s is under the minimum %s (%s)", strings.ReplaceAll(mt.Name, "_", " "), FormatNum(b.Got), FormatNum(b.Limit), b.Budget)
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

// CheckBudgets returns the budgets m exceeds. A budget the registry does
// not name is an error ([LoadConfig] rejects it first).
func CheckBudgets(m Metrics, budgets map[string]float64) ([]BudgetFailure, error) {
	var out []BudgetFailure
	for _, name := range slices.Sorted(maps.Keys(budgets)) {
		limit := budgets[name]
		mt, ok := metric.Budgeted(name)
		if !ok {
			return nil, fmt.Errorf("budgets: unknown budget %q (valid: %s)", name, strings.Join(budgetNames, ", "))
		}
		got, ok := mt.Of(&m)
		if !ok {
			got = mt.Unmeasured
		}
		over := got > limit
		if mt.HigherIsBetter {
			over = got < limit
		}
		if over {
			out = append(out, BudgetFailure{Budget: name, Limit: limit, Got: got})
		}
	}
	return out, nil
}
