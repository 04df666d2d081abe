package report

import (
	"fmt"
	"slices"

	"github.com/ctxbench/ctxbench/cost"
)

// CacheBreakText says in one sentence what a run's cache breaks cost and
// saved: how many, the tokens re-billed and their cost, what the tokens
// the policy removed saved by the end of the session, the net, and how
// many breaks paid for themselves and after how many calls (the median),
// or would have needed how many.
func CacheBreakText(tot cost.CacheBreaks, events []cost.CacheBreak) string {
	if tot.Breaks == 0 {
		return "no cache breaks"
	}
	s := fmt.Sprintf("%s re-billed %s tokens (%s); the %s tokens removed saved %s by the session's end: ",
		plural(tot.Breaks, "cache break"), Int(tot.Rebilled), USD(tot.Cost.USD()), Int(tot.Removed), USD(tot.Saved.USD()))
	if net := tot.Net(); net >= 0 {
		s += "won " + USD(net.USD())
	} else {
		s += "lost " + USD(-net.USD())
	}
	var paid, unpaid []int
	for _, e := range events {
		switch {
		case e.Paid:
			paid = append(paid, e.BreakEven)
		case e.BreakEven > 0:
			unpaid = append(unpaid, e.BreakEven)
		}
	}
	if len(paid) > 0 {
		s += fmt.Sprintf("; %d paid for %s after %s (median)", len(paid), pick(len(paid) == 1, "itself", "themselves"), plural(median(paid), "call"))
	}
	if tot.Unpaid > 0 {
		s += fmt.Sprintf("; %d never did within the session", tot.Unpaid)
		if len(unpaid) > 0 {
			s += fmt.Sprintf(" (it would have taken %s, median)", plural(median(unpaid), "warm call"))
		}
	}
	return s
}

// plural is Count of a noun whose plural adds s.
func plural(n int, what string) string { return Count(n, what, what+"s") }

func pick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

func median(v []int) int {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// CacheMissText says what a session's cache misses cost: "cache misses:
// $X of $Y billed (N calls: K after the cache expired, M unexplained);
// every policy inherits them".
func CacheMissText(m cost.CacheMisses, billedUSD float64) string {
	calls := "calls"
	if m.Calls == 1 {
		calls = "call"
	}
	return fmt.Sprintf("cache misses: %s of %s billed (%s %s: %s after the cache expired, %s unexplained); every policy inherits them",
		USD(m.CostUSD), USD(billedUSD), Int(m.Calls), calls, Int(m.Expired), Int(m.Unexplained))
}
