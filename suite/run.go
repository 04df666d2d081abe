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
	// Baseline is what the cases are compared with; nil compares nothing
	// (a run that records a new baseline).
	Baseline *Baseline
	// Prices price the calls and give the models' context windows, which
	// policies' windows default to (nil: [pricing.Default]).
	Prices pricing.Prices
}

// A Case is one transcript under one policy, and what it broke.
type Case struct {
	// File is the transcript's path relative to the config's folder;
	// Policy the policy's label.
	File, Policy string
	Metrics      Metrics
	// Violations are the invariants the replay broke, step by step.
	Violations []replay.Violation
	// Budgets are the budgets the metrics exceed.
	Budgets []BudgetFailure
	// Baseline is the entry the metrics were compared with (nil: none),
	// and Regressions the metrics that moved beyond their tolerance.
	Baseline    *Metrics
	Regressions []Regression
	// Missing says the case is not in the baseline; Removed that the
	// baseline has it but the suite no longer replays it (its Metrics are
	// then zero).
	Missing, Removed bool
}

// Key returns the case's baseline key.
func (c *Case) Key() string { return Key(c.File, c.Policy) }

// Failed reports whether the case fails the check.
func (c *Case) Failed() bool {
	return len(c.Violations) > 0 || len(c.Budgets) > 0 || len(c.Regressions) > 0 || c.Missing || c.Removed
}

// A Result is a suite's run: its cases in key order, the metrics as a
// baseline, and the warnings to show (transcripts not priced).
type Result struct {
	Cases    []Case
	Current  *Baseline
	Warnings []error
}

// Failed returns how many cases fail.
func (r *Result) Failed() int {
	n := 0
	for i := range r.Cases {
		if r.Cases[i].Failed() {
			n++
		}
	}
	return n
}

// Run replays every transcript of cfg under every policy, prices the runs
// (as package cost does, at cfg.Model or each transcript's own model),
// and checks each case's invariants, its budgets and, when opts has a
// baseline, its metrics against it: everything `ctxbench check` does but
// print. A transcript that cannot be priced costs 0 and is a warning,
// unless a max_cost_usd budget needs its price: then it is an error.
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
	ropt := replay.Options{Estimators: []estimate.Estimator{est}, Summarizer: sum, Counts: estimate.NewCache(), Artifacts: replay.NewArtifactCache(), Prices: opts.Prices}
	copt := cost.Options{Prices: opts.Prices, Model: cfg.Model}
	policies := make([]window.Policy, len(cfg.Policies))
	for k, lp := range cfg.Policies {
		policies[k] = lp.Policy
	}
	res := &Result{Current: &Baseline{Estimator: est.Name(), Entries: map[string]Metrics{}}}
	_, err = transcript.Walk(paths, transcript.Options{}, nil, func(t *transcript.Transcript) error {
		s, err := cost.Replay(ctx, t, policies, ropt, copt)
		if err != nil {
			return err
		}
		if s.NotPriced != nil {
			if cfg.Budgets["max_cost_usd"] > 0 {
				return fmt.Errorf("%s: max_cost_usd needs a price: %w (set model in %s)", t.File, s.NotPriced, cfg.Path)
			}
			res.Warnings = append(res.Warnings, fmt.Errorf("%s: not priced: %w", t.File, s.NotPriced))
		}
		for k, lp := range cfg.Policies {
			c, err := newCase(cfg, t, lp.Label, s, k, est.Name(), opts.Baseline)
			if err != nil {
				return err
			}
			res.Current.Entries[c.Key()] = c.Metrics
			res.Cases = append(res.Cases, c)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if opts.Baseline != nil {
		for _, key := range slices.Sorted(maps.Keys(opts.Baseline.Entries)) {
			if _, ok := res.Current.Entries[key]; !ok {
				file, policy, _ := strings.Cut(key, " | ")
				res.Cases = append(res.Cases, Case{File: file, Policy: policy, Removed: true})
			}
		}
	}
	slices.SortStableFunc(res.Cases, func(a, b Case) int { return strings.Compare(a.Key(), b.Key()) })
	return res, nil
}

// newCase checks run k of s, labelled label.
func newCase(cfg *Config, t *transcript.Transcript, label string, s *cost.Session, k int, est string, base *Baseline) (Case, error) {
	run := s.Runs[k]
	usd := 0.0
	if s.Costs != nil {
		usd = s.Costs[k].Total.USD()
	}
	c := Case{File: relPath(cfg.Dir, t.File), Policy: label, Metrics: MetricsOf(run, est, usd), Violations: run.Violations}
	var err error
	if c.Budgets, err = CheckBudgets(c.Key(), c.Metrics, cfg.Budgets); err != nil {
		return Case{}, fmt.Errorf("%s: %w", cfg.Path, err)
	}
	if base == nil {
		return c, nil
	}
	want, ok := base.Entries[c.Key()]
	if !ok {
		c.Missing = true
		return c, nil
	}
	c.Baseline = &want
	c.Regressions = Compare(c.Key(), want, c.Metrics, cfg.Tolerance)
	return c, nil
}

// Paths expands the config's transcript globs; a glob that matches
// nothing is an error.
func (c *Config) Paths() ([]string, error) {
	var paths []string
	for _, g := range c.Transcripts {
		m, err := filepath.Glob(g)
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
