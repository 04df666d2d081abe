package main

import (
	"fmt"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/transcript"
)

type tokensCmd struct {
	Estimators []string `short:"e" name:"encoding" default:"cl100k_base" placeholder:"NAME" help:"Estimator or encoding to count with, repeatable: chars4, gemini, gemini-2025-11, gemini-2026-05, cl100k_base, o200k_base."`
	JSON       bool     `help:"Print one JSON document."`
	Files      []string `arg:"" optional:"" name:"file" help:"Text files, or - for standard input (the default)."`
}

func (c *tokensCmd) Run(e *env) error {
	var ests []estimate.Estimator
	for _, n := range c.Estimators {
		est, err := estimate.New(n, estimate.OverheadNone)
		if err != nil {
			return fmt.Errorf("-e: %w", err)
		}
		ests = append(ests, est)
	}
	files := c.Files
	if len(files) == 0 {
		files = []string{stdinPath}
	}
	var inputs []report.TokenCount
	for _, f := range files {
		text, name, err := readText(e, f)
		if err != nil {
			return err
		}
		in := report.TokenCount{File: name, Bytes: len(text), Characters: utf8.RuneCountInString(text), Tokens: map[string]int{}}
		for _, est := range ests {
			in.Tokens[est.Name()] = est.Count(text)
		}
		inputs = append(inputs, in)
	}
	if c.JSON {
		return e.writeJSON(map[string]any{"estimators": c.Estimators, "inputs": inputs})
	}
	if len(inputs) == 1 && len(ests) == 1 {
		_, err := fmt.Fprintln(e.stdout, inputs[0].Tokens[ests[0].Name()])
		return err
	}
	names := make([]string, len(ests))
	for k, est := range ests {
		names[k] = est.Name()
	}
	return report.WriteTokenCounts(e.stdout, inputs, names)
}

// readText reads a whole text file, or standard input for "-".
func readText(e *env, f string) (text, name string, err error) {
	var b []byte
	if f == stdinPath {
		name = "<stdin>"
		b, err = limit.ReadAll(e.stdin, name, transcript.DefaultMaxBytes)
	} else {
		name = f
		b, err = limit.ReadFile(f, transcript.DefaultMaxBytes)
	}
	if err != nil {
		return "", name, err
	}
	return string(b), name, nil
}
