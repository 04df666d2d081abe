package main

import (
	"fmt"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/family"
	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/internal/rework"
	"github.com/ctxbench/ctxbench/transcript"
)

type estimateCmd struct {
	inputFlags `group:"input"`
	JSON       bool     `help:"Print one JSON document instead of tables."`
	Plot       string   `placeholder:"DIR" help:"Write plots (PNG and SVG) of chars4 and gemini against cl100k_base, per message, and of their error distribution into DIR."`
	Paths      []string `arg:"" optional:"" name:"path" help:"Transcript files, directories, or - for standard input. None: Claude Code's sessions (~/.claude/projects or $CLAUDE_CONFIG_DIR/projects) (--samples: the embedded samples)."`
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
	res := report.EstimateResult{Heuristics: heuristicNames, Exact: exactNames, SkippedFiles: []transcript.SkippedFile{}, Notes: estimateNotes}
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
		res.Transcripts = append(res.Transcripts, report.TranscriptAccuracy{File: t.File, ID: t.ID, Format: t.Format, Models: nonNil(t.Models),
			Accuracy: estimate.AccuracyOf([]*estimate.Counts{counts}, heuristicNames, exactNames, true)})
		f := family.Of(t.Models)
		if _, ok := families[f]; !ok {
			familyOrder = append(familyOrder, f)
		}
		families[f] = append(families[f], counts)
		checks, err := claudeCodeSelfChecks(e, t)
		if err != nil {
			return err
		}
		for _, c := range checks {
			res.SelfChecks = append(res.SelfChecks, report.EstimateSelfCheck{File: t.File, Agent: t.AgentVersion, SelfCheck: c})
		}
		for _, r := range rework.Of(t, rework.DefaultCalls) {
			res.Rework = append(res.Rework, report.EstimateRework{File: t.File, Compaction: r})
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
			res.ByModel = append(res.ByModel, report.ModelAccuracy{Family: f, Transcripts: len(families[f]), Billed: b})
		}
	}
	if c.Plot != "" {
		// The Gemini CLI variants overlap the current rule: plot two
		// series, the report's.
		accuracy := report.AccuracyEstimators()
		paths, err := report.EstimatePlots(c.Plot, all, accuracy[1:], accuracy[0])
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
	return report.WriteEstimate(e.stdout, &res)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
