package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/internal/metric"
	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/internal/projection"
	"github.com/ctxbench/ctxbench/internal/recommend"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/window"
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
	// Retention is the mean over sessions of the runs' mean retention
	// (the older proxy).
	Retention float64
	// Probes are the sessions' probes and those the policy lost, and
	// ProbeScore the share not lost ([replay.Summary.ProbeScore]) over
	// every session.
	Probes     probe.Loss
	ProbeScore float64
	// Violations counts broken invariants by name.
	Violations map[string]int
	// Metrics are the policy's shown metrics, each folded over the
	// sessions as it says.
	Metrics metric.Values
	// Pareto marks a Pareto-best policy ([recommend.Pareto]): it breaks no
	// invariant, no other that breaks none beats it on both cost (or,
	// when not every session is priced, tokens) and probe score, and,
	// unless it is a baseline, no baseline matches it.
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
func (r *Report) Totals() []PolicyTotal { return r.tallied().totals() }

// A tally sums, transcript by transcript, what the report's answer-first
// table, its overview and its Pareto chart show of every transcript: a
// report over thousands of sessions keeps these sums, not the sessions.
type tally struct {
	estimator string
	none      int // none's run, -1: none
	baseline  int64
	policies  []PolicyTotal
	reasons   []map[string]bool
	// pricedProbes sums each policy's priced runs' probes, for the
	// Pareto chart (its cost is the policy's CostUSD).
	pricedProbes []probe.Loss
	overview     Overview
	seen         map[string]bool
	// ranks rank each session for the report's detail.
	ranks []sessionRank
	// sessions number the sessions as `ctxbench cost` counts them
	// ([sessionIndex]), and named is, for each, the transcript that names
	// it: its own, else its first subagent's.
	sessions sessionIndex
	named    []int
	// costs are each policy's priced runs' costs summed by session, and
	// priced whether the session had a run priced.
	costs  [][]float64
	priced [][]bool
	// byModel and byDay sum the priced runs by model and by day.
	byModel, byDay costGroups
	// metrics fold each policy's shown metrics.
	metrics []metric.Folder
}

func newTally(estimator string, policies []string) *tally {
	t := &tally{estimator: estimator, none: slices.Index(policies, "none"), seen: map[string]bool{},
		reasons: make([]map[string]bool, len(policies)), pricedProbes: make([]probe.Loss, len(policies)),
		costs: make([][]float64, len(policies)), priced: make([][]bool, len(policies)),
		byModel: newCostGroups(len(policies)), byDay: newCostGroups(len(policies)), metrics: make([]metric.Folder, len(policies))}
	for k, label := range policies {
		t.policies = append(t.policies, PolicyTotal{Label: label, Violations: map[string]int{}})
		t.reasons[k] = map[string]bool{}
	}
	return t
}

// tallied returns the report's tally: the Builder's, or one made of
// Transcripts.
func (r *Report) tallied() *tally {
	if r.tally != nil {
		return r.tally
	}
	t := newTally(r.Estimator, r.Policies)
	for i := range r.Transcripts {
		t.add(&r.Transcripts[i])
	}
	return t
}

