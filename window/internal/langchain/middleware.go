package langchain

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/approx"
	"github.com/ctxbench/ctxbench/internal/jsstring"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/jsstr"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// LangChainSummarization names the SummarizationMiddleware of LangChain
// v1's context middleware, as langchain 1.5.14 (JS) runs it in
// an agent (dist/agents/middleware/summarization.js and
// contextEditing.js), on the LangChain view of the history that
// langchain-trim trims (trim.go): a transcript message is one
// or more LangChain messages, its units.
//
// Both count with langchain's countTokensApproximately: ceil(chars / 4)
// over the whole list, chars summing each message's content length
// (UTF-16), an AIMessage's JSON.stringify(tool_calls) and a
// ToolMessage's tool_call_id.
//
// A trigger is one condition (the JS takes a list of them, any of which
// fires): tokens, messages (LangChain messages) and fraction (of the
// model's max input tokens), those given all met; keep is one of
// messages, tokens or fraction.
//
// SummarizationMiddleware (beforeModel, before every call; its result
// replaces the agent's state): when the trigger is met, the conversation
// but a kept tail (keep messages: the newest N, moved back to a cut that
// separates no tool call from its results; keep tokens: the shortest tail
// within the budget, by binary search, made safe the same way) is
// summarized — a leading system message with it — and the state becomes
// a HumanMessage "Here is a summary of the conversation to date:\n\n" +
// the summary, then the tail. The summary model is given the newest
// trimTokensToSummarize (4,000) tokens of what it summarizes. A failed
// summary call becomes the summary text ("Error generating summary: …"),
// as the JS does: the summary invariant shows it. With no trigger (the
// default) it never fires.
const LangChainSummarization = "langchain-summarization"

// lcSummaryPolicy is the [LangChainSummarization] policy.
type lcSummaryPolicy struct {
	policy.Base
	trigger    lcCondition
	keep       lcCondition
	trimTokens int
	prefix     string
	maxInput   int
	hasTrigger bool
}

// LangChainClearToolUses names the ContextEditingMiddleware with
// ClearToolUsesEdit of LangChain v1's context middleware (see
// [LangChainSummarization] for the view of the history and the trigger).
//
// It runs in wrapModelCall, every call; it edits the state's messages in
// place, so what it clears stays cleared: tool results without their call
// are dropped; when the trigger is met, every ToolMessage but the newest
// keep (messages: 3 by default) is replaced by the placeholder
// ("[cleared]"), oldest first, skipping those cleared before and the
// excluded tools', with the call's arguments emptied ({}) when
// clear_tool_inputs; if that cleared fewer than clear_at_least tokens, the
// kept ones are cleared too, newest first, until it has.
const LangChainClearToolUses = "langchain-clear-tool-uses"

// lcClearPolicy is the [LangChainClearToolUses] policy.
type lcClearPolicy struct {
	policy.Base
	trigger      lcCondition
	keep         lcCondition
	clearAtLeast int
	clearInputs  bool
	exclude      map[string]bool
	placeholder  string
	maxInput     int
}

// An lcCondition is a LangChain context size: tokens, messages, fraction
// (0: not given).
type lcCondition struct {
	tokens, messages int
	fraction         float64
}

const (
	lcSummaryPrefix     = "Here is a summary of the conversation to date:"
	lcDefaultKeep       = 20
	lcSafeRange         = 5 // SEARCH_RANGE_FOR_TOOL_PAIRS
	lcClearedDefault    = "[cleared]"
	lcEditKeepDefault   = 3
	lcEditTriggerTokens = 100_000
)

