package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/batch"
	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/internal/suitecheck"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// reportSweep is the report's sweep: aidf's cap against its preserved
// head.
var reportSweep = suitecheck.SweepSpec{Policy: "aidf", Base: map[string]string{"preserve_last_n": "4"}, Grid: []replay.GridKey{
	{Key: "max_messages", Values: []string{"10", "20", "30", "40", "60", "80"}},
	{Key: "preserve_first_n", Values: []string{"0", "1", "2", "4", "8"}},
}}

type reportCmd struct {
	inputFlags      `group:"input"`
	summarizerFlags `group:"summarizer"`
	Policies        []string `name:"policy" sep:"none" placeholder:"SPEC" help:"Policies to replay, repeatable (default: ${default_policies})."`
	answerFlags
	Out          string   `default:"ctxbench-report" placeholder:"DIR" help:"Output folder; an existing one is replaced only if ctxbench made it."`
	Prices       string   `placeholder:"FILE" help:"Prices: ctxbench's JSON or LiteLLM's model_prices_and_context_window.json (default: the embedded table)."`
	PricingModel string   `name:"pricing-model" placeholder:"M" help:"Price every call as this model, a what-if (default: each call at the model that made it)."`
	Parquet      string   `placeholder:"DIR" help:"Also write the policies' rows as Parquet into DIR (runs.parquet, calls.parquet), as ctxbench cost does; docs/rows.md has the schema."`
	JSONL        string   `name:"jsonl" placeholder:"DIR" help:"Also write the same rows as JSON Lines into DIR."`
	Sessions     int      `default:"50" placeholder:"N" help:"Draw and list one by one at most N sessions, those --sessions-by ranks first (0: every one); every session is in the totals, summary.csv, steps.csv and results.json."`
	SessionsBy   string   `name:"sessions-by" enum:"cost,saving" default:"cost" help:"Rank sessions by cost (the most a policy costs of each) or saving (what the cheapest policy saves over none)."`
	Shard        string   `placeholder:"K/N" help:"Replay only shard K of N of the input files (split by the hash of each path) and write the shard's part to --partial, no report; --parquet and --jsonl then only say the part holds the rows."`
	Partial      string   `placeholder:"FILE" help:"With --shard: the file the shard's part goes to."`
	Merge        []string `placeholder:"FILE" sep:"none" help:"Write the report one run writes from the partials of every shard (no transcript is read): --merge a b c, with the flags each shard was given."`
	Paths        []string `arg:"" optional:"" name:"path" help:"Transcript files, directories, or - for standard input. None: Claude Code's sessions (~/.claude/projects or $CLAUDE_CONFIG_DIR/projects) (--samples: the embedded samples)."`
}

var reportNotes = []string{
	"Responses are never regenerated: each policy changes what would have been sent, call by call; what came back is the recorded response.",
	"The probe score is the share of the session's probes (questions about its files, commands, errors, the user's rules, each next step) that a policy did not lose, judged exactly: a summary that paraphrases loses the question, and the mock summarizer's stand-in keeps only what it quotes within its size (ctxbench probes lists them). Retention is the older proxy: the share of the file paths, shell commands, URLs, error lines and tool calls seen so far that the context still holds, summary text included.",
	"Costs simulate the provider's prompt cache on what each policy sends, each call priced at the model that made it, at the embedded table (ctxbench cost --list-models) or --prices; transcripts whose model has no price are not priced.",
	"Summaries are made by the mock summarizer unless --summarizer says otherwise: their text is a stand-in, their token counts are what a real call of that size reports.",
}

