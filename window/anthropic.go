package window

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/client"
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
	base
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
	base
	keep int // -1: all
}

func (*anthropicClearTools) serverSide()    {}
func (*anthropicClearThinking) serverSide() {}

const anthropicPlaceholder = "[cleared]"

func init() {
	register(&Spec{
		Name: AnthropicClearToolUses, Source: "Anthropic Messages API context editing, clear_tool_uses_20250919 (docs.claude.com build-with-claude/context-editing)",
		Models: "clear_tool_uses_20250919", Held: heldDocs,
		Summary: "the API's edit: at the trigger, replace all but the newest tool results with a placeholder, at every request",
		Params: []Param{
			intParam("trigger", 100_000, 0, none, "trigger: input tokens of the request (0: use trigger_tool_uses)"),
			intParam("trigger_tool_uses", 0, 0, none, "trigger of type tool_uses: the number of tool uses, instead of input tokens (0: input tokens)"),
			intParam("keep", 3, 0, none, "keep: the newest tool uses kept"),
			intParam("clear_at_least", 0, 0, none, "clear_at_least: input tokens; clearing fewer, the edit clears nothing"),
			stringParam("exclude_tools", "", "exclude_tools: tool names never cleared, separated by |"),
			stringParam("clear_tool_inputs", "false", "clear_tool_inputs: true, false, or tool names separated by |"),
			stringParam("placeholder", anthropicPlaceholder, "the text a cleared result is replaced by"),
		},
		Differs: []string{
			"the API does not document the placeholder text it sends: the policy sends [cleared] (placeholder=…), a few tokens either way",
			"a cleared call's input is sent as {}; the API's form of a cleared input is not documented",
			"the request's input tokens are the previous call's billed prompt plus chars4 of what was appended, or a line fitted on the earlier calls (see go doc), not counted by Anthropic's tokenizer",
		},
		Check: func(v Values) error {
			if v.Int("trigger") == 0 && v.Int("trigger_tool_uses") == 0 {
				return fmt.Errorf("trigger=0 needs trigger_tool_uses")
			}
			return nil
		},
		Build: func(v Values) Policy {
			p := &anthropicClearTools{base: base{AnthropicClearToolUses, v}, trigger: v.Int("trigger"), triggerUses: v.Int("trigger_tool_uses"),
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
	})
	register(&Spec{
		Name: AnthropicClearThinking, Source: "Anthropic Messages API context editing, clear_thinking_20251015 (docs.claude.com build-with-claude/context-editing)",
		Models: "clear_thinking_20251015", Held: heldDocs,
		Summary: "the API's edit: remove the thinking of all but the newest assistant turns, at every request",
		Params: []Param{
			stringParam("keep", "1", "keep: the newest assistant turns whose thinking is sent, or all"),
		},
		Check: func(v Values) error {
			if k := v.String("keep"); k != "all" {
				if n, err := strconv.Atoi(k); err != nil || n < 0 {
					return fmt.Errorf("keep=%s: want a number of turns (0 or more) or all", k)
				}
			}
			return nil
		},
		Build: func(v Values) Policy {
			keep := -1
			if k := v.String("keep"); k != "all" {
				keep, _ = strconv.Atoi(k)
			}
			return &anthropicClearThinking{base: base{AnthropicClearThinking, v}, keep: keep}
		},
	})
}

// serverState is a provider edit's state: the copies it sent, which the
// client never had, and the copy of each message as it was last edited.
type serverState struct {
	made    map[any]bool
	request *requestTokens
	// copies holds each message's edited copy, made again only when its
	// edit changes: a message cleared at every request is one copy, not
	// one per request (memory and counts linear in the calls).
	copies map[*transcript.Message]editedCopy
	// clear is anthropic-clear-tool-uses' own, think
	// anthropic-clear-thinking's (nil for the others).
	clear *clearState
	think *thinkState
	// log says to list in added each copy made adds (a chain's part: the
	// chain reads and empties it after each call).
	log   bool
	added []any
}

// mark adds m to the copies sent.
func (ss *serverState) mark(m any) {
	if ss.made[m] {
		return
	}
	ss.made[m] = true
	if ss.log {
		ss.added = append(ss.added, m)
	}
}

// A messageEdit is what an edit does to a message: the tool results it
// replaces by the placeholder and the tool uses whose input it sends as
// {} (block positions, ascending), or its thinking removed.
type messageEdit struct {
	results, inputs []int
	placeholder     string
	thinking        bool
}

type editedCopy struct {
	edit messageEdit
	msg  *transcript.Message
}

func (e messageEdit) equal(o messageEdit) bool {
	return slices.Equal(e.results, o.results) && slices.Equal(e.inputs, o.inputs) && e.placeholder == o.placeholder && e.thinking == o.thinking
}

// edited returns m with edit applied: the copy made at an earlier call
// when the edit is the same.
func (ss *serverState) edited(m *transcript.Message, edit messageEdit) *transcript.Message {
	if c, ok := ss.copies[m]; ok && c.edit.equal(edit) {
		return c.msg
	}
	c := *m
	if edit.thinking {
		c.Blocks = nil
		for _, b := range m.Blocks {
			if b.Type != transcript.BlockThinking {
				c.Blocks = append(c.Blocks, b)
			}
		}
	} else {
		c.Blocks = slices.Clone(m.Blocks)
		for _, j := range edit.results {
			c.Blocks[j].Text, c.Blocks[j].Raw = edit.placeholder, nil
		}
		for _, j := range edit.inputs {
			c.Blocks[j].Input = []byte("{}")
		}
	}
	if ss.copies == nil {
		ss.copies = map[*transcript.Message]editedCopy{}
	}
	ss.copies[m] = editedCopy{edit, &c}
	return &c
}

func serverStateOf(env *Env, st *State) *serverState {
	ss, _ := st.Data.(*serverState)
	if ss == nil {
		ss = &serverState{made: map[any]bool{}, request: newRequestTokens(env)}
		st.Data = ss
	}
	return ss
}

// remember records the copies out holds that client does not.
func (ss *serverState) remember(client, out []Item) {
	had := make(map[any]bool, len(client))
	for _, it := range client {
		had[it.Msg] = true
	}
	for _, it := range out {
		if !had[it.Msg] && it.Index() >= 0 {
			ss.mark(it.Msg)
		}
	}
}

func (p *anthropicClearTools) Apply(_ context.Context, env *Env, st *State, hist []Item) (Step, error) {
	ss := serverStateOf(env, st)
	if ss.clear == nil {
		ss.clear = &clearState{}
	}
	cs := ss.clear
	cs.sync(env, p, ss, hist)
	client := hist
	if cs.restored > 0 {
		client = cs.client
	}
	step := Step{History: hist}
	input := ss.request.at(env, st, client, cs.whole)
	fires := p.triggerUses > 0 && len(cs.uses) >= p.triggerUses || p.trigger > 0 && input >= p.trigger
	if !fires || cs.edited == 0 {
		if cs.restored > 0 {
			step.History = cs.give(env, cs.client)
		}
		cs.remember(ss, false)
		return step, nil
	}
	cs.copies(env, ss)
	cleared := ss.request.scale(env, cs.diff)
	if cleared < p.clearAtLeast {
		warnf(&step, "clearing would clear %d input tokens, under clear_at_least %d: nothing cleared", cleared, p.clearAtLeast)
		if cs.restored > 0 {
			step.History = cs.give(env, cs.client)
		}
		cs.remember(ss, false)
		return step, nil
	}
	step.Truncated = cs.cut(env)
	step.History = cs.give(env, cs.out)
	if p.triggerUses > 0 && p.trigger == 0 {
		step.Fired = &Firing{What: "clearing", Unit: "tool uses", Trigger: p.triggerUses, Before: len(cs.uses), After: len(cs.uses)}
	} else {
		step.Fired = &Firing{What: "clearing", Unit: "tokens", Trigger: p.trigger, Before: input, After: input - cleared}
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
func (p *anthropicClearTools) Guarantees() Guarantees { return Guarantees{PairSafe: true} }

func (p *anthropicClearThinking) Apply(_ context.Context, env *Env, st *State, hist []Item) (Step, error) {
	ss := serverStateOf(env, st)
	if p.keep < 0 || len(hist) == 0 {
		// Nothing is edited, so nothing was sent edited: the client's
		// history is hist.
		if len(ss.made) == 0 {
			return Step{History: hist}, nil
		}
		client := restoreServerCopies(env, ss.made, hist)
		ss.remember(hist, client)
		return Step{History: client}, nil
	}
	if ss.think == nil {
		ss.think = &thinkState{}
	}
	ts := ss.think
	sent, n := ts.sent, len(ts.out)
	ts.sync(env, ss, hist)
	ts.edit(p.keep, ss)
	if env.ChainCut != nil {
		ts.uncut = env.ChainCut.Note(append(ts.uncut, ts.fresh...), len(ts.hist))
	}
	step := Step{History: ts.give(env), Truncated: ts.cut(env)}
	ts.remember(ss)
	ts.sent, ts.sentLen = env.Given.CallOf(), -1
	if sent > 0 && sent == ts.sent-1 {
		ts.sentLen = n
	}
	return step, nil
}

// sentAnew: what the call sent is ts.out, which changed since the
// previous call's where fresh says (an item given, restored or edited
// anew); a state started afresh lists every position there.
func (p *anthropicClearThinking) sentAnew(st *State, call int) ([]int, int, bool) {
	ss, _ := st.Data.(*serverState)
	if ss == nil || ss.think == nil || ss.think.sent != call || ss.think.sentLen < 0 {
		return nil, 0, false
	}
	return ss.think.fresh, ss.think.sentLen, true
}

// Guarantees: removing thinking keeps every message and pair.
func (p *anthropicClearThinking) Guarantees() Guarantees { return Guarantees{PairSafe: true} }

// restoreServerCopies returns hist with the copies in made (the
// provider's edits at earlier calls) replaced by their originals: the
// client's history.
func restoreServerCopies(env *Env, made map[any]bool, hist []Item) []Item {
	out := hist
	for k, it := range hist {
		if !made[it.Msg] {
			continue
		}
		if &out[0] == &hist[0] {
			out = slices.Clone(hist)
		}
		out[k] = Original(env.Transcript, it.Index())
	}
	return out
}

// requestTokens estimates the input tokens the server counts in a
// request, from what was known before the call: the calls before it,
// whose usage came back with their replies, never the call's own or a
// later one's. A request that sends the whole history, as the recording
// did, counts the prompt the previous such call was billed for plus
// chars4 of the messages appended since; any other history, chars4 of
// it on a line fitted to those calls.
type requestTokens struct {
	fits lineFits
	// next is the first message not yet added; chars4 the chars4 tokens
	// of the messages before it.
	next, chars4 int
	// lastPrompt is the prompt billed at the newest call that sent the
	// whole history, lastChars4 the chars4 tokens of that history (ok:
	// there is one).
	lastPrompt, lastChars4 int
	ok                     bool
}

func newRequestTokens(*Env) *requestTokens { return &requestTokens{fits: lineFits{}} }

// advance adds the calls before the call being prepared.
func (r *requestTokens) advance(env *Env) {
	t := env.Transcript
	est := chars4Estimator()
	for ; r.next < min(env.Next, len(t.Messages)); r.next++ {
		m := &t.Messages[r.next]
		if m.Role == transcript.RoleAssistant && m.Usage != nil && m.Usage.Prompt() > 0 && r.faithful(env, r.next) {
			r.fits.Of(m.Model).Add(r.chars4, int(m.Usage.Prompt()))
			r.lastPrompt, r.lastChars4, r.ok = int(m.Usage.Prompt()), r.chars4, true
		}
		r.chars4 += count(env, est, Original(t, r.next))
	}
}

// faithful reports whether the recording sent the whole history before
// message next: it compacted nothing before.
func (r *requestTokens) faithful(env *Env, next int) bool {
	for _, c := range env.Transcript.Compactions {
		if c.Index <= next {
			return false
		}
	}
	return true
}

// at returns the input tokens of the request sending client at the call
// being prepared. whole, when not nil, reports whether client is the
// whole history (isWholeHistory), which the caller knows.
func (r *requestTokens) at(env *Env, st *State, client []Item, whole func(*Env) bool) int {
	r.advance(env)
	if whole == nil {
		whole = func(env *Env) bool { return isWholeHistory(env, client) }
	}
	if r.ok && r.faithful(env, env.Next) && whole(env) {
		return r.lastPrompt + r.chars4 - r.lastChars4
	}
	return r.fits.Of(callModel(env)).At(st.HistoryTokens(env, chars4Estimator(), client))
}

// isWholeHistory reports whether client is the transcript's messages
// before the call, as written.
func isWholeHistory(env *Env, client []Item) bool {
	if len(client) != env.Next {
		return false
	}
	for i, it := range client {
		if it.Msg != &env.Transcript.Messages[i] {
			return false
		}
	}
	return true
}

// scale returns the input tokens that n chars4 tokens of history make
// on the fitted line (its slope: the tokenizer's ratio).
func (r *requestTokens) scale(env *Env, n int) int {
	return int(math.Round(r.fits.Of(callModel(env)).Slope() * float64(n)))
}
