// Package cline models @cline/core's context compaction (strategy
// basic): the cline policy, over a model of the JavaScript values it
// measures (js.go).
package cline

import (
	"context"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/msgid"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// Cline names the cline policy.
//
// Cline's rule-based compaction, as a Cline session runs it before each
// model request (@cline/core 0.0.86: createContextCompactionPrepareTurn
// with strategy "basic", runBasicCompaction, buildBudgetProjection and
// mergeAdjacentUserTurns of sdk/packages/core/src/extensions/context, in
// createCompactionStateAwarePrepareTurn as sessions wrap it).
//
// Cline measures a message as ceil(length of JSON.stringify(message) /
// 3), and the request as that of {systemPrompt, messages, tools}. The
// usable input is the model's maxInputTokens (at most its context
// window), else 90% of its context window, else 128,000; divided by how
// far the previous request's billed input (of the same run) exceeded
// its estimate, at most 4×. At 90% of it, it compacts, to a target of
// 70% of that trigger (50% of the input when the conversation has five
// user–assistant pairs and the model's max output is below the input),
// less the system prompt and tools:
//
//   - every typed user message stays (trimmed; only the latest keeps its
//     files and images), and so does what an earlier compaction kept;
//   - the latest turn keeps its newest messages that fit, from an
//     assistant message on; each older turn keeps its concluding
//     assistant answer (without thinking) when it fits, newest first;
//   - the result is held to the target by buildBudgetProjection: thinking
//     dropped, images dropped outside the live tail, then messages cut
//     from the newest back (the latest typed prompt and the live tail
//     kept) and dropped from the oldest on, a tool call with its result;
//   - typed prompts left side by side are merged into one, each gap
//     bridged by a <SYSTEM_NOTICE> naming the files read and edited and
//     the commands run there (Cline's tools: read_files, editor,
//     apply_patch, run_commands) and the last three assistant answers
//     dropped there; the first message records the compaction, the
//     others are marked preserved and never folded again.
//
// The compaction is the session's state: later calls send it and the
// messages since, and the next compaction starts from it.
const Cline = "cline"

// clinePolicy is the [Cline] policy.
type clinePolicy struct {
	policy.Base
	contextWindow, maxInput, maxTokens int
}

// clineCoreVersion is the @cline/core release the policy follows.
const clineCoreVersion = "0.0.86"

// Specs are this room's policies, which window registers.
var Specs = []*policy.Spec{
	{
		Name: Cline, Source: "@cline/core " + clineCoreVersion + " (createContextCompactionPrepareTurn, strategy basic, in createCompactionStateAwarePrepareTurn)",
		Models: "@cline/core@" + clineCoreVersion, Held: policy.HeldConformance,
		Summary: "at 90% of the usable input (JSON/3 tokens), keep every typed prompt, the latest turn's newest messages and older turns' final answers within 70% of it, cut or drop the rest, and note the dropped files and commands in the prompts",
		Params: []policy.Param{
			policy.IntParam("context_window", 0, 0, policy.NoBound, "the model's context window (modelInfo.contextWindow); 0: the transcript model's, else none"),
			policy.IntParam("max_input_tokens", 0, 0, policy.NoBound, "the model's maxInputTokens; 0: none (90% of the window is usable)"),
			policy.IntParam("max_tokens", 0, 0, policy.NoBound, "the model's max output tokens (maxTokens); 0: not known"),
		},
		Differs: []string{
			"the request's tools are not in a transcript: the overhead beyond the messages is the system prompt alone, and the trigger fires later than Cline's by the tools' size",
			"the previous request's billed input scales the budget only while the policy has sent what the agent sent (before its first compaction); after it, the policy's own requests were never billed",
			"Cline's messages are the transcript's: a tool message, or a system message after the first, is a user message; file and image blocks are the transcript's",
		},
		Build: func(v policy.Values) policy.Policy {
			return &clinePolicy{Base: policy.NewBase(Cline, v), contextWindow: v.Int("context_window"), maxInput: v.Int("max_input_tokens"), maxTokens: v.Int("max_tokens")}
		},
	},
}

// Cline's constants (compaction-shared.ts).
const (
	clineDefaultMaxInput  = 128_000 // DEFAULT_MAX_INPUT_TOKENS
	clineWindowRatio      = 0.9     // CONTEXT_WINDOW_INPUT_RATIO
	clineTriggerRatio     = 0.9     // COMPACTION_TRIGGER_RATIO
	clineUnderestimateMax = 4.0     // MAX_INPUT_UNDERESTIMATE_FACTOR
	clineTargetRatio      = 0.7     // DEFAULT_TARGET_RATIO
	clineLongRatio        = 0.5     // LONG_CONVERSATION_TARGET_RATIO
	clinePreservedAnswers = 3       // PRESERVED_ASSISTANT_TEXT_COUNT
	clineCommandLimit     = 100     // COMMAND_SUMMARY_CHAR_LIMIT
)

// clineMsg is a message as Cline holds it ({id, role, content,
// metadata}), and the transcript message it stands for.
type clineMsg struct {
	v   *jsValue
	src int
	// orig is the content as the transcript holds it.
	orig *jsValue
}

func (m clineMsg) role() string        { return m.v.str("role") }
func (m clineMsg) content() []*jsValue { return m.v.field("content").a }
func (m clineMsg) meta() *jsValue      { return m.v.field("metadata") }
func (m clineMsg) withContent(c []*jsValue) clineMsg {
	return clineMsg{m.v.with("content", &jsValue{kind: 'a', a: c}), m.src, m.orig}
}
func (m clineMsg) withMeta(meta *jsValue) clineMsg {
	return clineMsg{m.v.with("metadata", meta), m.src, m.orig}
}

// tokens is Cline's estimate of the message: ceil(JSON length / 3), at
// least 1 (createTokenEstimator).
func (m clineMsg) tokens() int { return clineEstimate(m.v.len()) }

func clineEstimate(units int) int { return max(1, (units+2)/3) }

// clineState is a replay's session. What a call sends is the
// projection: the compacted messages (none before the first
// compaction), then the messages of the transcript since (tail), which
// the state extends call by call, with the sums Cline's estimates take.
// A compaction happens before the projection passes the usable input,
// so the projection stays the size of the model's window, whatever the
// session's length.
type clineState struct {
	lead int // the leading system messages
	// systemUnits is the JSON length of the system prompt, their text.
	systemUnits int
	compacted   []clineMsg
	tail        []clineMsg
	next        int // the transcript message the tail goes on with
	units       int // the JSON length of the projection's messages
	tokens      int // their estimates' sum
	compacts    bool
	// sent is what the last call sent after the system prompt, when it
	// compacted; items are the copies it sent, by content.
	sent  []clineMsg
	items map[*jsValue]policy.Item
}

// extend adds the transcript's messages before next to the tail, or
// makes the projection anew when a rollback undid some of it; dropped
// says that it dropped a compaction.
func (cs *clineState) extend(env *policy.Env) (dropped bool) {
	t := env.Transcript
	rebuild := false
	for _, rb := range t.Rollbacks {
		if rb.Index > cs.next-1 && rb.Index <= env.Next {
			rebuild = true
		}
	}
	if rebuild {
		// The compaction stands for messages some of which the user
		// undid: Cline's projection no longer matches its source, and
		// the session starts from the canonical history again.
		dropped = cs.compacts
		cs.compacted, cs.tail, cs.next, cs.compacts = nil, nil, cs.lead, false
		cs.units, cs.tokens = 0, 0
	}
	for i := max(cs.next, cs.lead); i < env.Next && i < len(t.Messages); i++ {
		if env.Undone(i) {
			continue
		}
		m := clineMessage(t, i)
		cs.tail = append(cs.tail, m)
		cs.units += m.v.len()
		cs.tokens += m.tokens()
	}
	cs.next = max(cs.next, env.Next)
	return dropped
}

func (cs *clineState) projection() []clineMsg {
	return append(slices.Clone(cs.compacted), cs.tail...)
}

func (p *clinePolicy) Guarantees() policy.Guarantees {
	return policy.Guarantees{Compacts: true}
}

func (p *clinePolicy) Apply(ctx context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	if err := ctx.Err(); err != nil {
		return policy.Step{}, err
	}
	t := env.Transcript
	cs, _ := st.Data.(*clineState)
	if cs == nil {
		cs = &clineState{}
		for cs.lead < len(t.Messages) && t.Messages[cs.lead].Role == transcript.RoleSystem {
			cs.lead++
		}
		cs.next = cs.lead
		cs.systemUnits = jsStringUnits(clineSystemPrompt(t, cs.lead))
		st.Data = cs
	}
	dropped := cs.extend(env)
	out, fired := p.compact(env, cs)
	switch {
	case out != nil:
		cs.compacted, cs.tail, cs.compacts = out, nil, true
		cs.units, cs.tokens = 0, 0
		for _, m := range out {
			cs.units += m.v.len()
			cs.tokens += m.tokens()
		}
	case dropped:
		// The history given is the dropped compaction's: send the
		// transcript's messages instead.
		out = cs.projection()
	default:
		// What was sent and the turn since: the history given.
		cs.sent = nil
		return policy.Step{History: hist}, nil
	}
	cs.sent = out
	step := policy.Step{Fired: fired}
	step.History, cs.items = clineItems(t, cs.lead, out, cs.items)
	sent := map[string]bool{}
	for _, it := range step.History {
		sent[it.ID] = true
		if it.Truncated {
			step.Truncated = append(step.Truncated, it.ID)
		}
	}
	for _, it := range hist {
		if !sent[it.ID] {
			step.Evicted = append(step.Evicted, it.ID)
		}
	}
	return step, nil
}

// clineMessage returns transcript message i as a Cline message: {id:
// "m<i>", role, content}, its content the blocks' JSON (the Anthropic
// shape), a tool or system message a user message.
func clineMessage(t *transcript.Transcript, i int) clineMsg {
	m := &t.Messages[i]
	role := "user"
	if m.Role == transcript.RoleAssistant {
		role = "assistant"
	}
	content, err := parseJS(transcript.ContentJSON(m.Blocks))
	if err != nil || content.kind != 'a' {
		content = &jsValue{kind: 'a', a: []*jsValue{}}
	}
	if len(content.a) == len(m.Blocks) { // ContentJSON writes a value per block
		for k, b := range content.a {
			b.block = &m.Blocks[k]
		}
	}
	return clineMsg{jsObject("id", jsString(msgid.Of(i)), "role", jsString(role), "content", content), i, content}
}

// clineItems returns what is sent: the leading system messages, then
// each message, the transcript's own where its content is, else a copy
// with its content. made keeps the copies by content, so that a message
// sent the same way again is the same item.
func clineItems(t *transcript.Transcript, lead int, msgs []clineMsg, made map[*jsValue]policy.Item) ([]policy.Item, map[*jsValue]policy.Item) {
	out := make([]policy.Item, 0, lead+len(msgs))
	for i := range lead {
		out = append(out, policy.Original(t, i))
	}
	next := map[*jsValue]policy.Item{}
	for _, m := range msgs {
		c := m.v.field("content")
		if c.equal(m.orig) {
			out = append(out, policy.Original(t, m.src))
			continue
		}
		it, ok := made[c]
		if !ok {
			orig := &t.Messages[m.src]
			role := transcript.RoleUser
			if m.role() == "assistant" {
				role = transcript.RoleAssistant
			}
			msg := &transcript.Message{Role: role, Model: orig.Model, Pos: orig.Pos, Time: orig.Time, Blocks: clineBlocks(m.content())}
			it = policy.TruncatedOriginal(m.src, msg)
		}
		next[c] = it
		out = append(out, it)
	}
	return out, next
}

// clineBlocks turns Cline's content back into blocks: a block as the
// transcript holds it where it is unchanged, else one made of its JSON.
func clineBlocks(content []*jsValue) []transcript.Block {
	var out []transcript.Block
	for _, b := range content {
		if b.block != nil {
			out = append(out, *b.block)
			continue
		}
		switch b.str("type") {
		case "text":
			out = append(out, transcript.Block{Type: transcript.BlockText, Text: b.str("text")})
		case "thinking":
			out = append(out, transcript.Block{Type: transcript.BlockThinking, Text: b.str("thinking")})
		case "tool_use":
			out = append(out, transcript.Block{Type: transcript.BlockToolUse, ID: b.str("id"), Name: b.str("name"), Input: jsJSON(b.field("input"))})
		case "tool_result":
			c := b.field("content")
			blk := transcript.Block{Type: transcript.BlockToolResult, ID: b.str("tool_use_id")}
			if f := b.field("is_error"); f != nil && f.s == "true" {
				blk.IsError = true
			}
			if c != nil && c.kind == 's' {
				blk.Text = c.s
			} else {
				blk.Raw = jsJSON(c)
				var parts []string
				if c != nil {
					for _, e := range c.a {
						parts = append(parts, e.str("text"))
					}
				}
				blk.Text = strings.Join(parts, "\n")
			}
			out = append(out, blk)
		case "image":
			out = append(out, transcript.Block{Type: transcript.BlockImage})
		default:
			out = append(out, transcript.Block{Type: transcript.BlockOther, Name: b.str("type"), Raw: jsJSON(b)})
		}
	}
	return out
}

// compact is the prepare-turn callback on the state's projection: the
// trigger, then the basic compaction. It returns nil when it does not
// compact.
func (p *clinePolicy) compact(env *policy.Env, cs *clineState) ([]clineMsg, *policy.Firing) {
	// estimateRequestInputTokens: JSON.stringify({systemPrompt, messages, tools: []}).
	n := len(cs.compacted) + len(cs.tail)
	units := len(`{"systemPrompt":,"messages":[],"tools":[]}`) + cs.systemUnits + max(0, n-1) + cs.units
	request := clineEstimate(units)
	overhead := max(0, request-cs.tokens)
	maxInput := p.usableInput(env)
	factor := 1.0
	if prev := p.previousInput(env, cs); prev > 0 && request > 0 {
		factor = math.Min(clineUnderestimateMax, math.Max(1, float64(prev)/float64(request)))
	}
	maxInput /= factor
	trigger := maxInput * clineTriggerRatio
	if float64(request) < trigger {
		return nil, nil
	}
	msgs := cs.projection()
	messageTrigger := max(1, int(math.Floor(trigger-float64(overhead))))
	// resolveAutoRequestTargetTokens.
	target := math.Floor(trigger * clineTargetRatio)
	if clinePairs(msgs) >= 5 && p.maxTokens > 0 && float64(p.maxTokens) < maxInput {
		target = math.Floor(maxInput * clineLongRatio)
	}
	target = math.Max(1, math.Min(target, math.Min(maxInput, math.Max(1, trigger-1))))
	messageTarget := max(1, int(math.Floor(target-float64(overhead))))
	out := clineBasicCompaction(msgs, messageTarget, messageTrigger)
	if out == nil {
		return nil, nil
	}
	return out, &policy.Firing{What: "compaction", Unit: "tokens (JSON length / 3)", Trigger: int(math.Ceil(trigger)), Before: request, After: overhead + clineTokens(out)}
}

// usableInput is resolveEffectiveMaxInputTokens of the model's info, or
// DEFAULT_MAX_INPUT_TOKENS.
func (p *clinePolicy) usableInput(env *policy.Env) float64 {
	window := p.contextWindow
	if window == 0 {
		window = env.ModelWindow
	}
	switch {
	case p.maxInput > 0 && window > 0:
		return float64(min(p.maxInput, window))
	case p.maxInput > 0:
		return float64(p.maxInput)
	case window > 0:
		return float64(window) * clineWindowRatio
	}
	return clineDefaultMaxInput
}

// previousInput is previousRequestInputTokens: the previous call's
// billed prompt, when it is of the same run (no typed user message
// since) and the session has not compacted; else 0.
func (p *clinePolicy) previousInput(env *policy.Env, cs *clineState) int {
	if cs.compacts || env.Call == 0 {
		return 0
	}
	t := env.Transcript
	prev := -1
	for i := env.Next - 1; i >= cs.lead; i-- {
		if t.Messages[i].Role == transcript.RoleAssistant {
			prev = i
			break
		}
		if clineTypedBlocks(&t.Messages[i]) {
			return 0
		}
	}
	if prev < 0 || t.Messages[prev].Usage == nil {
		return 0
	}
	return int(t.Messages[prev].Usage.Prompt())
}

// clineTypedBlocks reports whether a transcript message is a typed user
// message: not the assistant's, with a block that is not a tool result.
func clineTypedBlocks(m *transcript.Message) bool {
	if m.Role == transcript.RoleAssistant {
		return false
	}
	for _, b := range m.Blocks {
		if b.Type != transcript.BlockToolResult {
			return true
		}
	}
	return false
}

// clineSystemPrompt is the texts of the leading system messages, joined
// by a blank line.
func clineSystemPrompt(t *transcript.Transcript, lead int) string {
	var parts []string
	for i := range lead {
		var s strings.Builder
		for _, b := range t.Messages[i].Blocks {
			if b.Type == transcript.BlockText {
				s.WriteString(b.Text)
			}
		}
		parts = append(parts, s.String())
	}
	return strings.Join(parts, "\n\n")
}

// clinePairs is countUserAssistantPairs.
func clinePairs(msgs []clineMsg) int {
	pairs, pending := 0, false
	for _, m := range msgs {
		switch m.role() {
		case "user":
			pending = true
		case "assistant":
			if pending {
				pairs++
				pending = false
			}
		}
	}
	return pairs
}

// clineToolResultOnly is isToolResultOnlyUserMessage.
func clineToolResultOnly(m clineMsg) bool {
	if m.role() != "user" {
		return false
	}
	c := m.content()
	if len(c) == 0 {
		return false
	}
	for _, b := range c {
		if b.str("type") != "tool_result" {
			return false
		}
	}
	return true
}

// clineTurnStart is isTurnStartMessage: a typed user message (not tool
// results alone, not an agentic compaction's summary).
func clineTurnStart(m clineMsg) bool {
	return m.role() == "user" && !clineToolResultOnly(m) && m.meta().str("kind") != "compaction_summary"
}

// clinePreserved is isPreservedByCompaction.
func clinePreserved(m clineMsg) bool { return m.meta().str("compaction") == "preserved" }

// clineSanitizeTyped is sanitizeTypedUserMessage: texts trimmed, empty
// ones dropped; ok is false when nothing is left.
func clineSanitizeTyped(m clineMsg) (clineMsg, bool) {
	var kept []*jsValue
	for _, b := range m.content() {
		if b.str("type") == "text" {
			text := jsTrim(b.str("text"))
			if text == "" {
				continue
			}
			b = b.with("text", jsString(text))
		}
		kept = append(kept, b)
	}
	if len(kept) == 0 {
		return m, false
	}
	return m.withContent(kept), true
}

// clineUserBlocks is userContentBlocks: the blocks, files and images
// left out unless keepAttachments.
func clineUserBlocks(m clineMsg, keepAttachments bool) []*jsValue {
	c := m.content()
	if keepAttachments {
		return slices.Clone(c)
	}
	var out []*jsValue
	for _, b := range c {
		if t := b.str("type"); t != "file" && t != "image" {
			out = append(out, b)
		}
	}
	return out
}

// clineOlderFinal is sanitizeOlderAssistantFinal: thinking dropped; ok
// is false when no text with content is left.
func clineOlderFinal(m clineMsg) (clineMsg, bool) {
	var kept []*jsValue
	hasText := false
	for _, b := range m.content() {
		switch b.str("type") {
		case "thinking", "redacted_thinking":
			continue
		case "text":
			if jsTrim(b.str("text")) != "" {
				hasText = true
			}
		}
		kept = append(kept, b)
	}
	if !hasText {
		return m, false
	}
	return m.withContent(kept), true
}

func clineHasToolUse(m clineMsg) bool {
	for _, b := range m.content() {
		if b.str("type") == "tool_use" {
			return true
		}
	}
	return false
}

// clineBasicCompaction is runBasicCompaction: nil when it leaves the
// messages as they were.
func clineBasicCompaction(z []clineMsg, messageTarget, messageTrigger int) []clineMsg {
	if len(z) < 2 {
		return nil
	}
	c := &clineCompactor{z: z, target: max(1, min(messageTarget, messageTrigger))}
	if !c.sanitize() {
		return nil
	}
	c.freeze()
	c.keepLatest()
	c.keepFinals()
	projected := clineProject(c.kept(), min(max(c.target, c.total), max(1, messageTrigger)))
	merged := clineMergeTurns(projected, z)
	if clineSame(z, merged) {
		return nil
	}
	return clineMarkCompacted(merged, len(z))
}

// A clineCompactor is one runBasicCompaction: the messages z, the
// token target, and what it keeps of each, with the tokens kept so far
// (total).
type clineCompactor struct {
	z      []clineMsg
	target int
	// typed are the turns' first messages (clineTurnStart), latest the
	// last of them; sanitized what is kept of each, by index.
	typed     []int
	latest    int
	sanitized map[int]clineMsg
	// frozen are the messages kept whole wherever they are (preserved),
	// keep the latest turn's newest, finals the older turns' answers.
	frozen, keep map[int]bool
	finals       map[int]clineMsg
	total        int
}

// sanitize keeps each turn's first message, sanitized; false when none
// is left.
func (c *clineCompactor) sanitize() bool {
	c.sanitized = map[int]clineMsg{}
	for i, m := range c.z {
		if clineTurnStart(m) {
			c.typed = append(c.typed, i)
			if s, ok := clineSanitizeTyped(m); ok {
				c.sanitized[i] = s
			}
		}
	}
	if len(c.sanitized) == 0 {
		return false
	}
	c.latest = c.typed[len(c.typed)-1]
	for _, i := range c.typed {
		if m, ok := c.sanitized[i]; ok {
			c.total += m.withContent(clineUserBlocks(m, i == c.latest)).tokens()
		}
	}
	return true
}

// freeze keeps the preserved messages.
func (c *clineCompactor) freeze() {
	c.frozen = map[int]bool{}
	for i, m := range c.z {
		if _, ok := c.sanitized[i]; !ok && clinePreserved(m) {
			c.frozen[i] = true
			c.total += m.tokens()
		}
	}
}

// keepLatest keeps the latest turn's newest messages that fit, from an
// assistant one.
func (c *clineCompactor) keepLatest() {
	z := c.z
	c.keep = map[int]bool{}
	start, acc := len(z), 0
	for i := len(z) - 1; i > c.latest; i-- {
		if c.frozen[i] {
			break
		}
		n := z[i].tokens()
		if c.total+acc+n > c.target {
			break
		}
		acc += n
		start = i
	}
	for start < len(z) && z[start].role() != "assistant" {
		start++
	}
	for i := start; i < len(z); i++ {
		c.keep[i] = true
		c.total += z[i].tokens()
	}
}

// keepFinals keeps the older turns' concluding answers that fit, newest
// first.
func (c *clineCompactor) keepFinals() {
	c.finals = map[int]clineMsg{}
	for k := len(c.typed) - 2; k >= 0; k-- {
		if i, f, ok := c.final(c.typed[k]+1, c.typed[k+1]); ok {
			if n := f.tokens(); c.total+n <= c.target {
				c.finals[i] = f
				c.total += n
			}
		}
	}
}

// final returns the concluding answer of the turn whose messages after
// its first are z[from:to]: its last assistant message with no tool use,
// none past a preserved one.
func (c *clineCompactor) final(from, to int) (int, clineMsg, bool) {
	for i := to - 1; i >= from; i-- {
		m := c.z[i]
		if c.frozen[i] {
			break
		}
		if m.role() != "assistant" || clineHasToolUse(m) {
			continue
		}
		f, ok := clineOlderFinal(m)
		return i, f, ok
	}
	return 0, clineMsg{}, false
}

// kept returns the messages kept, in order.
func (c *clineCompactor) kept() []clineMsg {
	var kept []clineMsg
	for i, m := range c.z {
		if s, ok := c.sanitized[i]; ok {
			kept = append(kept, s)
			continue
		}
		if c.frozen[i] || c.keep[i] {
			kept = append(kept, m)
			continue
		}
		if f, ok := c.finals[i]; ok {
			kept = append(kept, f)
		}
	}
	return kept
}

// clineMarkCompacted returns merged, the compaction of n messages, with
// the compaction's record on its first message and the others marked
// preserved.
func clineMarkCompacted(merged []clineMsg, n int) []clineMsg {
	removed := 0
	if md := merged[0].meta(); md.str("kind") == "compaction" {
		if f := md.field("messagesRemoved"); f != nil && f.kind == 'n' {
			removed, _ = strconv.Atoi(f.s)
		}
	}
	record := jsObject("kind", jsString("compaction"), "reason", jsString("auto_compaction"), "displayRole", jsString("system"),
		"messagesRemoved", jsInt(removed+n-len(merged)))
	out := make([]clineMsg, len(merged))
	for i, m := range merged {
		switch {
		case i == 0 && clineTurnStart(m):
			out[i] = m.withMeta(m.meta().merged(record).with("userRunSpan", jsInt(clineUserRunSpan(m))))
		case clineTurnStart(m) || clinePreserved(m):
			out[i] = m
		default:
			out[i] = m.withMeta(m.meta().merged(jsObject("compaction", jsString("preserved"))))
		}
	}
	return out
}

// clineSame reports whether two message lists have the same JSON.
func clineSame(a, b []clineMsg) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].v.equal(b[i].v) {
			return false
		}
	}
	return true
}

