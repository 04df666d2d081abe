// Package twotier models the ralph loop's context management
// (vercel-labs/ralph-gpu's summarizeMessages): the two-tier policy and
// the loop's estimate, heuristic summary and AI-summary prompt.
package twotier

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/client"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// TwoTier names the two-tier system: summarizeMessages of the ralph loop
// (packages/ralph/src/loop.ts of vercel-labs/ralph-gpu at [ralphCommit]),
// which ralph-gpu's Decision 005 (Context Management and Message
// Summarization) describes; where they read otherwise the code wins
// (reading=code) and the document's reading is reading=seed. make conformance
// runs the code on the corpus; twotier_test.go holds the lines the corpus
// does not reach.
//
// The loop keeps every message (messages is never replaced) and derives
// what it sends from all of them before each call:
//
//   - Tokens are estimateTokens(JSON.stringify(message)) for each message
//     {role, content}, Math.ceil(length / 4) per message, plus the system
//     prompt's length / 4; content is the text of a message that is one
//     text block, else its content blocks (the Anthropic shape). A leading
//     system message is the loop's system prompt, sent apart and kept.
//   - At most 80,000 (CONTEXT_THRESHOLD_BASIC): everything is sent.
//   - Above, the last 8 messages are kept (keepRecent) and every older
//     one is replaced by one user message: above 120,000
//     (CONTEXT_THRESHOLD_AI) an AI summary, asked with createAISummary's
//     prompt (its system prompt; the tools, files and errors its patterns
//     find in every older message; the conversation cut to its first
//     50,000 characters), at most 2,000 tokens, wrapped as "## Earlier
//     Conversation Summary (AI-Generated)" … "*N messages summarized.
//     Recent context follows.*", the last one cached while the older
//     messages are the same; else the heuristic summary
//     createHeuristicSummary makes with no model call (the tools, files
//     and commands its patterns find). A failed AI summary falls back to
//     the heuristic one.
//   - When nothing is older than the last 8, each of them whose content
//     is over 5,000 characters is cut to its first 3,000 plus
//     "\n... [message truncated]".
//
// Since the summary is made anew from every older message at every call,
// a session once over the threshold is summarized at every call.
//
// reading=seed is ralph-gpu's Decision 005 (Context Management and
// Message Summarization) as ctxbench reads the document alone: the
// summary ("[Summary of the earlier conversation]\n" and
// [summarize.TwoTier]'s six sections, or ctxbench's extraction,
// [summarize.Heuristic]) replaces what it summarizes in the history, so
// the history falls below the threshold and is summarized again only when
// it has grown back; tokens are chars4's; nothing is cut.
// The seed summarizes only when more than 8 messages can be
// (min_summarizable=8); the code whenever one can (0).
const TwoTier = "two-tier"

// twoTierPolicy is the [TwoTier] policy.
type twoTierPolicy struct {
	policy.Base
	basic, ai, keep, minSummarizable int
	seed                             bool
	est                              estimate.Estimator // nil: loop.ts's own estimate
}

// ralphCommit is the commit of vercel-labs/ralph-gpu whose loop.ts the
// policy follows.
const ralphCommit = "4f47ced574fc9cbef34a176642b356e12bc0a6f5"

// Specs are this room's policies, which window registers.
var Specs = []*policy.Spec{
	{
		Name: TwoTier, Source: "the ralph loop's summarizeMessages (vercel-labs/ralph-gpu, packages/ralph/src/loop.ts); ralph-gpu's Decision 005 (Context Management and Message Summarization)",
		Models: "ralph-gpu@" + ralphCommit[:7], Held: policy.HeldConformance,
		Summary: "over 80k estimated tokens a heuristic summary, over 120k an AI summary (six sections, ≤2000 tokens, cached), keeping the last 8 messages",
		Params: []policy.Param{
			policy.IntParam("basic_threshold", 80000, 1, policy.NoBound, "CONTEXT_THRESHOLD_BASIC: heuristic summary above this many tokens"),
			policy.IntParam("ai_threshold", 120000, 1, policy.NoBound, "CONTEXT_THRESHOLD_AI: AI summary above this many tokens"),
			policy.IntParam("keep_last", 8, 0, policy.NoBound, "messages kept whole"),
			policy.IntParam("min_summarizable", 0, 0, policy.NoBound, "summarize only when more than this many messages can be (the seed: 8)"),
			policy.EnumParam("estimator", "source", append([]string{"source"}, estimate.Names()...),
				"how tokens are estimated: source is loop.ts's, JSON.stringify of each message / 4"),
			policy.EnumParam("reading", "code", []string{"code", "seed"}, "code recomputes what is sent from every message at each call; seed replaces the summarized messages in the history"),
		},
		Differs: []string{
			"replays the transcript's messages, tool calls and results included; the loop itself keeps only its prompts and the text of the model's replies (tool calls live within one generateText call)",
			"the AI summary is cached by the ids of the messages it covers; loop.ts keys its one cached summary by each message's role and first 100 characters",
		},
		Build: func(v policy.Values) policy.Policy {
			p := &twoTierPolicy{Base: policy.NewBase(TwoTier, v), basic: v.Int("basic_threshold"), ai: v.Int("ai_threshold"),
				keep: v.Int("keep_last"), minSummarizable: v.Int("min_summarizable"), seed: v.String("reading") == "seed"}
			switch name := v.String("estimator"); {
			case name != "source":
				p.est = estimate.MustNew(name, estimate.OverheadNone)
			case p.seed:
				p.est = policy.Chars4()
			}
			return p
		},
	},
}

