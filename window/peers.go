package window

import (
	"context"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// bytes4 is Codex's APPROX_BYTES_PER_TOKEN estimate: UTF-8 bytes / 4,
// rounded up, of a message's text (or its content JSON when it is not a
// single text).
// It is an estimator so that env.Counts caches it: computing the content
// JSON of the whole history at every step was half of a Codex replay.
type bytes4Estimator struct{}

var codexBytes4 estimate.Estimator = bytes4Estimator{}

func (bytes4Estimator) Name() string          { return "codex-bytes4" }
func (bytes4Estimator) Exact() bool           { return false }
func (bytes4Estimator) Count(text string) int { return (len(text) + 3) / 4 }
func (bytes4Estimator) CountMessage(m *transcript.Message) int {
	if len(m.Blocks) == 1 && m.Blocks[0].Type == transcript.BlockText {
		return (len(m.Blocks[0].Text) + 3) / 4
	}
	size, _ := transcript.ContentJSONSize(m.Blocks)
	return (size + 3) / 4
}

func bytes4(env *Env, it Item) int { return count(env, codexBytes4, it) }

// Codex's compaction (openai/codex e06dd0e5 core/src/compact.rs,
// templates/compact/{prompt,summary_prefix}.md,
// context_manager/normalize.rs).
//
// Trigger: the tokens in use reach auto_compact_ratio (0.9) of the context
// window, counted here as Codex approximates them, UTF-8 bytes / 4. The
// compacted history keeps the initial context (leading system and
// developer messages, and user messages that carry environment context or
// instructions: <environment_context>, <user_instructions>, AGENTS.md),
// then the earlier real user messages chosen newest first within
// user_message_tokens (20,000; the last one chosen is cut to fit), in
// their original order, then the summary as a user message starting with
// Codex's summary prefix. Every assistant message and tool item is dropped.
// Where the summary goes relative to the latest user message mid-turn could
// not be pinned to the source; the summary comes last, as compact.rs
// builds it. The prompt is [summarize.Generic], not Codex's checkpoint
// prompt.
type codexPolicy struct {
	base
	window, userTokens int
	ratio              float64
}

func init() {
	register(&Spec{
		Name: "codex", Source: "openai/codex e06dd0e5 core/src/compact.rs",
		Summary: "at 90% of the window, keep the initial context and the newest real user messages (≤20k tokens), drop assistant and tool items, add the summary as a user message",
		Params: []Param{
			intParam("context_window", 0, 0, none, "the model's context window; 0: the transcript model's, else 272,000 (gpt-5's)"),
			floatParam("auto_compact_ratio", 0.9, 0, 1, true, "compact at this share of the window"),
			intParam("user_message_tokens", 20_000, 0, none, "budget for the real user messages kept"),
		},
		build: func(v Values) Policy {
			return &codexPolicy{base: base{"codex", v}, window: v.Int("context_window"), ratio: v.Float("auto_compact_ratio"),
				userTokens: v.Int("user_message_tokens")}
		},
	})
}

// codexSummaryPrefix is templates/compact/summary_prefix.md.
const codexSummaryPrefix = "Another language model started to solve this problem and produced a summary of its thinking process. " +
	"You also have access to the state of the tools that were used by that language model. Use this to build on the work " +
	"that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use " +
	"the information in this summary to assist with your own analysis:\n"

func isInitialContext(it Item) bool {
	if it.Msg.Role == transcript.RoleSystem {
		return true
	}
	t := strings.TrimSpace(it.Msg.Text())
	return it.Msg.Role == transcript.RoleUser && (strings.HasPrefix(t, "<environment_context>") ||
		strings.HasPrefix(t, "<user_instructions>") || strings.HasPrefix(t, "# AGENTS.md"))
}

func (p *codexPolicy) Apply(ctx context.Context, env *Env, st *State, hist []Item) (Step, error) {
	step := Step{History: hist}
	total := st.historyTokens(env, codexBytes4, hist)
	if float64(total) < p.ratio*float64(env.window(p.window, 272_000)) {
		return step, nil
	}
	var initial, users []Item
	for _, it := range hist {
		switch {
		case !it.Synthetic() && isInitialContext(it) && len(users) == 0:
			initial = append(initial, it)
		case it.Msg.Role == transcript.RoleUser && !it.Summary && !has(it, transcript.BlockToolResult) && strings.TrimSpace(it.Msg.Text()) != "":
			users = append(users, it)
		}
	}
	// The newest real user messages within the budget, the last one cut.
	var kept []Item // newest first, reversed below
	budget := p.userTokens
	for i := len(users) - 1; i >= 0 && budget > 0; i-- {
		n := bytes4(env, users[i])
		if n <= budget {
			kept = append(kept, users[i])
			budget -= n
			continue
		}
		text := users[i].Msg.Text()
		cut := text[:min(len(text), budget*4)]
		for len(cut) > 0 && !utf8.ValidString(cut) {
			cut = cut[:len(cut)-1]
		}
		c := &transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: cut}}, Pos: users[i].Msg.Pos}
		kept = append(kept, Item{ID: users[i].ID, Msg: c, Truncated: true})
		step.Truncated = append(step.Truncated, users[i].ID)
		break
	}
	slices.Reverse(kept)
	text, ev, err := summarizeItems(ctx, env, hist, "", summarize.Generic)
	if err != nil {
		return Step{}, err
	}
	step.Summary = ev
	if ev.Error != "" {
		warnf(&step, "compaction failed, history kept: %s", ev.Error)
		step.Truncated = nil
		return step, nil
	}
	s := st.newItem(transcript.RoleUser, codexSummaryPrefix+text, true)
	ev.ID = s.ID
	out := append(append(append([]Item{}, initial...), kept...), s)
	step.Evicted = evictedFrom(hist, out)
	step.History = out
	return step, nil
}

