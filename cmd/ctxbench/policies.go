package main

import (
	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/window"
)

// defaultPolicies are what replay and report replay when neither
// --policy nor a config names any, the one default set: the baselines
// (none, recorded), each agent's own policy on its own files (agent:
// claude-code on Claude Code's, codex on Codex's, …), and windows and
// summaries that act well under a model's context window (gemini-cli,
// codex and compress trigger near it, and send what none sends on most
// sessions).
var defaultPolicies = []string{"none", "recorded", "agent", "aidf", "aidf:max_messages=30,summarize_on_trim=true", "two-tier", "prune"}

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
		return report.WritePolicies(e.stdout, window.Specs())
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
