// Package langchain models LangChain's trimMessages (langchain-trim)
// and its agent middleware for summarization and clearing tool uses
// (langchain-summarization, langchain-clear-tool-uses), on the LangChain
// view of a history, with the Python repr its Python peer counts
// (pyrepr.go).
package langchain

import (
	"context"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/approx"
	"github.com/ctxbench/ctxbench/internal/swar"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// LangChainTrim names the langchain-trim policy.
//
// LangChain's trimMessages (@langchain/core 1.4.0
// dist/messages/transformers.js, the port of
// libs/core/langchain_core/messages/utils.py trim_messages), strategy
// "last", with Python's count_tokens_approximately as the token counter.
//
// LangChain trims LangChain messages, and a transcript's message can be
// several of them: the policy trims the view an application holding the
// conversation would have (scripts/conformance/langchain.mjs builds the
// same one for the real code):
//
//   - a system message is a SystemMessage of its texts joined by "\n";
//   - an assistant message is an AIMessage of its texts joined by "\n",
//     with its tool_use blocks as tool_calls; thinking is not content;
//   - a user message is one ToolMessage per tool_result block, and one
//     HumanMessage per run of other blocks.
//
// It keeps the newest LangChain messages whose count fits max_tokens, so
// it can keep 2 of the 3 tool results a message holds: the message is then
// sent with those blocks only. include_system keeps a leading system
// message and counts it against the budget; start_on=human drops kept
// messages from the oldest until a HumanMessage; allow_partial keeps the
// newest lines (LangChain's default text splitter) of the newest message
// that does not fit whole, whatever its type.
//
// Tokens are count_tokens_approximately: per message ceil(chars / 4) + 3,
// chars counting code points of the content, the OpenAI role, the name,
// a ToolMessage's tool_call_id and an AIMessage's repr(tool_calls), in
// Python's repr. Where LangChain JS and Python part, the policy follows
// Python: a system message over the budget is kept alone (JS returns
// [undefined]), and start_on never drops it (JS drops it with the rest
// when no human message is kept). The defaults are LangChain's own
// (include_system false, start_on unset), so a leading orphaned tool
// result (langchain-ai/langchain #33245) shows.
const LangChainTrim = "langchain-trim"

// langchainPolicy is the [LangChainTrim] policy.
type langchainPolicy struct {
	policy.Base
	maxTokens              int
	includeSystem, partial bool
	startOn                string
}

// trimSpecs are trimMessages's policy.
var trimSpecs = []*policy.Spec{
	{
		Name: LangChainTrim, Source: "langchain-ai/langchainjs libs/langchain-core/src/messages/transformers.ts (trimMessages); langchain_core/messages/utils.py (count_tokens_approximately)",
		Models: "@langchain/core@1.4.0", Held: policy.HeldConformance,
		Summary: "keep the newest messages within a token budget (strategy last), optionally the system message, starting on a human message",
		Params: []policy.Param{
			policy.IntParam("max_tokens", 32_000, 1, policy.NoBound, "the token budget"),
			policy.BoolParam("include_system", false, "keep the leading system message"),
			policy.EnumParam("start_on", "", []string{"", "human"}, "drop kept messages until one of this type (empty: no rule)"),
			policy.BoolParam("allow_partial", false, "keep the newest lines of the newest message that does not fit"),
		},
		Differs: []string{
			"counts with Python's count_tokens_approximately; LangChain JS has no counter of its own in @langchain/core (langchain's countTokensApproximately counts differently)",
			"a system message over the budget, or left without a human message by start_on, is kept as Python keeps it; LangChain JS returns [undefined]",
		},
		Build: func(v policy.Values) policy.Policy {
			return &langchainPolicy{Base: policy.NewBase(LangChainTrim, v), maxTokens: v.Int("max_tokens"), includeSystem: v.Bool("include_system"),
				partial: v.Bool("allow_partial"), startOn: v.String("start_on")}
		},
	},
}

// An lcUnit is one LangChain message of a transcript message's view.
type lcUnit struct {
	kind byte // 's' system, 'a' AI, 'h' human, 't' tool
	// blocks are the indices of the message's blocks the unit holds.
	blocks []int
	// content is the unit's string content; extra the characters
	// count_tokens_approximately adds to it (role, name, tool_call_id,
	// repr(tool_calls)).
	content string
	extra   int
	tokens  int
}

// lcTokens is count_tokens_approximately of a message whose content has n
// code points and extra other characters.
func lcTokens(n, extra int) int { return approx.Tokens(n+extra) + 3 }

// lcView returns the LangChain messages of m, in order.
func lcView(m *transcript.Message) []lcUnit {
	name := swar.RuneCount(m.Name)
	texts := func(idx []int) string {
		var parts []string
		for _, j := range idx {
			if m.Blocks[j].Type == transcript.BlockText {
				parts = append(parts, m.Blocks[j].Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	unit := func(kind byte, idx []int, content string, extra int) lcUnit {
		return lcUnit{kind: kind, blocks: idx, content: content, extra: extra,
			tokens: lcTokens(swar.RuneCount(content), extra)}
	}
	all := make([]int, len(m.Blocks))
	for j := range all {
		all[j] = j
	}
	switch m.Role {
	case transcript.RoleSystem:
		return []lcUnit{unit('s', all, texts(all), len("system")+name)}
	case transcript.RoleAssistant:
		extra := len("assistant") + name
		if calls := toolCallsRepr(m); calls != "" {
			extra += swar.RuneCount(calls)
		}
		return []lcUnit{unit('a', all, texts(all), extra)}
	}
	var out []lcUnit
	var run []int
	flush := func() {
		if len(run) > 0 {
			out = append(out, unit('h', run, texts(run), len("user")+name))
			run = nil
		}
	}
	for j, b := range m.Blocks {
		if b.Type != transcript.BlockToolResult {
			run = append(run, j)
			continue
		}
		flush()
		out = append(out, lcToolUnit(m, j))
	}
	flush()
	return out
}

// lcToolUnit is the tool message that block j of m, a tool result, is.
func lcToolUnit(m *transcript.Message, j int) lcUnit {
	b := &m.Blocks[j]
	extra := len("tool") + swar.RuneCount(b.ID)
	return lcUnit{kind: 't', blocks: []int{j}, content: b.Text, extra: extra, tokens: lcTokens(swar.RuneCount(b.Text), extra)}
}

// toolCallsRepr is Python's repr of an AIMessage's tool_calls, "" when it
// has none.
func toolCallsRepr(m *transcript.Message) string {
	var b strings.Builder
	n := 0
	for _, bl := range m.Blocks {
		if bl.Type != transcript.BlockToolUse {
			continue
		}
		if n == 0 {
			b.WriteByte('[')
		} else {
			b.WriteString(", ")
		}
		n++
		b.WriteString("{'name': ")
		b.WriteString(pyReprString(bl.Name))
		b.WriteString(", 'args': ")
		if len(bl.Input) == 0 {
			b.WriteString("{}")
		} else {
			b.WriteString(pyReprJSON(bl.Input))
		}
		b.WriteString(", 'id': ")
		b.WriteString(pyReprString(bl.ID))
		b.WriteString(", 'type': 'tool_call'}")
	}
	if n == 0 {
		return ""
	}
	b.WriteByte(']')
	return b.String()
}

// langchainState caches each message's view.
type langchainState struct {
	views map[*transcript.Message][]lcUnit
}

func (ls *langchainState) view(m *transcript.Message) []lcUnit {
	v, ok := ls.views[m]
	if !ok {
		v = lcView(m)
		ls.views[m] = v
	}
	return v
}

// lcKept is what trimming keeps: the system message or not, and from the
// rest of the history, item from (its units from unit on; unit 0: whole)
// to the end, the unit at (from, unit) cut to cut when cut is not "".
type lcKept struct {
	system     bool
	from, unit int
	cut        string
	isCut      bool
}

func (p *langchainPolicy) Apply(_ context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	step := policy.Step{History: hist}
	ls, _ := st.Data.(*langchainState)
	if ls == nil {
		ls = &langchainState{views: map[*transcript.Message][]lcUnit{}}
		st.Data = ls
	}
	// Trim from the originals, so a message cut at one call can be whole
	// at the next.
	orig := make([]policy.Item, len(hist))
	for i, it := range hist {
		orig[i] = original(env, it)
	}
	k := p.trim(ls, orig)
	out := make([]policy.Item, 0, len(orig)-k.from+1)
	rest := orig
	if k.system {
		out = append(out, orig[0])
		rest = orig[1:]
	}
	for i := k.from; i < len(rest); i++ {
		it := rest[i]
		if i > k.from || (k.unit == 0 && !k.isCut) {
			out = append(out, it)
			continue
		}
		c := lcSlice(it.Msg, ls.view(it.Msg)[k.unit:], k.isCut, k.cut)
		out = append(out, policy.Item{ID: it.ID, Msg: c, Truncated: true})
		step.Truncated = append(step.Truncated, it.ID)
	}
	step.Evicted = policy.EvictedFrom(hist, out)
	step.History = out
	return step, nil
}

// trim is trimMessages on the view of hist: the newest units that fit the
// budget, the newest lines of the next one with allow_partial, then
// start_on.
func (p *langchainPolicy) trim(ls *langchainState, hist []policy.Item) lcKept {
	var k lcKept
	rest := hist
	budget := p.maxTokens
	if p.includeSystem && len(hist) > 0 && hist[0].Msg.Role == transcript.RoleSystem {
		k.system, rest = true, hist[1:]
		for _, u := range ls.view(hist[0].Msg) {
			budget -= u.tokens
		}
		budget = max(0, budget)
	}
	// Walk the units back from the newest while they fit.
	k.from, k.unit = len(rest), 0
	stopped := false
	for i := len(rest) - 1; i >= 0 && !stopped; i-- {
		v := ls.view(rest[i].Msg)
		for j := len(v) - 1; j >= 0; j-- {
			if v[j].tokens > budget {
				stopped = true
				if p.partial {
					if cut, ok := lcPartial(v[j], budget); ok {
						k.from, k.unit, k.cut, k.isCut = i, j, cut, true
					}
				}
				break
			}
			budget -= v[j].tokens
			k.from, k.unit = i, j
		}
	}
	if p.startOn == "human" {
		k = p.startOnHuman(ls, rest, k)
	}
	return k
}

// startOnHuman drops kept units from the oldest until a HumanMessage.
func (p *langchainPolicy) startOnHuman(ls *langchainState, rest []policy.Item, k lcKept) lcKept {
	for i, j := k.from, k.unit; i < len(rest); i, j = i+1, 0 {
		v := ls.view(rest[i].Msg)
		for ; j < len(v); j++ {
			if v[j].kind == 'h' {
				if i != k.from || j != k.unit {
					k.isCut, k.cut = false, ""
				}
				k.from, k.unit = i, j
				return k
			}
		}
	}
	k.from, k.unit, k.isCut, k.cut = len(rest), 0, false, ""
	return k
}

// lcPartial is the text splitter's cut of u to the budget: its newest
// lines ("\n" kept with each), at least one line dropped, at least one
// kept; ok is false when no cut fits.
func lcPartial(u lcUnit, budget int) (string, bool) {
	if u.content == "" {
		return "", false
	}
	// The splits, newest first, and their code points.
	lines := strings.SplitAfter(u.content, "\n")
	if len(lines) < 2 {
		return "", false
	}
	n := 0
	best := -1
	for i := len(lines) - 1; i >= 1; i-- {
		n += swar.RuneCount(lines[i])
		if lcTokens(n, u.extra) > budget {
			break
		}
		best = i
	}
	if best < 0 {
		return "", false
	}
	return strings.Join(lines[best:], ""), true
}

// lcSlice returns m holding only the units vs (a suffix of its view), the
// first cut to cut when isCut.
func lcSlice(m *transcript.Message, vs []lcUnit, isCut bool, cut string) *transcript.Message {
	c := &transcript.Message{Role: m.Role, Name: m.Name, Pos: m.Pos, Time: m.Time, Model: m.Model}
	for k, u := range vs {
		if k > 0 || !isCut {
			for _, j := range u.blocks {
				c.Blocks = append(c.Blocks, m.Blocks[j])
			}
			continue
		}
		// The cut unit: its text as LangChain sends it, and for an AI
		// message its tool calls.
		switch u.kind {
		case 't':
			b := m.Blocks[u.blocks[0]]
			b.Text, b.Raw = cut, nil
			c.Blocks = append(c.Blocks, b)
		default:
			c.Blocks = append(c.Blocks, transcript.Block{Type: transcript.BlockText, Text: cut})
			for _, j := range u.blocks {
				if m.Blocks[j].Type == transcript.BlockToolUse {
					c.Blocks = append(c.Blocks, m.Blocks[j])
				}
			}
		}
	}
	return c
}

// original returns the untruncated item for an original message.
func original(env *policy.Env, it policy.Item) policy.Item {
	if i := it.Index(); i >= 0 && env != nil && env.Transcript != nil && i < len(env.Transcript.Messages) {
		if m := &env.Transcript.Messages[i]; it.Msg != m || it.Truncated || it.Summary {
			return policy.Original(env.Transcript, i)
		}
	}
	return it
}

// Specs are this room's policies, which window registers.
var Specs = append(slices.Clip(trimSpecs), middlewareSpecs...)
