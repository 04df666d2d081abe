package main

import (
	"fmt"
	"io"

	"github.com/ctxbench/ctxbench/internal/printable"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/replay/probe"
	"github.com/ctxbench/ctxbench/reports"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

type probesCmd struct {
	inputFlags
	summarizerFlags
	Policy string   `placeholder:"SPEC" help:"Replay this policy and ask, at each call where it first stopped sending messages verbatim, the probes about them, judged against what it sent (default: the probes of each whole history, not judged)."`
	Judge  string   `enum:"exact,llm" default:"exact" help:"exact (offline: every key of the answer is in the context sent), or llm as well: a model answers each probe, paraphrased, from the context sent and grades the answer on six 0-5 dimensions, with a distractor question per call (needs --policy and --provider anthropic or openai; its calls share the provider's cache, retries and --max-summary-usd)."`
	JSON   bool     `help:"Print one JSON document instead of tables."`
	Paths  []string `arg:"" optional:"" name:"path" help:"Transcript files, directories, or - for standard input. None: Claude Code's sessions (~/.claude/projects or $CLAUDE_CONFIG_DIR/projects) where found, else the embedded samples (--samples)."`
}

// probesResult is the --json document.
type probesResult struct {
	Transcripts  []transcriptProbes       `json:"transcripts"`
	SkippedFiles []transcript.SkippedFile `json:"skipped_files"`
}

type transcriptProbes struct {
	File   string `json:"file"`
	ID     string `json:"id"`
	Policy string `json:"policy,omitempty"`
	// Probes are the whole history's (no --policy); Calls, Score (the
	// probes asked and kept), Loss and ProbeScore the policy's.
	Probes     []probe.Probe       `json:"probes,omitempty"`
	Calls      []replay.CallProbes `json:"calls,omitempty"`
	Score      *probe.Score        `json:"score,omitempty"`
	Loss       *probe.Loss         `json:"loss,omitempty"`
	ProbeScore *float64            `json:"probe_score,omitempty"`
	// LLMScore is the LLM judge's (--judge llm).
	LLMScore *probe.LLMScore `json:"llm_score,omitempty"`
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
			return fmt.Errorf("--judge llm needs a model: give --provider anthropic or openai (the %s summarizer answers no question)", sum.Name())
		}
		llm = &probe.LLMJudge{Model: sum}
	}
	res := probesResult{Transcripts: []transcriptProbes{}}
	skipped, err := readInputs(e, c.Paths, c.inputFlags, true, func(t *transcript.Transcript) error {
		tp := transcriptProbes{File: t.File, ID: t.ID}
		if policy == nil {
			tp.Probes = probe.All(t)
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
		return writeProbesText(e.stdout, tp)
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

// writeProbesText writes one transcript's probes as a titled table, and
// under a policy's the score per kind.
func writeProbesText(w io.Writer, tp transcriptProbes) error {
	title := printable.String(tp.File) + " (" + printable.String(tp.ID) + ")"
	if tp.Policy == "" {
		fmt.Fprintf(w, "%s: %d probes of the whole history\n", title, len(tp.Probes))
		t := reports.Table{Header: []string{"kind", "question", "answer", "message"}}
		for _, p := range tp.Probes {
			t.Rows = append(t.Rows, []string{string(p.Kind), shortCell(p.Question), shortCell(p.Answer), transcript.MessageID(p.Message)})
		}
		if err := t.WriteText(w); err != nil {
			return err
		}
		_, err := fmt.Fprintln(w)
		return err
	}
	fmt.Fprintf(w, "%s under %s: %d calls lost messages\n", title, tp.Policy, len(tp.Calls))
	t := reports.Table{Header: []string{"call", "kind", "question", "answer", "kept"}}
	if tp.LLMScore != nil {
		t.Header = append(t.Header, "llm")
	}
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	for _, c := range tp.Calls {
		for _, p := range c.Probes {
			row := []string{fmt.Sprint(c.Step), string(p.Kind), shortCell(p.Question), shortCell(p.Answer), yes(p.Kept)}
			if p.LLM != nil {
				row = append(row, fmt.Sprintf("%s (accuracy %d)", yes(p.LLM.Kept), p.LLM.Grade.Accuracy))
			}
			t.Rows = append(t.Rows, row)
		}
		if d := c.Distractor; d != nil {
			t.Rows = append(t.Rows, []string{fmt.Sprint(c.Step), "distractor", shortCell(d.Asked), "not in the context", "", yes(d.Kept)})
		}
	}
	if len(t.Rows) > 0 {
		if err := t.WriteText(w); err != nil {
			return err
		}
	}
	s := reports.Table{Header: []string{"kind", "asked", "kept", "share kept", "lost", "of the session's", "score"}, Right: []bool{false, true, true, true, true, true, true}}
	share := func(ok bool, v float64) string {
		if !ok {
			return ""
		}
		return fmt.Sprintf("%.0f%%", 100*v)
	}
	for _, k := range probe.Kinds() {
		asked, askedOK := tp.Score.Share(k)
		score, scoreOK := tp.Loss.KindScore(k)
		if !scoreOK {
			continue
		}
		s.Rows = append(s.Rows, []string{string(k), reports.Int(tp.Score.Total[k]), reports.Int(tp.Score.Kept[k]), share(askedOK, asked),
			reports.Int(tp.Loss.Lost[k]), reports.Int(tp.Loss.Of[k]), share(true, score)})
	}
	if len(s.Rows) > 0 {
		kept, total := tp.Score.Totals()
		lost, of := tp.Loss.Totals()
		all, ok := tp.Score.Overall()
		s.Rows = append(s.Rows, []string{"all", reports.Int(total), reports.Int(kept), share(ok, all), reports.Int(lost), reports.Int(of), share(true, *tp.ProbeScore)})
		if err := s.WriteText(w); err != nil {
			return err
		}
		fmt.Fprintln(w, "asked: at the calls where the policy first stopped sending a message; lost: asked where the context could not answer (each probe once); score: the share of the session's probes not lost")
	}
	if ls := tp.LLMScore; ls != nil {
		if err := writeLLMScore(w, ls); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

// writeLLMScore writes the LLM judge's score: kept per kind, the mean of
// each dimension, the distractors answered right, the prompts' digest.
func writeLLMScore(w io.Writer, ls *probe.LLMScore) error {
	s := reports.Table{Header: []string{"llm judge", "kept", "probes", "share"}, Right: []bool{false, true, true, true}}
	for _, k := range probe.Kinds() {
		if share, ok := ls.Share(k); ok {
			s.Rows = append(s.Rows, []string{string(k), reports.Int(ls.Kept[k]), reports.Int(ls.Total[k]), fmt.Sprintf("%.0f%%", 100*share)})
		}
	}
	if ls.Distractors > 0 {
		s.Rows = append(s.Rows, []string{"distractors", reports.Int(ls.DistractorsRight), reports.Int(ls.Distractors),
			fmt.Sprintf("%.0f%%", 100*float64(ls.DistractorsRight)/float64(ls.Distractors))})
	}
	if err := s.WriteText(w); err != nil {
		return err
	}
	if len(ls.MeanGrade) > 0 {
		g := reports.Table{Header: []string{"dimension", "mean (0-5)"}, Right: []bool{false, true}}
		for _, d := range probe.Dimensions {
			g.Rows = append(g.Rows, []string{d, fmt.Sprintf("%.2f", ls.MeanGrade[d])})
		}
		if err := g.WriteText(w); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "llm judge prompts sha256 %s\n", ls.Prompts)
	return err
}

// shortCell is s printable, cut to 80 characters for a table (--json has
// it whole).
func shortCell(s string) string {
	r := []rune(printable.String(s))
	if len(r) <= 80 {
		return string(r)
	}
	return string(r[:79]) + "…"
}