const twoTierPrefix = "[Summary of the earlier conversation]\n"

// loopAITemplate is createAISummary's call: its system prompt and
// maxOutputTokens; the user part is loopAIPrompt's.
var loopAITemplate = &summarize.Template{Name: TwoTier, Source: "loop.ts createAISummary (vercel-labs/ralph-gpu)",
	System: loopAISystem, Prompt: "{{.Conversation}}", MaxTokens: 2000}

type twoTierState struct {
	// client is the loop's messages (reading=code), tokens their count.
	client client.History
	tokens int
	// headTokens is what the system prompt counts beyond its message's
	// count (its length, not its JSON, with loop.ts's estimate).
	headTokens int
	// diverged: a call sent other than the client's messages, so the
	// history given is no longer them.
	diverged bool
	// aiGen and aiEnd are the client (its gen) and the end of the older
	// messages the cached AI summary aiText summarized.
	aiGen, aiEnd int
	aiText       string
	// heuristic and aiPrompt are what the two summaries have read of the
	// older messages so far.
	heuristic loopExtraction
	aiPrompt  loopAIPrompt
	// seedCache is reading=seed's AI summaries, by the ids of the span
	// each summarized.
	seedCache map[string]string
}

func (p *twoTierPolicy) Apply(ctx context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	ts, _ := st.Data.(*twoTierState)
	if ts == nil {
		ts = &twoTierState{client: client.NewHistory()}
		st.Data = ts
	}
	if p.seed {
		return p.applySeed(ctx, env, st, ts, hist)
	}
	est := p.estimator()
	p.follow(env, ts, est, hist)
	client := ts.client.Items
	head := 0
	if len(client) > 0 && client[0].Msg.Role == transcript.RoleSystem && !client[0].Synthetic() {
		head = 1
	}
	total := ts.tokens + ts.headTokens
	step := policy.Step{History: hist}
	if total <= p.basic {
		if ts.diverged { // below the threshold again after a rollback
			step.History = slices.Clone(client)
			step.Evicted = policy.EvictedFrom(hist, client)
		}
		return step, nil
	}
	ts.diverged = true
	end := max(head, len(client)-p.keep)
	older := client[head:end]
	out := make([]policy.Item, 0, head+1+len(client)-end)
	out = append(out, client[:head]...)
	if len(older) == 0 {
		for _, it := range client[head:] {
			if c, ok := truncateLoopMessage(it); ok {
				out = append(out, c)
				step.Truncated = append(step.Truncated, it.ID)
				continue
			}
			out = append(out, it)
		}
		step.History = out
		step.Evicted = policy.EvictedFrom(hist, out)
		return step, nil
	}
	if len(older) <= p.minSummarizable {
		step.History = slices.Clone(client)
		step.Evicted = policy.EvictedFrom(hist, client)
		return step, nil
	}
	// The ids of client are kept beside it: a summary at every call
	// covers all but the newest, and listing them anew at each was most
	// of a long replay's allocations.
	covers := policy.IDs(ts.client.IDs[head:end:end])
	var text string
	if total > p.ai {
		if ts.aiText != "" && ts.aiGen == ts.client.Gen && ts.aiEnd == end {
			text = ts.aiText
			step.Summary = &policy.SummaryEvent{Covers: covers, Cached: true, Model: "two-tier cache"}
		} else {
			ts.aiPrompt.add(older)
			prompt := ts.aiPrompt.text()
			t, ev, err := policy.SummarizeRequest(ctx, env, covers, summarize.Request{Template: loopAITemplate, Prompt: prompt,
				Messages: []transcript.Message{{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: prompt}}}}})
			if err != nil {
				return policy.Step{}, err
			}
			step.Summary = ev
			if ev.Error == "" {
				text = "## Earlier Conversation Summary (AI-Generated)\n\n" + t + "\n\n---\n*" +
					strconv.Itoa(len(older)) + " messages summarized. Recent context follows.*"
				ts.aiGen, ts.aiEnd, ts.aiText = ts.client.Gen, end, text
			} else {
				policy.Warnf(&step, "AI summary failed, using the heuristic one: %s", ev.Error)
				step.Summary = nil
			}
		}
	}
	if text == "" {
		ts.heuristic.add(older)
		text = ts.heuristic.text()
		step.Summary = &policy.SummaryEvent{Covers: covers, Model: "heuristic"}
	}
	s := st.NewItem(transcript.RoleUser, text, true)
	step.Summary.ID = s.ID
	out = append(out, s)
	out = append(out, client[end:]...)
	step.History = out
	step.Evicted = policy.EvictedFrom(hist, out)
	return step, nil
}

