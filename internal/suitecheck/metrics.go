package suitecheck

import "github.com/ctxbench/ctxbench/internal/metric"

// Metrics are what `ctxbench check` watches for one transcript under one
// policy, each metric of the registry where it reads it.
type Metrics = metric.Row

// checkedMetrics are the names a tolerance can take: the metrics and the
// violations.
var checkedMetrics = func() []string {
	var names []string
	for _, mt := range metric.All() {
		names = append(names, mt.Name)
	}
	return append(names, "violations")
}()

// budgetNames lists the budgets a config may set: the maxima, then the
// minima.
var budgetNames = metric.Budgets()

// higherIsBetter says which way a metric improves: retention and the
// probe scores up; every other metric — tokens, messages, cost, cache
// breaks, evictions, summaries, violations — down.
func higherIsBetter(name string) bool {
	mt, ok := metric.Named(name)
	return ok && mt.HigherIsBetter
}
