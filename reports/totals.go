package reports

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// A PolicyTotal is one policy over every transcript of a report: the
// answer-first table's row.
type PolicyTotal struct {
	Label    string
	Sessions int
	Calls    int
	// Tokens is the input tokens sent over every call, and ShareOfNone
	// their share of what sending everything sends (0: no none run).
	Tokens      int64
	ShareOfNone float64
	// PeakTokens is the most tokens a call sent.
	PeakTokens int
	// CostUSD is the cost of the Priced sessions, cache simulated, and
	// BreakUSD what their cache breaks cost over reading; NotPriced names
	// why the others are not (a model without a price), each once.
	CostUSD   float64
	BreakUSD  float64
	Priced    int
	NotPriced []string
	// Retention is the mean over sessions of the runs' mean retention.
	Retention float64
	// Violations counts broken invariants by name.
	Violations map[string]int
	// Pareto marks a policy no other beats on both cost (or, when not
	// every session is priced, tokens) and retention.
	Pareto bool
}

// Clean reports whether the policy broke no invariant.
func (p PolicyTotal) Clean() bool { return len(p.Violations) == 0 }

// Verdict is "pass" for a clean policy, else "fail".
func (p PolicyTotal) Verdict() string { return pick(p.Clean(), "pass", "fail") }

// Share shows the tokens' share of none's, "-" without a none run.
func (p PolicyTotal) Share() string {
	if p.ShareOfNone > 0 {
		return fmt.Sprintf("%.1f%%", p.ShareOfNone*100)
	}
	return "-"
}

// Breaks shows what the priced sessions' cache breaks cost, "-" without
// one priced.
func (p PolicyTotal) Breaks() string {
	if p.Priced > 0 {
		return USD(p.BreakUSD)
	}
	return "-"
}

// Cost shows the cost of the priced sessions: never $0 for sessions not
// priced (NotPriced says why they are not).
func (p PolicyTotal) Cost() string {
	switch p.Priced {
	case p.Sessions:
		return USD(p.CostUSD)
	case 0:
		return "not priced"
	}
	return fmt.Sprintf("%s (%d of %d sessions priced)", USD(p.CostUSD), p.Priced, p.Sessions)
}

// Totals returns each policy's totals over the report's transcripts, in
// the report's order, the Pareto-best marked.
func (r *Report) Totals() []PolicyTotal {
	none := slices.Index(r.Policies, "none")
	var baseline int64
	out := make([]PolicyTotal, len(r.Policies))
	for k, label := range r.Policies {
		p := PolicyTotal{Label: label, Violations: map[string]int{}}
		reasons := map[string]bool{}
		for _, t := range r.Transcripts {
			if k >= len(t.Runs) {
				continue
			}
			run := t.Runs[k]
			p.Sessions++
			p.Calls += run.Summary.Calls
			p.Tokens += run.Summary.InputTokens[r.Estimator]
			p.PeakTokens = max(p.PeakTokens, run.Summary.PeakTokens[r.Estimator])
			p.Retention += run.Summary.MeanRetention
			for inv, n := range run.Summary.Violations {
				if n > 0 {
					p.Violations[inv] += n
				}
			}
			if run.CostUSD != nil {
				p.Priced++
				p.CostUSD += *run.CostUSD
				if run.CacheBreaks != nil {
					p.BreakUSD += run.CacheBreaks.Cost.USD()
				}
			} else {
				reasons[t.notPricedReason()] = true
			}
			if k == none {
				baseline += run.Summary.InputTokens[r.Estimator]
			}
		}
		p.Retention /= float64(max(1, p.Sessions))
		p.NotPriced = slices.Sorted(maps.Keys(reasons))
		out[k] = p
	}
	for k := range out {
		if baseline > 0 {
			out[k].ShareOfNone = float64(out[k].Tokens) / float64(baseline)
		}
	}
	markPareto(out)
	return out
}

// samePriced reports whether every policy has the same sessions priced,
// one at least (a session is priced or not whatever the policy): their
// costs then compare.
func samePriced(ps []PolicyTotal) bool {
	for _, p := range ps {
		if p.Priced == 0 || p.Priced != ps[0].Priced {
			return false
		}
	}
	return len(ps) > 0
}

// markPareto marks the policies no other beats on both counts: cost (of
// the priced sessions) when there is one to compare, else tokens sent;
// and retention.
func markPareto(ps []PolicyTotal) {
	priced := samePriced(ps)
	spend := func(p PolicyTotal) float64 {
		if priced {
			return p.CostUSD
		}
		return float64(p.Tokens)
	}
	for i := range ps {
		beaten := false
		for j := range ps {
			a, b := ps[j], ps[i]
			if i != j && spend(a) <= spend(b) && a.Retention >= b.Retention && (spend(a) < spend(b) || a.Retention > b.Retention) {
				beaten = true
				break
			}
		}
		ps[i].Pareto = !beaten
	}
}

