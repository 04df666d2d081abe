package openai

import (
	"context"
	"slices"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/serveredit"
)

// OpenAICompaction names the openai-compaction policy.
//
// OpenAI's server-side compaction (Responses API, context_management:
// [{type: "compaction", compact_threshold}]; developers.openai.com/api/
// docs/guides/compaction, as of 2026-11): "when the rendered token count
// crosses the configured threshold, the server runs server-side
// compaction", the response carries the encrypted compaction item and
// continues from it, and a client that chains its input arrays may drop
// every item before the newest compaction item, which "carries the
// necessary context to continue the conversation". The window a
// compaction leaves is what the standalone /responses/compact returns
// (its reference example; openai/openai-agents-js #760: "all the items
// except user messages ... will be compacted into a single encrypted
// content"): the conversation's user messages, then the compaction item.
//
// openai-compaction replays that: at the call whose request crosses
// compact_threshold, it sends the user messages of the history (their
// text, without the tool outputs a transcript's user message carries)
// and the compaction item, whose content the summarizer stands for;
// later calls send that window and what followed, until the next
// compaction folds it in turn.
//
// The request's rendered tokens are measured as anthropic-compaction
// measures them: recorded where the recording sent the same history,
// else fitted.
const OpenAICompaction = "openai-compaction"

// openAICompaction is the [OpenAICompaction] policy.
type openAICompaction struct {
	policy.Base
	threshold int
	keepUsers bool
}

// compactSpec is openai-compaction's spec, which Specs lists.
var compactSpec = &policy.Spec{
	Name: OpenAICompaction, Source: "OpenAI Responses API server-side compaction, context_management compaction (developers.openai.com/api/docs/guides/compaction)",
	Models: "context_management compaction", Held: policy.HeldDocs,
	Summary: "the API's compaction: when the request crosses compact_threshold, send its user messages and one compaction item in place of everything before",
	Params: []policy.Param{
		policy.IntParam("compact_threshold", 200_000, 1, policy.NoBound, "compact_threshold: rendered tokens of the request at which the server compacts"),
		policy.BoolParam("keep_user_messages", true, "the compacted window keeps the user messages before the compaction item, as /responses/compact returns it"),
	},
	Differs: []string{
		"compact_threshold has no documented default: 200,000 is the examples' (OpenRouter's documentation of the same parameter); the server compacts when the request's tokens exceed it",
		"the compaction item is encrypted and its prompt unpublished: the summarizer's generic summary stands for its content, and the compaction pass is billed as the request's input tokens in and the summary out",
		"the request's rendered tokens are recorded or fitted (see go doc), not counted by OpenAI's tokenizer",
	},
	Build: func(v policy.Values) policy.Policy {
		return &openAICompaction{Base: policy.NewBase(OpenAICompaction, v), threshold: v.Int("compact_threshold"), keepUsers: v.Bool("keep_user_messages")}
	},
}

func (p *openAICompaction) Apply(ctx context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	step, c, err := serveredit.CompactRequest(ctx, env, st, hist, p.threshold, summarize.Generic)
	if err != nil || c.ID == "" {
		return step, err
	}
	var out []policy.Item
	if p.keepUsers {
		for _, it := range hist {
			if u, cut, ok := userPart(it); ok {
				out = append(out, u)
				if cut {
					step.Truncated = append(step.Truncated, u.ID)
				}
			}
		}
	}
	serveredit.FinishCompaction(env, st, &step, hist, append(out, c))
	return step, nil
}

// userPart returns what of it is a Responses user message: a user
// message's blocks other than its tool results (cut says some were
// left out), and ok false when it has none or is no user message. A
// compaction's summary, sent as the assistant's, is not one.
func userPart(it policy.Item) (u policy.Item, cut, ok bool) {
	m := it.Msg
	if it.Summary || !responsesUserItem(m) {
		return policy.Item{}, false, false
	}
	if !slices.ContainsFunc(m.Blocks, func(b transcript.Block) bool { return b.Type == transcript.BlockToolResult }) {
		return it, false, true
	}
	c := *m
	c.Blocks = slices.DeleteFunc(slices.Clone(m.Blocks), func(b transcript.Block) bool { return b.Type == transcript.BlockToolResult })
	return policy.Truncated(it, &c, false), true, true
}

// Guarantees: no tool output is kept without its call (none is kept).
func (p *openAICompaction) Guarantees() policy.Guarantees {
	return policy.Guarantees{PairSafe: true, SummaryRole: transcript.RoleAssistant}
}
