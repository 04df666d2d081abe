package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxbench/ctxbench/internal/batch"
	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/internal/suitecheck"
)

type checkCmd struct {
	summarizerFlags `group:"summarizer"`
	Config          string   `default:"ctxbench.yaml" placeholder:"FILE" help:"The suite: transcripts, policies, estimators, provider, budgets, tolerance, baseline."`
	Baseline        string   `placeholder:"FILE" help:"Baseline file (default: the config's baseline, else ctxbench.baseline.json beside the config)."`
	Update          bool     `help:"Rewrite the baseline from this run (atomically) and say what changed; without it the baseline is never written."`
	Accept          bool     `help:"With --update: record a suite that fails (metrics worse, budgets exceeded, new violations) and list what was accepted."`
	Strict          bool     `help:"Fail on any change beyond tolerance, improvements too."`
	Format          string   `default:"text" enum:"text,github" help:"Output: text, or github (workflow annotations)."`
	JUnit           string   `name:"junit" placeholder:"FILE" help:"Also write JUnit XML, one test case per transcript × policy."`
	Summary         string   `placeholder:"FILE" help:"Also write the report as Markdown (for $GITHUB_STEP_SUMMARY)."`
	Shard           string   `placeholder:"K/N" help:"Replay only shard K of N of the cases (split by the hash of each case's key) and write them to --partial."`
	Partial         string   `placeholder:"FILE" help:"With --shard: the file the shard's result goes to."`
	Merge           []string `placeholder:"FILE" sep:"none" help:"Check the partials of every shard, as one run: no replay. Repeatable, or followed by the others (--merge a.json b.json)."`
	Prices          string   `placeholder:"FILE" help:"Prices: ctxbench's JSON or LiteLLM's model_prices_and_context_window.json (default: the embedded table)."`
	PricingModel    string   `name:"pricing-model" placeholder:"M" help:"Price every call as this model, a what-if (default: the config's model, else each call at the model that made it)."`
	// More are the partials after the first --merge's.
	More []string `arg:"" optional:"" name:"partial" help:"With --merge: the other partials."`
}

func (c *checkCmd) Run(e *env) error {
	cfg, basePath, err := c.load()
	if err != nil {
		return err
	}
	if err := c.refuseOutputs(cfg, basePath); err != nil {
		return err
	}
	res, shard, err := c.result(e, cfg)
	if err != nil || shard.N > 0 {
		return err
	}
	base, err := c.baseline(cfg, basePath, res)
	if err != nil {
		return err
	}
	rep := suitecheck.Check(cfg, res, base, c.Strict)
	for _, w := range rep.Warnings {
		e.warn(notPriced(errors.New(w), "--pricing-model", "--prices"))
	}
	if c.Update {
		return c.update(e, basePath, base, rep)
	}
	if err := c.writeOutputs(e.stdout, rep, annotationPath(cfg.Dir, e.getenv("GITHUB_WORKSPACE"))); err != nil {
		return err
	}
	if rep.Failed() > 0 {
		return errVerdict
	}
	return nil
}

// load reads the suite's config, with the flags that change it, and
// returns it with the baseline's path.
func (c *checkCmd) load() (*suitecheck.Config, string, error) {
	if len(c.More) > 0 {
		if len(c.Merge) == 0 {
			return nil, "", fmt.Errorf("unexpected argument %s: check reads the transcripts its config names (--config); to merge partials, --merge %s", c.More[0], strings.Join(c.More, " "))
		}
		c.Merge = append(c.Merge, c.More...)
	}
	cfg, err := suitecheck.LoadConfig(c.Config)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", withHint(err, "write the suite there, or pass --config FILE: a ctxbench.yaml names the transcripts and the policies, at the least \"transcripts: [sessions/*.jsonl]\" and \"policies: [none, aidf:max_messages=30]\" (see docs/check.md of github.com/ctxbench/ctxbench)")
	}
	if err != nil {
		return nil, "", err
	}
	if c.PricingModel != "" {
		cfg.Model = c.PricingModel
	}
	basePath := c.Baseline
	if basePath == "" {
		basePath = cfg.BaselinePath()
	}
	return cfg, basePath, nil
}

// refuseOutputs refuses an output that would write over what check
// reads: the config, the baseline, the --prices file, a partial it
// merges, or one of the suite's transcripts (which a merge does not
// read; a glob that matches nothing is reported by the run).
func (c *checkCmd) refuseOutputs(cfg *suitecheck.Config, basePath string) error {
	outs := []struct{ flag, path string }{{"--junit", c.JUnit}, {"--summary", c.Summary}, {"--partial", c.Partial}}
	read := []struct{ what, path string }{{"the config", c.Config}, {"the baseline", basePath}, {"the --prices file", c.Prices}}
	for _, p := range c.Merge {
		read = append(read, struct{ what, path string }{"a partial --merge reads", p})
	}
	for _, out := range outs {
		for _, in := range read {
			if out.path != "" && out.path != "-" && in.path != "" && sameFile(out.path, in.path) {
				return fmt.Errorf("%s %s is %s: ctxbench never writes over what it reads", out.flag, out.path, in.what)
			}
		}
	}
	inputs, err := cfg.Paths()
	if err != nil || len(c.Merge) > 0 {
		return nil
	}
	for _, out := range outs {
		if err := refuseInput(out.flag, out.path, inputs); err != nil {
			return err
		}
	}
	return nil
}

