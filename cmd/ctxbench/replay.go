package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/batch"
	"github.com/ctxbench/ctxbench/internal/jsonstream"
	"github.com/ctxbench/ctxbench/internal/metric"
	"github.com/ctxbench/ctxbench/internal/printable"
	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/internal/selfcheck"
	"github.com/ctxbench/ctxbench/internal/suitecheck"
	"github.com/ctxbench/ctxbench/internal/tracefmt"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

type replayCmd struct {
	inputFlags      `group:"input"`
	summarizerFlags `group:"summarizer"`
	Policies        []string `name:"policy" sep:"none" placeholder:"SPEC" help:"Policy to replay, repeatable: NAME or NAME:key=value,… (default: ${default_policies}). See ctxbench policies."`
	Config          string   `placeholder:"FILE" help:"ctxbench.yaml: transcripts, policies, estimators, provider (flags override it)."`
	Estimators      []string `name:"estimator" short:"e" placeholder:"NAME" help:"Estimators to count what is sent with, repeatable (default cl100k_base)."`
	Trace           string   `placeholder:"FILE" help:"Write the trace: one JSON object per call, per transcript and policy (go doc ./replay WriteTrace); cost_usd prices each call at the transcript's model, as ctxbench cost does."`
	Prices          string   `placeholder:"FILE" help:"Prices and context windows, for the trace's cost_usd and the windows policies default to: ctxbench's JSON or LiteLLM's model_prices_and_context_window.json (default: the embedded table)."`
	Pricing         string   `name:"pricing-model" placeholder:"M" help:"Price every call of the trace as this model, a what-if (default: each call at the model that made it)."`
	JSON            bool     `help:"Print one JSON document with every run and step."`
	Parquet         string   `placeholder:"DIR" help:"Also write the runs' rows as Parquet into DIR (runs.parquet, calls.parquet), priced as ctxbench cost prices them; docs/rows.md has the schema."`
	JSONL           string   `name:"jsonl" placeholder:"DIR" help:"Also write the same rows as JSON Lines into DIR."`
	Paths           []string `arg:"" optional:"" name:"path" help:"Transcript files, directories, or - for standard input. None: the config's transcripts, else Claude Code's sessions (~/.claude/projects or $CLAUDE_CONFIG_DIR/projects) (--samples: the embedded samples)."`
}

// replaySetup is what replay resolves from its flags and config.
type replaySetup struct {
	policies   []window.Labeled
	estimators []estimate.Estimator
	paths      []string
	sum        summarizerFlags
}

