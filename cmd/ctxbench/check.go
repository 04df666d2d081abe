package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/reports"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

type checkCmd struct {
	summarizerFlags
	Config   string `default:"ctxbench.yaml" placeholder:"FILE" help:"The suite: transcripts, policies, estimators, provider, budgets, tolerance, baseline."`
	Baseline string `placeholder:"FILE" help:"Baseline file (default: the config's baseline, else ctxbench.baseline.json beside the config)."`
	Update   bool   `help:"Rewrite the baseline from this run (atomically) and say what changed; without it the baseline is never written."`
	Format   string `default:"text" enum:"text,github" help:"Output: text, or github (workflow annotations)."`
	JUnit    string `name:"junit" placeholder:"FILE" help:"Also write JUnit XML, one test case per transcript × policy."`
}

// checkCase is one transcript under one policy.
type checkCase struct {
	file, policy string
	metrics      replay.Metrics
	failures     []string
}

func (c *checkCmd) Run(e *env) error {
	cfg, err := replay.LoadConfig(c.Config)
	if err != nil {
		return err
	}
	tol, err := replay.ToleranceFrom(cfg.Tolerance)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Config, err)
	}
	basePath := c.Baseline
	if basePath == "" {
		basePath = cfg.Baseline
	}
	if basePath == "" {
		basePath = filepath.Join(filepath.Dir(c.Config), "ctxbench.baseline.json")
	}
	var base *replay.Baseline
	if !c.Update {
		if base, err = replay.LoadBaseline(basePath); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("no baseline at %s\nctxbench: hint: run 'ctxbench check --update' once to record it, and commit it", basePath)
		} else if err != nil {
			return err
		}
	}
	if c.Provider == "mock" && cfg.Provider.Name != "" {
		c.Provider, c.Model, c.BaseURL = cfg.Provider.Name, cfg.Provider.Model, cfg.Provider.BaseURL
	}
	sum, _, err := c.build()
	if err != nil {
		return err
	}
	estName := "cl100k_base"
	if len(cfg.Estimators) > 0 {
		estName = cfg.Estimators[0]
	}
	est, err := estimate.New(estName, estimate.OverheadNone)
	if err != nil {
		return fmt.Errorf("%s: estimators: %w", c.Config, err)
	}
	var paths []string
	for _, g := range cfg.Transcripts {
		m, err := filepath.Glob(g)
		if err != nil || len(m) == 0 {
			return fmt.Errorf("%s: transcripts: %q matches no file", c.Config, g)
		}
		paths = append(paths, m...)
	}
	counts := estimate.NewCache()
	ropt := replay.Options{Estimators: []estimate.Estimator{est}, Summarizer: sum, Counts: counts, Artifacts: replay.NewArtifactCache()}
	prices := replay.DefaultPrices()
	recorded, _ := window.Parse("recorded")
	var cases []checkCase
	current := &replay.Baseline{Estimator: est.Name(), Entries: map[string]replay.Metrics{}}
	_, err = readInputs(e, paths, inputFlags{}, false, func(t *transcript.Transcript) error {
		ctx := context.Background()
		rel := relPath(c.Config, t.File)
		// recorded (for the prompt constant) and the policies, side by side.
		ps := []window.Policy{recorded}
		for _, lp := range cfg.Policies {
			ps = append(ps, lp.Policy)
		}
		runs, err := replay.ReplayAll(ctx, t, ps, ropt, 0)
		if err != nil {
			return err
		}
		constant := replay.Constant(runs[0], est.Name())
		for k, lp := range cfg.Policies {
			run := runs[1+k]
			model := cfg.Model
			cost := 0.0
			if rc, err := replay.PriceRun(run, t, constant, replay.CostOptions{Prices: prices, Model: model, Estimator: est, Counts: counts}); err == nil {
				cost = rc.Total.USD()
			} else if cfg.Budgets["max_cost_usd"] > 0 {
				return fmt.Errorf("%s: max_cost_usd needs a price: %w (set model in %s)", t.File, err, c.Config)
			}
			cc := checkCase{file: rel, policy: lp.Label, metrics: replay.MetricsOf(run, est.Name(), cost)}
			for _, st := range run.Steps {
				for _, v := range st.Violation {
					cc.failures = append(cc.failures, fmt.Sprintf("invariant %s", v))
				}
			}
			bf, err := replay.CheckBudgets(replay.Key(rel, lp.Label), cc.metrics, cfg.Budgets)
			if err != nil {
				return fmt.Errorf("%s: %w", c.Config, err)
			}
			for _, b := range bf {
				cc.failures = append(cc.failures, fmt.Sprintf("budget %s: %s over the limit %s", b.Budget, fmtMetric(b.Got), fmtMetric(b.Limit)))
			}
			current.Entries[replay.Key(rel, lp.Label)] = cc.metrics
			cases = append(cases, cc)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if c.Update {
		return c.writeBaseline(e, basePath, current)
	}
	var diffs []string
	for i := range cases {
		cc := &cases[i]
		key := replay.Key(cc.file, cc.policy)
		want, ok := base.Entries[key]
		if !ok {
			cc.failures = append(cc.failures, "not in the baseline: run 'ctxbench check --update' to add it")
			continue
		}
		regs := replay.Compare(key, want, cc.metrics, tol)
		for _, r := range regs {
			cc.failures = append(cc.failures, fmt.Sprintf("regression: %s moved from %s to %s", r.Metric, fmtMetric(r.Want), fmtMetric(r.Got)))
		}
		if len(regs) > 0 {
			diffs = append(diffs, fmt.Sprintf("%s (-baseline +now):\n%s", key, cmp.Diff(want, cc.metrics)))
		}
	}
	for key := range base.Entries {
		found := false
		for _, cc := range cases {
			if replay.Key(cc.file, cc.policy) == key {
				found = true
			}
		}
		if !found {
			cases = append(cases, checkCase{file: strings.Split(key, " | ")[0], policy: strings.SplitN(key, " | ", 2)[1],
				failures: []string{"in the baseline but not replayed: a transcript or policy was removed (run --update if intended)"}})
		}
	}
	sort.SliceStable(cases, func(i, j int) bool {
		return replay.Key(cases[i].file, cases[i].policy) < replay.Key(cases[j].file, cases[j].policy)
	})
	if c.JUnit != "" {
		var jc []reports.JUnitCase
		for _, cc := range cases {
			jc = append(jc, reports.JUnitCase{Class: cc.file, Name: cc.policy, Failures: cc.failures})
		}
		if err := reports.WriteFile(c.JUnit, func(w *bufio.Writer) error { return reports.WriteJUnit(w, "ctxbench check", jc) }); err != nil {
			return err
		}
	}
	failed := 0
	for _, cc := range cases {
		if len(cc.failures) > 0 {
			failed++
		}
	}
	if c.Format == "github" {
		writeAnnotations(e.stdout, cases)
	} else {
		writeCheckText(e.stdout, cases, diffs, failed)
	}
	if failed > 0 {
		return errVerdict
	}
	return nil
}

// relPath shows a transcript relative to the config's folder, so the
// baseline does not depend on where the suite is checked out.
func relPath(config, file string) string {
	dir, _ := filepath.Abs(filepath.Dir(config))
	abs, _ := filepath.Abs(file)
	if r, err := filepath.Rel(dir, abs); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(file)
}

func (c *checkCmd) writeBaseline(e *env, path string, now *replay.Baseline) error {
	old, _ := replay.LoadBaseline(path)
	changed := 0
	var lines []string
	keys := make([]string, 0, len(now.Entries))
	for k := range now.Entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if old == nil {
			changed++
			continue
		}
		w, ok := old.Entries[k]
		switch {
		case !ok:
			lines = append(lines, "added "+k)
			changed++
		case !cmp.Equal(w, now.Entries[k]):
			lines = append(lines, fmt.Sprintf("changed %s (-old +new):\n%s", k, cmp.Diff(w, now.Entries[k])))
			changed++
		}
	}
	if old != nil {
		for k := range old.Entries {
			if _, ok := now.Entries[k]; !ok {
				lines = append(lines, "removed "+k)
				changed++
			}
		}
	}
	if err := reports.WriteFile(path, func(w *bufio.Writer) error { _, err := w.Write(now.Encode()); return err }); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: %d entries, %d changed\n", path, len(now.Entries), changed)
	for _, l := range lines {
		fmt.Fprintln(e.stdout, l)
	}
	return nil
}

func writeCheckText(w io.Writer, cases []checkCase, diffs []string, failed int) {
	if failed == 0 {
		fmt.Fprintf(w, "ctxbench check: %d transcript × policy cases pass\n", len(cases))
		return
	}
	t := reports.Table{Header: []string{"transcript", "policy", "what failed"}}
	for _, cc := range cases {
		for i, f := range cc.failures {
			if i == 5 {
				t.Rows = append(t.Rows, []string{cc.file, cc.policy, fmt.Sprintf("… and %d more", len(cc.failures)-5)})
				break
			}
			t.Rows = append(t.Rows, []string{cc.file, cc.policy, f})
		}
	}
	t.WriteText(w)
	for _, d := range diffs {
		fmt.Fprintln(w, d)
	}
	fmt.Fprintf(w, "ctxbench check: %d of %d cases fail\n", failed, len(cases))
}

// writeAnnotations emits GitHub workflow commands pointing at the
// transcripts.
func writeAnnotations(w io.Writer, cases []checkCase) {
	esc := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	prop := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
	for _, cc := range cases {
		for _, f := range cc.failures {
			fmt.Fprintf(w, "::error file=%s,title=%s::%s\n", prop.Replace(cc.file), prop.Replace("ctxbench "+cc.policy), esc.Replace(f))
		}
	}
}

func fmtMetric(v float64) string {
	if v == float64(int64(v)) {
		return reports.Int(int64(v))
	}
	return fmt.Sprintf("%.4g", v)
}