// opencode's session management (sst/opencode 31e22f65
// packages/opencode/src/session/compaction.ts and overflow.ts).
//
// Prune (after each turn; on by default in older code, opt-in on current
// main: the prune parameter): going back from the newest message, past the
// last 2 user turns, tool outputs are summed (length/4); those beyond the
// newest 40,000 tokens (PRUNE_PROTECT) are cleared to "[Old tool result
// content cleared]", but only when that clears more than 20,000 tokens
// (PRUNE_MINIMUM). Pruning stops at the previous compaction summary.
//
// Compaction: when the prompt reaches the usable window — context_limit −
// max_output − min(20,000, max_output) — the history is summarized except
// a tail of the newest messages within preserve_recent_tokens =
// clamp(25% of usable, 2,000, 15,000), and replaced by a user message
// asking for the summary and the assistant's summary (summary: true).
// Earlier compactions are hidden. Tokens are counted as length/4 over the
// messages' JSON (chars4). The summary prompt is [summarize.Generic]
// rather than opencode's five-section template.
type opencodePolicy struct {
	base
	prune                                         bool
	protect, minimum, limit, output, protectTurns int
	// walkAll makes prune walk the whole history at every call (the
	// tests' reference for the walk that stops at the quiet prefix).
	walkAll bool
}

// opencodeState remembers the quiet prefix of the history opencode sent:
// items that hold no tool output still to clear, or lie behind a summary.
// Prune clears outputs and never restores them, and the next history
// given starts with the one sent, so while it does, prune's walk from
// the newest item can stop where the quiet prefix ends: the items there
// add nothing to what is protected or cleared. quiet holds the prefix's
// messages, to tell that it does.
type opencodeState struct {
	quiet []*transcript.Message
	// split is the last message prune walked block by block, where the
	// protected budget ran out (mostly the same from call to call), and
	// splitCounts its outputCounts.
	split       *transcript.Message
	splitCounts []int
}

// outputCounts returns opencodeOutputs' count of each block of m, or −1
// for a block that is not an output to clear; oc may be nil.
func (oc *opencodeState) outputCounts(m *transcript.Message) []int {
	if oc != nil && oc.split == m {
		return oc.splitCounts
	}
	counts := make([]int, len(m.Blocks))
	for i, b := range m.Blocks {
		counts[i] = -1
		if isOutput(b) {
			counts[i] = opencodeOutputs.Count(b.Text)
		}
	}
	if oc != nil {
		oc.split, oc.splitCounts = m, counts
	}
	return counts
}

