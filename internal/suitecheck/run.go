package suitecheck

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A Case is one transcript under one policy: what its replay measured
// and broke, and, once [Check]ed, how it compares with the baseline.
type Case struct {
	// File is the transcript's path relative to the config's folder;
	// Policy the policy's label, Name its name and Params its parameters.
	File   string            `json:"file"`
	Policy string            `json:"policy"`
	Name   string            `json:"name"`
	Params map[string]string `json:"params"`
	// Metrics are what the replay measured.
	Metrics Metrics `json:"metrics"`
	// Violations are the invariants the replay broke, one group per
	// invariant.
	Violations []ViolationGroup `json:"violations,omitempty"`
	// Budgets are the budgets the metrics exceed.
	Budgets []BudgetFailure `json:"budgets,omitempty"`

	// What Check adds: the baseline's entry (nil: none), the metrics that
	// changed from it, the parameters that changed, and whether the
	// baseline lacks the case (Missing) or has it though the suite no
	// longer replays it (Removed).
	Baseline     *Entry        `json:"-"`
	Deltas       []Delta       `json:"-"`
	ParamChanges []ParamChange `json:"-"`
	Missing      bool          `json:"-"`
	Removed      bool          `json:"-"`
}

// A ViolationGroup is one invariant a replay broke: how many times, and
// the first time — its call, and the line of the transcript that call is
// at.
type ViolationGroup struct {
	Invariant string `json:"invariant"`
	Count     int    `json:"count"`
	FirstStep int    `json:"first_step"`
	FirstLine int    `json:"first_line,omitempty"`
	First     string `json:"first"`
}

// A ParamChange is a policy parameter whose value changed from the
// baseline.
type ParamChange struct {
	Name, Old, New string
}

// Key returns the case's key.
func (c *Case) Key() string { return Key(c.File, c.Policy) }

// Shown is the case's policy as a report names it: its label, or, where
// the label is the policy's name, its spec with the parameters set away
// from their defaults ("aidf:max_messages=30"): a row says which setting
// it measured. The label alone keys the case in the baseline, so that a
// parameter changed is a change of the case, not another case.
func (c *Case) Shown() string {
	if c.Policy != c.Name || len(c.Params) == 0 {
		return c.Policy
	}
	kv := make([]string, 0, len(c.Params))
	for _, k := range slices.Sorted(maps.Keys(c.Params)) {
		kv = append(kv, k+"="+c.Params[k])
	}
	l, err := window.ParseLabeled([]string{c.Name + ":" + strings.Join(kv, ",")})
	if err != nil {
		return c.Policy
	}
	return l[0].Label
}

// Failed reports whether the case fails the check: a budget exceeded, a
// metric worse beyond its tolerance (a violation more often than the
// baseline records), a case the baseline lacks or no longer replayed;
// with strict, any change beyond tolerance.
func (c *Case) Failed(strict bool) bool {
	if len(c.Budgets) > 0 || c.Missing || c.Removed {
		return true
	}
	for _, d := range c.Deltas {
		if d.Verdict == Worse || strict && d.Verdict == Better {
			return true
		}
	}
	return false
}

// Blocking reports whether recording the case in the baseline needs
// accepting: a budget exceeded, a metric worse, or (with no baseline
// entry) an invariant broken.
func (c *Case) Blocking() bool {
	if len(c.Budgets) > 0 || c.Baseline == nil && len(c.Violations) > 0 && !c.Removed {
		return true
	}
	return slices.ContainsFunc(c.Deltas, func(d Delta) bool { return d.Verdict == Worse })
}

// A Result is a suite's replays: its cases in key order, and the
// warnings to show (transcripts not priced), sorted.
type Result struct {
	Estimator string   `json:"estimator"`
	Cases     []Case   `json:"cases"`
	Warnings  []string `json:"warnings"`
}

// CaseKey returns the key of the case of t under lp ([Key]): t's path
// relative to the config's folder, and the policy's label.
func (c *Config) CaseKey(t *transcript.Transcript, lp window.Labeled) string {
	return Key(relPath(c.Dir, t.File), lp.Label)
}