// middlewareSpecs are the policies of LangChain v1's middleware.
var middlewareSpecs = []*policy.Spec{
	{
		Name: LangChainSummarization, Source: "langchain-ai/langchainjs libs/langchain/src/agents/middleware/summarization.ts (SummarizationMiddleware)",
		Models: "langchain@1.5.14", Held: policy.HeldConformance,
		Summary: "at the trigger (tokens, messages or a fraction of the window), summarize all but the newest messages into one human message; no trigger by default",
		Params: append(lcContextParams(0, lcDefaultKeep, "the newest LangChain messages kept"),
			policy.IntParam("trim_tokens_to_summarize", 4000, 0, policy.NoBound, "trimTokensToSummarize: the newest tokens of the span the summary model is given"),
			policy.StringParam("summary_prefix", lcSummaryPrefix, "summaryPrefix"),
			policy.IntParam("max_input_tokens", 0, 0, policy.NoBound, "the model profile's maxInputTokens, for fractions; 0: the transcript model's window"),
		),
		Differs: []string{
			"one trigger condition (the JS also takes a list, any of which fires)",
			"the summary model is given the newest whole messages within trim_tokens_to_summarize (the JS also keeps the newest lines of the next one); the prompt is summarize.Generic",
		},
		Check: lcCheckKeep,
		Build: func(v policy.Values) policy.Policy {
			p := &lcSummaryPolicy{Base: policy.NewBase(LangChainSummarization, v), trigger: lcTrigger(v), keep: lcKeep(v, lcDefaultKeep),
				trimTokens: v.Int("trim_tokens_to_summarize"), prefix: v.String("summary_prefix"), maxInput: v.Int("max_input_tokens")}
			p.hasTrigger = p.trigger != lcCondition{}
			return p
		},
	},
	{
		Name: LangChainClearToolUses, Source: "langchain-ai/langchainjs libs/langchain/src/agents/middleware/contextEditing.ts (ContextEditingMiddleware, ClearToolUsesEdit)",
		Models: "langchain@1.5.14", Held: policy.HeldConformance,
		Summary: "at the trigger, replace all but the newest tool results with a placeholder, as Anthropic's clear_tool_uses does, in the agent's state",
		Params: append(lcContextParams(lcEditTriggerTokens, lcEditKeepDefault, "the newest tool results kept"),
			policy.IntParam("clear_at_least", 0, 0, policy.NoBound, "clearAtLeast (deprecated in the JS): clear kept results too, newest first, until this many tokens are cleared"),
			policy.BoolParam("clear_tool_inputs", false, "clearToolInputs: empty the arguments of the cleared results' calls"),
			policy.StringParam("exclude_tools", "", "excludeTools: tool names never cleared, separated by |"),
			policy.StringParam("placeholder", lcClearedDefault, "placeholder"),
			policy.IntParam("max_input_tokens", 0, 0, policy.NoBound, "the model profile's maxInputTokens, for fractions; 0: the transcript model's window"),
		),
		Differs: []string{
			"one trigger condition (the JS also takes a list, any of which fires)",
		},
		Check: func(v policy.Values) error {
			if err := lcCheckKeep(v); err != nil {
				return err
			}
			if lcTrigger(v) == (lcCondition{}) {
				return fmt.Errorf("give a trigger: trigger_tokens, trigger_messages or trigger_fraction")
			}
			return nil
		},
		Build: func(v policy.Values) policy.Policy {
			p := &lcClearPolicy{Base: policy.NewBase(LangChainClearToolUses, v), trigger: lcTrigger(v), keep: lcKeep(v, lcEditKeepDefault),
				clearAtLeast: v.Int("clear_at_least"), clearInputs: v.Bool("clear_tool_inputs"), exclude: map[string]bool{},
				placeholder: v.String("placeholder"), maxInput: v.Int("max_input_tokens")}
			for _, name := range strings.Split(v.String("exclude_tools"), "|") {
				if name = strings.TrimSpace(name); name != "" {
					p.exclude[name] = true
				}
			}
			return p
		},
	},
}

// lcContextParams are the trigger and keep parameters of LangChain's
// context middleware, with their defaults; kept says what keep_messages
// counts.
func lcContextParams(triggerTokens, keep int, kept string) []policy.Param {
	return []policy.Param{
		policy.IntParam("trigger_tokens", triggerTokens, 0, policy.NoBound, "trigger.tokens (0: not given)"),
		policy.IntParam("trigger_messages", 0, 0, policy.NoBound, "trigger.messages: LangChain messages (0: not given)"),
		policy.FloatParam("trigger_fraction", 0, 0, 1, false, "trigger.fraction of the model's max input tokens (0: not given)"),
		policy.IntParam("keep_messages", keep, 0, policy.NoBound, "keep.messages: "+kept),
		policy.IntParam("keep_tokens", 0, 0, policy.NoBound, "keep.tokens, instead of keep_messages (0: not given)"),
		policy.FloatParam("keep_fraction", 0, 0, 1, false, "keep.fraction of the model's max input tokens, instead of keep_messages (0: not given)"),
	}
}

