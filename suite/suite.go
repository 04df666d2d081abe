package suite

import (
	"context"

	"github.com/ctxbench/ctxbench/internal/batch"
	"github.com/ctxbench/ctxbench/internal/suitecheck"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/summarize"
)

// A Config is a suite, as its ctxbench.yaml gives it: the transcripts,
// the policies, the estimators, the provider, the model that prices the
// calls, the budgets and the tolerances, its paths relative to the file.
type Config = suitecheck.Config

// LoadConfig reads and checks the suite's config at path; a mistake is
// reported with its line.
func LoadConfig(path string) (*Config, error) { return suitecheck.LoadConfig(path) }

// A Baseline is the metrics a suite's cases are held to, by case key
// (the transcript's path relative to the config, and the policy's label).
type Baseline = suitecheck.Baseline

// LoadBaseline reads the baseline at path (by default
// [Config.BaselinePath]).
func LoadBaseline(path string) (*Baseline, error) { return suitecheck.LoadBaseline(path) }

// Options configure a [Check].
type Options struct {
	// Summarizer makes the summaries policies ask for (nil: the mock,
	// whatever the config's provider).
	Summarizer summarize.Summarizer
	// Prices price the calls and give the models' context windows (nil:
	// [pricing.Default]).
	Prices pricing.Prices
	// Strict fails a case on any change beyond tolerance, improvements
	// too.
	Strict bool
}

// A Report is a suite's run checked against a baseline: every case with
// its deltas and verdicts, the warnings, and the baseline the run would
// record.
type Report = suitecheck.Report

// Check replays every transcript of cfg under every policy, prices the
// runs (at cfg.Model, else each call at the model that made it), checks
// each case's invariants and budgets, and compares the cases with base
// (nil: none, and every case is missing from it) under cfg's
// tolerances. A file of the suite that holds no transcript is an
// error.
func Check(ctx context.Context, cfg *Config, base *Baseline, opts Options) (*Report, error) {
	res, err := batch.Check(ctx, cfg, batch.CheckOptions{Summarizer: opts.Summarizer, Prices: opts.Prices})
	if err != nil {
		return nil, err
	}
	return suitecheck.Check(cfg, res, base, opts.Strict), nil
}

// A Verdict is what a change of a metric from the baseline means.
type Verdict = suitecheck.Verdict

const (
	// Within: the change is within its tolerance.
	Within Verdict = suitecheck.Within
	// Better: beyond its tolerance, in the direction the metric improves.
	Better Verdict = suitecheck.Better
	// Worse: beyond its tolerance, in the other direction.
	Worse Verdict = suitecheck.Worse
)
