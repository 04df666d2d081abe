package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/internal/suitecheck"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// CheckOptions configure a [Check].
type CheckOptions struct {
	// Summarizer makes the summaries policies ask for (nil: the mock).
	Summarizer summarize.Summarizer
	// Prices price the calls and give the models' context windows, which
	// policies' windows default to (nil: [pricing.Default]).
	Prices pricing.Prices
	// Shard, when set, replays only the cases of one shard.
	Shard Shard
}

// Check replays every transcript of cfg under every policy (the cases
// of opts.Shard only, when set), prices the runs (as package cost does,
// at cfg.Model or each transcript's own model), and checks each case's
// invariants and budgets ([suitecheck.Config.Cases]); [suitecheck.Check] compares
// the result with a baseline. A file of the suite that holds no
// transcript is an error, never a case dropped: an unreadable file (a
// Git LFS pointer, a compressed or empty file) must not pass, nor empty
// the baseline on --update.
func Check(ctx context.Context, cfg *suitecheck.Config, opts CheckOptions) (*suitecheck.Result, error) {
	paths, err := cfg.Paths()
	if err != nil {
		return nil, err
	}
	est := cfg.Estimator()
	sum := opts.Summarizer
	if sum == nil {
		sum = &summarize.Mock{}
	}
	res := &suitecheck.Result{Estimator: est.Name(), Cases: []suitecheck.Case{}, Warnings: []string{}}
	spec := Spec{
		Policies: cfg.Policies,
		Replay:   replay.Options{Estimators: []estimate.Estimator{est}, Summarizer: sum, Prices: opts.Prices},
		Cost:     cost.Options{Prices: opts.Prices, Model: cfg.Model},
		NoSeries: true,
		Runs: func(sr *suitecheck.SessionRun) error {
			cases, warning, err := cfg.Cases(sr)
			if warning != "" {
				res.Warnings = append(res.Warnings, warning)
			}
			res.Cases = append(res.Cases, cases...)
			return err
		},
	}
	if opts.Shard.N > 0 {
		spec.Holds = func(t *transcript.Transcript, lp window.Labeled) bool { return opts.Shard.Holds(cfg.CaseKey(t, lp)) }
	}
	p := New(spec)
	skipped, err := transcript.WalkPrepared(paths, transcript.Options{}, nil, p.Prepare, func(t *transcript.Transcript, pr Prepared) error {
		return p.Add(ctx, t, pr)
	})
	if err != nil {
		return nil, err
	}
	if len(skipped) > 0 {
		return nil, cfg.Unreadable(skipped)
	}
	res.Sort()
	return res, nil
}

// A CheckPartial is one shard's result of a suite, written by `ctxbench
// check --shard K/N --partial FILE` and combined by [MergeCheck]: the
// cases of the shard, each in the shard its key ([suitecheck.Key]) hashes
// to. It names the suite (the digest of its config file) and the
// ctxbench version that ran it: parts of another suite or version do
// not merge.
type CheckPartial struct {
	Ctxbench string            `json:"ctxbench"`
	Suite    string            `json:"suite"`
	Shard    string            `json:"shard"`
	Result   suitecheck.Result `json:"result"`
}

// NewCheckPartial wraps res, shard sh of cfg run by ctxbench version.
func NewCheckPartial(cfg *suitecheck.Config, version string, sh Shard, res *suitecheck.Result) *CheckPartial {
	return &CheckPartial{Ctxbench: version, Suite: cfg.Digest, Shard: sh.String(), Result: *res}
}

// Encode returns the partial as JSON.
func (p *CheckPartial) Encode() []byte {
	b, _ := json.MarshalIndent(p, "", " ")
	return append(b, '\n')
}

// ReadCheckPartial reads a check partial's file.
func ReadCheckPartial(path string) (*CheckPartial, error) {
	b, err := limit.ReadFile(path, limit.Baseline)
	if err != nil {
		return nil, err
	}
	var p CheckPartial
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: not a ctxbench check partial: %w", path, err)
	}
	if p.Suite == "" || p.Shard == "" {
		return nil, fmt.Errorf("%s: not a ctxbench check partial", path)
	}
	return &p, nil
}

// MergeCheck combines the partials of every shard of cfg, run by
// version, by their paths, into the result one unsharded run gives. A
// part of another suite or version, a shard missing or given twice, is
// an error.
func MergeCheck(cfg *suitecheck.Config, version string, parts map[string]*CheckPartial) (*suitecheck.Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("no partials to merge")
	}
	res := &suitecheck.Result{Cases: []suitecheck.Case{}, Warnings: []string{}}
	var sp split
	cases := map[string]string{} // by key, the partial that holds it
	for _, path := range slices.Sorted(maps.Keys(parts)) {
		p := parts[path]
		switch {
		case p.Suite != cfg.Digest:
			return nil, fmt.Errorf("%s: a partial of another suite (config digest %.12s, %s has %.12s)", path, p.Suite, cfg.Path, cfg.Digest)
		case p.Ctxbench != version:
			return nil, fmt.Errorf("%s: written by ctxbench %s, this is %s: run every shard with the same version", path, p.Ctxbench, version)
		}
		sh, err := sp.add(path, p.Shard)
		if err != nil {
			return nil, err
		}
		if res.Estimator == "" {
			res.Estimator = p.Result.Estimator
		}
		if p.Result.Estimator != res.Estimator {
			return nil, fmt.Errorf("%s: counted with %s, the other partials with %s", path, p.Result.Estimator, res.Estimator)
		}
		// Each case once, in the shard its key hashes to: a partial edited
		// or mixed up would count a case twice ("10 pass" of 9).
		for _, c := range p.Result.Cases {
			k := c.Key()
			if !sh.Holds(k) {
				return nil, fmt.Errorf("%s: the case %s is not shard %s's", path, k, sh)
			}
			if other, dup := cases[k]; dup {
				return nil, fmt.Errorf("%s: the case %s is in %s too", path, k, other)
			}
			cases[k] = path
		}
		res.Cases = append(res.Cases, p.Result.Cases...)
		res.Warnings = append(res.Warnings, p.Result.Warnings...)
	}
	if err := sp.complete(); err != nil {
		return nil, err
	}
	res.Sort()
	return res, nil
}
