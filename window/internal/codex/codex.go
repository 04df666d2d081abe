// Package codex models Codex's auto-compaction (openai/codex
// codex-rs/core/src/compact.rs): the codex policy.
package codex

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/approx"
	"github.com/ctxbench/ctxbench/internal/codexcut"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// bytes4 is Codex's APPROX_BYTES_PER_TOKEN estimate: UTF-8 bytes / 4,
// rounded up, of a message's text (or its content JSON when it is not a
// single text).
// It is an estimator so that the engine's counts (Env.Count) cache it:
// each message's content JSON is made once, not at every step.
type bytes4Estimator struct{}

var codexBytes4 estimate.Estimator = bytes4Estimator{}

func (bytes4Estimator) Name() string          { return "codex-bytes4" }
func (bytes4Estimator) Exact() bool           { return false }
func (bytes4Estimator) Count(text string) int { return approx.Tokens(len(text)) }
func (bytes4Estimator) CountMessage(m *transcript.Message) int {
	if len(m.Blocks) == 1 && m.Blocks[0].Type == transcript.BlockText {
		return approx.Tokens(len(m.Blocks[0].Text))
	}
	size, _ := transcript.ContentJSONSize(m.Blocks)
	return approx.Tokens(size)
}

// Codex names the codex policy.
//
// Codex's auto-compaction (openai/codex e06dd0e5 codex-rs/core/src/
// compact.rs, event_mapping.rs, truncate.rs,
// templates/compact/summary_prefix.md). codex_test.go holds the table
// tests, each citing the lines it models.
//
// Trigger: the tokens in use reach auto_compact_ratio (0.9) of the context
// window, counted as Codex approximates them, UTF-8 bytes / 4.
//
// The replacement history (build_compacted_history): the real user
// messages — user messages that are neither contextual
// (is_contextual_user_message: text starting <environment_context>,
// <user_instructions>, # AGENTS.md instructions, <skill>,
// <user_shell_command>) nor a previous summary — chosen newest first
// within user_message_tokens (20,000), the first that does not fit cut by
// truncate_text to the tokens left, head and tail around a "…N tokens
// truncated…" marker; in their order; then the summary as a user message,
// SUMMARY_PREFIX, a newline, the summary. Assistant messages, reasoning,
// tool calls and outputs are dropped.
//
// Where the initial context goes (InitialContextInjection): a compaction
// before a turn (the call's new messages hold a real user message)
// replaces the history without it, and the turn that follows re-injects
// it — sent: the replacement, the initial context, the turn. A compaction
// in the middle of a turn puts it just before the last real user message
// (before the summary when none is left) and the summary stays last —
// sent: the replacement. The initial context is the transcript's leading
// system messages and contextual user messages, sent again as new items
// (Codex builds it anew). The prompt is [summarize.Generic], not Codex's.
const Codex = "codex"

// codexPolicy is the [Codex] policy.
type codexPolicy struct {
	policy.Base
	window, userTokens int
	ratio              float64
}

// Specs are this room's policies, which window registers.
var Specs = []*policy.Spec{
	{
		Name: Codex, Source: "openai/codex e06dd0e5 codex-rs/core/src/compact.rs",
		Models: "codex@e06dd0e5", Held: policy.HeldSource,
		Summary: "at 90% of the window, keep the newest real user messages (≤20k tokens, the last cut head-and-tail) and the summary as a user message; the initial context re-injected after a pre-turn compaction, before the last user message mid-turn",
		Params: []policy.Param{
			policy.IntParam("context_window", 0, 0, policy.NoBound, "the model's context window; 0: the transcript model's, else 272,000 (gpt-5's)"),
			policy.FloatParam("auto_compact_ratio", 0.9, 0, 1, true, "compact at this share of the window"),
			policy.IntParam("user_message_tokens", 20_000, 0, policy.NoBound, "COMPACT_USER_MESSAGE_MAX_TOKENS: budget for the real user messages kept"),
		},
		Differs: []string{
			"Codex is Rust and cannot be run from npm: the policy is held to table tests citing the source lines it models (window/internal/codex/codex_test.go)",
		},
		Build: func(v policy.Values) policy.Policy {
			return &codexPolicy{Base: policy.NewBase(Codex, v), window: v.Int("context_window"), ratio: v.Float("auto_compact_ratio"),
				userTokens: v.Int("user_message_tokens")}
		},
	},
}

// SummaryPrefix is templates/compact/summary_prefix.md (no final
// newline; its two spaces before "assist" are the file's).
const SummaryPrefix = "Another language model started to solve this problem and produced a summary of its thinking process. " +
	"You also have access to the state of the tools that were used by that language model. Use this to build on the work " +
	"that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use " +
	"the information in this summary to  assist with your own analysis:"

