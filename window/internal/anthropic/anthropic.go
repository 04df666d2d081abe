// Package anthropic models the edits Anthropic's Messages API applies to
// each request before the model sees it: context editing's
// clear_tool_uses (anthropic-clear-tool-uses) and clear_thinking
// (anthropic-clear-thinking), and server-side compaction
// (anthropic-compaction).
package anthropic

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ctxbench/ctxbench/window/internal/client"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/serveredit"
)

// AnthropicClearToolUses names the clear_tool_uses_20250919 edit of
// Anthropic's context editing (Messages API, beta
// context-management-2025-06-27; docs.claude.com/en/docs/build-with-claude/
// context-editing, as of 2026-02): edits the API applies to each request
// before the model sees it. The client keeps and sends its full history;
// the edits are made anew at every request, so what a request sends is
// a function of the client's history alone (the edits of earlier requests
// are not in it).
//
// When the request is at or over the trigger (input tokens, 100,000 by
// default; or a number of tool uses), the oldest tool results are replaced
// by a placeholder, all but the newest keep (3) tool uses, never those of
// the excluded tools; clear_tool_inputs clears the calls' inputs too (all,
// or the listed tools'). When that clears fewer than clear_at_least input
// tokens, nothing is cleared. Clearing changes the prompt where the oldest
// result it clears sits: as new tool uses push older ones out of the kept
// ones, each request clears one more, and the cache breaks there (the docs:
// clearing "invalidates cached prompt prefixes").
//
// The request's input tokens are the transcript's recorded prompt where
// the recording sent the same history (no compaction of its own before);
// elsewhere chars4 of the history on a line fitted to those calls (the
// system prompt and tools, and the tokenizer's ratio).
const AnthropicClearToolUses = "anthropic-clear-tool-uses"

// anthropicClearTools is the [AnthropicClearToolUses] policy.
type anthropicClearTools struct {
	policy.Base
	trigger, triggerUses, keep, clearAtLeast int
	exclude                                  map[string]bool
	inputs                                   string // "false", "true" or tool names
	inputTools                               map[string]bool
	placeholder                              string
}

// AnthropicClearThinking names the clear_thinking_20251015 edit of
// Anthropic's context editing (see [AnthropicClearToolUses]): the thinking
// blocks of all but the newest keep (1) assistant turns are removed;
// keep=all removes none. A turn is the assistant messages after a user
// message that is not a tool result.
const AnthropicClearThinking = "anthropic-clear-thinking"

// anthropicClearThinking is the [AnthropicClearThinking] policy.
type anthropicClearThinking struct {
	policy.Base
	keep int // -1: all
}

func (*anthropicClearTools) ServerSide()    {}
func (*anthropicClearThinking) ServerSide() {}

const anthropicPlaceholder = "[cleared]"

// Specs are this room's policies (anthropic-clear-tool-uses,
// anthropic-clear-thinking, anthropic-compaction), which window
// registers.
var Specs = []*policy.Spec{clearToolUsesSpec, clearThinkingSpec, compactionSpec}

// clearToolUsesSpec is anthropic-clear-tool-uses's spec, which Specs lists.
var clearToolUsesSpec = &policy.Spec{
	Name: AnthropicClearToolUses, Source: "Anthropic Messages API context editing, clear_tool_uses_20250919 (docs.claude.com build-with-claude/context-editing)",
	Models: "clear_tool_uses_20250919", Held: policy.HeldDocs,
	Summary: "the API's edit: at the trigger, replace all but the newest tool results with a placeholder, at every request",
	Params: []policy.Param{
		policy.IntParam("trigger", 100_000, 0, policy.NoBound, "trigger: input tokens of the request (0: use trigger_tool_uses)"),
		policy.IntParam("trigger_tool_uses", 0, 0, policy.NoBound, "trigger of type tool_uses: the number of tool uses, instead of input tokens (0: input tokens)"),
		policy.IntParam("keep", 3, 0, policy.NoBound, "keep: the newest tool uses kept"),
		policy.IntParam("clear_at_least", 0, 0, policy.NoBound, "clear_at_least: input tokens; clearing fewer, the edit clears nothing"),
		policy.StringParam("exclude_tools", "", "exclude_tools: tool names never cleared, separated by |"),
		policy.StringParam("clear_tool_inputs", "false", "clear_tool_inputs: true, false, or tool names separated by |"),
		policy.StringParam("placeholder", anthropicPlaceholder, "the text a cleared result is replaced by"),
	},
	Differs: []string{
		"the API does not document the placeholder text it sends: the policy sends [cleared] (placeholder=…), a few tokens either way",
		"a cleared call's input is sent as {}; the API's form of a cleared input is not documented",
		"the request's input tokens are the previous call's billed prompt plus chars4 of what was appended, or a line fitted on the earlier calls (see go doc), not counted by Anthropic's tokenizer",
	},
	Check: func(v policy.Values) error {
		if v.Int("trigger") == 0 && v.Int("trigger_tool_uses") == 0 {
			return fmt.Errorf("trigger=0 needs trigger_tool_uses")
		}
		return nil
	},
	Build: func(v policy.Values) policy.Policy {
		p := &anthropicClearTools{Base: policy.NewBase(AnthropicClearToolUses, v), trigger: v.Int("trigger"), triggerUses: v.Int("trigger_tool_uses"),
			keep: v.Int("keep"), clearAtLeast: v.Int("clear_at_least"), exclude: client.NameSet(v.String("exclude_tools")),
			inputs: v.String("clear_tool_inputs"), placeholder: v.String("placeholder")}
		if p.inputs != "true" && p.inputs != "false" {
			p.inputTools = client.NameSet(p.inputs)
		}
		if p.triggerUses > 0 {
			p.trigger = 0 // a trigger has one type
		}
		return p
	},
}