var (
	clineUserInputTag   = regexp.MustCompile(`<user_input\b[^>]*>([\s\S]*?)</user_input>`)
	clineUserCommandTag = regexp.MustCompile(`<user_command\b[^>]*>([\s\S]*?)</user_command>`)
	clineUserInputOpen  = regexp.MustCompile(`<user_input[^>]*>`)
	clineUserCmdOpen    = regexp.MustCompile(`<user_command[^>]*>`)
	clineSlashCommand   = regexp.MustCompile(`(?i)^<user_command\b([^>]*)>([\s\S]*?)</user_command>$`)
	clineSlashAttr      = regexp.MustCompile(`(?i)slash="([^"]+)"`)
	clineLineRange      = regexp.MustCompile(`(?:^|\n|\\n)[-+](\d+): `)
)

// clineUserRunSpan is getUserRunSpan of a typed user message: what its
// metadata records, else 0 for a message that shows the user nothing
// (formatDisplayUserInput empty, or a task resumption), else 1.
func clineUserRunSpan(m clineMsg) int {
	md := m.meta()
	kind := md.str("kind")
	span := -1
	if f := md.field("userRunSpan"); f != nil && f.kind == 'n' {
		if n, err := strconv.Atoi(f.s); err == nil && n >= 0 {
			span = n
		}
	}
	if kind == "compaction" || kind == "compaction_summary" {
		if span >= 0 {
			return span
		}
		return 1
	}
	if span >= 0 {
		return span
	}
	switch kind {
	case "auto_compaction", "compaction_budget_emergency", "completion_reminder", "loop_detection_notice", "manual_compaction", "mistake_stop_notice", "recovery_notice":
		return 0
	}
	attachment, result := false, false
	var texts []string
	for _, b := range m.content() {
		switch b.str("type") {
		case "text":
			if b.isStr("text") {
				texts = append(texts, b.str("text"))
			}
		case "tool_result", "tool-result":
			result = true
		case "file", "image":
			attachment = true
		}
	}
	if attachment && !result {
		return 1
	}
	shown := clineDisplayInput(strings.Join(texts, "\n"))
	if shown == "" || strings.HasPrefix(shown, "[TASK RESUMPTION]") ||
		shown == "The user approved switching to act mode. Continue with the approved plan now." {
		return 0
	}
	return 1
}

