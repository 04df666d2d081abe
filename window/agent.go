package window

import (
	"context"
	"errors"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/claudecode"
	"github.com/ctxbench/ctxbench/window/internal/codex"
	"github.com/ctxbench/ctxbench/window/internal/gemini"
	"github.com/ctxbench/ctxbench/window/internal/opencode"
)

// agentPolicies are the policies of the agents whose files name them, by
// format.
var agentPolicies = map[transcript.Format]string{
	transcript.FormatClaudeCode: claudecode.ClaudeCode,
	transcript.FormatCodex:      codex.Codex,
	transcript.FormatGeminiCLI:  gemini.GeminiCLI,
	transcript.FormatOpencode:   opencode.Opencode,
}

// agentOf returns the name of the policy the agent that recorded
// files of format f applies: claude-code for Claude Code's, codex for
// Codex's, gemini-cli for Gemini CLI's, opencode for opencode's; for the
// formats of no such agent (chat logs, traces), recorded: what the agent
// sent.
func agentOf(f transcript.Format) string {
	if name, ok := agentPolicies[f]; ok {
		return name
	}
	return Recorded
}

func init() {
	register(&Spec{
		Name: Agent, Source: "the transcript's agent",
		Summary: "the agent's own policy on its own files: claude-code on Claude Code's, codex on Codex's, gemini-cli on Gemini CLI's, opencode on opencode's; recorded on the others",
		Build: func(v Values) Policy {
			p := &agentPolicy{base: base{Agent, v}, by: map[string]Policy{}}
			for _, name := range append([]string{Recorded}, claudecode.ClaudeCode, codex.Codex, gemini.GeminiCLI, opencode.Opencode) {
				q, err := Parse(name)
				if err != nil {
					panic("window: the agent policy's " + name + ": " + err.Error())
				}
				p.by[name] = q
			}
			return p
		},
	})
}

type agentPolicy struct {
	base
	by map[string]Policy
}

// Apply applies the policy of the agent that recorded env's transcript.
func (p *agentPolicy) Apply(ctx context.Context, env *Env, st *State, hist []Item) (Step, error) {
	if env == nil || env.Transcript == nil {
		return Step{}, errors.New("agent: no transcript to tell its agent from")
	}
	return p.by[agentOf(env.Transcript.Format)].Apply(ctx, env, st, hist)
}
