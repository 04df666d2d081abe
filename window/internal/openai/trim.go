// Package openai models OpenAI's context management: the Agents SDK's
// ToolOutputTrimmer (openai-trim) and the Responses API's server-side
// compaction (openai-compaction).
package openai

import (
	"context"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/client"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// OpenAITrim names the OpenAI Agents SDK's ToolOutputTrimmer
// (openai/openai-agents-python,
// src/agents/extensions/tool_output_trimmer.py, release 0.22.0), the
// call_model_input_filter an application passes in its RunConfig: before
// each model call it is given the run's whole input and returns it with the
// large outputs of older tool calls cut to a preview; what it returns is
// sent, never kept, so each call trims the originals anew.
//
// The input is the Responses API's items: a system message is a system
// item; an assistant message its text and a function_call item per
// tool_use block; a user message a function_call_output item per
// tool_result block, then a user item of its other blocks when it has
// any (or no block at all).
//
//   - _find_recent_boundary: walking back from the end, the recent_turns-th
//     user item is the boundary; with fewer user items nothing is old.
//   - Every function_call_output before the boundary (the transcript's
//     tool results up to the boundary's message, whose own tool results
//     come before its user item) whose output is longer than
//     max_output_chars characters (code points, as Python's len counts)
//     and whose tool (the name of the function_call of its call_id) is
//     one of tools (empty: every tool; a call's names are its qualified
//     and its bare one, the same for a tool with no namespace) becomes "[Trimmed: NAME output —
//     N chars → P char preview]\n" + its first preview_chars characters +
//     "...", NAME "unknown_tool" when no call names it, when that is
//     shorter than the output.
//
// The boundary only moves forward, so a result once trimmed stays
// trimmed: the policy sends what it sent at the previous call with the
// results that became old cut and the new items after it.
const OpenAITrim = "openai-trim"

// openAITrimPolicy is the [OpenAITrim] policy.
type openAITrimPolicy struct {
	policy.Base
	recentTurns, maxChars, previewChars int
	tools                               map[string]bool // nil: every tool
}

// openAITrimVersion and openAITrimCommit are the release of the OpenAI
// Agents SDK (openai-agents on PyPI; openai/openai-agents-python's tag)
// whose tool_output_trimmer.py the policy follows and make conformance
// runs, and the tag's commit.
const (
	openAITrimVersion = "0.22.0"
	openAITrimCommit  = "4df9ecfae1761ca6fea67cc5a20b383c1d492024"
)

// Specs are this room's policies (openai-trim, openai-compaction), which
// window registers.
var Specs = []*policy.Spec{
	{
		Name: OpenAITrim, Source: "the OpenAI Agents SDK's ToolOutputTrimmer (openai/openai-agents-python, src/agents/extensions/tool_output_trimmer.py)",
		Models: "openai-agents@" + openAITrimVersion, Held: policy.HeldConformance,
		Differs: []string{
			"a tool result is trimmed as a string output, its text: the SDK's structured outputs (lists of input_text, input_image and input_file parts) and tool_search outputs are not in the transcripts' tool results",
		},
		Summary: "before each call, cut the tool outputs older than the last recent_turns user messages and longer than max_output_chars to a preview",
		Params: []policy.Param{
			policy.IntParam("recent_turns", 2, 1, policy.NoBound, "user messages from the end whose items and everything after are never trimmed"),
			policy.IntParam("max_output_chars", 500, 1, policy.NoBound, "tool outputs longer than this many characters (code points) are trimmed"),
			policy.IntParam("preview_chars", 200, 0, policy.NoBound, "characters of the output kept as its preview"),
			policy.StringParam("tools", "", "the tools whose outputs may be trimmed, separated by | (empty: every tool; trimmable_tools)"),
		},
		Build: func(v policy.Values) policy.Policy {
			p := &openAITrimPolicy{Base: policy.NewBase(OpenAITrim, v), recentTurns: v.Int("recent_turns"), maxChars: v.Int("max_output_chars"), previewChars: v.Int("preview_chars")}
			if names := v.String("tools"); names != "" {
				p.tools = client.NameSet(names)
			}
			return p
		},
	},
	compactSpec,
}

type openAITrimState struct {
	client client.History
	// users are the client's items that hold a user item, in order;
	// names the tool of each call id.
	users []int
	names map[string]string
	// sent is what the previous call sent, item for item with the
	// client's; old how many of the client's items are before the
	// boundary (their tool results looked at).
	sent []policy.Item
	old  int
}

func (p *openAITrimPolicy) Apply(_ context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	s, _ := st.Data.(*openAITrimState)
	if s == nil {
		s = &openAITrimState{client: client.NewHistory(), names: map[string]string{}}
		st.Data = s
	}
	added, rebuilt := s.client.Follow(env, hist)
	if rebuilt {
		s.users, s.sent, s.old = nil, nil, 0
	}
	base := len(s.client.Items) - len(added)
	for k, it := range added {
		for _, b := range it.Msg.Blocks {
			if b.Type == transcript.BlockToolUse && b.ID != "" && b.Name != "" {
				s.names[b.ID] = b.Name
			}
		}
		if responsesUserItem(it.Msg) {
			s.users = append(s.users, base+k)
		}
	}
	s.sent = append(s.sent, added...)
	var step policy.Step
	if rebuilt {
		step.Evicted = policy.EvictedFrom(hist, s.sent)
	}
	// The boundary's message and those before it are old.
	old := 0
	if n := len(s.users); n >= p.recentTurns {
		old = s.users[n-p.recentTurns] + 1
	}
	cloned := false
	for i := s.old; i < old; i++ {
		out, ok := p.trim(s.client.Items[i], s.names)
		if !ok {
			continue
		}
		if !cloned {
			// The previous call's history is left as it was sent.
			s.sent, cloned = slices.Clone(s.sent), true
		}
		s.sent[i] = out
		step.Truncated = append(step.Truncated, out.ID)
	}
	s.old = max(s.old, old)
	step.History = s.sent
	return step, nil
}

// responsesUserItem reports whether a message's Responses items include
// a user item: a user message with a block other than a tool result, or
// none at all.
func responsesUserItem(m *transcript.Message) bool {
	if m.Role != transcript.RoleUser {
		return false
	}
	return len(m.Blocks) == 0 || slices.ContainsFunc(m.Blocks, func(b transcript.Block) bool { return b.Type != transcript.BlockToolResult })
}

// trim returns it with its long tool results cut to their preview, and
// whether any was.
func (p *openAITrimPolicy) trim(it policy.Item, names map[string]string) (policy.Item, bool) {
	var c *transcript.Message
	for j, b := range it.Msg.Blocks {
		if b.Type != transcript.BlockToolResult {
			continue
		}
		n := utf8.RuneCountInString(b.Text)
		name := names[b.ID]
		if n <= p.maxChars || p.tools != nil && !p.tools[name] {
			continue
		}
		if name == "" {
			name = "unknown_tool"
		}
		preview := b.Text
		if k := p.previewChars; k < n {
			end := 0
			for range k {
				_, size := utf8.DecodeRuneInString(b.Text[end:])
				end += size
			}
			preview = b.Text[:end]
		}
		summary := fmt.Sprintf("[Trimmed: %s output — %d chars → %d char preview]\n%s...", name, n, p.previewChars, preview)
		if utf8.RuneCountInString(summary) >= n {
			continue
		}
		if c == nil {
			m := *it.Msg
			m.Blocks = slices.Clone(m.Blocks)
			c = &m
		}
		c.Blocks[j].Text = summary
	}
	if c == nil {
		return it, false
	}
	return policy.Truncated(it, c, false), true
}

// Guarantees: nothing is removed, so every call keeps its result.
func (p *openAITrimPolicy) Guarantees() policy.Guarantees { return policy.Guarantees{PairSafe: true} }
