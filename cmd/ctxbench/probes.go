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
	// Probes are the whole history's (no --policy); Calls and Score the
	// policy's.
	Probes []probe.Probe       `json:"probes,omitempty"`
	Calls  []replay.CallProbes `json:"calls,omitempty"`
	Score  *probe.Score        `json:"score,omitempty"`
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
	res := probesResult{Transcripts: []transcriptProbes{}}
	skipped, err := readInputs(e, c.Paths, c.inputFlags, true, func(t *transcript.Transcript) error {
		tp := transcriptProbes{File: t.File, ID: t.ID}
		if policy == nil {
			tp.Probes = probe.All(t)
		} else {
			tp.Policy = policy.Label
			calls, score, err := replay.Probes(e.ctx, t, policy.Policy, replay.Options{Summarizer: sum})
			if err != nil {
				return err
			}
			tp.Calls, tp.Score = calls, &score
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
	for _, c := range tp.Calls {
		for _, p := range c.Probes {
			kept := "no"
			if p.Kept {
				kept = "yes"
			}
			t.Rows = append(t.Rows, []string{fmt.Sprint(c.Step), string(p.Kind), shortCell(p.Question), shortCell(p.Answer), kept})
		}
	}
	if len(t.Rows) > 0 {
		if err := t.WriteText(w); err != nil {
			return err
		}
	}
	s := reports.Table{Header: []string{"kind", "kept", "probes", "share"}, Right: []bool{false, true, true, true}}
	for _, k := range probe.Kinds() {
		share, ok := tp.Score.Share(k)
		if !ok {
			continue
		}
		s.Rows = append(s.Rows, []string{string(k), reports.Int(tp.Score.Kept[k]), reports.Int(tp.Score.Total[k]), fmt.Sprintf("%.0f%%", 100*share)})
	}
	if all, ok := tp.Score.Overall(); ok {
		kept, total := tp.Score.Totals()
		s.Rows = append(s.Rows, []string{"all", reports.Int(kept), reports.Int(total), fmt.Sprintf("%.0f%%", 100*all)})
		if err := s.WriteText(w); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w)
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
