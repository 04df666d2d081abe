package main

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/reports"
	"github.com/ctxbench/ctxbench/transcript"
)

type tokensCmd struct {
	Estimators []string `short:"e" name:"encoding" default:"cl100k_base" placeholder:"NAME" help:"Estimator or encoding to count with, repeatable: chars4, gemini, gemini-2025-11, gemini-2026-05, cl100k_base, o200k_base."`
	JSON       bool     `help:"Print one JSON document."`
	Files      []string `arg:"" optional:"" name:"file" help:"Text files, or - for standard input (the default)."`
}

type tokensInput struct {
	File       string         `json:"file"`
	Bytes      int            `json:"bytes"`
	Characters int            `json:"characters"`
	Tokens     map[string]int `json:"tokens"`
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
		files = []string{transcript.Stdin}
	}
	var inputs []tokensInput
	for _, f := range files {
		text, name, err := readText(e, f)
		if err != nil {
			return err
		}
		in := tokensInput{File: name, Bytes: len(text), Characters: utf8.RuneCountInString(text), Tokens: map[string]int{}}
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
	t := reports.Table{Header: []string{"file", "bytes"}, Right: []bool{false, true}}
	for _, est := range ests {
		t.Header = append(t.Header, est.Name())
		t.Right = append(t.Right, true)
	}
	total := make([]int, len(ests))
	totalBytes := 0
	for _, in := range inputs {
		row := []string{in.File, reports.Int(in.Bytes)}
		for k, est := range ests {
			row = append(row, reports.Int(in.Tokens[est.Name()]))
			total[k] += in.Tokens[est.Name()]
		}
		totalBytes += in.Bytes
		t.Rows = append(t.Rows, row)
	}
	if len(inputs) > 1 {
		row := []string{"total (" + strconv.Itoa(len(inputs)) + " files)", reports.Int(totalBytes)}
		for k := range ests {
			row = append(row, reports.Int(total[k]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t.WriteText(e.stdout)
}

// readText reads a whole text file, or standard input for "-".
func readText(e *env, f string) (text, name string, err error) {
	var b []byte
	if f == transcript.Stdin {
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