// add adds tr, the next transcript.
func (tl *tally) add(tr *TranscriptResult) {
	tl.ranks = append(tl.ranks, rankOf(tr, tl.estimator, tl.none))
	o := &tl.overview
	o.Sessions++
	o.Calls += tr.Calls
	for _, m := range tr.Models {
		if !tl.seen[m] {
			tl.seen[m] = true
			o.Models = append(o.Models, m)
		}
	}
	if !tr.Start.IsZero() && (o.Start.IsZero() || tr.Start.Before(o.Start)) {
		o.Start = tr.Start
	}
	if tr.End.After(o.End) {
		o.End = tr.End
	}
	tl.byModel.add(tr.Model, tr)
	session, first := tl.sessions.of(tr)
	if first {
		tl.named = append(tl.named, o.Sessions-1)
		for k := range tl.policies {
			tl.costs[k], tl.priced[k] = append(tl.costs[k], 0), append(tl.priced[k], false)
		}
	} else if tr.Parent == "" {
		tl.named[session] = o.Sessions - 1
	}
	day := NoDay
	if !tr.Start.IsZero() {
		day = tr.Start.UTC().Format(time.DateOnly)
	}
	tl.byDay.add(day, tr)
	for k := range tl.policies {
		if k >= len(tr.Runs) {
			continue
		}
		p, run := &tl.policies[k], &tr.Runs[k]
		p.Sessions++
		p.Calls += run.Summary.Calls
		p.Tokens += run.Summary.InputTokens[tl.estimator]
		p.PeakTokens = max(p.PeakTokens, run.Summary.PeakTokens[tl.estimator])
		p.Retention += run.Summary.MeanRetention
		p.Probes.Merge(run.Summary.ProbeLoss)
		tl.metrics[k].Add(run.Summary.Metrics())
		for inv, n := range run.Summary.Violations {
			if n > 0 {
				p.Violations[inv] += n
			}
		}
		if run.CostUSD != nil {
			tl.costs[k][session] += *run.CostUSD
			tl.priced[k][session] = true
			p.Priced++
			p.CostUSD += *run.CostUSD
			if run.CacheBreaks != nil {
				p.BreakUSD += run.CacheBreaks.Cost.USD()
			}
			tl.pricedProbes[k].Merge(run.Summary.ProbeLoss)
		} else {
			tl.reasons[k][tr.notPricedReason()] = true
		}
		if k == tl.none {
			tl.baseline += run.Summary.InputTokens[tl.estimator]
		}
	}
}

// totals returns each policy's totals so far, the Pareto-best marked.
func (tl *tally) totals() []PolicyTotal {
	out := make([]PolicyTotal, len(tl.policies))
	for k, p := range tl.policies {
		p.Violations = maps.Clone(p.Violations)
		p.Retention /= float64(max(1, p.Sessions))
		p.Probes = probe.Loss{Lost: maps.Clone(p.Probes.Lost), Of: maps.Clone(p.Probes.Of)}
		p.ProbeScore = p.Probes.Score()
		p.Metrics = tl.metrics[k].Values()
		p.NotPriced = slices.Sorted(maps.Keys(tl.reasons[k]))
		if tl.baseline > 0 {
			p.ShareOfNone = float64(p.Tokens) / float64(tl.baseline)
		}
		out[k] = p
	}
	for k, best := range recommend.Pareto(candidates(out)) {
		out[k].Pareto = best
	}
	return out
}

// A CostSpread is how one policy's cost spreads over the sessions
// priced, as `ctxbench cost` counts them (a subagent's transcript in its
// parent's session, [sessionIndex]): the median and the 90th percentile
// ([projection.MedianP90]) and the most, and the session that cost the most
// (the index in the report of the transcript that names it: its own).
type CostSpread struct {
	Label             string
	Priced            int
	Median, P90, Most float64
	Costliest         int
}

// Spread returns each policy's spread of cost over the priced sessions,
// in the report's order.
func (r *Report) Spread() []CostSpread { return r.tallied().spread() }

// spreadRows are the rows of the cost-per-session table: policy,
// sessions priced, median, 90th percentile, most and the costliest
// session, for the policies with a session priced; none when no policy
// has two.
func spreadRows(r *Report) [][]string {
	spread := r.Spread()
	if !slices.ContainsFunc(spread, func(c CostSpread) bool { return c.Priced > 1 }) {
		return nil
	}
	labels := uniqueLabels(r.Transcripts)
	var rows [][]string
	for _, c := range spread {
		if c.Priced > 0 {
			rows = append(rows, []string{c.Label, Int(c.Priced), USD(c.Median), USD(c.P90), USD(c.Most), labels[c.Costliest]})
		}
	}
	return rows
}

func (tl *tally) spread() []CostSpread {
	out := make([]CostSpread, len(tl.policies))
	for k, p := range tl.policies {
		c := CostSpread{Label: p.Label}
		var v []float64
		for s, usd := range tl.costs[k] {
			if !tl.priced[k][s] {
				continue
			}
			if len(v) == 0 || usd > c.Most {
				c.Most, c.Costliest = usd, tl.named[s]
			}
			v = append(v, usd)
		}
		c.Priced = len(v)
		c.Median, c.P90 = projection.MedianP90(v)
		out[k] = c
	}
	return out
}