// lcCheckKeep refuses two kinds of keep: the middleware takes exactly one.
func lcCheckKeep(v policy.Values) error {
	if v.Int("keep_tokens") > 0 && v.Float("keep_fraction") > 0 {
		return fmt.Errorf("keep_tokens and keep_fraction: give one (exactly one of fraction, tokens, or messages)")
	}
	return nil
}

func lcTrigger(v policy.Values) lcCondition {
	return lcCondition{tokens: v.Int("trigger_tokens"), messages: v.Int("trigger_messages"), fraction: v.Float("trigger_fraction")}
}

func lcKeep(v policy.Values, def int) lcCondition {
	switch {
	case v.Int("keep_tokens") > 0:
		return lcCondition{tokens: v.Int("keep_tokens")}
	case v.Float("keep_fraction") > 0:
		return lcCondition{fraction: v.Float("keep_fraction")}
	}
	return lcCondition{messages: v.Int("keep_messages")}
}

// met reports whether the condition holds of a list of n messages
// counting tokens; maxInput is the model's (0: unknown: a fraction is
// not met).
func (c lcCondition) met(n, tokens, maxInput int) bool {
	if c.messages > 0 && n < c.messages {
		return false
	}
	if c.tokens > 0 && tokens < c.tokens {
		return false
	}
	if c.fraction > 0 && (maxInput <= 0 || tokens < int(math.Floor(float64(maxInput)*c.fraction))) {
		return false
	}
	return true
}

// firing returns the firing of condition c on a list of n messages
// counting tokens: in messages when c counts messages alone, else in
// tokens (a fraction as its threshold).
func (c lcCondition) firing(what string, n, tokens, maxIn int) *policy.Firing {
	switch {
	case c.tokens > 0:
		return &policy.Firing{What: what, Unit: "tokens", Trigger: c.tokens, Before: tokens, After: tokens}
	case c.messages > 0 && c.fraction == 0:
		return &policy.Firing{What: what, Unit: "messages", Trigger: c.messages, Before: n, After: n}
	}
	return &policy.Firing{What: what, Unit: "tokens", Trigger: int(math.Floor(float64(maxIn) * c.fraction)), Before: tokens, After: tokens}
}

// settleLC sets f's After from what is sent.
func settleLC(f *policy.Firing, msgs []lcMsg) {
	if f.Unit == "messages" {
		f.After = len(msgs)
	} else {
		f.After = lcCount(msgs)
	}
}

// An lcMsg is one LangChain message of the history: its item, its unit
// of the item's view, and what countTokensApproximately counts of it.
type lcMsg struct {
	item  int
	u     lcUnit
	chars int
	// ids are an AI message's tool call ids, or a tool message's one.
	ids []string
}

// lcMessages returns the LangChain messages of hist, in order.
func lcMessages(hist []policy.Item) []lcMsg { return (*lcCache)(nil).messages(hist) }

// An lcCache keeps each message's LangChain messages, which a policy
// needs at every call (nil: none kept).
type lcCache struct {
	views map[*transcript.Message][]lcMsg
}

func (c *lcCache) messages(hist []policy.Item) []lcMsg {
	out := make([]lcMsg, 0, len(hist)+len(hist)/4)
	for i, it := range hist {
		v, ok := []lcMsg(nil), false
		if c != nil {
			v, ok = c.views[it.Msg]
		}
		if !ok {
			for _, u := range lcView(it.Msg) {
				v = append(v, lcMsgOf(0, it.Msg, u))
			}
			if c != nil {
				if c.views == nil {
					c.views = map[*transcript.Message][]lcMsg{}
				}
				c.views[it.Msg] = v
			}
		}
		for _, m := range v {
			m.item = i
			out = append(out, m)
		}
	}
	return out
}

func lcMsgOf(i int, m *transcript.Message, u lcUnit) lcMsg {
	x := lcMsg{item: i, u: u, chars: jsstring.Len(u.content)}
	switch u.kind {
	case 'a':
		n := 0
		for _, j := range u.blocks {
			if b := m.Blocks[j]; b.Type == transcript.BlockToolUse {
				// {"name":…,"args":…,"id":…,"type":"tool_call"}
				x.chars += len(`{"name":`) + jsstr.Len(b.Name) + len(`,"args":`) + jsstr.JSONLen(b.Input) + len(`,"id":`) + jsstr.Len(b.ID) + len(`,"type":"tool_call"}`)
				x.ids = append(x.ids, b.ID)
				n++
			}
		}
		if n > 0 {
			x.chars += 2 + n - 1 // the brackets and commas
		}
	case 't':
		b := m.Blocks[u.blocks[0]]
		x.chars += jsstring.Len(b.ID)
		x.ids = []string{b.ID}
	}
	return x
}

