package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/rework"
	"github.com/ctxbench/ctxbench/reports"
	"github.com/ctxbench/ctxbench/transcript"
)

type estimateCmd struct {
	inputFlags
	JSON  bool     `help:"Print one JSON document instead of tables."`
	Plot  string   `placeholder:"DIR" help:"Write plots (PNG and SVG) of chars4 and gemini against cl100k_base, per message, and of their error distribution into DIR."`
	Paths []string `arg:"" optional:"" name:"path" help:"Transcript files, directories, or - for standard input. None: Claude Code's sessions (~/.claude/projects or $CLAUDE_CONFIG_DIR/projects) where found, else the embedded samples (--samples)."`
}

// estimateResult is the --json document.
type estimateResult struct {
	Heuristics   []string                 `json:"heuristics"`
	Exact        []string                 `json:"exact"`
	Transcripts  []transcriptAccuracy     `json:"transcripts"`
	Overall      *estimate.Accuracy       `json:"overall"`
	ByModel      []modelAccuracy          `json:"billed_by_model"`
	SkippedFiles []transcript.SkippedFile `json:"skipped_files"`
	// SelfChecks hold Claude Code's own count at the compactions the
	// transcripts recorded against the claude-code policy's.
	SelfChecks []estimateSelfCheck `json:"self_checks,omitempty"`
	// Rework is, at each compaction the transcripts recorded, the work
	// done again in the calls after it against the calls before it.
	Rework []estimateRework `json:"rework,omitempty"`
	Notes  []string         `json:"notes"`
}

// estimateRework is a recorded compaction's re-work.
type estimateRework struct {
	File string `json:"file"`
	rework.Compaction
}

// estimateSelfCheck is a transcript's compaction self-check.
type estimateSelfCheck struct {
	File  string `json:"file"`
	Agent string `json:"agent_version"`
	selfCheck
}

type transcriptAccuracy struct {
	File     string             `json:"file"`
	ID       string             `json:"id"`
	Format   transcript.Format  `json:"format"`
	Models   []string           `json:"models"`
	Accuracy *estimate.Accuracy `json:"accuracy"`
}

type modelAccuracy struct {
	Family      string           `json:"family"`
	Transcripts int              `json:"transcripts"`
	Billed      *estimate.Billed `json:"billed"`
}

var (
	heuristicNames = []string{"chars4", "gemini", "gemini-2025-11", "gemini-2026-05"}
	exactNames     = []string{"cl100k_base", "o200k_base"}
)

// estimateNotes explain what the numbers mean; they are printed with the
// tables and included in the JSON.
var estimateNotes = []string{
	"Errors are (heuristic - exact) / exact per message, in percent; negative means the heuristic under-counts. Messages whose exact count is 0 are left out of the percentages.",
	"Exact counts are content only: no role markers, per-message overhead, system prompt or tool schemas.",
	"Billed comparison: the prompt the API billed for call k minus that of call k-1 is what the messages appended in between cost; calls after a recorded compaction, and the first call, are not compared. A call whose billed prompt shrank is left out of the per-call ratio and counted; the ratio over all calls subtracts the thinking the API dropped (Claude Sonnet up to 4.5, Opus up to 4.1 and Haiku up to 4.5, DeepSeek and OpenAI reasoning models keep only the current turn's thinking).",
	"Claude, Gemini and DeepSeek models use their own tokenizers, not tiktoken: their billed-per-estimated ratio measures that difference too.",
}