func (c *reportCmd) Run(e *env) error {
	pols, err := window.ParseLabeled(orDefault(c.Policies, defaultPolicies))
	if err != nil {
		return fmt.Errorf("--policy: %w", err)
	}
	if _, err := c.floor(); err != nil {
		return err
	}
	labels := make([]string, len(pols))
	for k, p := range pols {
		labels[k] = p.Label
	}
	detail := report.Detail{N: c.Sessions, By: c.SessionsBy}
	if err := detail.Check(labels); err != nil {
		return fmt.Errorf("--sessions, --sessions-by: %w", err)
	}
	prices, err := loadPrices(c.Prices)
	if err != nil {
		return err
	}
	sh, err := c.shardFlags(e, prices)
	if err != nil {
		return err
	}
	// A folder that cannot be replaced is refused before the work.
	if sh.run == nil {
		if err := outDirError(report.CheckDir(c.Out)); err != nil {
			return err
		}
		if err := c.inputFlags.replaces("--out", c.Out, append(slices.Clone(c.Merge), c.Paths...)); err != nil {
			return err
		}
	}
	sum, prun, err := c.build(e)
	if err != nil {
		return err
	}
	for _, d := range []string{c.Parquet, c.JSONL} {
		if d != "" && filepath.Clean(d) == filepath.Clean(c.Out) {
			return fmt.Errorf("--out and the rows' folder are both %s: give the rows a folder of their own", d)
		}
	}
	p, b := c.pipeline(pols, sum, prices, sh)
	if sh.run != nil {
		defer sh.run.Close()
		return c.shard(e, p, b, sh, prun)
	}
	rows, err := newCostRows(&c.inputFlags, c.Parquet, c.JSONL, append(slices.Clone(c.Merge), c.Paths...))
	if err != nil {
		return err
	}
	if rows != nil {
		done := false
		defer func() {
			if !done {
				rows.abort()
			}
		}()
		b.Rows = rows.writers
		if err := c.report(e, p, b, sh, detail, prun); err != nil {
			return err
		}
		done = true
		return rows.close()
	}
	return c.report(e, p, b, sh, detail, prun)
}

// reportShard is what --shard, --partial and --merge ask of a report.
type reportShard struct {
	digest string
	rows   bool          // the rows are asked for (--parquet, --jsonl)
	run    *batch.Writer // a shard's (nil: none)
}

// shardFlags checks --shard, --partial and --merge, and starts the
// shard's partial.
func (c *reportCmd) shardFlags(e *env, prices pricing.Prices) (reportShard, error) {
	sh := reportShard{rows: c.Parquet != "" || c.JSONL != ""}
	run, err := startShard(e, "report", c.Shard, c.Partial, c.Merge, &c.inputFlags, c.Paths)
	if err != nil || run == nil && len(c.Merge) == 0 {
		return sh, err
	}
	d := *c
	d.Shard, d.Partial, d.Merge, d.Paths, d.Out = "", "", nil, nil, ""
	d.Parquet, d.JSONL = "", "" // the rows, not where: sh.rows
	sh.digest = batch.Digest(struct {
		Flags  reportCmd
		Prices pricing.Prices
	}{d, prices})
	sh.run = run
	return sh, nil
}

// pipeline returns the report's pipeline and its builder, the runs of
// the one given to the other; a shard's builder gives its entries to
// the shard's partial, the report being the merge's.
func (c *reportCmd) pipeline(pols []window.Labeled, sum summarize.Summarizer, prices pricing.Prices, sh reportShard) (*batch.Pipeline, *report.Builder) {
	est := estimate.MustNew("cl100k_base", estimate.OverheadNone)
	b := &report.Builder{Policies: pols, Estimator: est.Name(), Notes: reportNotes, SpoolTranscripts: true, Swept: true}
	b.CountedWith = report.AccuracyEstimators()
	spec := batch.Spec{Policies: pols, Sweep: &reportSweep, Cost: cost.Options{Prices: prices, Model: c.PricingModel},
		Replay: replay.Options{Estimators: []estimate.Estimator{est}, Summarizer: sum, Prices: prices}, Runs: b.AddRuns}
	for _, n := range b.CountedWith {
		spec.Estimators = append(spec.Estimators, estimate.MustNew(n, estimate.OverheadNone))
	}
	if sh.run != nil {
		b.SpoolTranscripts = false
		b.EmitRows = sh.rows
		b.Emit = func(en *report.Entry) error { return addToShard(sh.run, en.Transcript.File, en) }
		spec.Swept = b.AddSwept
	}
	return batch.New(spec), b
}