// lcCount is countTokensApproximately of msgs.
func lcCount(msgs []lcMsg) int {
	n := 0
	for _, m := range msgs {
		n += m.chars
	}
	return approx.Tokens(n)
}

func (m lcMsg) hasCalls() bool { return m.u.kind == 'a' && len(m.ids) > 0 }

// maxInput returns the model's max input tokens for fractions.
func lcMaxInput(env *policy.Env, param int) int {
	if param > 0 {
		return param
	}
	return env.ModelWindow
}

func (p *lcSummaryPolicy) Apply(ctx context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	step := policy.Step{History: hist}
	if !p.hasTrigger {
		if env.Call == 0 {
			policy.Warnf(&step, "no trigger given: SummarizationMiddleware never summarizes (trigger_tokens, trigger_messages or trigger_fraction)")
		}
		return step, nil
	}
	cache, _ := st.Data.(*lcCache)
	if cache == nil {
		cache = &lcCache{}
		st.Data = cache
	}
	msgs := cache.messages(hist)
	total := lcCount(msgs)
	maxIn := lcMaxInput(env, p.maxInput)
	if !p.trigger.met(len(msgs), total, maxIn) {
		return step, nil
	}
	sys := 0
	if len(msgs) > 0 && msgs[0].u.kind == 's' {
		sys = 1
	}
	conv := msgs[sys:]
	cutoff := lcCutoff(conv, p.keep, maxIn)
	if cutoff <= 0 {
		return step, nil // nothing to summarize: the middleware returns
	}
	step.Fired = p.trigger.firing("summarization", len(msgs), total, maxIn)
	span := msgs[:sys+cutoff]
	items := lcItems(hist, p.trimForSummary(span))
	text, ev, err := policy.SummarizeItems(ctx, env, items, "", summarize.Generic)
	if err != nil {
		return policy.Step{}, err
	}
	ev.Covers = lcItemIDs(hist, span)
	if ev.Error != "" {
		// createSummary catches the error and returns it as the summary.
		text = "Error generating summary: Error: " + ev.Error
		policy.Warnf(&step, "the summary call failed: its error text is the summary, as SummarizationMiddleware does")
	}
	s := st.NewItem(transcript.RoleUser, p.prefix+"\n\n"+text, true)
	ev.ID = s.ID
	step.Summary = ev
	out := append([]policy.Item{s}, lcTail(hist, conv[cutoff:], &step)...)
	step.Evicted = policy.EvictedFrom(hist, out)
	step.History = out
	settleLC(step.Fired, lcMessages(out))
	return step, nil
}

// lcCutoff is determineCutoffIndex: where the kept tail of conv starts.
func lcCutoff(conv []lcMsg, keep lcCondition, maxIn int) int {
	if keep.tokens > 0 || keep.fraction > 0 {
		if c, ok := lcTokenCutoff(conv, keep, maxIn); ok {
			return c
		}
		return lcSafeCutoff(conv, lcDefaultKeep)
	}
	return lcSafeCutoff(conv, keep.messages)
}

// lcTokenCutoff is findTokenBasedCutoff.
func lcTokenCutoff(msgs []lcMsg, keep lcCondition, maxIn int) (int, bool) {
	if len(msgs) == 0 {
		return 0, true
	}
	target := keep.tokens
	if keep.fraction > 0 {
		if maxIn <= 0 {
			return 0, false
		}
		target = int(math.Floor(float64(maxIn) * keep.fraction))
	}
	target = max(target, 1)
	if lcCount(msgs) <= target {
		return 0, true
	}
	left, right, cand := 0, len(msgs), len(msgs)
	iters := int(math.Floor(math.Log2(float64(len(msgs))))) + 1
	for range iters {
		if left >= right {
			break
		}
		mid := (left + right) / 2
		if lcCount(msgs[mid:]) <= target {
			cand, right = mid, mid
		} else {
			left = mid + 1
		}
	}
	if cand == len(msgs) {
		cand = left
	}
	if cand >= len(msgs) {
		if len(msgs) == 1 {
			return 0, true
		}
		cand = len(msgs) - 1
	}
	if safe := lcSafePoint(msgs, cand); safe <= cand {
		return safe, true
	}
	for i := cand; i >= 0; i-- {
		if lcIsSafe(msgs, i) {
			return i, true
		}
	}
	return 0, true
}

