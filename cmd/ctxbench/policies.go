package main

import (
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
	if !c.JSON {
		return reports.WritePolicies(e.stdout, window.Specs())
	}
	var out []policyOut
	for _, s := range window.Specs() {
		p := policyOut{Name: s.Name, Source: s.Source, Models: s.Models, Held: s.Held, Differs: s.Differs, Summary: s.Summary, Params: []paramOut{}}
		for _, pa := range s.Params {
			p.Params = append(p.Params, paramOut{Name: pa.Name, Type: string(pa.Kind), Default: pa.Default, Valid: pa.Range(), Help: pa.Help})
		}
		out = append(out, p)
	}
	return e.writeJSON(map[string]any{"policies": out})
}