// clearThinkingSpec is anthropic-clear-thinking's spec, which Specs lists.
var clearThinkingSpec = &policy.Spec{
	Name: AnthropicClearThinking, Source: "Anthropic Messages API context editing, clear_thinking_20251015 (docs.claude.com build-with-claude/context-editing)",
	Models: "clear_thinking_20251015", Held: policy.HeldDocs,
	Summary: "the API's edit: remove the thinking of all but the newest assistant turns, at every request",
	Params: []policy.Param{
		policy.StringParam("keep", "1", "keep: the newest assistant turns whose thinking is sent, or all"),
	},
	Check: func(v policy.Values) error {
		if k := v.String("keep"); k != "all" {
			if n, err := strconv.Atoi(k); err != nil || n < 0 {
				return fmt.Errorf("keep=%s: want a number of turns (0 or more) or all", k)
			}
		}
		return nil
	},
	Build: func(v policy.Values) policy.Policy {
		keep := -1
		if k := v.String("keep"); k != "all" {
			keep, _ = strconv.Atoi(k)
		}
		return &anthropicClearThinking{Base: policy.NewBase(AnthropicClearThinking, v), keep: keep}
	},
}

func (p *anthropicClearTools) Apply(_ context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	ss := serveredit.Of(env, st)
	cs, _ := ss.Own.(*clearState)
	if cs == nil {
		cs = &clearState{}
		ss.Own = cs
	}
	cs.sync(env, p, ss, hist)
	client := hist
	if cs.restored > 0 {
		client = cs.client
	}
	step := policy.Step{History: hist}
	input := ss.Request.At(env, st, client, cs.whole)
	fires := p.triggerUses > 0 && len(cs.uses) >= p.triggerUses || p.trigger > 0 && input >= p.trigger
	if !fires || cs.edited == 0 {
		if cs.restored > 0 {
			step.History = cs.give(env, cs.client)
		}
		cs.remember(ss, false)
		return step, nil
	}
	cs.copies(env, ss)
	cleared := ss.Request.Scale(env, cs.diff)
	if cleared < p.clearAtLeast {
		policy.Warnf(&step, "clearing would clear %d input tokens, under clear_at_least %d: nothing cleared", cleared, p.clearAtLeast)
		if cs.restored > 0 {
			step.History = cs.give(env, cs.client)
		}
		cs.remember(ss, false)
		return step, nil
	}
	step.Truncated = cs.cut(env)
	step.History = cs.give(env, cs.out)
	if p.triggerUses > 0 && p.trigger == 0 {
		step.Fired = &policy.Firing{What: "clearing", Unit: "tool uses", Trigger: p.triggerUses, Before: len(cs.uses), After: len(cs.uses)}
	} else {
		step.Fired = &policy.Firing{What: "clearing", Unit: "tokens", Trigger: p.trigger, Before: input, After: input - cleared}
	}
	cs.remember(ss, true)
	return step, nil
}

// A clearUse is a tool use of the history: its id and tool, and the
// positions of its call and its result (-1: none).
type clearUse struct {
	id, name     string
	call, result int
}

// Guarantees: clearing keeps every call with its result.
func (p *anthropicClearTools) Guarantees() policy.Guarantees {
	return policy.Guarantees{PairSafe: true}
}

func (p *anthropicClearThinking) Apply(_ context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	ss := serveredit.Of(env, st)
	if p.keep < 0 || len(hist) == 0 {
		// Nothing is edited, so nothing was sent edited: the client's
		// history is hist.
		if len(ss.Made) == 0 {
			return policy.Step{History: hist}, nil
		}
		client := serveredit.RestoreCopies(env, ss.Made, hist)
		ss.Remember(hist, client)
		return policy.Step{History: client}, nil
	}
	ts, _ := ss.Own.(*thinkState)
	if ts == nil {
		ts = &thinkState{}
		ss.Own = ts
	}
	sent, n := ts.sent, len(ts.out)
	ts.sync(env, ss, hist)
	ts.edit(p.keep, ss)
	if env.ChainCut != nil {
		ts.uncut = env.ChainCut.Note(append(ts.uncut, ts.fresh...), len(ts.hist))
	}
	step := policy.Step{History: ts.give(env), Truncated: ts.cut(env)}
	ts.remember(ss)
	ts.sent, ts.sentLen = env.Given.CallOf(), -1
	if sent > 0 && sent == ts.sent-1 {
		ts.sentLen = n
	}
	return step, nil
}

// SentAnew: what the call sent is ts.out, which changed since the
// previous call's where fresh says (an item given, restored or edited
// anew); a state started afresh lists every position there.
func (p *anthropicClearThinking) SentAnew(st *policy.State, call int) ([]int, int, bool) {
	ss, _ := st.Data.(*serveredit.State)
	if ss == nil {
		return nil, 0, false
	}
	ts, _ := ss.Own.(*thinkState)
	if ts == nil || ts.sent != call || ts.sentLen < 0 {
		return nil, 0, false
	}
	return ts.fresh, ts.sentLen, true
}

// Guarantees: removing thinking keeps every message and pair.
func (p *anthropicClearThinking) Guarantees() policy.Guarantees {
	return policy.Guarantees{PairSafe: true}
}