// clineDisplayInput is formatDisplayUserInput (@cline/shared): the text
// without its user_input and user_command tags and mode notices, a slash
// command as "/name text".
func clineDisplayInput(n string) string {
	trimmed := jsTrim(n)
	s := trimmed
	for _, tag := range []struct{ whole, open *regexp.Regexp }{{clineUserInputTag, clineUserInputOpen}, {clineUserCommandTag, clineUserCmdOpen}} {
		if g := tag.whole.ReplaceAllString(s, "$1"); g != s {
			s = jsTrim(g)
		} else {
			s = jsTrim(tag.open.ReplaceAllString(s, ""))
		}
	}
	s = jsTrim(clineRemoveSections(s, "mode_notice"))
	slash := ""
	if m := clineSlashCommand.FindStringSubmatch(trimmed); m != nil {
		if a := clineSlashAttr.FindStringSubmatch(m[1]); a != nil {
			slash = jsTrim(a[1])
		}
	}
	if slash == "" {
		return s
	}
	if strings.ToLower(slash) == "team" {
		v := s
		if strings.HasPrefix(strings.ToLower(s), "spawn a team of agents for the following task:") {
			v = jsTrim(s[46:])
		}
		if v != "" {
			return "/team " + v
		}
		return "/team"
	}
	if s != "" {
		return "/" + slash + " " + s
	}
	return "/" + slash
}