func (c *estimateCmd) Run(e *env) error {
	var ests []estimate.Estimator
	for _, n := range append(append([]string(nil), heuristicNames...), exactNames...) {
		est, err := estimate.New(n, estimate.OverheadNone)
		if err != nil {
			return err
		}
		ests = append(ests, est)
	}
	res := estimateResult{Heuristics: heuristicNames, Exact: exactNames, SkippedFiles: []transcript.SkippedFile{}, Notes: estimateNotes}
	var all []*estimate.Counts
	families := map[string][]*estimate.Counts{}
	var familyOrder []string
	// Each transcript is counted by the goroutine that read it, while the
	// ones before it are taken in order.
	type analyzed struct {
		counts *estimate.Counts
		err    error
	}
	analyze := func(t *transcript.Transcript) analyzed {
		c, err := estimate.Analyze(t, ests)
		return analyzed{c, err}
	}
	skipped, err := readPrepared(e, c.Paths, c.inputFlags, true, analyze, func(t *transcript.Transcript, a analyzed) error {
		if a.err != nil {
			return a.err
		}
		counts := a.counts
		all = append(all, counts)
		res.Transcripts = append(res.Transcripts, transcriptAccuracy{File: t.File, ID: t.ID, Format: t.Format, Models: nonNil(t.Models),
			Accuracy: estimate.AccuracyOf([]*estimate.Counts{counts}, heuristicNames, exactNames, true)})
		f := estimate.Family(t.Models)
		if _, ok := families[f]; !ok {
			familyOrder = append(familyOrder, f)
		}
		families[f] = append(families[f], counts)
		checks, err := claudeCodeSelfChecks(e, t)
		if err != nil {
			return err
		}
		for _, c := range checks {
			res.SelfChecks = append(res.SelfChecks, estimateSelfCheck{File: t.File, Agent: t.AgentVersion, selfCheck: c})
		}
		for _, r := range rework.Of(t, rework.DefaultCalls) {
			res.Rework = append(res.Rework, estimateRework{File: t.File, Compaction: r})
		}
		return nil
	})
	if err != nil {
		return err
	}
	res.SkippedFiles = append(res.SkippedFiles, skipped...)
	res.Overall = estimate.AccuracyOf(all, heuristicNames, exactNames, false)
	for _, f := range familyOrder {
		if b := estimate.AccuracyOf(families[f], nil, nil, false).Billed; b != nil {
			res.ByModel = append(res.ByModel, modelAccuracy{Family: f, Transcripts: len(families[f]), Billed: b})
		}
	}
	if c.Plot != "" {
		// The Gemini CLI variants overlap the current rule: plot two series.
		paths, err := reports.EstimatePlots(c.Plot, all, []string{"chars4", "gemini"}, exactNames[0])
		if err != nil {
			return err
		}
		if !c.JSON {
			for _, p := range paths {
				fmt.Fprintf(e.stderr, "ctxbench: wrote %s\n", p)
			}
		}
	}
	if c.JSON {
		return e.writeJSON(res)
	}
	return writeEstimateText(e.stdout, &res)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// writeBilled writes the billed comparison by model family: the calls
// whose prompt grew, one ratio over them and one over every call less the
// thinking the API dropped, and what the shrinking calls were.
func writeBilled(w io.Writer, byModel []modelAccuracy, x0 string) error {
	billed := reports.Table{Header: []string{"model family", "transcripts", "calls", "billed tokens", "estimator", "estimated", "billed per estimated", "mean abs per call", "all calls, less thinking", "alpha"},
		Right: []bool{false, true, true, true, false, true, true, true, true, true}}
	for _, m := range byModel {
		for _, be := range m.Billed.Estimators {
			alpha := "-"
			if be.AlphaGrowths > 0 {
				alpha = ratio(be.Alpha)
			}
			billed.Rows = append(billed.Rows, []string{m.Family, reports.Int(m.Transcripts), reports.Int(m.Billed.Calls),
				reports.Int(m.Billed.BilledTokens), be.Estimator, reports.Int(be.Tokens), ratio(be.Ratio), abs(be.MeanAbsPct), ratio(be.NetRatio), alpha})
		}
	}
	fmt.Fprintln(w, "\nAgainst billed usage: prompt growth between consecutive calls")
	if err := billed.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "alpha is the median of billed over estimated growth, weighted by growth, over %d or more growths: what ctxbench cost prices a policy's tokens with.\n", estimate.MinAlphaGrowths)
	for _, m := range byModel {
		b := m.Billed
		for _, be := range b.Estimators {
			if be.Estimator != x0 {
				continue
			}
			if m.Family != "openai" && be.Ratio > 0 {
				fmt.Fprintf(w, "%s models do not use tiktoken: on these %s calls they billed %.3f tokens per %s token (%s).\n",
					m.Family, reports.Int(b.Calls), be.Ratio, x0, pct((be.Ratio-1)*100))
			}
			if b.Shrank > 0 || be.DroppedThinking > 0 {
				fmt.Fprintf(w, "%s: %s of %s compared calls did not grow the billed prompt (%s tokens less in all) and are left out of the per-call ratio; "+
					"the API dropped %s %s tokens of thinking of turns that ended, and over all %s calls, less that thinking, the ratio is %s.\n",
					m.Family, reports.Int(b.Shrank), reports.Int(b.Calls+b.Shrank), reports.Int(b.ShrankTokens),
					reports.Int(be.DroppedThinking), x0, reports.Int(b.Calls+b.Shrank), ratio(be.NetRatio))
			}
			if be.Unexplained > 0 {
				fmt.Fprintf(w, "%s: %s shrank by %s tokens with no thinking dropped to explain it: the prompt lost something the transcript still holds.\n",
					m.Family, plural(be.Unexplained, "call"), reports.Int(be.UnexplainedTokens))
			}
		}
	}
	return nil
}

