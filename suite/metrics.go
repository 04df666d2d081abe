package suite

import (
	"strings"

	"github.com/ctxbench/ctxbench/replay"
)

// A Metric is one number `ctxbench check` watches for each case: its
// name (in the baseline, the tolerances and the report), its unit, which
// way it improves, its budget, and where a case's [Metrics] keep it.
// [MetricList] lists them. A number of a run's [replay.Summary] is
// added as an entry of [replay.Metrics], which every table shows and
// this list reads (kept in Metrics.Values); one this package alone
// reads (a budget, the pricing, the session's) is an entry here, a field
// of Metrics and its computation ([MetricsOf], or [Config.Cases] for what the
// session rather than the run measures).
type Metric struct {
	Name string
	// Unit is what it counts: tokens, messages, count, usd or share (0
	// to 1).
	Unit string
	// HigherIsBetter says it improves upward (retention, the probe
	// scores); every other metric improves downward.
	HigherIsBetter bool
	// Budget names the config's budget on it ("": none): a maximum, or a
	// minimum for a metric that improves upward. Unmeasured is the value
	// the budget checks in a case that does not measure the metric.
	Budget     string
	Unmeasured float64
	// value returns the metric in m, false when m does not measure it
	// (the run is not priced, or the baseline was recorded before
	// ctxbench measured it): then it is not compared.
	value func(m *Metrics) (float64, bool)
}

// The metrics, in the order a case's changes are listed: suite's own,
// then [replay.Metrics].
var metricList = append([]*Metric{
	{Name: "peak_tokens", Unit: "tokens", Budget: "max_context_tokens", value: func(m *Metrics) (float64, bool) { return float64(m.PeakTokens), true }},
	{Name: "peak_messages", Unit: "messages", Budget: "max_messages", value: func(m *Metrics) (float64, bool) { return float64(m.PeakMessages), true }},
	{Name: "input_tokens", Unit: "tokens", value: func(m *Metrics) (float64, bool) { return float64(m.InputTokens), true }},
	{Name: "cost_usd", Unit: "usd", Budget: "max_cost_usd", value: func(m *Metrics) (float64, bool) { return m.CostUSD, true }},
	{Name: "evictions", Unit: "count", value: func(m *Metrics) (float64, bool) { return float64(m.Evictions), true }},
	{Name: "summaries", Unit: "count", value: func(m *Metrics) (float64, bool) { return float64(m.Summaries), true }},
	{Name: "retention", Unit: "share", HigherIsBetter: true, Budget: "min_retention", value: func(m *Metrics) (float64, bool) { return m.Retention, true }},
	{Name: "cache_breaks", Unit: "count", value: func(m *Metrics) (float64, bool) { return optional(m.CacheBreaks) }},
	{Name: "cache_break_usd", Unit: "usd", Budget: "max_cache_break_usd", value: func(m *Metrics) (float64, bool) { return optional(m.CacheBreakUSD) }},
	{Name: "cache_miss_usd", Unit: "usd", Budget: "max_cache_miss_usd", value: func(m *Metrics) (float64, bool) { return optional(m.CacheMissUSD) }},
	// A run measured before ctxbench asked probes has none: 1, nothing
	// lost is known.
	{Name: "probe_score", Unit: "share", HigherIsBetter: true, Budget: "min_probe_score", Unmeasured: 1, value: func(m *Metrics) (float64, bool) { return optional(m.ProbeScore) }},
	{Name: "probe_artifact", Unit: "share", HigherIsBetter: true, value: func(m *Metrics) (float64, bool) { return optional(m.ProbeArtifact) }},
	{Name: "probe_recall", Unit: "share", HigherIsBetter: true, value: func(m *Metrics) (float64, bool) { return optional(m.ProbeRecall) }},
	{Name: "probe_decision", Unit: "share", HigherIsBetter: true, value: func(m *Metrics) (float64, bool) { return optional(m.ProbeDecision) }},
	{Name: "probe_continuation", Unit: "share", HigherIsBetter: true, value: func(m *Metrics) (float64, bool) { return optional(m.ProbeContinuation) }},
}, replayMetrics()...)

// replayMetrics are [replay.Metrics], read from a case's Values.
func replayMetrics() []*Metric {
	var out []*Metric
	for _, m := range replay.Metrics() {
		out = append(out, &Metric{Name: m.Name, Unit: string(m.Unit), HigherIsBetter: m.HigherIsBetter,
			value: func(x *Metrics) (float64, bool) { v, ok := x.Values[m.Name]; return v, ok }})
	}
	return out
}

func optional[T int | float64](v *T) (float64, bool) {
	if v == nil {
		return 0, false
	}
	return float64(*v), true
}

// MetricList returns the metrics, in the order a case's changes are
// listed (copies: the list itself cannot be changed). The violations of
// each invariant are compared too, as "violations.INVARIANT".
func MetricList() []Metric {
	out := make([]Metric, len(metricList))
	for i, mt := range metricList {
		out[i] = *mt
	}
	return out
}

// Value returns the metric in m, false when m does not measure it.
func (mt Metric) Value(m *Metrics) (float64, bool) { return mt.value(m) }

// lookupMetric returns the metric named name.
func lookupMetric(name string) *Metric {
	return findMetric(func(mt *Metric) bool { return mt.Name == name })
}

// findMetric returns the first metric that is, nil when none is.
func findMetric(is func(*Metric) bool) *Metric {
	for _, mt := range metricList {
		if is(mt) {
			return mt
		}
	}
	return nil
}

// checkedMetrics are the names a tolerance can take: the metrics and the
// violations.
var checkedMetrics = func() []string {
	var names []string
	for _, mt := range metricList {
		names = append(names, mt.Name)
	}
	return append(names, "violations")
}()

// Budgets lists the budgets a config may set: the maxima, then the
// minima.
var Budgets = func() []string {
	var maxima, minima []string
	for _, mt := range metricList {
		switch {
		case mt.Budget == "":
		case mt.HigherIsBetter:
			minima = append(minima, mt.Budget)
		default:
			maxima = append(maxima, mt.Budget)
		}
	}
	return append(maxima, minima...)
}()

// budgetMetric returns the metric budget name limits.
func budgetMetric(name string) *Metric {
	return findMetric(func(mt *Metric) bool { return mt.Budget == name })
}

// HigherIsBetter says which way a metric improves: retention and the
// probe scores up; every other metric — tokens, messages, cost, cache
// breaks, evictions, summaries, violations — down.
func HigherIsBetter(metric string) bool {
	mt := lookupMetric(metric)
	return mt != nil && mt.HigherIsBetter
}

// label is how a sentence names the metric.
func (mt *Metric) label() string { return strings.ReplaceAll(mt.Name, "_", " ") }
