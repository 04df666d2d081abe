package main

import (
	"bufio"
	"fmt"

	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/transcript"
)

type genCmd struct {
	Calls     int     `default:"50" help:"Number of API calls (assistant messages)."`
	Seed      uint64  `default:"1" help:"Random seed: the same options and seed give the same bytes."`
	ToolRatio float64 `default:"0.7" name:"tool-ratio" help:"Share of calls that call tools, in [0,1]."`
	NonASCII  float64 `default:"0.05" name:"non-ascii" help:"Share of prose and output lines in Japanese, in [0,1]."`
	To        string  `default:"claude-code" enum:"claude-code,openai-chat" help:"Output format: claude-code or openai-chat."`
	Output    string  `short:"o" placeholder:"FILE" help:"Write to FILE (atomically) instead of standard output."`
}

func (c *genCmd) Run(e *env) error {
	o := fixtures.GenOptions{Calls: c.Calls, Seed: c.Seed, ToolRatio: c.ToolRatio, NonASCII: c.NonASCII, Format: transcript.Format(c.To)}
	if err := o.Validate(); err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	if c.Output == "" {
		return fixtures.Generate(e.stdout, o)
	}
	return report.WriteTo(c.Output, e.stdout, func(w *bufio.Writer) error { return fixtures.Generate(w, o) })
}