// paretoPoints are the policies' mean cost and probe score over the
// priced transcripts.
func (tl *tally) paretoPoints() []Point {
	var pts []Point
	for k, p := range tl.policies {
		if n := p.Priced; n > 0 {
			pts = append(pts, Point{p.Label, p.CostUSD / float64(n), tl.pricedProbes[k].Score()})
		}
	}
	return pts
}

// Recommend weighs the policies' totals ([recommend.Recommend]), floor
// being the least probe score a recommended one keeps (≤ 0:
// [recommend.DefaultMinProbeScore]); none, recorded and the agents' own
// policies ([replay.OwnPolicies]) are its baselines.
func Recommend(ps []PolicyTotal, floor float64) (recommend.Recommendation, []recommend.Candidate) {
	cs := candidates(ps)
	return recommend.Recommend(cs, floor), cs
}

// candidates are the policies' totals as the recommendation weighs
// them, and as [recommend.Pareto] stars them.
func candidates(ps []PolicyTotal) []recommend.Candidate {
	cs := make([]recommend.Candidate, len(ps))
	for i, p := range ps {
		lost, of := p.Probes.Totals()
		cs[i] = recommend.Candidate{Label: p.Label, Baseline: isBaseline(p.Label), CostUSD: p.CostUSD, Priced: p.Priced, Transcripts: p.Sessions,
			Tokens: p.Tokens, ProbeScore: p.ProbeScore, ProbesLost: lost, Probes: of, Violations: p.Violations}
	}
	return cs
}

// paretoNote says what the ★ beside a policy's totals marks
// ([PolicyTotal.Pareto]).
const paretoNote = "★ Pareto-best: it breaks no invariant, no other policy that breaks none is cheaper (or, when some session is not priced, sends fewer tokens) " +
	"and keeps more probes, and no baseline (none, recorded, the agent's own policy) matches it"

// isBaseline reports whether a policy's label is that of a baseline:
// none, recorded or the agent's own policy (agent, or an agent's by its
// name), with its default parameters.
func isBaseline(label string) bool {
	if label == "none" || label == window.Recorded || label == window.Agent {
		return true
	}
	for _, own := range replay.OwnPolicies {
		if label == own {
			return true
		}
	}
	return false
}

// Recommendation is the report's answer over its policies' totals
// ([Recommend], at r.MinProbeScore), a sentence or a few: the setting
// chosen, or the closest and what it lacks, and a policy that costs more
// than sending everything because its cache breaks. It is "" without a
// none run to compare with.
func (r *Report) Recommendation() string {
	return recommendation(r.Totals(), r.MinProbeScore, new(r.ProjectionError()))
}