// quietPrefix returns how many of hist's first items are the quiet
// prefix of the history sent last.
func (oc *opencodeState) quietPrefix(hist []Item) int {
	if len(oc.quiet) > len(hist) {
		return 0
	}
	for i, m := range oc.quiet {
		if hist[i].Msg != m {
			return 0
		}
	}
	return len(oc.quiet)
}

func init() {
	register(&Spec{
		Name: "opencode", Source: "sst/opencode 31e22f65 packages/opencode/src/session/compaction.ts",
		Summary: "clear old tool outputs beyond the newest 40k tokens when that saves over 20k; at overflow, summarize all but a recent tail",
		Params: []Param{
			boolParam("prune", true, "clear old tool outputs (opt-in on current main, on in older code)"),
			intParam("prune_protect", 40_000, 0, none, "PRUNE_PROTECT: newest tool-output tokens kept"),
			intParam("prune_minimum", 20_000, 0, none, "PRUNE_MINIMUM: prune only when it clears more than this"),
			intParam("protect_turns", 2, 0, none, "latest user turns never pruned"),
			intParam("context_limit", 0, 0, none, "the model's context window; 0: the transcript model's, else 200,000"),
			intParam("max_output", 32_000, 0, none, "the model's output limit"),
		},
		build: func(v Values) Policy {
			return &opencodePolicy{base: base{"opencode", v}, prune: v.Bool("prune"), protect: v.Int("prune_protect"),
				minimum: v.Int("prune_minimum"), protectTurns: v.Int("protect_turns"), limit: v.Int("context_limit"), output: v.Int("max_output")}
		},
	})
}

const (
	opencodeCleared    = "[Old tool result content cleared]"
	opencodeCompaction = "What did we do so far?"
)

func (p *opencodePolicy) Apply(ctx context.Context, env *Env, st *State, hist []Item) (Step, error) {
	step := Step{History: hist}
	oc, _ := st.data.(*opencodeState)
	if oc == nil {
		oc = &opencodeState{}
		st.data = oc
	}
	quiet := 0
	if p.prune {
		from, memo := 0, oc
		if p.walkAll {
			memo = nil
		} else {
			from = oc.quietPrefix(hist)
		}
		step.History, step.Truncated, quiet = p.pruneOutputs(env, memo, hist, from)
	}
	pruned := step.History
	step, err := p.compact(ctx, env, st, step)
	// The quiet prefix holds while the pruned history is what is sent; a
	// compaction replaces it.
	oc.quiet = oc.quiet[:0]
	if err == nil && len(step.History) == len(pruned) && (len(pruned) == 0 || &step.History[0] == &pruned[0]) {
		for _, it := range pruned[:quiet] {
			oc.quiet = append(oc.quiet, it.Msg)
		}
	}
	return step, err
}

// compact summarizes all but a recent tail of step's history when it
// overflows the usable context.
func (p *opencodePolicy) compact(ctx context.Context, env *Env, st *State, step Step) (Step, error) {
	reserved := min(20_000, p.output)
	usable := env.window(p.limit, 200_000) - p.output - reserved
	est := chars4Estimator()
	if st.historyTokens(env, est, step.History) < usable {
		return step, nil
	}
	budget := max(2_000, min(15_000, usable/4))
	h := step.History
	tail := len(h)
	for used := 0; tail > 0; tail-- {
		n := count(env, est, h[tail-1])
		if used+n > budget {
			break
		}
		used += n
	}
	if tail == 0 {
		return step, nil
	}
	text, ev, err := summarizeItems(ctx, env, h[:tail], "", summarize.Generic)
	if err != nil {
		return Step{}, err
	}
	step.Summary = ev
	if ev.Error != "" {
		warnf(&step, "compaction failed, history kept: %s", ev.Error)
		return step, nil
	}
	ask := st.newItem(transcript.RoleUser, opencodeCompaction, false)
	s := st.newItem(transcript.RoleAssistant, text, true)
	ev.ID = s.ID
	step.Evicted = ids(h[:tail])
	step.History = append([]Item{ask, s}, h[tail:]...)
	return step, nil
}

