package window

import (
	"context"
	"math"
	"strings"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/transcript"
)

// LangChain's trim_messages (langchain 911f4d4e
// libs/core/langchain_core/messages/utils.py), strategy "last": keep the
// newest messages whose count fits max_tokens; include_system keeps the
// first message when it is a system message (its tokens count against the
// budget); start_on drops kept messages from the oldest until one of that
// type (human: a user message that is not a tool result); allow_partial
// keeps the newest lines of the first message that does not fit whole.
// Tokens are count_tokens_approximately: per message, ceil(characters / 4)
// of its content, tool calls, tool_call_id, role and name, plus 3. The
// defaults are LangChain's own (include_system false, start_on unset), so
// a leading orphaned tool result (langchain-ai/langchain #33245) shows.
type langchainPolicy struct {
	base
	maxTokens              int
	includeSystem, partial bool
	startOn                string
}

func init() {
	register(&Spec{
		Name: "langchain-trim", Source: "langchain-ai/langchain 911f4d4e libs/core/langchain_core/messages/utils.py (trim_messages)",
		Summary: "keep the newest messages within a token budget (strategy last), optionally the system message, starting on a human message",
		Params: []Param{
			intParam("max_tokens", 32_000, 1, none, "the token budget"),
			boolParam("include_system", false, "keep the leading system message"),
			enumParam("start_on", "", []string{"", "human"}, "drop kept messages until one of this type (empty: no rule)"),
			boolParam("allow_partial", false, "keep the newest lines of the first message that does not fit"),
		},
		build: func(v Values) Policy {
			return &langchainPolicy{base: base{"langchain-trim", v}, maxTokens: v.Int("max_tokens"), includeSystem: v.Bool("include_system"),
				partial: v.Bool("allow_partial"), startOn: v.String("start_on")}
		},
	})
}

// langchainApprox is count_tokens_approximately as an estimator, so that
// the replay's count cache holds it: trimming measures the newest messages
// at every call, and measuring meant walking their text in UTF-16.
type approxEstimator struct{}

var langchainApprox estimate.Estimator = approxEstimator{}

func (approxEstimator) Name() string { return "langchain-approx" }
func (approxEstimator) Exact() bool  { return false }
func (approxEstimator) Count(text string) int {
	return int(math.Ceil(float64(transcript.UTF16Len(text)) / 4))
}
func (approxEstimator) CountMessage(m *transcript.Message) int { return approxTokens(m) }

// approxTokens is count_tokens_approximately for one message.
func approxTokens(m *transcript.Message) int {
	chars := len(m.Role) + len([]rune(m.Name))
	for _, b := range m.Blocks {
		switch b.Type {
		case transcript.BlockText, transcript.BlockThinking:
			chars += transcript.UTF16Len(b.Text)
		case transcript.BlockToolUse:
			chars += transcript.UTF16Len(b.Name) + transcript.UTF16Len(string(b.Input)) + len(b.ID)
		case transcript.BlockToolResult:
			chars += transcript.UTF16Len(b.Text) + len(b.ID)
		default:
			chars += transcript.UTF16Len(string(b.Raw))
		}
	}
	return int(math.Ceil(float64(chars)/4)) + 3
}

func (p *langchainPolicy) Apply(_ context.Context, env *Env, _ *State, hist []Item) (Step, error) {
	step := Step{History: hist}
	// Trim from the originals, so a partial message can grow back to what
	// fits.
	var sys []Item
	rest := hist
	budget := p.maxTokens
	if p.includeSystem && len(hist) > 0 && hist[0].Msg.Role == transcript.RoleSystem {
		sys, rest = hist[:1], hist[1:]
		budget -= count(env, langchainApprox, hist[0])
	}
	start := len(rest)
	for start > 0 {
		n := count(env, langchainApprox, original(env, rest[start-1]))
		if n > budget {
			break
		}
		budget -= n
		start--
	}
	out := make([]Item, 0, len(sys)+1+len(rest)-start)
	out = append(out, sys...)
	if p.partial && start > 0 && budget > 0 {
		if it, ok := partialLines(original(env, rest[start-1]), budget); ok {
			out = append(out, it)
			step.Truncated = append(step.Truncated, it.ID)
		}
	}
	for _, it := range rest[start:] {
		out = append(out, original(env, it))
	}
	if p.startOn == "human" {
		kept := out[len(sys):]
		drop := 0
		for drop < len(kept) && !(kept[drop].Msg.Role == transcript.RoleUser && !has(kept[drop], transcript.BlockToolResult)) {
			drop++
		}
		out = append(out[:len(sys)], kept[drop:]...)
	}
	step.Evicted = evictedFrom(hist, out)
	step.History = out
	return step, nil
}

// original returns the untruncated item for an original message.
func original(env *Env, it Item) Item {
	if i := it.Index(); i >= 0 && env != nil && env.Transcript != nil && i < len(env.Transcript.Messages) {
		if m := &env.Transcript.Messages[i]; it.Msg != m || it.Truncated || it.Summary {
			return Original(env.Transcript, i)
		}
	}
	return it
}

// partialLines keeps the newest lines of a single-text message that fit
// the budget.
func partialLines(it Item, budget int) (Item, bool) {
	if len(it.Msg.Blocks) != 1 || it.Msg.Blocks[0].Type != transcript.BlockText {
		return Item{}, false
	}
	lines := strings.Split(it.Msg.Blocks[0].Text, "\n")
	for k := 1; k < len(lines); k++ {
		c := &transcript.Message{Role: it.Msg.Role, Name: it.Msg.Name, Pos: it.Msg.Pos,
			Blocks: []transcript.Block{{Type: transcript.BlockText, Text: strings.Join(lines[k:], "\n")}}}
		if approxTokens(c) <= budget {
			return Item{ID: it.ID, Msg: c, Truncated: true}, true
		}
	}
	return Item{}, false
}