func (c *replayCmd) setup() (*replaySetup, error) {
	s := &replaySetup{paths: c.Paths, sum: c.summarizerFlags}
	var cfg *suitecheck.Config
	if c.Config != "" {
		var err error
		if cfg, err = suitecheck.LoadConfig(c.Config); err != nil {
			return nil, err
		}
		if len(s.paths) == 0 {
			if s.paths, err = cfg.Paths(); err != nil {
				return nil, err
			}
		}
		s.sum = s.sum.withConfig(cfg.Provider)
	}
	var err error
	switch {
	case len(c.Policies) > 0:
		if s.policies, err = window.ParseLabeled(c.Policies); err != nil {
			return nil, fmt.Errorf("--policy: %w", err)
		}
	case cfg != nil:
		s.policies = cfg.Policies
	default:
		if s.policies, err = window.ParseLabeled(defaultPolicies); err != nil {
			return nil, err
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
	// SelfChecks hold the claude-code runs to the compaction the
	// transcript recorded.
	SelfChecks []report.SelfCheck `json:"self_checks,omitempty"`
	agent      string
}

type labeledRun struct {
	Label string `json:"label"`
	*replay.Run
	// ShareOfNone is the input tokens sent as a share of sending everything.
	ShareOfNone float64 `json:"share_of_none"`
	// Steps are --json's, read back from the spool when the document is
	// written (the run keeps none); they stand for the run's own.
	Steps *jsonstream.Stream `json:"steps,omitempty"`
	// cost is the run's, with --trace (nil: not priced).
	cost *cost.RunCost
}

func (c *replayCmd) Run(e *env) error {
	s, err := c.setup()
	if err != nil {
		return err
	}
	sum, prun, err := s.sum.build(e)
	if err != nil {
		return err
	}
	prices, err := loadPrices(c.Prices) // windows, and the trace's cost_usd
	if err != nil {
		return err
	}
	res := replayResult{Transcripts: []transcriptRuns{}, SkippedFiles: []transcript.SkippedFile{}}
	var violations violationList
	// The trace and --json's steps are spooled as the runs make them.
	var spools replaySpools
	if err := refuseInput("--trace", c.Trace, c.Paths); err != nil {
		return err
	}
	if c.Trace != "" {
		if spools.trace, err = newTraceSpool(); err != nil {
			return err
		}
		defer spools.trace.close()
	}
	if c.JSON {
		if spools.steps, err = newStepSpool(); err != nil {
			return err
		}
		defer spools.steps.close()
	}
	if spools.rows, err = newCostRows(&c.inputFlags, c.Parquet, c.JSONL, s.paths); err != nil {
		return err
	}
	rowsDone := false
	defer func() {
		if spools.rows != nil && !rowsDone {
			spools.rows.abort()
		}
	}()
	// Each transcript's Replayer is made, and its counts made, by the
	// goroutine that read it, while the ones before it are replayed.
	p := c.pipeline(s, sum, prices, &spools)
	skipped, err := readPrepared(e, s.paths, c.inputFlags, true, p.Prepare, func(t *transcript.Transcript, pr batch.Prepared) error {
		tr, err := c.replay(e, p, t, pr, s, sum, prices, &spools)
		if err != nil {
			return err
		}
		violations.add(tr)
		warnPolicies(e, tr)
		if c.JSON {
			res.Transcripts = append(res.Transcripts, tr)
		}
		if c.JSON {
			return nil
		}
		return writeReplayTable(e.stdout, tr, s.estimators[0].Name())
	})
	if err != nil {
		return err
	}
	if c.Trace != "" {
		if err := report.WriteTo(c.Trace, e.stdout, func(w *bufio.Writer) error { return spools.trace.writeTo(w) }); err != nil {
			return err
		}
	}
	res.SkippedFiles = append(res.SkippedFiles, skipped...)
	if c.JSON {
		if err := writeReplayJSON(e, res, spools.steps); err != nil {
			return err
		}
	} else {
		violations.write(e.stdout)
	}
	if err := prun.finish(e); err != nil {
		return err
	}
	if spools.rows != nil {
		rowsDone = true
		if err := spools.rows.close(); err != nil {
			return err
		}
	}
	if violations.n > 0 {
		return errVerdict
	}
	return nil
}

// replaySpools are where the runs write as they go: the trace, the
// steps of --json and the rows (nil: not asked for); rowSteps gathers a
// transcript's steps for its rows, into stepsOf.
type replaySpools struct {
	trace, steps *runSpool
	rows         *costRows
	rowSteps     func(int, *replay.Step, *tracefmt.PricedCall) error
	stepsOf      []report.RunSteps
}

// start opens the spools' files for t's runs under ps.
func (sp *replaySpools) start(t *transcript.Transcript, ps []window.Policy) error {
	for _, s := range []*runSpool{sp.trace, sp.steps} {
		if s != nil {
			if err := s.start(t, ps); err != nil {
				return err
			}
		}
	}
	return nil
}

// observe writes run k's step to the spools.
func (sp *replaySpools) observe(k int, s *replay.Step, priced *tracefmt.PricedCall) error {
	if sp.trace != nil {
		if err := sp.trace.observe(k, s, priced); err != nil {
			return err
		}
	}
	if sp.rowSteps != nil {
		if err := sp.rowSteps(k, s, priced); err != nil {
			return err
		}
	}
	if sp.steps != nil {
		return sp.steps.observe(k, s, nil)
	}
	return nil
}

// finish appends the transcript's runs to the spools.
func (sp *replaySpools) finish() error {
	for _, s := range []*runSpool{sp.trace, sp.steps} {
		if s != nil {
			if err := s.finish(); err != nil {
				return err
			}
		}
	}
	return nil
}

// pipeline returns the batch the transcripts are replayed by: its
// runs are priced as ctxbench cost prices them ([cost.Replay]) when the
// trace or the rows are asked for, and each step is written to the
// spools as it is made (the runs keep none).
func (c *replayCmd) pipeline(s *replaySetup, sum summarize.Summarizer, prices pricing.Prices, spools *replaySpools) *batch.Pipeline {
	priced := spools.trace != nil || spools.rows != nil
	spec := batch.Spec{Policies: s.policies, NoSeries: true, NoCost: !priced,
		Replay: replay.Options{Estimators: s.estimators, Summarizer: sum, Prices: prices, NoSteps: true},
		Cost:   cost.Options{Prices: prices, Model: c.Pricing}}
	if priced || spools.steps != nil {
		spec.Observe = func(*transcript.Transcript) func(int, *replay.Step, *tracefmt.PricedCall) error {
			if spools.rows != nil {
				spools.rowSteps, spools.stepsOf = observeRows(len(s.policies), s.estimators[0].Name())
			}
			return spools.observe
		}
	}
	return batch.New(spec)
}

// replay replays t under the setup's policies through p, its runs
// written to the spools as they go; with --trace or the rows, a
// transcript that cannot be priced is a warning. pr is what p prepared
// of t.
func (c *replayCmd) replay(e *env, p *batch.Pipeline, t *transcript.Transcript, pr batch.Prepared, s *replaySetup, sum summarize.Summarizer, prices pricing.Prices, spools *replaySpools) (transcriptRuns, error) {
	tr := transcriptRuns{File: t.File, ID: t.ID, agent: t.AgentVersion}
	ps := make([]window.Policy, len(s.policies))
	for k, lp := range s.policies {
		ps[k] = lp.Policy
	}
	if err := spools.start(t, ps); err != nil {
		return tr, err
	}
	sr, err := p.Replay(e.ctx, t, pr)
	if err != nil {
		return tr, err
	}
	sess := sr.Session
	if spools.trace != nil || spools.rows != nil {
		if sess.NotPriced != nil {
			what := "the trace has no cost_usd"
			if spools.trace == nil {
				what = "no rows"
			}
			e.warn(notPriced(fmt.Errorf("%s: %s: %w", t.File, what, sess.NotPriced), "--pricing-model", "--prices"))
		} else if spools.rows != nil {
			takeSummaries(spools.stepsOf, sess.Runs)
			if err := spools.rows.write(report.RowsOf(t, s.policies, sess.Costs, spools.stepsOf, sess.Misses, sess.MissTotals)); err != nil {
				return tr, err
			}
		}
	}
	if err := spools.finish(); err != nil {
		return tr, err
	}
	runs := sess.Runs
	// The self-checks' replays count as the runs do.
	opt := replay.Options{Estimators: s.estimators, Summarizer: sum, Prices: prices, NoSteps: true}
	for k, lp := range s.policies {
		lr := labeledRun{Label: lp.Label, Run: runs[k], ShareOfNone: metric.ShareOfNone(runs[k].Summary.InputTokens[s.estimators[0].Name()], sr.NoneInputTokens)}
		if sess.Costs != nil {
			lr.cost = sess.Costs[k]
		}
		tr.Runs = append(tr.Runs, lr)
		if lp.Policy.Name() == "claude-code" && recordedByClaudeCode(t) {
			checks, err := selfChecks(e, t, runs[k], lp, opt)
			if err != nil {
				return tr, err
			}
			tr.SelfChecks = append(tr.SelfChecks, checks...)
		}
	}
	return tr, nil
}

// warnPolicies says, on standard error, what each policy warned of its
// own steps.
func warnPolicies(e *env, tr transcriptRuns) {
	for _, r := range tr.Runs {
		for _, w := range r.Summary.Warnings {
			e.warn(fmt.Errorf("%s, %s: %s (%s from step %d)", tr.File, r.Label, w.Text, report.Count(w.Calls, "call", "calls"), w.First))
		}
		if n := r.Summary.MoreWarnings; n > 0 {
			e.warn(fmt.Errorf("%s, %s: %s with other warnings (see --trace)", tr.File, r.Label, report.Count(n, "call", "calls")))
		}
	}
}

// A violationList counts the violations of the runs and keeps the first
// 20, with their transcript and policy.
type violationList struct {
	n     int
	first []listedViolation
}

// A listedViolation is a violation and the run it broke.
type listedViolation struct {
	file, policy, text string
}

func (l *violationList) add(tr transcriptRuns) {
	for _, r := range tr.Runs {
		for _, v := range r.Violations {
			l.n++
			if len(l.first) < 20 {
				l.first = append(l.first, listedViolation{tr.File, r.Label, v.String()})
			}
		}
	}
}

// write lists the violations kept, each run's under its transcript and
// policy, named once.
func (l *violationList) write(w io.Writer) {
	if l.n == 0 {
		return
	}
	if l.n == len(l.first) {
		fmt.Fprintf(w, "%s:\n", report.Count(l.n, "invariant violation", "invariant violations"))
	} else {
		fmt.Fprintf(w, "%d invariant violations; the first %d:\n", l.n, len(l.first))
	}
	for i, v := range l.first {
		if i == 0 || v.file != l.first[i-1].file || v.policy != l.first[i-1].policy {
			fmt.Fprintf(w, "  %s, %s:\n", v.file, v.policy)
		}
		fmt.Fprintln(w, "    "+v.text)
	}
}

func writeReplayTable(w io.Writer, tr transcriptRuns, primary string) error {
	calls := 0
	if len(tr.Runs) > 0 {
		calls = tr.Runs[0].Summary.Calls
	}
	fmt.Fprintf(w, "%s (%s, %s)\n", printable.String(tr.File), printable.String(tr.ID), report.Count(calls, "call", "calls"))
	runs := make([]report.PolicyResult, len(tr.Runs))
	for i, r := range tr.Runs {
		runs[i] = report.PolicyResult{Label: r.Label, Summary: r.Summary, ShareOfNone: r.ShareOfNone}
	}
	if err := report.WriteRunTable(w, runs, primary); err != nil {
		return err
	}
	for _, c := range tr.SelfChecks {
		fmt.Fprintln(w, report.SelfCheckText(c, tr.agent))
	}
	for _, r := range tr.Runs {
		if r.cost != nil && r.cost.BreakTotals.Breaks > 0 {
			fmt.Fprintf(w, "cache: %s: %s\n", r.Label, report.CacheBreakText(r.cost.BreakTotals, r.cost.Breaks))
		}
	}
	_, err := fmt.Fprintf(w, "tokens are %s counts of what each policy sends; %s\n\n", primary, report.ProbeNote)
	return err
}

// recordedByClaudeCode reports whether Claude Code recorded t, so that
// the claude-code policy can be held to it.
func recordedByClaudeCode(t *transcript.Transcript) bool {
	return t.Format == transcript.FormatClaudeCode && (t.AgentVersion != "" || len(t.Compactions) > 0)
}

// claudeCodeSelfChecks replays t under claude-code (as the version that
// recorded it) when t recorded a compaction, and holds the policy to
// each part of t (selfcheck.CheckCompactions).
func claudeCodeSelfChecks(e *env, t *transcript.Transcript) ([]report.SelfCheck, error) {
	if len(t.Compactions) == 0 || !recordedByClaudeCode(t) {
		return nil, nil
	}
	p, err := window.Parse("claude-code")
	if err != nil {
		return nil, err
	}
	opt := replay.Options{NoSteps: true, Summarizer: &summarize.Mock{}}
	run, err := replay.Replay(e.ctx, t, p, opt)
	if err != nil {
		return nil, err
	}
	return selfChecks(e, t, run, window.Labeled{Label: "claude-code", Policy: p}, opt)
}

// selfChecks holds run, lp's replay of t, to every compaction t
// recorded (selfcheck.CheckCompactions).
func selfChecks(e *env, t *transcript.Transcript, run *replay.Run, lp window.Labeled, opt replay.Options) ([]report.SelfCheck, error) {
	checks, err := selfcheck.CheckCompactions(e.ctx, t, run, lp.Policy, "auto-compact", opt)
	out := make([]report.SelfCheck, len(checks))
	for k, c := range checks {
		out[k] = report.SelfCheck{Label: lp.Label, CompactionCheck: c, Agrees: c.Agrees()}
	}
	return out, err
}
