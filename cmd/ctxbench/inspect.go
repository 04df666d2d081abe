package main

import (
	"fmt"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/transcript"
)

type inspectCmd struct {
	inputFlags `group:"input"`
	JSON       bool     `help:"Print one JSON document instead of tables."`
	Paths      []string `arg:"" optional:"" name:"path" help:"Transcript files, directories, or - for standard input. None: Claude Code's sessions (~/.claude/projects or $CLAUDE_CONFIG_DIR/projects) (--samples: the embedded samples)."`
}

// inspectResult is the --json document.
type inspectResult struct {
	Transcripts  []transcript.Stats       `json:"transcripts"`
	SkippedFiles []transcript.SkippedFile `json:"skipped_files"`
	// Sessions total the usage by session, subagents rolled in, each call
	// once (DuplicateCalls: calls copied from an earlier file).
	Sessions       []sessionUsage `json:"sessions"`
	DuplicateCalls int            `json:"duplicate_calls"`
}

// sessionUsage is a session's usage: its own transcript's and its
// subagents'.
type sessionUsage struct {
	ID          string            `json:"id"`
	Calls       int               `json:"calls"`
	Usage       transcript.Usage  `json:"usage"`
	Transcripts []transcriptUsage `json:"transcripts"`
}

type transcriptUsage struct {
	File       string           `json:"file"`
	ID         string           `json:"id"`
	Subagent   string           `json:"subagent,omitempty"`
	Calls      int              `json:"calls"`
	Usage      transcript.Usage `json:"usage"`
	Duplicates int              `json:"duplicate_calls,omitempty"`
}

func (c *inspectCmd) Run(e *env) error {
	res := inspectResult{Transcripts: []transcript.Stats{}, SkippedFiles: []transcript.SkippedFile{}, Sessions: []sessionUsage{}}
	var ledger cost.Ledger // usage only: no prices
	// Each transcript's summary is made by the goroutine that read it;
	// the content is measured as it is read, not kept.
	summary := func(t *transcript.Transcript) transcript.Stats { return t.Summary() }
	c.inputFlags.measure = true
	skipped, err := readPrepared(e, c.Paths, c.inputFlags, true, summary, func(t *transcript.Transcript, s transcript.Stats) error {
		if err := ledger.Add(t); err != nil {
			return err
		}
		res.Transcripts = append(res.Transcripts, s)
		if c.JSON {
			return nil
		}
		return report.WriteStats(e.stdout, s)
	})
	if err != nil {
		return err
	}
	res.SkippedFiles = append(res.SkippedFiles, skipped...)
	res.DuplicateCalls = ledger.Duplicates
	for _, s := range ledger.Sessions {
		su := sessionUsage{ID: s.ID, Calls: s.Calls, Usage: s.Usage}
		for _, tb := range s.Transcripts {
			su.Transcripts = append(su.Transcripts, transcriptUsage{tb.File, tb.ID, tb.Subagent, tb.Calls, tb.Usage, tb.Duplicates})
		}
		res.Sessions = append(res.Sessions, su)
	}
	if c.JSON {
		return e.writeJSON(res)
	}
	if len(res.Transcripts) < 2 {
		return nil
	}
	fmt.Fprintln(e.stdout, "Recorded usage by session")
	return report.WriteSessions(e.stdout, ledger.Sessions, ledger.Duplicates, false)
}