// Recommendation is one or two sentences derived from the totals: the
// cheapest clean policy that keeps at least 90% retention, against
// sending everything; and a policy that costs more than sending
// everything, when its cache breaks are why. It is "" without a none
// run to compare with.
func Recommendation(ps []PolicyTotal) string {
	i := slices.IndexFunc(ps, func(p PolicyTotal) bool { return p.Label == "none" })
	if i < 0 {
		return ""
	}
	none := ps[i]
	priced := samePriced(ps) && none.CostUSD > 0
	spend := func(p PolicyTotal) float64 {
		if priced {
			return p.CostUSD
		}
		return float64(p.Tokens)
	}
	best := -1
	for k, p := range ps {
		if k == i || !p.Clean() || p.Retention < 0.9 || spend(p) >= spend(none) {
			continue
		}
		if best < 0 || spend(p) < spend(ps[best]) {
			best = k
		}
	}
	var out []string
	what := "costs"
	if !priced {
		what = "sends"
	}
	on := ""
	if priced && none.Priced < none.Sessions {
		on = " (on the " + plural(none.Priced, "session") + " priced)"
	}
	if best >= 0 {
		b := ps[best]
		out = append(out, fmt.Sprintf("%s %s %.0f%% less than none%s and keeps %.0f%% retention, with no invariant broken.",
			b.Label, what, (1-spend(b)/spend(none))*100, on, b.Retention*100))
	} else {
		out = append(out, fmt.Sprintf("No policy %s less than none%s while keeping 90%% retention with no invariant broken.", what, on))
	}
	if priced {
		// The policy that sends less than none and pays most for it in
		// cache breaks.
		worst := -1
		for k, p := range ps {
			if p.CostUSD > none.CostUSD && p.BreakUSD > 0 && p.Tokens < none.Tokens && (worst < 0 || p.CostUSD > ps[worst].CostUSD) {
				worst = k
			}
		}
		if worst >= 0 {
			p := ps[worst]
			out = append(out, fmt.Sprintf("%s sends %.0f%% fewer tokens than none yet costs %s more: its changes break the prompt cache (%s re-billed).",
				p.Label, (1-float64(p.Tokens)/float64(none.Tokens))*100, USD(p.CostUSD-none.CostUSD), USD(p.BreakUSD)))
		}
	}
	return strings.Join(out, " ")
}

// An Overview says what a report replayed.
type Overview struct {
	Sessions, Calls int
	// Models are the sessions' models, each once, in order.
	Models     []string
	Start, End time.Time
}

// Overview returns what the report replayed.
func (r *Report) Overview() Overview {
	var o Overview
	seen := map[string]bool{}
	for _, t := range r.Transcripts {
		o.Sessions++
		o.Calls += t.Calls
		for _, m := range t.Models {
			if !seen[m] {
				seen[m] = true
				o.Models = append(o.Models, m)
			}
		}
		if !t.Start.IsZero() && (o.Start.IsZero() || t.Start.Before(o.Start)) {
			o.Start = t.Start
		}
		if t.End.After(o.End) {
			o.End = t.End
		}
	}
	return o
}

// notPricedReason says why t is not priced.
func (t *TranscriptResult) notPricedReason() string {
	if t.NotPriced != "" {
		return t.NotPriced
	}
	return "no model recorded"
}

// uniqueLabels names each transcript by the shortest ending of its path
// that no other transcript's shares, and, for transcripts of the same
// file (a session and its subagents), by its id after the file's name.
func uniqueLabels(ts []TranscriptResult) []string {
	parts := make([][]string, len(ts))
	for i, t := range ts {
		parts[i] = strings.Split(strings.TrimPrefix(t.File, "embedded:"), "/")
	}
	labels := make([]string, len(ts))
	for i := range ts {
		for n := 1; n <= len(parts[i]); n++ {
			labels[i] = strings.Join(parts[i][len(parts[i])-n:], "/")
			clash := false
			for j := range ts {
				if j != i && ts[j].File != ts[i].File && strings.HasSuffix("/"+ts[j].File, "/"+labels[i]) {
					clash = true
					break
				}
			}
			if !clash {
				break
			}
		}
	}
	files := map[string]int{}
	for _, t := range ts {
		files[t.File]++
	}
	for i, t := range ts {
		if files[t.File] > 1 {
			labels[i] += " (" + t.ID + ")"
		}
	}
	return labels
}
