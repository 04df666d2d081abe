// Package metric is the one registry of the numbers ctxbench measures of
// a policy's run of a transcript: each one's name, heading, unit, the
// way it improves, how the runs of several sessions fold it, the budget
// that limits it and where a [Row] keeps it. The tables of runs, of
// sweep points and of policy totals, the rows files, `ctxbench check`'s
// baseline, its comparisons and its budgets all read [All] or [Shown];
// a metric is added by an entry of the registry (and, for one the tables
// show, its computation from a run's summary in replay).
package metric

import (
	"math"
	"slices"
)

// A Metric is one number of a run.
type Metric struct {
	// Name names it in CSV headers, JSON, the baseline and the
	// tolerances (snake_case); Heading in the tables people read.
	Name, Heading string
	Unit          Unit
	// HigherIsBetter says it improves upward (retention, the probe
	// scores); every other metric improves downward.
	HigherIsBetter bool
	// Shown says every table of runs, of sweep points and of policy
	// totals shows it after the columns each table names itself, and the
	// rows files, sweep points and baseline keep it among their values
	// ([Row.Values]); Fold is then how the runs of several sessions make
	// one value.
	Shown bool
	Fold  Fold
	// Budget names the config's budget on it ("": none): a maximum, or a
	// minimum for a metric that improves upward. Unmeasured is the value
	// the budget checks in a case that does not measure the metric.
	Budget     string
	Unmeasured float64
	// of returns the metric in r, false when r does not measure it.
	of func(r *Row) (float64, bool)
}

// Of returns the metric in r, false when r does not measure it (the run
// is not priced, or the baseline was recorded before ctxbench measured
// it): then it is not compared.
func (m *Metric) Of(r *Row) (float64, bool) { return m.of(r) }

// A Unit is what a metric counts.
type Unit string

// The units: tokens, messages, a count (of events), a share (0 to 1), or
// dollars.
const (
	Tokens   Unit = "tokens"
	Messages Unit = "messages"
	Count    Unit = "count"
	Share    Unit = "share"
	USD      Unit = "usd"
)

// Whole says the unit counts whole things: tokens, messages or events.
func (u Unit) Whole() bool { return u == Tokens || u == Messages || u == Count }

// A Fold is how the runs of several sessions make one value.
type Fold int

// The folds: the sum, the most, the least and the mean over the
// sessions.
const (
	FoldSum Fold = iota
	FoldMax
	FoldMin
	FoldMean
)

// list is the registry, in the order a case's changes are listed; the
// Shown ones in the order the tables show them.
var list = []Metric{
	{Name: "peak_tokens", Unit: Tokens, Budget: "max_context_tokens", of: func(r *Row) (float64, bool) { return float64(r.PeakTokens), true }},
	{Name: "peak_messages", Unit: Messages, Budget: "max_messages", of: func(r *Row) (float64, bool) { return float64(r.PeakMessages), true }},
	{Name: "input_tokens", Unit: Tokens, of: func(r *Row) (float64, bool) { return float64(r.InputTokens), true }},
	{Name: "cost_usd", Unit: USD, Budget: "max_cost_usd", of: func(r *Row) (float64, bool) { return r.CostUSD, true }},
	{Name: "evictions", Unit: Count, of: func(r *Row) (float64, bool) { return float64(r.Evictions), true }},
	{Name: "summaries", Unit: Count, of: func(r *Row) (float64, bool) { return float64(r.Summaries), true }},
	{Name: "retention", Unit: Share, HigherIsBetter: true, Budget: "min_retention", of: func(r *Row) (float64, bool) { return r.Retention, true }},
	{Name: "cache_breaks", Unit: Count, of: func(r *Row) (float64, bool) { return optional(r.CacheBreaks) }},
	{Name: "cache_break_usd", Unit: USD, Budget: "max_cache_break_usd", of: func(r *Row) (float64, bool) { return optional(r.CacheBreakUSD) }},
	{Name: "cache_miss_usd", Unit: USD, Budget: "max_cache_miss_usd", of: func(r *Row) (float64, bool) { return optional(r.CacheMissUSD) }},
	// A run measured before ctxbench asked probes has none: 1, nothing
	// lost is known.
	{Name: "probe_score", Unit: Share, HigherIsBetter: true, Budget: "min_probe_score", Unmeasured: 1, of: func(r *Row) (float64, bool) { return optional(r.ProbeScore) }},
	{Name: "probe_artifact", Unit: Share, HigherIsBetter: true, of: func(r *Row) (float64, bool) { return optional(r.ProbeArtifact) }},
	{Name: "probe_recall", Unit: Share, HigherIsBetter: true, of: func(r *Row) (float64, bool) { return optional(r.ProbeRecall) }},
	{Name: "probe_decision", Unit: Share, HigherIsBetter: true, of: func(r *Row) (float64, bool) { return optional(r.ProbeDecision) }},
	{Name: "probe_continuation", Unit: Share, HigherIsBetter: true, of: func(r *Row) (float64, bool) { return optional(r.ProbeContinuation) }},
	shown(Metric{Name: "worst_retention", Heading: "worst retention", Unit: Share, HigherIsBetter: true, Fold: FoldMin}),
}

