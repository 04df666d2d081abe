package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/reports"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// defaultPolicies are replayed when neither --policy nor a config names
// any: the baselines and the seed window at a cap the samples reach.
var defaultPolicies = []string{"none", "recorded", "aidf:max_messages=30"}

type replayCmd struct {
	inputFlags
	summarizerFlags
	Policies   []string `name:"policy" sep:"none" placeholder:"SPEC" help:"Policy to replay, repeatable: NAME or NAME:key=value,… (default: none, recorded, aidf:max_messages=30). See ctxbench policies."`
	Config     string   `placeholder:"FILE" help:"ctxbench.yaml: transcripts, policies, estimators, provider (flags override it)."`
	Estimators []string `name:"estimator" short:"e" placeholder:"NAME" help:"Estimators to count what is sent with, repeatable (default cl100k_base)."`
	Trace      string   `placeholder:"FILE" help:"Write the trace: one JSON object per call, per transcript and policy (DESIGN.md §4); cost_usd prices each call at the transcript's model, as ctxbench cost does."`
	Prices     string   `placeholder:"FILE" help:"Prices for the trace's cost_usd: ctxbench's JSON or LiteLLM's model_prices_and_context_window.json (default: the embedded table)."`
	JSON       bool     `help:"Print one JSON document with every run and step."`
	Paths      []string `arg:"" optional:"" name:"path" help:"Transcript files, directories, or - for standard input. None: the config's transcripts, else the embedded samples."`
}

// replaySetup is what replay and sweep resolve from flags and config.
type replaySetup struct {
	policies   []replay.LabeledPolicy
	estimators []estimate.Estimator
	paths      []string
}

func (c *replayCmd) setup() (*replaySetup, error) {
	s := &replaySetup{paths: c.Paths}
	var cfg *replay.Config
	if c.Config != "" {
		var err error
		if cfg, err = replay.LoadConfig(c.Config); err != nil {
			return nil, err
		}
		if len(s.paths) == 0 {
			for _, g := range cfg.Transcripts {
				m, err := filepath.Glob(g)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", c.Config, err)
				}
				if len(m) == 0 {
					return nil, fmt.Errorf("%s: %q matches no file", c.Config, g)
				}
				s.paths = append(s.paths, m...)
			}
		}
		if c.Provider == "mock" && cfg.Provider.Name != "" {
			c.Provider, c.Model, c.BaseURL = cfg.Provider.Name, cfg.Provider.Model, cfg.Provider.BaseURL
		}
	}
	switch {
	case len(c.Policies) > 0:
		for _, spec := range c.Policies {
			p, err := window.Parse(spec)
			if err != nil {
				return nil, fmt.Errorf("--policy: %w", err)
			}
			s.policies = append(s.policies, replay.LabeledPolicy{Label: replay.Spec(p), Policy: p})
		}
	case cfg != nil:
		s.policies = cfg.Policies
	default:
		for _, spec := range defaultPolicies {
			p, _ := window.Parse(spec)
			s.policies = append(s.policies, replay.LabeledPolicy{Label: spec, Policy: p})
		}
	}
	names := c.Estimators
	if len(names) == 0 && cfg != nil {
		names = cfg.Estimators
	}
	if len(names) == 0 {
		names = []string{"cl100k_base"}
	}
	for _, n := range names {
		e, err := estimate.New(n, estimate.OverheadNone)
		if err != nil {
			return nil, fmt.Errorf("--estimator: %w", err)
		}
		s.estimators = append(s.estimators, e)
	}
	return s, nil
}

// replayResult is the --json document.
type replayResult struct {
	Transcripts  []transcriptRuns         `json:"transcripts"`
	SkippedFiles []transcript.SkippedFile `json:"skipped_files"`
}

type transcriptRuns struct {
	File string       `json:"file"`
	ID   string       `json:"id"`
	Runs []labeledRun `json:"runs"`
}

type labeledRun struct {
	Label string `json:"label"`
	*replay.Run
	// ShareOfNone is the input tokens sent as a share of sending everything.
	ShareOfNone float64 `json:"share_of_none"`
}

