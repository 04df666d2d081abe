package main

import (
	"fmt"

	"github.com/ctxbench/ctxbench/reports"
	"github.com/ctxbench/ctxbench/window"
)

type policiesCmd struct {
	JSON bool `help:"Print one JSON document."`
}

type policyOut struct {
	Name    string     `json:"name"`
	Source  string     `json:"source"`
	Models  string     `json:"models,omitempty"`
	Held    string     `json:"held,omitempty"`
	Differs []string   `json:"differs,omitempty"`
	Summary string     `json:"summary"`
	Params  []paramOut `json:"params"`
}

type paramOut struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Default string `json:"default"`
	Valid   string `json:"valid"`
	Help    string `json:"help"`
}

func (c *policiesCmd) Run(e *env) error {
	var out []policyOut
	for _, s := range window.Specs() {
		p := policyOut{Name: s.Name, Source: s.Source, Models: s.Models, Held: s.Held, Differs: s.Differs, Summary: s.Summary, Params: []paramOut{}}
		for _, pa := range s.Params {
			p.Params = append(p.Params, paramOut{Name: pa.Name, Type: string(pa.Kind), Default: pa.Default, Valid: pa.Range(), Help: pa.Help})
		}
		out = append(out, p)
	}
	if c.JSON {
		return e.writeJSON(map[string]any{"policies": out})
	}
	for _, p := range out {
		fmt.Fprintf(e.stdout, "%s: %s\n  source: %s\n", p.Name, p.Summary, p.Source)
		if p.Models != "" {
			fmt.Fprintf(e.stdout, "  models: %s, held to it by %s\n", p.Models, p.Held)
		}
		for _, d := range p.Differs {
			fmt.Fprintf(e.stdout, "  differs on purpose: %s\n", d)
		}
		if len(p.Params) == 0 {
			fmt.Fprintln(e.stdout, "  no parameters")
			fmt.Fprintln(e.stdout)
			continue
		}
		t := reports.Table{Header: []string{"parameter", "default", "valid", "meaning"}}
		for _, pa := range p.Params {
			def := pa.Default
			if def == "" {
				def = `""`
			}
			t.Rows = append(t.Rows, []string{pa.Name, def, pa.Valid, pa.Help})
		}
		if err := t.WriteText(e.stdout); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout)
	}
	fmt.Fprintln(e.stdout, "A policy SPEC is NAME or NAME:key=value,key=value (for example aidf:max_messages=30,preserve_last_n=8).")
	return nil
}
