package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/reports"
	"github.com/ctxbench/ctxbench/suite"
)

type checkCmd struct {
	summarizerFlags
	Config       string `default:"ctxbench.yaml" placeholder:"FILE" help:"The suite: transcripts, policies, estimators, provider, budgets, tolerance, baseline."`
	Baseline     string `placeholder:"FILE" help:"Baseline file (default: the config's baseline, else ctxbench.baseline.json beside the config)."`
	Update       bool   `help:"Rewrite the baseline from this run (atomically) and say what changed; without it the baseline is never written."`
	Format       string `default:"text" enum:"text,github" help:"Output: text, or github (workflow annotations)."`
	JUnit        string `name:"junit" placeholder:"FILE" help:"Also write JUnit XML, one test case per transcript × policy."`
	Prices       string `placeholder:"FILE" help:"Prices: ctxbench's JSON or LiteLLM's model_prices_and_context_window.json (default: the embedded table)."`
	PricingModel string `name:"pricing-model" placeholder:"M" help:"Price every call as this model, a what-if (default: the config's model, else each call at the model that made it)."`
}

func (c *checkCmd) Run(e *env) error {
	cfg, err := suite.LoadConfig(c.Config)
	if err != nil {
		return err
	}
	basePath := c.Baseline
	if basePath == "" {
		basePath = cfg.BaselinePath()
	}
	var opts suite.Options
	if !c.Update {
		if opts.Baseline, err = suite.LoadBaseline(basePath); errors.Is(err, fs.ErrNotExist) {
			return withHint(fmt.Errorf("no baseline at %s", basePath), "run 'ctxbench check --update' once to record it, and commit it")
		} else if err != nil {
			return err
		}
	}
	if opts.Summarizer, _, err = c.summarizerFlags.withConfig(cfg.Provider).build(e); err != nil {
		return err
	}
	if opts.Prices, err = loadPrices(c.Prices); err != nil {
		return err
	}
	if c.PricingModel != "" {
		cfg.Model = c.PricingModel
	}
	res, err := suite.Run(e.ctx, cfg, opts)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		e.warn(notPriced(w, "--pricing-model", "--prices"))
	}
	if c.Update {
		return writeBaseline(e.stdout, basePath, res.Current)
	}
	if c.JUnit != "" {
		var jc []reports.JUnitCase
		for i := range res.Cases {
			cc := &res.Cases[i]
			jc = append(jc, reports.JUnitCase{Class: cc.File, Name: cc.Policy, Failures: failures(cc)})
		}
		if err := reports.WriteFile(c.JUnit, func(w *bufio.Writer) error { return reports.WriteJUnit(w, "ctxbench check", jc) }); err != nil {
			return err
		}
	}
	if c.Format == "github" {
		writeAnnotations(e.stdout, res.Cases)
	} else {
		writeCheckText(e.stdout, res)
	}
	if res.Failed() > 0 {
		return errVerdict
	}
	return nil
}

// failures says what failed in a case, one line each: its violations,
// budgets, then its comparison with the baseline.
func failures(c *suite.Case) []string {
	var out []string
	for _, v := range c.Violations {
		out = append(out, fmt.Sprintf("invariant %s", v))
	}
	for _, b := range c.Budgets {
		out = append(out, fmt.Sprintf("budget %s: %s over the limit %s", b.Budget, fmtMetric(b.Got), fmtMetric(b.Limit)))
	}
	switch {
	case c.Missing:
		out = append(out, "not in the baseline: run 'ctxbench check --update' to add it")
	case c.Removed:
		out = append(out, "in the baseline but not replayed: a transcript or policy was removed (run --update if intended)")
	}
	for _, r := range c.Regressions {
		out = append(out, fmt.Sprintf("regression: %s moved from %s to %s", r.Metric, fmtMetric(r.Want), fmtMetric(r.Got)))
	}
	return out
}

// writeBaseline writes now to path and says what changed.
func writeBaseline(w io.Writer, path string, now *suite.Baseline) error {
	old, _ := suite.LoadBaseline(path)
	changes := suite.Changes(old, now)
	if err := reports.WriteFile(path, func(w *bufio.Writer) error { _, err := w.Write(now.Encode()); return err }); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s: %d entries, %d changed\n", path, len(now.Entries), len(changes))
	if old == nil {
		return nil
	}
	for _, ch := range changes {
		switch {
		case ch.Old == nil:
			fmt.Fprintln(w, "added "+ch.Key)
		case ch.New == nil:
			fmt.Fprintln(w, "removed "+ch.Key)
		default:
			fmt.Fprintf(w, "changed %s (-old +new):\n%s\n", ch.Key, cmp.Diff(*ch.Old, *ch.New))
		}
	}
	return nil
}

func writeCheckText(w io.Writer, res *suite.Result) {
	failed := res.Failed()
	if failed == 0 {
		fmt.Fprintf(w, "ctxbench check: %d transcript × policy cases pass\n", len(res.Cases))
		return
	}
	t := reports.Table{Header: []string{"transcript", "policy", "what failed"}}
	var diffs []string
	for i := range res.Cases {
		cc := &res.Cases[i]
		for i, f := range failures(cc) {
			if i == 5 {
				t.Rows = append(t.Rows, []string{cc.File, cc.Policy, fmt.Sprintf("… and %d more", len(failures(cc))-5)})
				break
			}
			t.Rows = append(t.Rows, []string{cc.File, cc.Policy, f})
		}
		if len(cc.Regressions) > 0 {
			diffs = append(diffs, fmt.Sprintf("%s (-baseline +now):\n%s", cc.Key(), cmp.Diff(*cc.Baseline, cc.Metrics)))
		}
	}
	t.WriteText(w)
	for _, d := range diffs {
		fmt.Fprintln(w, d)
	}
	fmt.Fprintf(w, "ctxbench check: %d of %d cases fail\n", failed, len(res.Cases))
}

// writeAnnotations emits GitHub workflow commands pointing at the
// transcripts.
func writeAnnotations(w io.Writer, cases []suite.Case) {
	esc := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	prop := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
	for i := range cases {
		for _, f := range failures(&cases[i]) {
			fmt.Fprintf(w, "::error file=%s,title=%s::%s\n", prop.Replace(cases[i].File), prop.Replace("ctxbench "+cases[i].Policy), esc.Replace(f))
		}
	}
}

func fmtMetric(v float64) string {
	if v == float64(int64(v)) {
		return reports.Int(int64(v))
	}
	return fmt.Sprintf("%.4g", v)
}