// shown returns m as a metric the tables show, kept in a row's Values.
func shown(m Metric) Metric {
	m.Shown = true
	m.of = func(r *Row) (float64, bool) { v, ok := r.Values[m.Name]; return v, ok }
	return m
}

func optional[T int | float64](v *T) (float64, bool) {
	if v == nil {
		return 0, false
	}
	return float64(*v), true
}

// All returns the metrics, in the order a case's changes are listed (a
// copy: the registry itself cannot be changed).
func All() []Metric { return slices.Clone(list) }

// Shown returns the metrics every table shows ([Metric.Shown]), in the
// order the tables show them.
func Shown() []Metric {
	var out []Metric
	for _, m := range list {
		if m.Shown {
			out = append(out, m)
		}
	}
	return out
}

// Named returns the metric named name, false when none is.
func Named(name string) (Metric, bool) {
	i := slices.IndexFunc(list, func(m Metric) bool { return m.Name == name })
	if i < 0 {
		return Metric{}, false
	}
	return list[i], true
}

// Budgeted returns the metric the budget named budget limits, false
// when none does.
func Budgeted(budget string) (Metric, bool) {
	i := slices.IndexFunc(list, func(m Metric) bool { return m.Budget != "" && m.Budget == budget })
	if i < 0 {
		return Metric{}, false
	}
	return list[i], true
}

// Budgets lists the budgets a config may set: the maxima, then the
// minima.
func Budgets() []string {
	var maxima, minima []string
	for _, m := range list {
		switch {
		case m.Budget == "":
		case m.HigherIsBetter:
			minima = append(minima, m.Budget)
		default:
			maxima = append(maxima, m.Budget)
		}
	}
	return append(maxima, minima...)
}

// Values are the [Shown] metrics of a run, or of runs folded, by name.
type Values map[string]float64

// A Folder folds the [Shown] metrics of runs of several sessions, one
// session at a time, in the order added.
type Folder struct {
	of       []Metric // nil: Shown
	sums     []float64
	sessions int
}

func (f *Folder) metrics() []Metric {
	if f.of == nil {
		f.of = Shown()
	}
	return f.of
}

// Add adds a session's run.
func (f *Folder) Add(v Values) {
	ms := f.metrics()
	if f.sums == nil {
		f.sums = make([]float64, len(ms))
	}
	for i, m := range ms {
		x := v[m.Name]
		switch {
		case f.sessions == 0 || m.Fold == FoldSum || m.Fold == FoldMean:
			f.sums[i] += x
		case m.Fold == FoldMax:
			f.sums[i] = math.Max(f.sums[i], x)
		case m.Fold == FoldMin:
			f.sums[i] = math.Min(f.sums[i], x)
		}
	}
	f.sessions++
}

// Values returns the metrics folded over the sessions added, nil when
// none was or no metric is shown.
func (f *Folder) Values() Values {
	ms := f.metrics()
	if f.sessions == 0 || len(ms) == 0 {
		return nil
	}
	v := Values{}
	for i, m := range ms {
		v[m.Name] = f.sums[i]
		if m.Fold == FoldMean {
			v[m.Name] /= float64(f.sessions)
		}
	}
	return v
}
