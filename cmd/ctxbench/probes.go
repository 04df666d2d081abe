package main

import (
	"fmt"

	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

type probesCmd struct {
	inputFlags      `group:"input"`
	summarizerFlags `group:"summarizer"`
	Policy          string   `placeholder:"SPEC" help:"Replay this policy and ask, at each call where it first stopped sending messages verbatim, the probes about them, judged against what it sent (default: the probes of each whole history, not judged)."`
	Judge           string   `enum:"exact,llm" default:"exact" help:"exact (offline: every key of the answer is in the context sent), or llm as well: a model answers each probe, paraphrased, from the context sent and grades the answer on six 0-5 dimensions, with a distractor question per call (needs --policy and --summarizer anthropic or openai; its calls share the summarizer's cache, retries and max_usd)."`
	JSON            bool     `help:"Print one JSON document instead of tables."`
	Paths           []string `arg:"" optional:"" name:"path" help:"Transcript files, directories, or - for standard input. None: Claude Code's sessions (~/.claude/projects or $CLAUDE_CONFIG_DIR/projects) (--samples: the embedded samples)."`
}

// probesResult is the --json document.
type probesResult struct {
	Transcripts  []report.TranscriptProbes `json:"transcripts"`
	SkippedFiles []transcript.SkippedFile  `json:"skipped_files"`
}

func (c *probesCmd) Run(e *env) error {
	var policy *window.Labeled
	if c.Policy != "" {
		ps, err := window.ParseLabeled([]string{c.Policy})
		if err != nil {
			return fmt.Errorf("--policy: %w", err)
		}
		policy = &ps[0]
	}
	sum, prun, err := c.summarizerFlags.build(e)
	if err != nil {
		return err
	}
	var llm *probe.LLMJudge
	if c.Judge == "llm" {
		if policy == nil {
			return fmt.Errorf("--judge llm: give --policy: the probes are judged against what a policy sent")
		}
		if prun == nil {
			return fmt.Errorf("--judge llm needs a model: give --summarizer anthropic or openai (the %s summarizer answers no question)", sum.Name())
		}
		llm = &probe.LLMJudge{Model: sum}
	}
	res := probesResult{Transcripts: []report.TranscriptProbes{}}
	skipped, err := readInputs(e, c.Paths, c.inputFlags, true, func(t *transcript.Transcript) error {
		tp := report.TranscriptProbes{File: t.File, ID: t.ID}
		if policy == nil {
			tp.Probes = probe.NewExtractor(t).SessionProbes()
		} else {
			tp.Policy = policy.Label
			calls, score, err := replay.Probes(e.ctx, t, policy.Policy, replay.Options{Summarizer: sum}, llm)
			if err != nil {
				return err
			}
			tp.Calls, tp.Score, tp.Loss, tp.ProbeScore, tp.LLMScore = calls, &score.Exact, &score.Loss, &score.Score, score.LLM
		}
		if c.JSON {
			res.Transcripts = append(res.Transcripts, tp)
			return nil
		}
		return report.WriteProbes(e.stdout, tp)
	})
	if err != nil {
		return err
	}
	res.SkippedFiles = append(res.SkippedFiles, skipped...)
	if c.JSON {
		if err := e.writeJSON(res); err != nil {
			return err
		}
	}
	return prun.finish(e)
}