// pruneOutputs clears old tool outputs, newest PRUNE_PROTECT tokens and the
// latest user turns protected, stopping at a summary, or at from, where
// the quiet prefix of the history ends (see opencodeState). A message's
// output tokens come from the count cache; only the message where the
// protected budget runs out is walked block by block, its counts kept in
// oc when oc is not nil. It returns the
// history, the items cut, and the length of its quiet prefix: the
// history's items before the oldest that still holds an output.
func (p *opencodePolicy) pruneOutputs(env *Env, oc *opencodeState, hist []Item, from int) ([]Item, []string, int) {
	turns, protected := 0, 0
	var candidates []int
	cleared := 0
	oldest, oldestKept := len(hist), len(hist) // the oldest items holding an output: any, and not a candidate
	for i := len(hist) - 1; i >= from; i-- {
		it := hist[i]
		if it.Summary {
			break
		}
		if it.Msg.Role == transcript.RoleUser && !has(it, transcript.BlockToolResult) {
			turns++
		}
		if !hasOutput(it) {
			continue
		}
		oldest = i
		if turns < p.protectTurns {
			oldestKept = i
			continue
		}
		if n := count(env, opencodeOutputs, it); protected+n <= p.protect || protected > p.protect {
			// Wholly protected, or wholly past the budget.
			if protected += n; protected > p.protect {
				candidates = append(candidates, i)
				cleared += n
			} else {
				oldestKept = i
			}
			continue
		}
		kept := true
		for _, n := range oc.outputCounts(it.Msg) {
			if n < 0 {
				continue
			}
			protected += n
			if protected > p.protect {
				candidates = append(candidates, i)
				cleared += n
				kept = false
			}
		}
		if kept {
			oldestKept = i
		}
	}
	if cleared <= p.minimum {
		return hist, nil, oldest
	}
	out := append([]Item(nil), hist...)
	var truncated []string
	seen := map[int]bool{}
	for _, i := range candidates {
		if seen[i] {
			continue
		}
		seen[i] = true
		c := *hist[i].Msg
		c.Blocks = append([]transcript.Block(nil), c.Blocks...)
		for j := range c.Blocks {
			if c.Blocks[j].Type == transcript.BlockToolResult {
				c.Blocks[j].Text, c.Blocks[j].Raw = opencodeCleared, nil
			}
		}
		out[i] = Item{ID: hist[i].ID, Msg: &c, Truncated: true}
		truncated = append(truncated, hist[i].ID)
	}
	return out, truncated, oldestKept
}

// outputsEstimator counts a message's tool outputs as opencode's prune
// does, length / 4 rounded per output, leaving out those already cleared.
// It is an estimator so that the replay's count cache holds it: prune
// walks the whole history at every call.
type outputsEstimator struct{}

var opencodeOutputs estimate.Estimator = outputsEstimator{}

func (outputsEstimator) Name() string { return "opencode-outputs" }
func (outputsEstimator) Exact() bool  { return false }
func (outputsEstimator) Count(text string) int {
	return int(math.Round(float64(transcript.UTF16Len(text)) / 4))
}
func (outputsEstimator) CountMessage(m *transcript.Message) int {
	n := 0
	for _, b := range m.Blocks {
		if isOutput(b) {
			n += opencodeOutputs.Count(b.Text)
		}
	}
	return n
}

// isOutput reports whether b is a tool output not yet cleared.
func isOutput(b transcript.Block) bool {
	return b.Type == transcript.BlockToolResult && b.Text != opencodeCleared
}

// hasOutput reports whether the item holds a tool output not yet cleared.
func hasOutput(it Item) bool { return slices.ContainsFunc(it.Msg.Blocks, isOutput) }

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