// shard replays and prices the shard's transcripts and writes its
// partial.
func (c *reportCmd) shard(e *env, p *batch.Pipeline, b *report.Builder, sh reportShard, prun *providerRun) error {
	read := 0
	skipped, err := readPrepared(e, c.Paths, c.inputFlags, true, p.Prepare, func(t *transcript.Transcript, pr batch.Prepared) error {
		read++
		return p.Add(e.ctx, t, pr)
	})
	if err != nil {
		return err
	}
	sweep, err := p.Finish()
	if err != nil {
		return err
	}
	if _, err := b.Finish(sweep); err != nil {
		return err
	}
	for _, w := range b.Warnings {
		e.warn(notPriced(w, "--pricing-model", "--prices"))
	}
	if err := prun.finish(e); err != nil {
		return err
	}
	h := batch.Header{Command: "report", Ctxbench: version, Config: sh.digest, Rows: sh.rows, Paths: c.defaultPaths(e, c.Paths), Read: read}
	if err := writeShard(sh.run, c.Partial, h, skipped); err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "ctxbench report: shard %s, %s: wrote %s\n", sh.run.Shard(), report.Count(read, "transcript", "transcripts"), c.Partial)
	return err
}

// report replays and prices the transcripts, or merges the partials of
// a sharded report, writes the report folder (and the rows) and prints
// the summary.
func (c *reportCmd) report(e *env, p *batch.Pipeline, b *report.Builder, sh reportShard, detail report.Detail, prun *providerRun) error {
	if len(c.Merge) > 0 {
		_, err := mergePartials(e, append(slices.Clone(c.Merge), c.Paths...), batch.Header{Command: "report", Config: sh.digest, Rows: sh.rows}, func(line []byte) error {
			var en report.Entry
			if err := json.Unmarshal(line, &en); err != nil {
				return fmt.Errorf("not an entry of ctxbench report: %w", err)
			}
			if err := b.AddEntry(&en); err != nil || en.Sweep == nil {
				return err
			}
			return p.AddSwept(e.ctx, *en.Sweep)
		})
		if err != nil {
			return err
		}
	} else {
		_, err := readPrepared(e, c.Paths, c.inputFlags, true, p.Prepare, func(t *transcript.Transcript, pr batch.Prepared) error { return p.Add(e.ctx, t, pr) })
		if err != nil {
			return err
		}
	}
	for _, w := range b.Warnings {
		e.warn(notPriced(w, "--pricing-model", "--prices"))
	}
	sweep, err := p.Finish()
	if err != nil {
		return err
	}
	rep, err := b.Finish(sweep)
	if err != nil {
		return err
	}
	defer rep.Close()
	rep.Detail = detail
	rep.MinProbeScore = c.MinProbeScore
	if err := prun.finish(e); err != nil {
		return err // no report of the policies' fallbacks
	}
	index, err := report.WriteReport(c.Out, rep)
	if err != nil {
		return outDirError(err)
	}
	if err := rep.WriteSummary(e.stdout); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(e.stdout, "\nreport: %s\n", index); err != nil {
		return err
	}
	// The answer last, where a terminal leaves the eye.
	if rec := rep.Recommendation(); rec != "" {
		_, err = fmt.Fprintf(e.stdout, "\n%s\n", rec)
	}
	return err
}

// outDirError is err, an error of the report's folder, with the hint
// that mends a folder ctxbench did not make.
func outDirError(err error) error {
	if errors.Is(err, report.ErrNotAReport) {
		return withHint(err, "choose another --out")
	}
	return err
}