// lcSafeCutoff is findSafeCutoff.
func lcSafeCutoff(msgs []lcMsg, keep int) int {
	if len(msgs) <= keep {
		return 0
	}
	target := len(msgs) - keep
	if safe := lcSafePoint(msgs, target); safe <= target {
		return safe
	}
	for i := target; i >= 0; i-- {
		if lcIsSafe(msgs, i) {
			return i
		}
	}
	return 0
}

// lcSafePoint is findSafeCutoffPoint: a cut at a tool message moves
// back to the AI message that called it, or past the tool messages.
func lcSafePoint(msgs []lcMsg, cut int) int {
	if cut >= len(msgs) || msgs[cut].u.kind != 't' {
		return cut
	}
	ids := map[string]bool{}
	idx := cut
	for idx < len(msgs) && msgs[idx].u.kind == 't' {
		ids[msgs[idx].ids[0]] = true
		idx++
	}
	for i := cut - 1; i >= 0; i-- {
		if msgs[i].hasCalls() {
			for _, id := range msgs[i].ids {
				if ids[id] {
					return i
				}
			}
		}
	}
	return idx
}

// lcIsSafe is isSafeCutoffPoint.
func lcIsSafe(msgs []lcMsg, cut int) bool {
	if cut >= len(msgs) {
		return true
	}
	if msgs[cut].hasCalls() {
		return false
	}
	for i := max(0, cut-lcSafeRange); i < min(len(msgs), cut+lcSafeRange); i++ {
		if !msgs[i].hasCalls() {
			continue
		}
		for j := i + 1; j < len(msgs); j++ {
			if msgs[j].u.kind == 't' && slices.Contains(msgs[i].ids, msgs[j].ids[0]) && (i < cut) != (j < cut) {
				return false
			}
		}
	}
	return true
}

// trimForSummary keeps the newest whole messages of span within the trim
// budget, and a leading system message (includeSystem), as the summary
// model is given them.
func (p *lcSummaryPolicy) trimForSummary(span []lcMsg) []lcMsg {
	if p.trimTokens <= 0 {
		return span
	}
	var sys []lcMsg
	rest := span
	if len(span) > 0 && span[0].u.kind == 's' {
		sys, rest = span[:1], span[1:]
	}
	from := len(rest)
	for from > 0 && lcCount(append(slices.Clone(sys), rest[from-1:]...)) <= p.trimTokens {
		from--
	}
	if from == len(rest) && len(rest) > 0 {
		from = len(rest) - 1 // the JS keeps part of it
	}
	return append(slices.Clone(sys), rest[from:]...)
}

// lcItems returns the items of hist holding msgs, each cut to the units
// msgs holds of it.
func lcItems(hist []policy.Item, msgs []lcMsg) []policy.Item {
	var out []policy.Item
	for k := 0; k < len(msgs); {
		i := msgs[k].item
		var us []lcUnit
		for ; k < len(msgs) && msgs[k].item == i; k++ {
			us = append(us, msgs[k].u)
		}
		it := hist[i]
		if len(us) < len(lcView(it.Msg)) {
			it = policy.Truncated(it, lcSlice(it.Msg, us, false, ""), false)
		}
		out = append(out, it)
	}
	return out
}

// lcItemIDs returns the ids of the items msgs come from.
func lcItemIDs(hist []policy.Item, msgs []lcMsg) []string {
	var out []string
	for k, m := range msgs {
		if k == 0 || msgs[k-1].item != m.item {
			out = append(out, hist[m.item].ID)
		}
	}
	return out
}

// lcTail returns the items of the kept tail, the first cut to the units
// kept of it (noted in step).
func lcTail(hist []policy.Item, tail []lcMsg, step *policy.Step) []policy.Item {
	out := lcItems(hist, tail)
	if len(out) > 0 && out[0].Msg != hist[tail[0].item].Msg {
		step.Truncated = append(step.Truncated, out[0].ID)
	}
	return out
}

// Guarantees: the summary is a user message, first. It promises no
// shrinking: a kept tail over the trigger re-summarizes at every call
// (the headroom and shrinks invariants show it).
func (p *lcSummaryPolicy) Guarantees() policy.Guarantees {
	return policy.Guarantees{SummaryRole: transcript.RoleUser, SummaryFirst: true}
}

