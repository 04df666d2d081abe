package replay

import (
	"math"
	"slices"
)

// A Metric is a number of a run's [Summary] that every table of runs,
// of sweep points and of policy totals shows, that the warehouse rows
// hold (the runs' metrics column) and that `ctxbench check` watches:
// each of them reads [Metrics], so a metric is added by an entry there
// and its computation in the Summary.
type Metric struct {
	// Name names it in CSV headers, JSON and `ctxbench check`'s
	// baseline (snake_case); Heading in the tables people read.
	Name, Heading string
	Unit          Unit
	// HigherIsBetter says it improves upward; else it improves downward.
	HigherIsBetter bool
	// Fold is how the runs of several sessions make one value.
	Fold Fold
	// Of returns the metric of the run s summarizes.
	Of func(s *Summary) float64
}

// A Unit is what a metric counts.
type Unit string

// The units: a count (of tokens, messages or events), a share (0 to 1),
// or dollars.
const (
	UnitCount Unit = "count"
	UnitShare Unit = "share"
	UnitUSD   Unit = "usd"
)

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

// metrics are the metrics every table shows after the ones each table
// names itself (tokens, cost, probes, retention, violations: their
// cells are more than a number).
var metrics = []Metric{
	{Name: "worst_retention", Heading: "worst retention", Unit: UnitShare, HigherIsBetter: true, Fold: FoldMin,
		Of: func(s *Summary) float64 { return s.MinRetention }},
}

// Metrics returns the metrics, in the order the tables show them (a
// copy: the list itself cannot be changed).
func Metrics() []Metric { return slices.Clone(metrics) }

// MetricValues are the values of [Metrics] by name.
type MetricValues map[string]float64

// MetricsOf returns the metrics of the run s summarizes, nil when there
// are none.
func MetricsOf(s *Summary) MetricValues {
	if len(metrics) == 0 {
		return nil
	}
	v := MetricValues{}
	for _, m := range metrics {
		v[m.Name] = m.Of(s)
	}
	return v
}

// A MetricFolder folds the metrics of runs of several sessions, one
// session at a time, in the order added.
type MetricFolder struct {
	of       []Metric // nil: metrics
	sums     []float64
	sessions int
}

func (f *MetricFolder) metrics() []Metric {
	if f.of == nil {
		return metrics
	}
	return f.of
}

// Add adds a session's run.
func (f *MetricFolder) Add(v MetricValues) {
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
// none was or there are no metrics.
func (f *MetricFolder) Values() MetricValues {
	ms := f.metrics()
	if f.sessions == 0 || len(ms) == 0 {
		return nil
	}
	v := MetricValues{}
	for i, m := range ms {
		v[m.Name] = f.sums[i]
		if m.Fold == FoldMean {
			v[m.Name] /= float64(f.sessions)
		}
	}
	return v
}