// baseline reads the baseline res is compared with (nil, recording one
// with --update where there is none).
func (c *checkCmd) baseline(cfg *suitecheck.Config, path string, res *suitecheck.Result) (*suitecheck.Baseline, error) {
	base, err := suitecheck.LoadBaseline(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !c.Update:
		return nil, withHint(fmt.Errorf("no baseline at %s", path), c.updateHint(cfg, res, nil, "once to record it, and commit it"))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	case err == nil && !c.Update && base.Estimator != res.Estimator:
		// Token metrics counted by two estimators are not comparable.
		return nil, withHint(fmt.Errorf("%s was recorded with the estimator %s; the suite counts with %s", path, base.Estimator, res.Estimator),
			c.updateHint(cfg, res, base, "to record the baseline with "+res.Estimator))
	}
	return base, nil
}

// updateHint says how to record res over base (nil: none), to do what:
// 'ctxbench check --update', or, when cases fail, which --update alone
// refuses to record, 'ctxbench check --update --accept' once they are
// checked.
func (c *checkCmd) updateHint(cfg *suitecheck.Config, res *suitecheck.Result, base *suitecheck.Baseline, what string) string {
	if n := len(suitecheck.Check(cfg, res, base, c.Strict).Blocking()); n > 0 {
		return fmt.Sprintf("run 'ctxbench check --update --accept' %s: %s, which --update alone refuses to record; check what fails first", what, report.Count(n, "case fails", "cases fail"))
	}
	return "run 'ctxbench check --update' " + what
}

// result replays the suite (or its shard, writing the partial: then the
// shard is returned and there is nothing more to do), or merges the
// partials.
func (c *checkCmd) result(e *env, cfg *suitecheck.Config) (*suitecheck.Result, batch.Shard, error) {
	if len(c.Merge) > 0 {
		if c.Shard != "" {
			return nil, batch.Shard{}, errors.New("--merge and --shard: merge the partials of a sharded run, or run a shard")
		}
		parts := map[string]*batch.CheckPartial{}
		for _, path := range c.Merge {
			p, err := batch.ReadCheckPartial(path)
			if err != nil {
				return nil, batch.Shard{}, err
			}
			parts[path] = p
		}
		res, err := batch.MergeCheck(cfg, version, parts)
		return res, batch.Shard{}, err
	}
	var opts batch.CheckOptions
	if c.Shard != "" {
		var err error
		if opts.Shard, err = batch.ParseShard(c.Shard); err != nil {
			return nil, batch.Shard{}, fmt.Errorf("--shard: %w", err)
		}
		if c.Partial == "" {
			return nil, batch.Shard{}, withHint(errors.New("--shard needs --partial FILE"), "then 'ctxbench check --merge FILE…' checks the shards together")
		}
	}
	var err error
	var prun *providerRun
	if opts.Summarizer, prun, err = c.summarizerFlags.withConfig(cfg.Provider).build(e); err != nil {
		return nil, batch.Shard{}, err
	}
	if opts.Prices, err = loadPrices(c.Prices); err != nil {
		return nil, batch.Shard{}, err
	}
	if paths, err := cfg.Paths(); err == nil {
		base := c.Baseline
		if base == "" {
			base = cfg.BaselinePath()
		}
		limitMemory(paths, base)
	}
	res, err := batch.Check(e.ctx, cfg, opts)
	if err == nil {
		err = prun.finish(e) // nothing compared or recorded with a failed summary
	}
	if err != nil || opts.Shard.N == 0 {
		return res, batch.Shard{}, err
	}
	p := batch.NewCheckPartial(cfg, version, opts.Shard, res)
	if err := report.WriteFile(c.Partial, func(w *bufio.Writer) error { _, err := w.Write(p.Encode()); return err }); err != nil {
		return nil, batch.Shard{}, err
	}
	fmt.Fprintf(e.stdout, "ctxbench check: shard %s, %s: wrote %s\n", opts.Shard, report.Count(len(res.Cases), "case", "cases"), c.Partial)
	return res, opts.Shard, nil
}

