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

// Agent names the agent's own policy: at each call, the policy of the
// agent that recorded the transcript ([AgentPolicy]), so that one label
// replays each agent's rule on its own files only. On a Claude Code
// session it is claude-code, on a Codex rollout codex, on a Gemini CLI
// session gemini-cli and on an opencode session opencode, each with its
// defaults (a window left at 0 is the model's context window); on the
// formats no agent of these records (chat logs, traces, trajectories) it
// is recorded, what the agent sent. It has no parameters: to set one
// agent's, name that agent's policy. It promises nothing beyond the
// invariants every policy keeps.
const Agent = "agent"

// agentPolicies are the policies of the agents whose files name them, by
// format.
var agentPolicies = map[transcript.Format]string{
	transcript.FormatClaudeCode: claudecode.ClaudeCode,
	transcript.FormatCodex:      codex.Codex,
	transcript.FormatGeminiCLI:  gemini.GeminiCLI,
	transcript.FormatOpencode:   opencode.Opencode,
}

// AgentPolicy returns the name of the policy the agent that recorded
// files of format f applies: claude-code for Claude Code's, codex for
// Codex's, gemini-cli for Gemini CLI's, opencode for opencode's; for the
// formats of no such agent (chat logs, traces), recorded: what the agent
// sent.
func AgentPolicy(f transcript.Format) string {
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
	return p.by[AgentPolicy(env.Transcript.Format)].Apply(ctx, env, st, hist)
}

// ClaudeCodeNotModelled says what the claude-code policy leaves out of
// the rules of the Claude Code version given, when that version is newer
// than the versions it models ("" otherwise).
func ClaudeCodeNotModelled(version string) string { return claudecode.ClaudeCodeNotModelled(version) }
