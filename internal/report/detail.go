package report

import (
	"cmp"
	"fmt"
	"slices"
)

// Ways to rank sessions for the report's detail ([Report.Detail]).
const (
	// ByCost ranks sessions by the most any policy costs of them.
	ByCost = "cost"
	// BySaving ranks sessions by what the cheapest policy saves over
	// sending everything (the none policy).
	BySaving = "saving"
)

// A Detail says which sessions the report draws and lists one by one:
// at most N (0: every one), the first as By ranks them (ByCost, the
// default, or BySaving), shown in the report's order. Every session is
// in the report's totals, results.json, summary.csv and steps.csv
// whatever it says.
type Detail struct {
	N  int
	By string
}

// Check reports whether d can rank the sessions of a report of policies.
func (d Detail) Check(policies []string) error {
	switch d.By {
	case "", ByCost:
	case BySaving:
		if !slices.Contains(policies, "none") {
			return fmt.Errorf("ranking by saving: no none policy to save over")
		}
	default:
		return fmt.Errorf("ranking by %q: want %s or %s", d.By, ByCost, BySaving)
	}
	if d.N < 0 {
		return fmt.Errorf("%d sessions: want 0 (every one) or more", d.N)
	}
	return nil
}

// sessionRank is what ranks a session: whether a policy's run of it is
// priced, what its most and least costly runs cost (in USD when priced,
// else in tokens sent) and what none's does (noneRun: there is one).
type sessionRank struct {
	priced          bool
	most, least     float64
	none            float64
	noneRun, ranked bool // ranked: most and least are set
}

// rankOf returns tr's rank; none is the none policy's run (-1: none).
func rankOf(tr *TranscriptResult, estimator string, none int) sessionRank {
	var r sessionRank
	for _, run := range tr.Runs {
		if run.CostUSD != nil {
			r.priced = true
		}
	}
	for k, run := range tr.Runs {
		v := float64(run.Summary.InputTokens[estimator])
		if r.priced {
			if run.CostUSD == nil {
				continue
			}
			v = *run.CostUSD
		}
		if !r.ranked {
			r.most, r.least, r.ranked = v, v, true
		}
		r.most, r.least = max(r.most, v), min(r.least, v)
		if k == none {
			r.none, r.noneRun = v, true
		}
	}
	return r
}

// detailed returns which of the report's sessions d shows, by index.
func (r *Report) detailed(d Detail) []bool {
	n := len(r.Transcripts)
	show := make([]bool, n)
	if d.N == 0 || n <= d.N {
		for i := range show {
			show[i] = true
		}
		return show
	}
	ranks := r.tallied().ranks
	key := func(i int) float64 {
		if d.By == BySaving {
			if !ranks[i].noneRun {
				return 0
			}
			return ranks[i].none - ranks[i].least
		}
		return ranks[i].most
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return ranked(ranks, key, a, b) })
	for _, i := range order[:d.N] {
		show[i] = true
	}
	return show
}

// ranked orders sessions a and b by key: priced sessions first, then
// the larger key (0: the report's order decides).
func ranked(ranks []sessionRank, key func(int) float64, a, b int) int {
	if ranks[a].priced != ranks[b].priced {
		if ranks[a].priced {
			return -1
		}
		return 1
	}
	return cmp.Compare(key(b), key(a))
}

// costliest returns the shown session that costs the most, as ByCost
// ranks them (the first of the report's order on a tie), or -1 when
// none is shown.
func (r *Report) costliest(show []bool) int {
	ranks := r.tallied().ranks
	most := func(i int) float64 { return ranks[i].most }
	best := -1
	for i := range ranks {
		if show[i] && (best < 0 || ranked(ranks, most, i, best) < 0) {
			best = i
		}
	}
	return best
}

// countTrue counts the sessions shown.
func countTrue(show []bool) int {
	n := 0
	for _, b := range show {
		if b {
			n++
		}
	}
	return n
}

// detailText says which sessions are shown one by one, and how they were
// ranked.
func detailText(n, total int, by string) string {
	what, rank := "cost the most", "the most a policy costs of each"
	if by == BySaving {
		what, rank = "save the most", "what the cheapest policy saves over none"
	}
	return fmt.Sprintf("%d of %d sessions are shown one by one: those that %s (ranked by %s, in USD where priced, else in tokens sent; priced sessions first)", n, total, what, rank)
}
