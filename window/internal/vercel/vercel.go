// Package vercel models the AI SDK's pruneMessages (ai@6): the
// vercel-prune policy.
package vercel

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/client"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// VercelPrune names the AI SDK's pruneMessages (package ai, src/generate-text/
// prune-messages.ts), as an application calls it on its whole history
// before each call (the documentation's example: reasoning
// before-last-message, toolCalls before-last-2-messages, emptyMessages
// remove). make conformance runs the package on the corpus.
//
// The history is the SDK's ModelMessages: a system message is a string,
// its text; an assistant message's parts are its blocks in order
// (thinking a reasoning part, tool_use a tool-call, text and the rest as
// they are); a user message is a tool message of its tool results
// (tool-result parts, their tool named by its call) followed by a user
// message of its other blocks, each only when it has any.
//
//   - reasoning: all removes every reasoning part; before-last-message
//     all but the last message's; none keeps them.
//   - tool_calls: all removes every tool-call and tool-result part;
//     before-last-N-messages those of the messages before the last N,
//     except the calls and results the last N hold (N 0 keeps every one:
//     slice(-0) is the whole list); none keeps them. With tools, only
//     those tools' parts. Where every part that follows a run of
//     reasoning parts is removed, the run is removed too.
//   - empty_messages: remove drops a message left with no part.
//
// A message of the transcript is sent with the blocks its messages kept,
// and not at all when none of them is kept.
const VercelPrune = "vercel-prune"

// vercelPrunePolicy is the [VercelPrune] policy.
type vercelPrunePolicy struct {
	policy.Base
	reasoning string
	// keepLast is the N of tool_calls before-last-N-messages, -1 for all;
	// 0 for none, which is what N 0 comes to.
	keepLast    int
	tools       map[string]bool
	removeEmpty bool
}

// vercelAIVersion is the release of the AI SDK whose pruneMessages the
// policy follows and the conformance golden was made with.
const vercelAIVersion = "6.0.326"

var beforeLastN = regexp.MustCompile(`^before-last-(\d+)-messages$`)

// Specs are this room's policies, which window registers.
var Specs = []*policy.Spec{
	{
		Name: VercelPrune, Source: "the AI SDK's pruneMessages (package ai, src/generate-text/prune-messages.ts)",
		Models: "ai@" + vercelAIVersion, Held: policy.HeldConformance,
		Summary: "before each call, remove reasoning and old tool calls and results from the whole history, then the messages left empty",
		Params: []policy.Param{
			policy.EnumParam("reasoning", "before-last-message", []string{"none", "all", "before-last-message"}, "which reasoning parts to remove"),
			policy.StringParam("tool_calls", "before-last-2-messages", "none, all, before-last-message or before-last-N-messages: whose tool calls and results to remove"),
			policy.StringParam("tools", "", "the tools whose calls and results are removed, separated by | (empty: every tool)"),
			policy.EnumParam("empty_messages", "remove", []string{"remove", "keep"}, "whether a message left with no part is removed"),
		},
		Differs: []string{
			"defaults are the documentation's example; pruneMessages' own (reasoning none, no tool calls) remove nothing",
		},
		Check: func(v policy.Values) error {
			if t := v.String("tool_calls"); t != "none" && t != "all" && t != "before-last-message" && !beforeLastN.MatchString(t) {
				return fmt.Errorf("tool_calls=%s: want none, all, before-last-message or before-last-N-messages", t)
			}
			return nil
		},
		Build: func(v policy.Values) policy.Policy {
			p := &vercelPrunePolicy{Base: policy.NewBase(VercelPrune, v), reasoning: v.String("reasoning"),
				keepLast: -1, removeEmpty: v.String("empty_messages") == "remove"}
			switch t := v.String("tool_calls"); {
			case t == "none":
				p.keepLast = 0
			case t == "before-last-message":
				p.keepLast = 1
			case beforeLastN.MatchString(t):
				p.keepLast, _ = strconv.Atoi(beforeLastN.FindStringSubmatch(t)[1])
			}
			if names := v.String("tools"); names != "" {
				p.tools = client.NameSet(names)
			}
			return p
		},
	},
}

// sdkMessage is one ModelMessage of an item: its role and which of the
// item's blocks are its parts.
type sdkMessage struct {
	role   string // "system", "user", "assistant" or "tool"
	blocks []int
}

// sdkMessages returns the ModelMessages of a transcript message.
func sdkMessages(m *transcript.Message) []sdkMessage {
	switch m.Role {
	case transcript.RoleSystem:
		return []sdkMessage{{role: "system", blocks: allBlocks(m)}}
	case transcript.RoleAssistant:
		return []sdkMessage{{role: "assistant", blocks: allBlocks(m)}}
	}
	var tool, user sdkMessage
	tool.role, user.role = "tool", "user"
	for i, b := range m.Blocks {
		if b.Type == transcript.BlockToolResult {
			tool.blocks = append(tool.blocks, i)
		} else {
			user.blocks = append(user.blocks, i)
		}
	}
	var out []sdkMessage
	if len(tool.blocks) > 0 {
		out = append(out, tool)
	}
	if len(user.blocks) > 0 || len(tool.blocks) == 0 {
		out = append(out, user)
	}
	return out
}