func (p *twoTierPolicy) estimator() estimate.Estimator {
	if p.est != nil {
		return p.est
	}
	return loopTokens
}

// follow brings ts.client up to the loop's messages before this call
// and their count.
func (p *twoTierPolicy) follow(env *policy.Env, ts *twoTierState, est estimate.Estimator, hist []policy.Item) {
	added, rebuilt := ts.client.Follow(env, hist)
	if rebuilt {
		ts.tokens = 0
		ts.heuristic, ts.aiPrompt = loopExtraction{}, loopAIPrompt{}
	}
	if len(added) > 0 && len(added) == len(ts.client.Items) && added[0].Msg.Role == transcript.RoleSystem && p.est == nil {
		// The system prompt counts its length, not a message's JSON.
		ts.headTokens = loopTokens.Count(added[0].Msg.Text()) - policy.Count(env, est, added[0])
	}
	for _, it := range added {
		ts.tokens += policy.Count(env, est, it)
	}
}

// applySeed is reading=seed: the summary replaces what it summarizes in
// the history the next call is given.
func (p *twoTierPolicy) applySeed(ctx context.Context, env *policy.Env, st *policy.State, ts *twoTierState, hist []policy.Item) (policy.Step, error) {
	step := policy.Step{History: hist}
	total := st.HistoryTokens(env, p.est, hist)
	if total <= p.basic {
		return step, nil
	}
	head := 0
	if len(hist) > 0 && hist[0].Msg.Role == transcript.RoleSystem && !hist[0].Synthetic() {
		head = 1
	}
	end := max(head, len(hist)-p.keep)
	span := hist[head:end]
	if len(span) <= p.minSummarizable {
		return step, nil
	}
	var text string
	if total > p.ai {
		key := strings.Join(policy.ItemIDs(span), ",")
		if cached, ok := ts.seedCache[key]; ok {
			text = cached
			step.Summary = &policy.SummaryEvent{Covers: policy.ItemIDs(span), Cached: true, Model: "two-tier cache"}
		} else {
			t, ev, err := policy.SummarizeItems(ctx, env, span, "", summarize.TwoTier)
			if err != nil {
				return policy.Step{}, err
			}
			step.Summary = ev
			if ev.Error == "" {
				text = t
				if ts.seedCache == nil {
					ts.seedCache = map[string]string{}
				}
				ts.seedCache[key] = t
			} else {
				policy.Warnf(&step, "AI summary failed, using the heuristic one: %s", ev.Error)
				step.Summary = nil
			}
		}
	}
	if text == "" {
		res, _ := summarize.Heuristic{}.Summarize(ctx, summarize.Request{Messages: policy.Messages(span)})
		text = res.Text
		if step.Summary == nil {
			step.Summary = &policy.SummaryEvent{Covers: policy.ItemIDs(span), Model: "heuristic"}
		}
	}
	s := st.NewItem(transcript.RoleUser, twoTierPrefix+text, true)
	step.Summary.ID = s.ID
	step.Evicted = policy.ItemIDs(span)
	out := append([]policy.Item{}, hist[:head]...)
	out = append(out, s)
	step.History = append(out, hist[end:]...)
	return step, nil
}

func (p *twoTierPolicy) Guarantees() policy.Guarantees {
	return policy.Guarantees{SummaryRole: transcript.RoleUser, SummaryFirst: true, Compacts: true}
}