// update writes the report's baseline, unless cases fail and --accept is
// not given: then it writes nothing, says what would be accepted, and
// exits 1.
func (c *checkCmd) update(e *env, path string, old *suitecheck.Baseline, rep *suitecheck.Report) error {
	w := e.stdout
	blocking := rep.Blocking()
	if len(blocking) > 0 && !c.Accept {
		if err := report.WriteCheckRows(w, rep, true); err != nil {
			return err
		}
		fmt.Fprintf(w, "ctxbench check: %s; the baseline is unchanged\n", report.Count(len(blocking), "case fails", "cases fail"))
		fmt.Fprintf(e.stderr, "ctxbench: error: refusing to record %s in %s\nctxbench: hint: check what fails; pass --accept to record it anyway\n", report.Count(len(blocking), "failing case", "failing cases"), path)
		return errVerdict
	}
	changes := suitecheck.Changes(old, rep.Current)
	if err := report.WriteFile(path, func(bw *bufio.Writer) error { _, err := bw.Write(rep.Current.Encode()); return err }); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s: %s, %d changed\n", path, report.Count(len(rep.Current.Entries), "entry", "entries"), len(changes))
	if len(blocking) > 0 {
		fmt.Fprintf(w, "accepted %s:\n", report.Count(len(blocking), "failing case", "failing cases"))
		if err := report.WriteCheckRows(w, rep, true); err != nil {
			return err
		}
		// The baseline records metrics and violations; budgets are the
		// config's, and a case over one fails again.
		over := 0
		for _, c := range blocking {
			if len(c.Budgets) > 0 {
				over++
			}
		}
		if over > 0 {
			fmt.Fprintf(w, "%s over a budget of the config, which the baseline does not record: the next check fails on %s again, until the budget or the policy changes\n",
				report.Count(over, "case is", "cases are"), map[bool]string{true: "it", false: "them"}[over == 1])
		}
	}
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
			fmt.Fprintln(w, "changed "+ch.Key)
		}
	}
	return nil
}

// writeOutputs prints the report and writes the JUnit and Markdown files;
// at names a case's file in an annotation.
func (c *checkCmd) writeOutputs(w io.Writer, rep *suitecheck.Report, at func(file string) string) error {
	if c.JUnit != "" {
		if err := report.WriteTo(c.JUnit, w, func(bw *bufio.Writer) error { return report.WriteCheckJUnit(bw, rep) }); err != nil {
			return err
		}
	}
	if c.Summary != "" {
		if err := report.WriteTo(c.Summary, w, func(bw *bufio.Writer) error { return report.WriteCheckMarkdown(bw, rep) }); err != nil {
			return err
		}
	}
	if c.Format == "github" {
		return report.WriteCheckAnnotations(w, rep, at)
	}
	if err := report.WriteCheckRows(w, rep, false); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, report.CheckVerdict(rep))
	return err
}

// refuseInput returns an error when out, the file or folder a flag
// names for output, is one of the inputs or holds one: the same file as
// one, an existing file inside an input folder (a walk reads it), or an
// existing folder an input is in, named or walked (writing the folder
// replaces all it holds). ctxbench never writes over what it reads.
func refuseInput(flag, out string, inputs []string) error {
	if out == "" || out == "-" {
		return nil
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return nil
	}
	fo, outErr := os.Stat(out)
	for _, in := range inputs {
		if in == stdinPath {
			continue
		}
		if sameFile(out, in) {
			return fmt.Errorf("%s %s is an input: ctxbench never writes over what it reads", flag, out)
		}
		fi, err := os.Stat(in)
		absIn, absErr := filepath.Abs(in)
		if outErr == nil && fo.Mode().IsRegular() && err == nil && fi.IsDir() && absErr == nil && strings.HasPrefix(absOut, absIn+string(filepath.Separator)) {
			return fmt.Errorf("%s %s is a file in the input folder %s: ctxbench never writes over what it reads", flag, out, in)
		}
		if outErr == nil && fo.IsDir() && inFolder(in, fo) {
			return holdsInput(flag, out, in)
		}
	}
	return nil
}

// holdsInput is the error of a folder a flag names for output, out,
// that holds the input in.
func holdsInput(flag, out, in string) error {
	return fmt.Errorf("%s %s holds the input %s: ctxbench never writes over what it reads", flag, out, in)
}

// inFolder reports whether the file or folder path, which exists, lies
// inside the folder dir, by its path or, its links followed, by what it
// names.
func inFolder(path string, dir os.FileInfo) bool {
	if _, err := os.Lstat(path); err != nil {
		return false
	}
	for _, p := range []string{path, resolved(path)} {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		for parent := filepath.Dir(abs); ; parent = filepath.Dir(parent) {
			if fi, err := os.Stat(parent); err == nil && os.SameFile(fi, dir) {
				return true
			}
			if parent == filepath.Dir(parent) {
				break
			}
		}
	}
	return false
}

// resolved is path with its links followed, or path when they cannot be.
func resolved(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

// sameFile reports whether paths a and b name one file: the same file
// when both exist (links followed), else the same absolute path.
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// annotationPath returns how an annotation names a case's file, which the
// suite names relative to the config's folder dir: relative to the
// repository GitHub checked out (workspace, $GITHUB_WORKSPACE) or, without
// one, to the working directory, as GitHub resolves it; a file outside
// it keeps its absolute path.
func annotationPath(dir, workspace string) func(file string) string {
	base := workspace
	if base == "" {
		base, _ = os.Getwd()
	}
	base, _ = filepath.Abs(base)
	return func(file string) string {
		abs, err := filepath.Abs(filepath.Join(dir, filepath.FromSlash(file)))
		if err != nil {
			return file
		}
		rel, err := filepath.Rel(base, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(abs)
		}
		return filepath.ToSlash(rel)
	}
}