func allBlocks(m *transcript.Message) []int {
	out := make([]int, len(m.Blocks))
	for i := range out {
		out[i] = i
	}
	return out
}

type vercelPruneState struct {
	client client.History
	// msgs are the ModelMessages of client's items, owner the item of
	// each; perItem what the policy keeps of each item.
	msgs    []sdkMessage
	owner   []int
	perItem []pruneItem
	names   map[string]string // tool call id → tool name
	// holders are the items that hold each tool call id.
	holders map[string][]int
	call    int // the calls so far
}

// pruneItem is what vercel-prune keeps of one item of the client's
// history.
type pruneItem struct {
	first int // its first ModelMessage
	// steady is what it sends once its messages are neither among the
	// last ones nor hold a call the last ones answer, which does not
	// change from then on: made once (made), so a message is copied once;
	// steadySent is false when it is then removed.
	steady           policy.Item
	steadySent, made bool
	// special is the last call at which it was not in its steady state;
	// sent how many of its blocks it sent at the last call that looked at
	// it (-1: none, it was removed).
	special, sent int
}

func (p *vercelPrunePolicy) Apply(_ context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	vs, _ := st.Data.(*vercelPruneState)
	if vs == nil {
		vs = &vercelPruneState{client: client.NewHistory(), names: map[string]string{}, holders: map[string][]int{}}
		st.Data = vs
	}
	added, rebuilt := vs.client.Follow(env, hist)
	if rebuilt {
		*vs = vercelPruneState{client: vs.client, names: vs.names, holders: map[string][]int{}}
	}
	base := len(vs.client.Items) - len(added)
	vs.add(added, base)
	vs.call++
	w := p.window(vs)
	vs.mark(w)
	items := vs.client.Items
	step := policy.Step{History: make([]policy.Item, 0, len(items))}
	for i, it := range items {
		pi := &vs.perItem[i]
		var out policy.Item
		var sent bool
		if pi.special == vs.call {
			out, sent = p.send(vs, it, i, w)
		} else {
			if !pi.made {
				pi.steady, pi.steadySent = p.send(vs, it, i, pruneWindow{recent: len(vs.msgs), toolRule: w.toolRule})
				pi.made = true
			}
			out, sent = pi.steady, pi.steadySent
		}
		// What is removed or cut at this call: only an item new, or
		// special now or at the previous call, can change.
		if rebuilt || i >= base || pi.special >= vs.call-1 {
			pi.note(&step, it, out, sent, rebuilt)
		}
		if !sent {
			continue
		}
		step.History = append(step.History, out)
		if rebuilt && out.Truncated {
			step.Truncated = append(step.Truncated, it.ID)
		}
	}
	if rebuilt {
		step.Evicted = policy.EvictedFrom(hist, step.History)
	}
	return step, nil
}

// add takes the items added to the client's history, the first at base:
// their tool calls and results, and their SDK messages, sent whole as
// the history given has them.
func (vs *vercelPruneState) add(added []policy.Item, base int) {
	for k, it := range added {
		i := base + k
		for _, b := range it.Msg.Blocks {
			switch b.Type {
			case transcript.BlockToolUse:
				vs.names[b.ID] = b.Name
				vs.holders[b.ID] = append(vs.holders[b.ID], i)
			case transcript.BlockToolResult:
				vs.holders[b.ID] = append(vs.holders[b.ID], i)
			}
		}
		vs.perItem = append(vs.perItem, pruneItem{first: len(vs.msgs), special: -1, sent: len(it.Msg.Blocks)})
		for _, sm := range sdkMessages(it.Msg) {
			vs.msgs = append(vs.msgs, sm)
			vs.owner = append(vs.owner, i)
		}
	}
}

// A pruneWindow is the tool rule's window at a call: the SDK messages
// from recent on are left as they are, and the calls and results of
// keptIDs are kept everywhere (toolRule: the rule applies).
type pruneWindow struct {
	recent   int
	keptIDs  map[string]bool
	toolRule bool
}

// window returns the call's window.
func (p *vercelPrunePolicy) window(vs *vercelPruneState) pruneWindow {
	n := len(vs.msgs)
	w := pruneWindow{recent: n, keptIDs: map[string]bool{}, toolRule: p.keepLast != 0}
	if !w.toolRule || p.keepLast < 0 {
		return w
	}
	w.recent = n - min(p.keepLast, n)
	for m := w.recent; m < n; m++ {
		if r := vs.msgs[m].role; r != "assistant" && r != "tool" {
			continue
		}
		for _, b := range vs.msgs[m].blocks {
			if bl := &vs.client.Items[vs.owner[m]].Msg.Blocks[b]; bl.Type == transcript.BlockToolUse || bl.Type == transcript.BlockToolResult {
				w.keptIDs[bl.ID] = true
			}
		}
	}
	return w
}