// clineRemoveSections removes each <tag>…</tag> from s.
func clineRemoveSections(s, tag string) string {
	open, end := "<"+tag+">", "</"+tag+">"
	i := strings.Index(s, open)
	for i != -1 {
		j := strings.Index(s[i+len(open):], end)
		if j == -1 {
			break
		}
		s = s[:i] + s[i+len(open)+j+len(end):]
		k := strings.Index(s[i:], open)
		if k == -1 {
			break
		}
		i += k
	}
	return s
}

// clineAnswer is assistantTextContent: an assistant message's texts,
// trimmed and joined by lines ("" for none).
func clineAnswer(m clineMsg) string {
	if m.role() != "assistant" {
		return ""
	}
	var parts []string
	for _, b := range m.content() {
		if b.str("type") == "text" {
			if t := jsTrim(b.str("text")); t != "" {
				parts = append(parts, t)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// clineActivity is ToolActivitySummary.
type clineActivity struct{ read, edited, commands []string }

func (a clineActivity) any() bool { return len(a.read)+len(a.edited)+len(a.commands) > 0 }

func clineAddUnique(list *[]string, s string) {
	if t := jsTrim(s); t != "" && !slices.Contains(*list, t) {
		*list = append(*list, t)
	}
}

// clineToolActivity is summarizeToolActivity: the files read_files read
// (with their line ranges), those editor and apply_patch edited (with the
// range their result's numbered diff shows) and the commands
// run_commands ran (cut to 100 characters).
func clineToolActivity(msgs []clineMsg) clineActivity {
	var t clineActivityTally
	for _, m := range msgs {
		for _, b := range m.content() {
			switch b.str("type") {
			case "tool_use":
				t.use(b)
			case "tool_result":
				t.result(b)
			}
		}
	}
	for _, e := range t.edits {
		clineAddUnique(&t.a.edited, e.path)
	}
	return t.a
}

// clineActivityTally is summarizeToolActivity's state: the activity so
// far, and the edits whose result is not seen yet (their path).
type clineActivityTally struct {
	a     clineActivity
	edits []clinePendingEdit
}

type clinePendingEdit struct{ id, path string }

// use takes a tool_use block.
func (t *clineActivityTally) use(b *jsValue) {
	input := b.field("input")
	if input == nil {
		input = &jsValue{kind: 'o'}
	}
	switch b.str("name") {
	case "read_files":
		files := input.field("files")
		if files == nil || files.kind != 'a' {
			for _, p := range clinePaths(input) {
				clineAddUnique(&t.a.read, p)
			}
			return
		}
		for _, f := range files.a {
			if path := clineReadPath(f); path != "" {
				clineAddUnique(&t.a.read, path)
			}
		}
	case "editor", "apply_patch":
		if ps := clinePaths(input); len(ps) > 0 {
			id := b.str("id")
			if k := slices.IndexFunc(t.edits, func(e clinePendingEdit) bool { return e.id == id }); k >= 0 {
				t.edits[k].path = ps[0]
			} else {
				t.edits = append(t.edits, clinePendingEdit{id, ps[0]})
			}
		}
	case "run_commands":
		if cmds := input.field("commands"); cmds != nil && cmds.kind == 'a' {
			for _, c := range cmds.a {
				if c.kind == 's' && jsTrim(c.s) != "" {
					cmd := jsTrim(c.s)
					if jsLength(cmd) > clineCommandLimit {
						cmd = jsSlice(cmd, clineCommandLimit) + "..."
					}
					clineAddUnique(&t.a.commands, cmd)
				}
			}
		}
	}
}

// clineReadPath is the path of a read_files file, with its line range
// where both ends are given ("": none).
func clineReadPath(f *jsValue) string {
	if f.kind != 'o' || !f.isStr("path") {
		return ""
	}
	path := jsTrim(f.str("path"))
	if path == "" {
		return ""
	}
	start, end := f.field("start_line"), f.field("end_line")
	if start != nil && end != nil && start.kind == 'n' && end.kind == 'n' && clineIsNumber(start.s) && clineIsNumber(end.s) {
		path += ":" + start.s + "-" + end.s
	}
	return path
}

// result takes a tool_result block: an edit's, with the range its
// numbered diff shows.
func (t *clineActivityTally) result(b *jsValue) {
	id := b.str("tool_use_id")
	k := slices.IndexFunc(t.edits, func(e clinePendingEdit) bool { return e.id == id })
	if k < 0 {
		return
	}
	path := t.edits[k].path
	if lo, hi, ok := clineDiffRange(b.field("content")); ok {
		path += ":" + strconv.Itoa(lo) + "-" + strconv.Itoa(hi)
	}
	clineAddUnique(&t.a.edited, path)
	t.edits = slices.Delete(t.edits, k, k+1)
}

func clineIsNumber(s string) bool { return s != "true" && s != "false" && s != "null" }

// clinePaths is collectPaths: the strings at path, file_path,
// target_file, new_file_path, old_file_path, files[].path and
// file_paths, in that order.
func clinePaths(v *jsValue) []string {
	if v == nil {
		return nil
	}
	switch v.kind {
	case 's':
		if jsTrim(v.s) != "" {
			return []string{v.s}
		}
	case 'a':
		var out []string
		for _, e := range v.a {
			out = append(out, clinePaths(e)...)
		}
		return out
	case 'o':
		var out []string
		for _, k := range []string{"path", "file_path", "target_file", "new_file_path", "old_file_path"} {
			out = append(out, clinePaths(v.field(k))...)
		}
		if files := v.field("files"); files != nil && files.kind == 'a' {
			for _, f := range files.a {
				if f.kind == 'o' {
					out = append(out, clinePaths(f.field("path"))...)
				}
			}
		}
		if fp := v.field("file_paths"); fp != nil && fp.kind == 'a' {
			out = append(out, clinePaths(fp)...)
		}
		return out
	}
	return nil
}

// clineDiffRange is parseEditedLineRange: the lowest and highest line
// numbers of a numbered diff ("+N: " or "-N: " lines) in a tool result,
// read from its JSON's result when it is JSON.
func clineDiffRange(c *jsValue) (lo, hi int, ok bool) {
	text := ""
	switch {
	case c == nil:
	case c.kind == 's':
		text = c.s
	case c.kind == 'a':
		var parts []string
		for _, e := range c.a {
			switch e.str("type") {
			case "text":
				parts = append(parts, e.str("text"))
			case "file":
				parts = append(parts, e.str("content"))
			default:
				parts = append(parts, "")
			}
		}
		text = strings.Join(parts, "\n")
	}
	if v, err := parseJS([]byte(text)); err == nil && v.kind == 'o' && v.isStr("result") {
		text = v.str("result")
	}
	lo, hi = math.MaxInt, math.MinInt
	for _, m := range clineLineRange.FindAllStringSubmatch(text, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		lo, hi = min(lo, n), max(hi, n)
	}
	return lo, hi, lo <= hi
}

// clineDroppedNotice is buildDroppedWorkSummaryBlock.
func clineDroppedNotice(a clineActivity, responses []string) *jsValue {
	text := "<SYSTEM_NOTICE>\nEarlier context was compacted. Summary of your actions after the request above:\n" +
		"Files read:\n" + strings.Join(a.read, "\n") + "\n\nFiles edited:\n" + strings.Join(a.edited, "\n") +
		"\n\nCommands ran:\n" + strings.Join(a.commands, "\n")
	if len(responses) > 0 {
		text += "\n\nYour recent responses:\n" + strings.Join(responses, "\n---\n")
	}
	text += "</SYSTEM_NOTICE>"
	return jsObject("type", jsString("text"), "text", jsString(text))
}

// clineMergeTurns is mergeAdjacentUserTurns: runs of typed user messages
// merged into one, each gap bridged by what was dropped there, and the
// work dropped after a typed message noted at its end; orig is the
// history compacted.
func clineMergeTurns(msgs, orig []clineMsg) []clineMsg {
	g := newClineMerger(msgs, orig)
	entries := g.entries()
	for k := range entries {
		e := &entries[k]
		if !e.typed || !e.hasLast {
			continue
		}
		gapEnd, ok := len(orig), true
		if k+1 < len(entries) {
			gapEnd, ok = entries[k+1].first, entries[k+1].hasFirst
		}
		if !ok || gapEnd <= e.last+1 {
			continue
		}
		if n, ok := g.notice(e.last+1, gapEnd); ok {
			e.m = e.m.withContent(append(clineUserBlocks(e.m, true), n))
		}
	}
	out := make([]clineMsg, len(entries))
	for k, e := range entries {
		out[k] = e.m
	}
	return out
}

// A clineMerger is one mergeAdjacentUserTurns of msgs, the compaction of
// orig.
type clineMerger struct {
	msgs, orig []clineMsg
	// at is where each id of orig is; answers are the newest
	// clinePreservedAnswers answers of orig; latest is the place in msgs
	// of its last typed message (-1: none).
	at      map[string]int
	answers map[int]bool
	latest  int
}

// A clineEntry is a message of the merge: one of msgs, or a run of typed
// ones merged, with the places in orig of its first and last.
type clineEntry struct {
	m                 clineMsg
	first, last       int
	hasFirst, hasLast bool
	typed             bool
}

func newClineMerger(msgs, orig []clineMsg) *clineMerger {
	g := &clineMerger{msgs: msgs, orig: orig, at: map[string]int{}, answers: map[int]bool{}, latest: -1}
	for i, m := range orig {
		if id := m.v.str("id"); id != "" {
			g.at[id] = i
		}
	}
	for i := len(orig) - 1; i >= 0 && len(g.answers) < clinePreservedAnswers; i-- {
		if clineAnswer(orig[i]) != "" {
			g.answers[i] = true
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if clineTurnStart(msgs[i]) {
			g.latest = i
			break
		}
	}
	return g
}

// index returns the place of m in orig.
func (g *clineMerger) index(m clineMsg) (int, bool) {
	id := m.v.str("id")
	if id == "" {
		return 0, false
	}
	i, ok := g.at[id]
	return i, ok
}

// notice returns the notice of what was dropped in orig[from:to]: its
// tool activity and preserved answers (false: nothing).
func (g *clineMerger) notice(from, to int) (*jsValue, bool) {
	a := clineToolActivity(g.orig[from:to])
	var r []string
	for i := from; i < to; i++ {
		if g.answers[i] {
			if t := clineAnswer(g.orig[i]); t != "" {
				r = append(r, t)
			}
		}
	}
	if !a.any() && len(r) == 0 {
		return nil, false
	}
	return clineDroppedNotice(a, r), true
}

// entries returns the merge's entries: each run of typed messages
// merged into one, the other messages as they are.
func (g *clineMerger) entries() []clineEntry {
	msgs := g.msgs
	var entries []clineEntry
	for i := 0; i < len(msgs); {
		if !clineTurnStart(msgs[i]) {
			k, ok := g.index(msgs[i])
			entries = append(entries, clineEntry{m: msgs[i], first: k, last: k, hasFirst: ok, hasLast: ok})
			i++
			continue
		}
		end := i
		for end+1 < len(msgs) && clineTurnStart(msgs[end+1]) {
			end++
		}
		first, ok1 := g.index(msgs[i])
		last, ok2 := g.index(msgs[end])
		entries = append(entries, clineEntry{m: g.run(i, end), first: first, last: last, hasFirst: ok1, hasLast: ok2, typed: true})
		i = end + 1
	}
	return entries
}

// run returns the typed messages msgs[i..end] as one: their blocks, each
// gap between two bridged by what was dropped there.
func (g *clineMerger) run(i, end int) clineMsg {
	msgs := g.msgs
	m := msgs[i]
	if end == i {
		if b := clineUserBlocks(m, i == g.latest); len(b) != len(m.content()) {
			m = m.withContent(b)
		}
		return m
	}
	var blocks []*jsValue
	span := 0
	for h := i; h <= end; h++ {
		span += clineUserRunSpan(msgs[h])
		if h > i {
			prev, ok1 := g.index(msgs[h-1])
			cur, ok2 := g.index(msgs[h])
			if ok1 && ok2 && cur > prev+1 {
				if n, ok := g.notice(prev+1, cur); ok {
					blocks = append(blocks, n)
				}
			}
		}
		blocks = append(blocks, clineUserBlocks(msgs[h], h == g.latest)...)
	}
	m = m.withContent(blocks)
	return m.withMeta(m.meta().merged(jsObject("userRunSpan", jsInt(span))))
}