// plural says "1 call" or "n calls".
func plural(n int, noun string) string { return reports.Count(n, noun, noun+"s") }

// ratio formats a billed-per-estimated ratio, "-" when there is none.
func ratio(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

func pct(v float64) string { return fmt.Sprintf("%+.1f%%", v) }
func abs(v float64) string { return fmt.Sprintf("%.1f%%", v) }

func writeEstimateText(w io.Writer, res *estimateResult) error {
	x0 := res.Exact[0]
	for _, write := range []func(io.Writer, *estimateResult, string) error{writeEstimateTotals, writeEstimateErrors, writeEstimatePer, writeEstimateChecks} {
		if err := write(w, res, x0); err != nil {
			return err
		}
	}
	return nil
}

// writeEstimateTotals writes each estimator's total over all messages
// against the exact ones, and the images no estimator counts.
func writeEstimateTotals(w io.Writer, res *estimateResult, _ string) error {
	o := res.Overall
	fmt.Fprintf(w, "Token estimates: %s, %s; heuristics against exact BPE counts\n\n", reports.Count(len(res.Transcripts), "transcript", "transcripts"), reports.Count(o.Messages, "message", "messages"))

	totals := reports.Table{Header: []string{"estimator", "tokens"}, Right: []bool{false, true}}
	for _, x := range res.Exact {
		totals.Header = append(totals.Header, "vs "+x)
		totals.Right = append(totals.Right, true)
	}
	for _, n := range append(append([]string(nil), res.Heuristics...), res.Exact...) {
		row := []string{n, reports.Int(o.Totals[n])}
		for _, x := range res.Exact {
			row = append(row, pct(float64(o.Totals[n]-o.Totals[x])/float64(max(1, o.Totals[x]))*100))
		}
		totals.Rows = append(totals.Rows, row)
	}
	fmt.Fprintln(w, "Totals over all messages")
	if err := totals.WriteText(w); err != nil {
		return err
	}
	if im := o.Images; im != nil {
		fmt.Fprintf(w, "Images: %s, not in the totals (no estimator counts pixels); against the bill each counts its provider's rule, %s tokens in all",
			reports.Int(im.Images), reports.Int(im.Tokens))
		if im.Unsized > 0 {
			fmt.Fprintf(w, "; %s with no rule or of unknown size count 0", reports.Int(im.Unsized))
		}
		fmt.Fprintln(w, ".")
	}
	return nil
}

// writeEstimateErrors writes the error per message, per block by kind
// and per message by script against x0, and against the bill by model.
func writeEstimateErrors(w io.Writer, res *estimateResult, x0 string) error {
	o := res.Overall
	errs := reports.Table{
		Header: []string{"heuristic", "exact", "messages", "mean signed", "mean abs", "p50 abs", "p90 abs", "p99 abs", "max abs", "whole set"},
		Right:  []bool{false, false, true, true, true, true, true, true, true, true},
	}
	for _, s := range o.Errors {
		errs.Rows = append(errs.Rows, []string{s.Heuristic, s.Exact, reports.Int(s.Samples), pct(s.MeanPct), abs(s.MeanAbs),
			abs(s.P50Abs), abs(s.P90Abs), abs(s.P99Abs), abs(s.MaxAbs), pct(s.TotalPct)})
	}
	fmt.Fprintln(w, "\nError per message")
	if err := errs.WriteText(w); err != nil {
		return err
	}

	kinds := reports.Table{Header: []string{"block kind", "heuristic", "blocks", "mean signed", "mean abs", "p90 abs", "whole set"},
		Right: []bool{false, false, true, true, true, true, true}}
	for _, s := range o.ByKind {
		if s.Exact == x0 {
			kinds.Rows = append(kinds.Rows, []string{s.Kind, s.Heuristic, reports.Int(s.Samples), pct(s.MeanPct), abs(s.MeanAbs), abs(s.P90Abs), pct(s.TotalPct)})
		}
	}
	fmt.Fprintf(w, "\nError per block, by kind (against %s)\n", x0)
	if err := kinds.WriteText(w); err != nil {
		return err
	}

	scripts := reports.Table{Header: []string{"script", "heuristic", "messages", "mean signed", "mean abs", "whole set"},
		Right: []bool{false, false, true, true, true, true}}
	for _, s := range o.ByScript {
		if s.Exact == x0 {
			scripts.Rows = append(scripts.Rows, []string{s.Bucket, s.Heuristic, reports.Int(s.Samples), pct(s.MeanPct), abs(s.MeanAbs), pct(s.TotalPct)})
		}
	}
	fmt.Fprintf(w, "\nError per message, by share of non-ASCII characters (against %s)\n", x0)
	if err := scripts.WriteText(w); err != nil {
		return err
	}

	if len(res.ByModel) > 0 {
		if err := writeBilled(w, res.ByModel, x0); err != nil {
			return err
		}
	}
	return nil
}

// writeEstimatePer writes each transcript's count with x0, chars4's
// error and its billed ratio.
func writeEstimatePer(w io.Writer, res *estimateResult, x0 string) error {
	per := reports.Table{Header: []string{"transcript", "format", "messages", x0, "chars4 vs " + x0, "billed calls", "billed per " + x0, "shrank", "all calls, less thinking", "constant (" + x0 + ")"},
		Right: []bool{false, false, true, true, true, true, true, true, true, true}}
	for _, t := range res.Transcripts {
		a := t.Accuracy
		row := []string{shortName(t.File), string(t.Format), reports.Int(a.Messages), reports.Int(a.Totals[x0])}
		row = append(row, pct(a.Errors[0].TotalPct))
		if a.Billed != nil {
			for _, be := range a.Billed.Estimators {
				if be.Estimator == x0 {
					row = append(row, reports.Int(a.Billed.Calls), ratio(be.Ratio), reports.Int(a.Billed.Shrank), ratio(be.NetRatio), reports.Int(*be.Constant))
				}
			}
		} else {
			row = append(row, "0", "-", "-", "-", "-")
		}
		per.Rows = append(per.Rows, row)
	}
	fmt.Fprintln(w, "\nPer transcript (the constant is the system prompt and tool schemas the transcript does not hold)")
	if err := per.WriteText(w); err != nil {
		return err
	}
	return nil
}

// writeEstimateChecks writes the self-checks at the recorded
// compactions, the work done again after them, and the notes.
func writeEstimateChecks(w io.Writer, res *estimateResult, _ string) error {
	fmt.Fprintln(w)
	if len(res.SelfChecks) > 0 {
		fmt.Fprintln(w, "Claude Code's own count where it compacted, against ctxbench's claude-code policy")
		for _, c := range res.SelfChecks {
			fmt.Fprintf(w, "%s: %s\n", shortName(c.File), selfCheckText(c.selfCheck, c.Agent))
		}
		fmt.Fprintln(w)
	}
	if len(res.Rework) > 0 {
		fmt.Fprintf(w, "Work done again after each recorded compaction: in the %d calls after it, tool calls that repeat one made before it (the same tool and input) and reads of a file read before it; in the %d calls before it, the same against the calls before them\n",
			rework.DefaultCalls, rework.DefaultCalls)
		for _, r := range res.Rework {
			fmt.Fprintf(w, "%s: %s\n", shortName(r.File), reworkText(r.Compaction))
		}
		fmt.Fprintln(w)
	}
	for _, n := range res.Notes {
		fmt.Fprintln(w, "Note: "+n)
	}
	return nil
}

// reworkText says what a compaction's windows repeated.
func reworkText(r rework.Compaction) string {
	what := "compaction"
	if r.Trigger != "" {
		what = r.Trigger + " compaction"
	}
	side := func(w rework.Window) string {
		return fmt.Sprintf("%s of %s tool calls repeated (%.1f%%), %s of %s reads of a file read before (%.1f%%) in %s calls",
			reports.Int(w.Repeated), reports.Int(w.ToolCalls), w.RepeatedShare()*100, reports.Int(w.Reread), reports.Int(w.Reads), w.RereadShare()*100, reports.Int(w.Calls))
	}
	return fmt.Sprintf("%s %d (before message %d): after it %s; before it %s", what, r.Index+1, r.Message, side(r.After), side(r.Before))
}

// shortName keeps the last two elements of a path, which are enough to
// tell transcripts apart in a table.
func shortName(p string) string {
	dir, file := filepath.Split(p)
	dir = filepath.Base(filepath.Clean(dir))
	if dir == "." || dir == "/" {
		return file
	}
	return dir + "/" + file
}