// lcClearState is what ContextEditingMiddleware leaves in the agent's
// state: the tool results it cleared (by call id).
type lcClearState struct {
	cleared map[string]bool
	lcCache
}

func (p *lcClearPolicy) Apply(_ context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	step := policy.Step{History: hist}
	cs, _ := st.Data.(*lcClearState)
	if cs == nil {
		cs = &lcClearState{cleared: map[string]bool{}}
		st.Data = cs
	}
	e := &lcEdit{hist: hist, out: hist, step: &step}
	e.msgs = cs.messages(hist)
	e.dropOrphans()
	total := lcCount(e.msgs)
	maxIn := lcMaxInput(env, p.maxInput)
	if p.trigger.met(len(e.msgs), total, maxIn) {
		n := len(cs.cleared)
		p.clear(cs, e, total, maxIn)
		if len(cs.cleared) > n {
			// It cleared something: a firing (above the trigger with all
			// cleared already, the edit runs and changes nothing).
			step.Fired = p.trigger.firing("clearing", len(e.msgs), total, maxIn)
			settleLC(step.Fired, e.msgs)
		}
	}
	if len(step.Truncated) > 0 || len(e.out) != len(hist) {
		step.Evicted = policy.EvictedFrom(hist, e.out)
		step.History = e.out
	}
	return step, nil
}

// An lcEdit is the history being edited: out, a copy of hist once edited,
// and its LangChain messages.
type lcEdit struct {
	hist, out []policy.Item
	msgs      []lcMsg
	copied    bool
	step      *policy.Step
}

// set replaces item i with a copy holding m.
func (e *lcEdit) set(i int, m *transcript.Message) {
	if !e.copied {
		e.out, e.copied = slices.Clone(e.out), true
	}
	it := e.out[i]
	e.out[i] = policy.Truncated(it, m, it.Summary)
	if !slices.Contains(e.step.Truncated, it.ID) {
		e.step.Truncated = append(e.step.Truncated, it.ID)
	}
}

// dropOrphans drops the tool messages whose call no earlier AI message
// holds, as apply does before anything else.
func (e *lcEdit) dropOrphans() {
	calls := map[string]bool{}
	drop := map[int][]int{} // item → its blocks dropped
	var order []int
	for _, m := range e.msgs {
		switch {
		case m.u.kind == 'a':
			for _, id := range m.ids {
				calls[id] = true
			}
		case m.u.kind == 't' && !calls[m.ids[0]]:
			if _, ok := drop[m.item]; !ok {
				order = append(order, m.item)
			}
			drop[m.item] = append(drop[m.item], m.u.blocks...)
		}
	}
	if len(order) == 0 {
		return
	}
	for _, i := range order {
		c := *e.out[i].Msg
		c.Blocks = nil
		for j, b := range e.out[i].Msg.Blocks {
			if !slices.Contains(drop[i], j) {
				c.Blocks = append(c.Blocks, b)
			}
		}
		e.set(i, &c)
	}
	var kept []policy.Item
	for _, it := range e.out {
		if len(it.Msg.Blocks) > 0 {
			kept = append(kept, it)
		}
	}
	e.out = kept
	e.msgs = lcMessages(e.out)
}

// clear clears the tool messages as ClearToolUsesEdit.apply does.
func (p *lcClearPolicy) clear(cs *lcClearState, e *lcEdit, total, maxIn int) {
	var cands []int
	for k, m := range e.msgs {
		if m.u.kind == 't' {
			cands = append(cands, k)
		}
	}
	if len(cands) == 0 {
		return
	}
	keep := p.keepCount(e.msgs, cands, maxIn)
	toClear := cands
	switch {
	case keep >= len(cands):
		toClear = nil
	case keep > 0:
		toClear = cands[:len(cands)-keep]
	}
	c := &lcClearing{p: p, cs: cs, e: e, total: total, copies: map[int]*transcript.Message{}, callOf: lcCallsOf(e), stale: map[int]bool{}}
	for _, k := range toClear {
		c.clearOne(k)
	}
	cleared := c.counted()
	if p.clearAtLeast > 0 && cleared < p.clearAtLeast && keep > 0 && keep < len(cands) {
		rest := cands[len(cands)-keep:]
		for i := len(rest) - 1; i >= 0 && cleared < p.clearAtLeast; i-- {
			c.clearOne(rest[i])
			cleared = c.counted()
		}
	}
}

