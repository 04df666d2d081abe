package main

import (
	"bufio"
	"io"

	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/transcript"
)

type convertCmd struct {
	inputFlags `group:"input"`
	To         string   `required:"" enum:"openai-chat,anthropic,otel" help:"Target format: openai-chat, anthropic or otel (OpenTelemetry GenAI spans, OTLP JSON)."`
	Output     string   `short:"o" placeholder:"FILE" help:"Write to FILE (atomically) instead of standard output."`
	Paths      []string `arg:"" name:"path" help:"Transcript files, directories, or - for standard input."`
}

func (c *convertCmd) Run(e *env) error {
	if err := refuseInput("-o", c.Output, c.Paths); err != nil {
		return err
	}
	convert := func(w io.Writer) error {
		_, err := readInputs(e, c.Paths, c.inputFlags, false, func(t *transcript.Transcript) error {
			return transcript.Write(w, t, transcript.Format(c.To))
		})
		return err
	}
	if c.Output == "" {
		bw := bufio.NewWriter(e.stdout)
		if err := convert(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	return report.WriteTo(c.Output, e.stdout, func(w *bufio.Writer) error { return convert(w) })
}
