package anthropic

import (
	"context"
	"strings"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/serveredit"
)

// AnthropicCompaction names the anthropic-compaction policy.
//
// Anthropic's server-side compaction (Messages API, beta
// compact-2026-01-12, edit compact_20260112; platform.claude.com/docs/en/
// build-with-claude/compaction, as of 2026-03): when a request's input
// tokens exceed the trigger (150,000 by default, 50,000 at least), the
// API summarizes the conversation in a sampling iteration of its own (the
// request's model; billed in usage.iterations, not in the top-level
// usage), returns the summary as a compaction block at the start of the
// response, and continues from it. The client appends the response; on
// later requests the API drops every message block before the newest
// compaction block.
//
// anthropic-compaction replays that: at the call whose request exceeds
// the trigger, the history is summarized whole and the call sends the
// summary alone, as the assistant's compaction block; later calls send it
// and what followed. With pause_after_compaction the response stops after
// the block (stop_reason "compaction") and the client sends it again with
// the newest keep messages of the request verbatim — the docs' example
// keeps the last two — extended back to the call of any tool result they
// hold. instructions replace the summarization prompt.
//
// The request's input tokens are measured as anthropic-clear-tool-uses
// measures them: recorded where the recording sent the same history,
// else fitted.
const AnthropicCompaction = "anthropic-compaction"

// anthropicCompaction is the [AnthropicCompaction] policy.
type anthropicCompaction struct {
	policy.Base
	trigger, keep int
	pause         bool
	template      *summarize.Template
}

// anthropicTriggerMin is the smallest trigger the API accepts.
const anthropicTriggerMin = 50_000

// compactionSpec is anthropic-compaction's spec, which Specs lists.
var compactionSpec = &policy.Spec{
	Name: AnthropicCompaction, Source: "Anthropic Messages API server-side compaction, compact_20260112 (platform.claude.com build-with-claude/compaction)",
	Models: "compact_20260112", Held: policy.HeldDocs,
	Summary: "the API's compaction: over the trigger, summarize the whole request into a compaction block and send it in place of everything before",
	Params: []policy.Param{
		policy.IntParam("trigger", 150_000, anthropicTriggerMin, policy.NoBound, "trigger: input tokens of the request; compaction when it exceeds them (the API's minimum is 50,000)"),
		policy.BoolParam("pause_after_compaction", false, "pause_after_compaction: the client sends the compaction block with its newest keep messages"),
		policy.IntParam("keep", 2, 0, policy.NoBound, "with pause_after_compaction: the newest messages of the request sent again verbatim after the block (the docs' example: 2)"),
		policy.StringParam("instructions", "", "instructions: the summarization prompt, in place of the default"),
	},
	Differs: []string{
		"the API's default summarization prompt is not published: the summarizer's generic prompt stands in for it",
		"the compaction iteration's input is the request's input tokens (or the summarizer's count, if more), priced uncached at the call's model unless the summarizer's own model is priced: whether the iteration reads the prompt cache is not documented",
		"the compaction block is sent as an assistant text message before the response that carried it, which the API sends as one message",
		"the request's input tokens are recorded or fitted (see go doc), not counted by Anthropic's tokenizer",
	},
	Build: func(v policy.Values) policy.Policy {
		p := &anthropicCompaction{Base: policy.NewBase(AnthropicCompaction, v), trigger: v.Int("trigger"),
			pause: v.Bool("pause_after_compaction"), keep: v.Int("keep")}
		if in := v.String("instructions"); in != "" {
			// The prompt is a text/template: the instructions are
			// text, whatever braces they hold.
			p.template = &summarize.Template{Name: "anthropic-compaction-instructions", Source: "the instructions parameter",
				Prompt:    strings.ReplaceAll(in, "{{", `{{"{{"}}`) + "\n\n{{.Conversation}}",
				MaxTokens: summarize.Generic.MaxTokens}
		}
		return p
	},
}

func (p *anthropicCompaction) Apply(ctx context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	tmpl := p.template
	if tmpl == nil {
		tmpl = summarize.Generic
	}
	step, s, err := serveredit.CompactRequest(ctx, env, st, hist, p.trigger, tmpl)
	if err != nil || s.ID == "" {
		return step, err
	}
	out := []policy.Item{s}
	if p.pause {
		out = append(out, hist[keptFrom(hist, p.keep):]...)
	}
	serveredit.FinishCompaction(env, st, &step, hist, out)
	return step, nil
}

// keptFrom returns where the newest keep items of hist start, moved back
// while they hold a tool result whose call is before them: a request
// cannot send a result without its call.
func keptFrom(hist []policy.Item, keep int) int {
	from := max(0, len(hist)-keep)
	if from == len(hist) {
		return from
	}
	for from > 0 {
		calls := map[string]bool{}
		orphan := false
		for _, it := range hist[from:] {
			for _, id := range policy.ToolUses(it) {
				calls[id] = true
			}
			for _, id := range policy.ToolResults(it) {
				if !calls[id] {
					orphan = true
				}
			}
		}
		if !orphan {
			break
		}
		from--
	}
	return from
}

// Guarantees: the summary is sent first, as the assistant's block, and
// no result goes without its call.
func (p *anthropicCompaction) Guarantees() policy.Guarantees {
	return policy.Guarantees{PairSafe: true, SummaryRole: transcript.RoleAssistant, SummaryFirst: true}
}