// An lcCall is where the AI message a tool message answers holds the
// call: the message (in lcEdit.msgs), its tool use blocks with the id,
// and the tool.
type lcCall struct {
	ai     int
	blocks []int
	name   string
}

// lcCallsOf returns the call of each tool message of e, by its place in
// e.msgs: in the nearest AI message before it that holds the call.
func lcCallsOf(e *lcEdit) map[int]lcCall {
	callOf := map[int]lcCall{}
	latest := map[string]lcCall{}
	for k, m := range e.msgs {
		switch m.u.kind {
		case 'a':
			at := map[string]lcCall{}
			for j, b := range e.out[m.item].Msg.Blocks {
				if b.Type == transcript.BlockToolUse {
					c := at[b.ID]
					if c.blocks == nil {
						c.name = b.Name
					}
					c.ai, c.blocks = k, append(c.blocks, j)
					at[b.ID] = c
				}
			}
			for _, id := range m.ids {
				latest[id] = at[id]
			}
		case 't':
			if c, ok := latest[m.ids[0]]; ok {
				callOf[k] = c
			}
		}
	}
	return callOf
}

// An lcClearing is one pass of ClearToolUsesEdit over e: each message is
// copied once in it, then edited in place (a message holding thousands
// of results is not copied for each), and an AI message whose inputs
// were cleared (stale) is measured again once, before the count is read.
type lcClearing struct {
	p      *lcClearPolicy
	cs     *lcClearState
	e      *lcEdit
	total  int
	copies map[int]*transcript.Message
	callOf map[int]lcCall
	stale  map[int]bool
}

// copyOf returns the pass's copy of item.
func (c *lcClearing) copyOf(item int) *transcript.Message {
	if m, ok := c.copies[item]; ok {
		return m
	}
	m := *c.e.out[item].Msg
	m.Blocks = slices.Clone(m.Blocks)
	c.copies[item] = &m
	c.e.set(item, &m)
	return &m
}

// counted returns the tokens cleared so far.
func (c *lcClearing) counted() int {
	e := c.e
	for ai := range c.stale {
		a := e.msgs[ai]
		e.msgs[ai] = lcMsgOf(a.item, e.out[a.item].Msg, lcView(e.out[a.item].Msg)[0])
	}
	clear(c.stale)
	return max(0, c.total-lcCount(e.msgs))
}

// clearOne clears tool message k, unless cleared before, of an excluded
// tool, or answering no call.
func (c *lcClearing) clearOne(k int) {
	e := c.e
	m := e.msgs[k]
	id := m.ids[0]
	if c.cs.cleared[id] {
		return
	}
	call, ok := c.callOf[k]
	if !ok || c.p.exclude[call.name] {
		return
	}
	c.cs.cleared[id] = true
	tm := c.copyOf(m.item)
	j := m.u.blocks[0]
	tm.Blocks[j].Text, tm.Blocks[j].Raw = c.p.placeholder, nil
	e.msgs[k] = lcMsgOf(m.item, tm, lcToolUnit(tm, j))
	if c.p.clearInputs {
		ac := c.copyOf(e.msgs[call.ai].item)
		for _, j := range call.blocks {
			ac.Blocks[j].Input = []byte("{}")
		}
		c.stale[call.ai] = true
	}
}

// keepCount is determineKeepCount.
func (p *lcClearPolicy) keepCount(msgs []lcMsg, cands []int, maxIn int) int {
	target := 0
	switch {
	case p.keep.tokens > 0:
		target = p.keep.tokens
	case p.keep.fraction > 0:
		if maxIn <= 0 {
			return lcEditKeepDefault
		}
		if target = int(math.Floor(float64(maxIn) * p.keep.fraction)); target <= 0 {
			return lcEditKeepDefault
		}
	default:
		return p.keep.messages
	}
	n, kept := 0, 0
	for i := len(cands) - 1; i >= 0; i-- {
		t := lcCount(msgs[cands[i] : cands[i]+1])
		if n+t > target {
			break
		}
		n += t
		kept++
	}
	return kept
}

// Guarantees: clearing keeps every call with its result.
func (p *lcClearPolicy) Guarantees() policy.Guarantees { return policy.Guarantees{PairSafe: true} }