// Cases measures sr's runs, the cases of its transcript under its
// policies, and checks each one's invariants and budgets; warning is
// why the transcript is not priced (""; it then costs 0), unless a
// max_cost_usd, max_cache_break_usd or max_cache_miss_usd budget needs
// its price: then that is an error.
func (c *Config) Cases(sr *SessionRun) (cases []Case, warning string, err error) {
	t, s := sr.Transcript, sr.Session
	if s.NotPriced != nil {
		for _, b := range []string{"max_cost_usd", "max_cache_break_usd", "max_cache_miss_usd"} {
			if _, ok := c.Budgets[b]; ok {
				return nil, "", fmt.Errorf("%s: %s needs a price: %w (set model in %s)", t.File, b, s.NotPriced, c.Path)
			}
		}
		warning = fmt.Sprintf("%s: not priced: %v", relPath(c.Dir, t.File), s.NotPriced)
	}
	for k, lp := range sr.Policies {
		cs, err := newCase(c, t, lp, s, k, sr.Estimator)
		if err != nil {
			return nil, "", err
		}
		cases = append(cases, cs)
	}
	return cases, warning, nil
}

// Unreadable is the error of a suite whose files hold no transcript:
// a suite's files are its cases, none may be dropped.
func (c *Config) Unreadable(skipped []transcript.SkippedFile) error {
	var files []string
	for _, f := range skipped {
		files = append(files, fmt.Sprintf("%s (%s)", relPath(c.Dir, f.File), f.Reason))
	}
	return fmt.Errorf("%s: %d of the suite's files hold no transcript: %s; a suite's files are its cases: fix them, or narrow the transcripts globs to the transcripts", c.Path, len(files), strings.Join(files, "; "))
}

// Sort orders the cases by key and the warnings, without repeats.
func (r *Result) Sort() {
	slices.SortStableFunc(r.Cases, func(a, b Case) int { return strings.Compare(a.Key(), b.Key()) })
	slices.Sort(r.Warnings)
	r.Warnings = slices.Compact(r.Warnings)
}

// newCase measures run k of s, the policy lp's.
func newCase(cfg *Config, t *transcript.Transcript, lp window.Labeled, s *cost.Session, k int, est string) (Case, error) {
	run := s.Runs[k]
	var rc *cost.RunCost
	if s.Costs != nil {
		rc = s.Costs[k]
	}
	c := Case{File: relPath(cfg.Dir, t.File), Policy: lp.Label, Name: lp.Policy.Name(), Params: maps.Clone(map[string]string(lp.Policy.Params())),
		Metrics: MetricsOf(run, est, rc), Violations: groupViolations(t, run.Violations)}
	if m := s.MissTotals; m != nil && rc != nil {
		usd := roundUSD(m.CostUSD)
		c.Metrics.CacheMissUSD = &usd
	}
	var err error
	if c.Budgets, err = CheckBudgets(c.Metrics, cfg.Budgets); err != nil {
		return Case{}, fmt.Errorf("%s: %w", cfg.Path, err)
	}
	return c, nil
}

// groupViolations counts vs by invariant, in the order the invariants
// are listed, each with its first: its call and the transcript line of
// that call's message.
func groupViolations(t *transcript.Transcript, vs []replay.Violation) []ViolationGroup {
	if len(vs) == 0 {
		return nil
	}
	var lines []int // of each call's message
	for i := range t.Messages {
		if t.Messages[i].Role == transcript.RoleAssistant {
			lines = append(lines, t.Messages[i].Pos.Line)
		}
	}
	by := map[string]*ViolationGroup{}
	for _, v := range vs {
		g := by[v.Invariant]
		if g == nil {
			g = &ViolationGroup{Invariant: v.Invariant, FirstStep: v.Step, First: v.String()}
			if v.Step >= 0 && v.Step < len(lines) {
				g.FirstLine = lines[v.Step]
			}
			by[v.Invariant] = g
		}
		g.Count++
	}
	var out []ViolationGroup
	for _, inv := range invariants {
		if g := by[inv]; g != nil {
			out = append(out, *g)
		}
	}
	return out
}

// Paths expands the config's transcript globs; a glob that matches
// nothing is an error.
func (c *Config) Paths() ([]string, error) {
	var paths []string
	for _, g := range c.Transcripts {
		m, err := glob(g)
		if err != nil || len(m) == 0 {
			return nil, fmt.Errorf("%s: transcripts: %q matches no file", c.Path, g)
		}
		paths = append(paths, m...)
	}
	return paths, nil
}

// relPath shows a transcript relative to the config's folder, so the
// baseline does not depend on where the suite is checked out.
func relPath(dir, file string) string {
	dir, _ = filepath.Abs(dir)
	abs, _ := filepath.Abs(file)
	if r, err := filepath.Rel(dir, abs); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(file)
}
