package suite

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// Options configure a [Run].
type Options struct {
	// Summarizer makes the summaries policies ask for (nil: the mock).
	Summarizer summarize.Summarizer
	// Prices price the calls and give the models' context windows, which
	// policies' windows default to (nil: [pricing.Default]).
	Prices pricing.Prices
	// Holds, when set, says which cases to replay, by their keys ([Key]):
	// a shard's.
	Holds func(key string) bool
}

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
	p, err := window.Parse(c.Name + ":" + strings.Join(kv, ","))
	if err != nil {
		return c.Policy
	}
	return window.Format(p)
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

// Run replays every transcript of cfg under every policy (those of
// opts.Holds only, when set), prices the runs (as package cost does, at
// cfg.Model or each transcript's own model), and checks each case's
// invariants and budgets. [Check] compares the result with a baseline. A
// transcript that cannot be priced costs 0 and is a warning, unless a
// max_cost_usd, max_cache_break_usd or max_cache_miss_usd budget needs its price: then it is
// an error.
func Run(ctx context.Context, cfg *Config, opts Options) (*Result, error) {
	paths, err := cfg.Paths()
	if err != nil {
		return nil, err
	}
	est := cfg.Estimator()
	sum := opts.Summarizer
	if sum == nil {
		sum = &summarize.Mock{}
	}
	ropt := replay.Options{Estimators: []estimate.Estimator{est}, Summarizer: sum, Prices: opts.Prices, NoSteps: true}
	copt := cost.Options{Prices: opts.Prices, Model: cfg.Model}
	res := &Result{Estimator: est.Name(), Cases: []Case{}, Warnings: []string{}}
	// A file of the suite that holds no transcript is an error, never a
	// case dropped: an unreadable file (a Git LFS pointer, a compressed or
	// empty file) must not pass, nor empty the baseline on --update.
	skipped, err := transcript.Walk(paths, transcript.Options{}, nil, func(t *transcript.Transcript) error {
		var policies []window.Labeled
		for _, lp := range cfg.Policies {
			if opts.Holds == nil || opts.Holds(Key(relPath(cfg.Dir, t.File), lp.Label)) {
				policies = append(policies, lp)
			}
		}
		if len(policies) == 0 {
			return nil
		}
		ps := make([]window.Policy, len(policies))
		for k, lp := range policies {
			ps[k] = lp.Policy
		}
		// A Replayer of t's own, let go with it.
		r, err := replay.NewReplayer(t)
		if err != nil {
			return err
		}
		s, err := cost.Replay(ctx, r, ps, ropt, copt)
		if err != nil {
			return err
		}
		if s.NotPriced != nil {
			for _, b := range []string{"max_cost_usd", "max_cache_break_usd", "max_cache_miss_usd"} {
				if _, ok := cfg.Budgets[b]; ok {
					return fmt.Errorf("%s: %s needs a price: %w (set model in %s)", t.File, b, s.NotPriced, cfg.Path)
				}
			}
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: not priced: %v", relPath(cfg.Dir, t.File), s.NotPriced))
		}
		for k, lp := range policies {
			c, err := newCase(cfg, t, lp, s, k, est.Name())
			if err != nil {
				return err
			}
			res.Cases = append(res.Cases, c)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(skipped) > 0 {
		var files []string
		for _, f := range skipped {
			files = append(files, fmt.Sprintf("%s (%s)", relPath(cfg.Dir, f.File), f.Reason))
		}
		return nil, fmt.Errorf("%s: %d of the suite's files hold no transcript: %s; a suite's files are its cases: fix them, or narrow the transcripts globs to the transcripts", cfg.Path, len(files), strings.Join(files, "; "))
	}
	res.Sort()
	return res, nil
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
	for _, inv := range replay.Invariants() {
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