// recommendation is [Report.Recommendation] of totals ps, pe the
// projection error measured on the report's sessions.
func recommendation(ps []PolicyTotal, floor float64, pe *projection.ProjectionError) string {
	rec, cs := Recommend(ps, floor)
	if rec.None < 0 {
		return ""
	}
	out := RecommendationLines(&rec, cs, "policy", pe)
	if rec.ByCost && cs[rec.None].CostUSD > 0 {
		if s := cacheBreaker(ps, ps[rec.None]); s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}

// RecommendationLines says a recommendation a sentence each: the setting
// chosen, its spend against none and recorded; or, when nothing that
// spends less than none qualifies, the closest and what it lacks; and
// that no row (a noun: "point", "policy") spends less than none. When
// the candidates compare by cost and pe, the projection error measured
// on their transcripts, is given, the setting chosen is followed by how
// far its cost may be off ([ProjectedCostText]).
func RecommendationLines(r *recommend.Recommendation, cs []recommend.Candidate, noun string, pe *projection.ProjectionError) []string {
	spend := func(c *recommend.Candidate) string {
		if r.ByCost {
			return USD(c.CostUSD)
		}
		return Int(c.Tokens) + " tokens"
	}
	verb, less := "costs", "costs less"
	if !r.ByCost {
		verb, less = "sends", "sends less"
	}
	on := ""
	if r.ByCost && len(cs) > 0 && cs[0].Priced < cs[0].Transcripts {
		on = fmt.Sprintf(" (the cost of the %d of %d priced)", cs[0].Priced, cs[0].Transcripts)
	}
	floor := recommend.Percent(r.MinProbeScore)
	against := func(i int, share *float64, name string) string {
		if i < 0 || share == nil {
			return ""
		}
		switch d := *share; {
		case d >= 0.005:
			return fmt.Sprintf(", %.0f%% less than %s (%s)", d*100, name, spend(&cs[i]))
		case d <= -0.005:
			return fmt.Sprintf(", %.0f%% more than %s (%s)", -d*100, name, spend(&cs[i]))
		}
		return fmt.Sprintf(", as much as %s (%s)", name, spend(&cs[i]))
	}
	closest := func() string {
		switch {
		case r.ClosestIndex < 0 && r.AllCostMore:
			return "" // said next
		case r.ClosestIndex < 0:
			return fmt.Sprintf("; no %s %s", noun, less)
		}
		return fmt.Sprintf("; closest: %s, %s, %s", r.Closest.Label, r.Lacks, spend(r.Closest))
	}
	var out []string
	switch b := r.Best; {
	case r.BestIndex >= 0 && r.BestIndex != r.None:
		out = append(out, fmt.Sprintf("Recommended: %s, %s%s%s%s: it keeps %s of the probes (%s of %s lost; floor %s) and breaks no invariant.",
			b.Label, spend(b), on, against(r.None, r.VsNone, "none, sending everything"), against(r.Recorded, r.VsRecorded, "what the agent sent (recorded)"),
			recommend.Percent(b.ProbeScore), Int(b.ProbesLost), Int(b.Probes), floor))
	case r.BestIndex >= 0:
		out = append(out, fmt.Sprintf("Recommended: none (send everything), %s%s%s: no %s that %s keeps %s of the probes with no invariant broken%s.",
			spend(b), on, against(r.Recorded, r.VsRecorded, "what the agent sent (recorded)"), noun, less, floor, closest()))
	default:
		out = append(out, fmt.Sprintf("No %s keeps %s of the probes with no invariant broken%s.", noun, floor, closest()))
	}
	if b := r.Best; b != nil && r.ByCost && pe != nil {
		out = append(out, ProjectedCostText(b.Label, b.CostUSD, *pe))
	}
	if r.AllCostMore {
		out = append(out, fmt.Sprintf("Every %s %s at least as much as sending everything (none, %s).", noun, verb, spend(&cs[r.None])))
	}
	return out
}

// cacheBreaker says which policy sends less than none and pays most for
// it in cache breaks, costing more than none; "" when none does.
func cacheBreaker(ps []PolicyTotal, none PolicyTotal) string {
	worst := -1
	for k, p := range ps {
		if p.CostUSD > none.CostUSD && p.BreakUSD > 0 && p.Tokens < none.Tokens && (worst < 0 || p.CostUSD > ps[worst].CostUSD) {
			worst = k
		}
	}
	if worst < 0 {
		return ""
	}
	p := ps[worst]
	return fmt.Sprintf("%s sends %.0f%% fewer tokens than none yet costs %s more: its changes break the prompt cache (%s re-billed).",
		p.Label, (1-float64(p.Tokens)/float64(none.Tokens))*100, USD(p.CostUSD-none.CostUSD), USD(p.BreakUSD))
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
	o := r.tallied().overview
	o.Models = slices.Clone(o.Models)
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

// A sessionIndex numbers sessions in the order first seen, as `ctxbench
// cost` counts them: a transcript is in the session of its Parent (a
// subagent's), else of its own ID; one with neither is a session alone.
type sessionIndex struct {
	index map[string]int
	n     int
}

// of returns the number of t's session, and whether t is its first
// transcript.
func (s *sessionIndex) of(t *TranscriptResult) (int, bool) {
	key := cmp.Or(t.Parent, t.ID)
	if i, ok := s.index[key]; ok && key != "" {
		return i, false
	}
	if key != "" {
		if s.index == nil {
			s.index = map[string]int{}
		}
		s.index[key] = s.n
	}
	s.n++
	return s.n - 1, true
}