func (c *replayCmd) Run(e *env) error {
	s, err := c.setup()
	if err != nil {
		return err
	}
	sum, budget, err := c.build()
	if err != nil {
		return err
	}
	opt := replay.Options{Estimators: s.estimators, Summarizer: sum}
	var prices replay.Prices // for the trace's cost_usd
	if c.Trace != "" {
		prices = replay.DefaultPrices()
		if c.Prices != "" {
			if prices, err = replay.LoadPrices(c.Prices); err != nil {
				return err
			}
		}
	}
	res := replayResult{Transcripts: []transcriptRuns{}, SkippedFiles: []transcript.SkippedFile{}}
	var violations []string
	nViolations := 0
	var trace func(w *bufio.Writer) error
	var runs []*replay.Run
	var costs []*replay.RunCost // by run, for the trace; nil: not priced
	primary := s.estimators[0].Name()
	skipped, err := readInputs(e, s.paths, c.inputFlags, true, func(t *transcript.Transcript) error {
		// Caches per transcript: shared by its policies, and let go with
		// it, so memory is one transcript's, not the corpus's.
		counts := estimate.NewCache()
		opt := opt
		opt.Counts, opt.Artifacts = counts, replay.NewArtifactCache()
		// Only the summary is printed without --json or --trace: the
		// steps, which grow with calls × context, are not kept.
		opt.SummaryOnly = c.Trace == "" && !c.JSON
		tr := transcriptRuns{File: t.File, ID: t.ID}
		ps := make([]window.Policy, len(s.policies))
		for k, lp := range s.policies {
			ps[k] = lp.Policy
		}
		done, err := replay.ReplayAll(context.Background(), t, ps, opt, 0)
		if err != nil {
			return err
		}
		base := replay.NoneInputTokens(t, s.estimators[0], counts)
		var price func(*replay.Run) *replay.RunCost
		if c.Trace != "" {
			if price, err = tracePrices(e, t, done, opt, prices); err != nil {
				return err
			}
		}
		for k, lp := range s.policies {
			run := done[k]
			lr := labeledRun{Label: lp.Label, Run: run}
			if base > 0 {
				lr.ShareOfNone = float64(run.Summary.InputTokens[primary]) / float64(base)
			}
			tr.Runs = append(tr.Runs, lr)
			for _, v := range run.Violations {
				nViolations++
				if len(violations) < 20 {
					violations = append(violations, fmt.Sprintf("%s, %s, %s", t.File, lp.Label, v))
				}
			}
			if c.Trace != "" {
				runs, costs = append(runs, run), append(costs, price(run))
			}
		}
		if !c.JSON {
			if err := writeReplayTable(e.stdout, tr, primary); err != nil {
				return err
			}
		} else {
			res.Transcripts = append(res.Transcripts, tr)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if c.Trace != "" {
		trace = func(w *bufio.Writer) error {
			for k, r := range runs {
				if err := replay.WriteTrace(w, r, costs[k]); err != nil {
					return err
				}
			}
			return nil
		}
		if err := reports.WriteFile(c.Trace, trace); err != nil {
			return err
		}
	}
	res.SkippedFiles = append(res.SkippedFiles, skipped...)
	if c.JSON {
		if err := writeJSON(e.stdout, res); err != nil {
			return err
		}
	} else {
		for _, sf := range skipped {
			fmt.Fprintf(e.stdout, "skipped %s: %s\n", sf.File, sf.Reason)
		}
		if budget != nil {
			fmt.Fprintf(e.stderr, "ctxbench: summaries cost $%.4f of the $%.2f cap\n", budget.Spent(), budget.MaxUSD)
		}
		if nViolations > 0 {
			fmt.Fprintf(e.stdout, "%d invariant violations; the first %d:\n", nViolations, len(violations))
			for _, v := range violations {
				fmt.Fprintln(e.stdout, "  "+v)
			}
		}
	}
	if nViolations > 0 {
		return errVerdict
	}
	return nil
}

func writeReplayTable(w io.Writer, tr transcriptRuns, primary string) error {
	calls := 0
	if len(tr.Runs) > 0 {
		calls = tr.Runs[0].Summary.Calls
	}
	fmt.Fprintf(w, "%s (%s, %s calls)\n", tr.File, tr.ID, reports.Int(calls))
	t := reports.Table{
		Header: []string{"policy", "peak msgs", "peak tokens", "input tokens sent", "of none", "evicted", "truncated", "summaries", "retention", "violations"},
		Right:  []bool{false, true, true, true, true, true, true, true, true, false},
	}
	for _, r := range tr.Runs {
		s := r.Summary
		sums := reports.Int(s.Summaries)
		if s.SummaryFailures > 0 {
			sums += fmt.Sprintf(" (+%d failed)", s.SummaryFailures)
		}
		t.Rows = append(t.Rows, []string{r.Label, reports.Int(s.PeakMessages), reports.Int(s.PeakTokens[primary]),
			reports.Int(s.InputTokens[primary]), fmt.Sprintf("%.1f%%", r.ShareOfNone*100), reports.Int(s.Evictions),
			reports.Int(s.Truncations), sums, fmt.Sprintf("%.1f%%", s.MeanRetention*100), violationSummary(s.Violations)})
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "tokens are %s counts of what each policy sends; retention is the mean share of the files, commands, URLs, errors and tool calls seen so far that the context still holds (a proxy)\n\n", primary)
	return err
}

func violationSummary(v map[string]int) string {
	if len(v) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, v[k])
	}
	return strings.Join(parts, ", ")
}

// tracePrices returns the function that prices a run of t for the trace,
// as ctxbench cost does: at t's model, with prices, the prompt constant
// fitted on the recorded run (one of runs, when the replay has it) and
// the provider's cache simulated. When t cannot be priced (no model
// recorded, or no price for it) it warns once, and the function returns
// nil: the trace's lines then have no cost_usd.
func tracePrices(e *env, t *transcript.Transcript, runs []*replay.Run, opt replay.Options, prices replay.Prices) (func(*replay.Run) *replay.RunCost, error) {
	var rec *replay.Run
	for _, r := range runs {
		if r.Policy == "recorded" {
			rec = r
		}
	}
	if rec == nil {
		recorded, err := window.Parse("recorded")
		if err != nil {
			return nil, err
		}
		if rec, err = replay.Replay(context.Background(), t, recorded, opt); err != nil {
			return nil, err
		}
	}
	est := opt.Estimators[0]
	constant := replay.Constant(rec, est.Name())
	copt := replay.CostOptions{Prices: prices, Estimator: est, Counts: opt.Counts}
	warned := false
	return func(run *replay.Run) *replay.RunCost {
		rc, err := replay.PriceRun(run, t, constant, copt)
		if err != nil {
			if !warned {
				fmt.Fprintf(e.stderr, "ctxbench: warning: %s: the trace has no cost_usd: %v\n", t.File, err)
				warned = true
			}
			return nil
		}
		return rc
	}, nil
}