// codexContextual are the prefixes of the texts is_contextual_user_message
// recognizes (trimmed at the start, ASCII case ignored).
var codexContextual = []string{"<environment_context>", "<user_instructions>", "# agents.md instructions", "<skill>", "<user_shell_command>"}

// isInitialContext reports whether it is part of the initial context Codex
// builds: a system (developer) message, or a contextual user message.
func isInitialContext(it policy.Item) bool {
	if it.Msg.Role == transcript.RoleSystem {
		return true
	}
	return it.Msg.Role == transcript.RoleUser && !it.Summary && isContextualUser(it.Msg)
}

func isContextualUser(m *transcript.Message) bool {
	for _, b := range m.Blocks {
		if b.Type != transcript.BlockText {
			continue
		}
		t := strings.ToLower(strings.TrimLeft(b.Text, " \t\n\r"))
		for _, p := range codexContextual {
			if strings.HasPrefix(t, p) {
				return true
			}
		}
	}
	return false
}

// isRealUser reports whether it is a user message collect_user_messages
// keeps: a user text that is neither contextual nor a summary.
func isRealUser(it policy.Item) bool {
	m := it.Msg
	return m.Role == transcript.RoleUser && !it.Summary && !policy.Has(it, transcript.BlockToolResult) &&
		strings.TrimSpace(m.Text()) != "" && !isContextualUser(m) && !strings.HasPrefix(m.Text(), SummaryPrefix+"\n")
}

func (p *codexPolicy) Apply(ctx context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	step := policy.Step{History: hist}
	total := st.HistoryTokens(env, codexBytes4, hist)
	trigger := p.ratio * float64(env.Window(p.window, 272_000))
	if float64(total) < trigger {
		return step, nil
	}
	step.Fired = &policy.Firing{What: "auto-compact", Unit: "tokens", Trigger: int(math.Ceil(trigger)), Before: total, After: total}
	turn := hist[len(hist)-env.Turn:]
	preTurn := slices.ContainsFunc(turn, isRealUser)
	compacted := hist
	if preTurn {
		compacted = hist[:len(hist)-env.Turn]
	}
	var initial, users []policy.Item
	for _, it := range compacted {
		switch {
		case !it.Synthetic() && isInitialContext(it) && len(users) == 0:
			initial = append(initial, it)
		case isRealUser(it):
			users = append(users, it)
		}
	}
	kept, cut := p.selectUsers(env, users)
	text, ok, err := policy.SummarizeOrKeep(ctx, env, &step, "compaction", compacted, "", summarize.Generic)
	if err != nil || !ok {
		return step, err
	}
	ev := step.Summary
	s := st.NewItem(transcript.RoleUser, SummaryPrefix+"\n"+text, true)
	ev.ID = s.ID
	// Codex builds the initial context anew (build_initial_context): new
	// items, the originals evicted.
	for k, it := range initial {
		initial[k] = st.Reinjected(it)
	}
	var out []policy.Item
	if preTurn {
		// The replacement, then the turn re-injecting the initial context.
		out = append(append(append(append(out, kept...), s), initial...), turn...)
	} else {
		// Mid-turn: the initial context just before the last real user
		// message, or before the summary when none is left.
		at := len(kept)
		for k := len(kept) - 1; k >= 0; k-- {
			if isRealUser(kept[k]) {
				at = k
				break
			}
		}
		out = append(append(append(append(out, kept[:at]...), initial...), kept[at:]...), s)
	}
	step.Truncated = cut
	step.Evicted = policy.EvictedFrom(hist, out)
	step.History = out
	step.Fired.After = policy.Tokens(env, codexBytes4, out)
	return step, nil
}

// selectUsers is build_compacted_history_with_limit's selection: newest
// first within the budget, the first that does not fit cut to the tokens
// left, in their order.
func (p *codexPolicy) selectUsers(env *policy.Env, users []policy.Item) ([]policy.Item, []string) {
	var kept []policy.Item // newest first, reversed below
	var cut []string
	remaining := p.userTokens
	for i := len(users) - 1; i >= 0 && remaining > 0; i-- {
		text := users[i].Msg.Text()
		n := codexApproxTokens(text)
		if n <= remaining {
			kept = append(kept, users[i])
			remaining -= n
			continue
		}
		c := &transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: codexcut.Tokens(text, remaining)}},
			Pos: users[i].Msg.Pos, Time: users[i].Msg.Time}
		kept = append(kept, policy.Truncated(users[i], c, false))
		cut = append(cut, users[i].ID)
		break
	}
	slices.Reverse(kept)
	return kept, cut
}

// codexApproxTokens is approx_token_count: UTF-8 bytes / 4, rounded up.
func codexApproxTokens(s string) int { return approx.Tokens(len(s)) }

func (p *codexPolicy) Guarantees() policy.Guarantees {
	return policy.Guarantees{SummaryRole: transcript.RoleUser, Compacts: true}
}