// mark marks special the items whose messages are not in their steady
// state at this call: the last message's, the window's, and those
// holding a call it keeps.
func (vs *vercelPruneState) mark(w pruneWindow) {
	mark := func(i int) { vs.perItem[i].special = vs.call }
	n := len(vs.msgs)
	if n > 0 {
		mark(vs.owner[n-1])
	}
	for m := w.recent; m < n; m++ {
		mark(vs.owner[m])
	}
	for id := range w.keptIDs {
		for _, i := range vs.holders[id] {
			mark(i)
		}
	}
}

// note records in step whether item it, which sends out (sent: at all),
// is removed or cut at this call, and remembers what it sent.
func (pi *pruneItem) note(step *policy.Step, it, out policy.Item, sent, rebuilt bool) {
	now := -1
	if sent {
		now = len(out.Msg.Blocks)
	}
	switch {
	case rebuilt:
	case pi.sent >= 0 && now < 0:
		step.Evicted = append(step.Evicted, it.ID)
	case now >= 0 && out.Truncated && now != pi.sent:
		step.Truncated = append(step.Truncated, it.ID)
	}
	pi.sent = now
}

// send is what item i sends: pruneMessages on its messages, the last
// message being vs.msgs' last, under w. sent is false when every
// message of the item is removed.
func (p *vercelPrunePolicy) send(vs *vercelPruneState, it policy.Item, i int, w pruneWindow) (out policy.Item, sent bool) {
	end := len(vs.msgs)
	if i+1 < len(vs.perItem) {
		end = vs.perItem[i+1].first
	}
	m0 := it.Msg
	var blocks []int
	for m := vs.perItem[i].first; m < end; m++ {
		parts := vs.msgs[m].blocks
		role := vs.msgs[m].role
		isReasoning := func(b int) bool { return m0.Blocks[b].Type == transcript.BlockThinking }
		if role == "assistant" && (p.reasoning == "all" || p.reasoning == "before-last-message" && m != len(vs.msgs)-1) {
			parts = slices.DeleteFunc(slices.Clone(parts), isReasoning)
		}
		if w.toolRule && (role == "assistant" || role == "tool") && m < w.recent {
			parts = p.toolParts(vs, m0, parts, role, w.keptIDs, isReasoning)
		}
		// A system message's content is a string, its text: empty when
		// the text is.
		if p.removeEmpty && (len(parts) == 0 || role == "system" && m0.Text() == "") {
			continue
		}
		sent = true
		blocks = append(blocks, parts...)
	}
	if !sent {
		return policy.Item{}, false
	}
	if len(blocks) == len(m0.Blocks) {
		return it, true
	}
	slices.Sort(blocks)
	c := *m0
	c.Blocks = make([]transcript.Block, len(blocks))
	for j, b := range blocks {
		c.Blocks[j] = m0.Blocks[b]
	}
	return policy.Truncated(it, &c, false), true
}

// toolParts returns the parts (blocks of m0) of an SDK message before
// the tool rule's window that the rule keeps: all but the calls and
// results of the tools it prunes, unless keptIDs keeps them, and an
// assistant message's reasoning left with nothing after it.
func (p *vercelPrunePolicy) toolParts(vs *vercelPruneState, m0 *transcript.Message, parts []int, role string, keptIDs map[string]bool, isReasoning func(int) bool) []int {
	keep := make([]bool, len(parts))
	for j, b := range parts {
		bl := &m0.Blocks[b]
		switch {
		case bl.Type != transcript.BlockToolUse && bl.Type != transcript.BlockToolResult, keptIDs[bl.ID]:
			keep[j] = true
		default:
			name := bl.Name
			if bl.Type == transcript.BlockToolResult {
				name = vs.names[bl.ID]
			}
			keep[j] = p.tools != nil && !p.tools[name]
		}
	}
	if role == "assistant" {
		dropOrphanedReasoning(parts, keep, isReasoning)
	}
	var kept []int
	for j, b := range parts {
		if keep[j] {
			kept = append(kept, b)
		}
	}
	return kept
}

// dropOrphanedReasoning marks removed each run of reasoning parts whose
// following parts (up to the next reasoning part) are all removed.
func dropOrphanedReasoning(parts []int, keep []bool, reasoning func(int) bool) {
	for i := 0; i < len(parts); i++ {
		if !reasoning(parts[i]) {
			continue
		}
		end := i + 1
		for end < len(parts) && reasoning(parts[end]) {
			end++
		}
		following, kept := false, false
		j := end
		for ; j < len(parts) && !reasoning(parts[j]); j++ {
			following = true
			kept = kept || keep[j]
		}
		if following && !kept {
			for k := i; k < end; k++ {
				keep[k] = false
			}
		}
		i = j - 1
	}
}

// Guarantees: a call and its result are kept or removed together (the
// last messages' ids keep both; a result's tool is its call's).
func (p *vercelPrunePolicy) Guarantees() policy.Guarantees { return policy.Guarantees{PairSafe: true} }
