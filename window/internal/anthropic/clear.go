package anthropic

import (
	"slices"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/serveredit"
)

// clearState is what [AnthropicClearToolUses] keeps from one call to the
// next so that a call costs what changed since the previous one — the
// turn appended, the items the previous call sent edited — and not its
// whole history again. A request's edits are a function of the client's
// history (the history given, the server's copies restored), and that
// history grows by its latest turn: the tool uses are extended, the
// uses past the newest keep cleared, and each message's edit, its copy
// and the input tokens its clearing saves made again only where they
// change. Anything else (a history shorter than the previous one, an
// item whose tool calls or results are not those it replaces, the
// transcript's messages moved) starts the state afresh from the history
// given, as the first call does. TestClearToolUsesIncremental holds it
// to computing every call whole (ref_test.go).
type clearState struct {
	tr   *transcript.Transcript
	base *transcript.Message // &tr.Messages[0]: the originals' addresses

	hist []policy.Item // the history given at the previous call
	// call is the chain's call hist was given at (0: not in a chain).
	call int
	// made[i] says hist[i].Msg is one of the server's copies (ss.Made):
	// the client has the original there. restored counts them.
	made     []bool
	restored int
	// count holds how many positions of hist hold each message.
	count map[*transcript.Message]int

	client []policy.Item // the client's history: hist with the originals restored
	// moved counts the positions i of client that do not hold the
	// transcript's message i as written.
	moved int
	uses  []clearUse
	at    map[string]int // a tool use's id → its newest use
	// resultAt and callAt list the uses whose result, and whose call, a
	// position holds.
	resultAt, callAt map[int][]int
	// cleared counts the uses older than the newest keep: those are
	// cleared, but the excluded tools' and those without a result.
	cleared int

	pos []clearPos
	// edited counts the positions with an edit, plain the positions
	// restored that have none; diff sums the chars4 tokens the edits
	// with a copy save.
	edited, plain, diff int
	out                 []policy.Item // client with each edit's copy in its place
	// The positions to look at, so that a call looks at what changed:
	// dirty, those whose edit may have changed; stale, those whose edit
	// has no copy; unsent, those whose copy is not known to be one of
	// the server's; uncut, those with an edit whose history item is not
	// one of the server's copies (cut at this call).
	dirty, stale, unsent, uncut []int
}

// A clearPos is what clearing does at a position of the history: its
// edit and the copy made of it (nil: not made since the edit or the
// message changed), with the chars4 tokens it saves; sent says the copy
// is one of the server's copies (ss.Made).
type clearPos struct {
	edit  serveredit.Edit
	has   bool
	copy  *transcript.Message
	diff  int
	sent  bool
	dirty bool
}

// reset empties cs for transcript t.
func (cs *clearState) reset(t *transcript.Transcript) {
	*cs = clearState{tr: t, count: map[*transcript.Message]int{}, at: map[string]int{},
		resultAt: map[int][]int{}, callAt: map[int][]int{},
		hist: cs.hist[:0], made: cs.made[:0], client: cs.client[:0], pos: cs.pos[:0], out: cs.out[:0],
		dirty: cs.dirty[:0], stale: cs.stale[:0], unsent: cs.unsent[:0], uncut: cs.uncut[:0]}
	if len(t.Messages) > 0 {
		cs.base = &t.Messages[0]
	}
}

// sync brings cs to the history hist.
func (cs *clearState) sync(env *policy.Env, p *anthropicClearTools, ss *serveredit.State, hist []policy.Item) {
	t := env.Transcript
	if cs.tr != t || len(t.Messages) > 0 && cs.base != &t.Messages[0] || len(hist) < len(cs.hist) {
		cs.reset(t)
	}
	env.Given.Differing(cs.call, cs.hist, hist, func(i int, it policy.Item) bool {
		if !cs.replace(ss, i, it) {
			cs.reset(t)
			return false
		}
		if env.ChainCut != nil {
			cs.uncut = append(cs.uncut, i)
		}
		return true
	})
	for i := len(cs.hist); i < len(hist); i++ {
		cs.append(ss, hist[i])
	}
	cs.call = env.Given.CallOf()
	cs.uncut = env.ChainCut.Note(cs.uncut, len(cs.pos))
	for f := max(0, len(cs.uses)-p.keep); cs.cleared < f; cs.cleared++ {
		u := cs.uses[cs.cleared]
		cs.touch(u.call)
		if u.result >= 0 {
			cs.touch(u.result)
		}
	}
	for _, i := range cs.dirty {
		cs.pos[i].dirty = false
		cs.setEdit(p, i)
	}
	cs.dirty = cs.dirty[:0]
}

// whole reports whether the client's history is the transcript's
// messages before the call, as written (serveredit.IsWholeHistory).
func (cs *clearState) whole(env *policy.Env) bool {
	return len(cs.client) == env.Next && cs.moved == 0
}

// movedAt returns 1 when c, the client's item at position i, is not the
// transcript's message i as written, and 0 when it is.
func (cs *clearState) movedAt(i int, c policy.Item) int {
	if i < len(cs.tr.Messages) && c.Msg == &cs.tr.Messages[i] {
		return 0
	}
	return 1
}

// restore returns the client's item for it: the original where it is
// one of the server's copies.
func (cs *clearState) restore(ss *serveredit.State, it policy.Item) (policy.Item, bool) {
	if ss.Made[it.Msg] {
		return policy.Original(cs.tr, it.Index()), true
	}
	return it, false
}

// append adds it, given after the history cs holds.
func (cs *clearState) append(ss *serveredit.State, it policy.Item) {
	i := len(cs.hist)
	c, made := cs.restore(ss, it)
	cs.hist, cs.made, cs.client = append(cs.hist, it), append(cs.made, false), append(cs.client, c)
	cs.pos, cs.out = append(cs.pos, clearPos{}), append(cs.out, c)
	cs.moved += cs.movedAt(i, c)
	cs.count[it.Msg]++
	cs.made[i] = false
	cs.setMade(i, made)
	for _, b := range c.Msg.Blocks {
		switch b.Type {
		case transcript.BlockToolUse:
			cs.at[b.ID] = len(cs.uses)
			cs.callAt[i] = append(cs.callAt[i], len(cs.uses))
			cs.uses = append(cs.uses, clearUse{id: b.ID, name: b.Name, call: i, result: -1})
		case transcript.BlockToolResult:
			if k, ok := cs.at[b.ID]; ok {
				if r := cs.uses[k].result; r != i {
					if r >= 0 {
						cs.resultAt[r] = slices.DeleteFunc(cs.resultAt[r], func(x int) bool { return x == k })
						cs.touch(r)
					}
					cs.uses[k].result = i
					cs.resultAt[i] = append(cs.resultAt[i], k)
				}
				cs.touch(i)
				cs.touch(cs.uses[k].call) // its input is cleared with it
			}
		}
	}
}

// replace puts it at position i of the history in place of what the
// previous call was given there. It reports false when the client's
// item there changes its tool calls or results: the uses are to be
// found again.
func (cs *clearState) replace(ss *serveredit.State, i int, it policy.Item) bool {
	old := cs.hist[i]
	if old.Msg != it.Msg {
		if cs.count[old.Msg]--; cs.count[old.Msg] == 0 {
			delete(cs.count, old.Msg)
		}
		cs.count[it.Msg]++
	}
	cs.hist[i] = it
	c, made := cs.restore(ss, it)
	cs.setMade(i, made)
	if c == cs.client[i] {
		return true
	}
	if c.Msg != cs.client[i].Msg && !sameTools(c.Msg, cs.client[i].Msg) {
		return false
	}
	cs.moved += cs.movedAt(i, c) - cs.movedAt(i, cs.client[i])
	cs.client[i] = c
	ps := &cs.pos[i]
	if ps.has && ps.copy != nil {
		cs.diff -= ps.diff
	}
	ps.copy, ps.sent = nil, false
	if ps.has {
		cs.stale = append(cs.stale, i)
	}
	cs.out[i] = c
	cs.touch(i)
	return true
}

// setMade notes whether hist[i] is one of the server's copies.
func (cs *clearState) setMade(i int, made bool) {
	if made == cs.made[i] {
		return
	}
	cs.made[i] = made
	d := -1
	if made {
		d = 1
	} else if cs.pos[i].has {
		cs.uncut = append(cs.uncut, i)
	}
	cs.restored += d
	if !cs.pos[i].has {
		cs.plain += d
	}
}

// sameTools reports whether a and b hold the same tool calls and
// results, in the same order.
func sameTools(a, b *transcript.Message) bool {
	tools := func(m *transcript.Message) func(func(transcript.Block) bool) {
		return func(yield func(transcript.Block) bool) {
			for _, bl := range m.Blocks {
				if (bl.Type == transcript.BlockToolUse || bl.Type == transcript.BlockToolResult) && !yield(bl) {
					return
				}
			}
		}
	}
	var as []transcript.Block
	for bl := range tools(a) {
		as = append(as, bl)
	}
	k := 0
	for bl := range tools(b) {
		if k >= len(as) || as[k].Type != bl.Type || as[k].ID != bl.ID || as[k].Name != bl.Name {
			return false
		}
		k++
	}
	return k == len(as)
}

// touch marks position i's edit to be made again.
func (cs *clearState) touch(i int) {
	if !cs.pos[i].dirty {
		cs.pos[i].dirty = true
		cs.dirty = append(cs.dirty, i)
	}
}

// isCleared reports whether use k is cleared.
func (cs *clearState) isCleared(p *anthropicClearTools, k int) bool {
	u := cs.uses[k]
	return k < cs.cleared && !p.exclude[u.name] && u.result >= 0
}

// setEdit makes position i's edit again from the uses whose call or
// result it holds: the results of the cleared uses, and their calls'
// inputs where those are cleared too.
func (cs *clearState) setEdit(p *anthropicClearTools, i int) {
	e := serveredit.Edit{Placeholder: p.placeholder}
	has := false
	blocks := cs.client[i].Msg.Blocks
	for _, k := range cs.resultAt[i] {
		if !cs.isCleared(p, k) {
			continue
		}
		has = true
		for j, b := range blocks {
			if b.Type == transcript.BlockToolResult && b.ID == cs.uses[k].id {
				e.Results = append(e.Results, j)
			}
		}
	}
	for _, k := range cs.callAt[i] {
		if !cs.isCleared(p, k) || !(p.inputs == "true" || p.inputTools[cs.uses[k].name]) {
			continue
		}
		has = true
		for j, b := range blocks {
			if b.Type == transcript.BlockToolUse && b.ID == cs.uses[k].id {
				e.Inputs = append(e.Inputs, j)
			}
		}
	}
	slices.Sort(e.Results)
	slices.Sort(e.Inputs)
	ps := &cs.pos[i]
	if has == ps.has && (!has || e.Equal(ps.edit)) {
		return
	}
	if ps.has {
		cs.edited--
		if ps.copy != nil {
			cs.diff -= ps.diff
		}
	}
	if has {
		cs.edited++
		cs.stale = append(cs.stale, i)
		if !cs.made[i] {
			cs.uncut = append(cs.uncut, i)
		}
	}
	if has != ps.has && cs.made[i] {
		if has {
			cs.plain--
		} else {
			cs.plain++
		}
	}
	ps.edit, ps.has, ps.copy, ps.sent = e, has, nil, false
	cs.out[i] = cs.client[i]
}

// copies makes the copies of the edits that have none, in the order of
// their positions, and counts what each saves.
func (cs *clearState) copies(env *policy.Env, ss *serveredit.State) {
	slices.Sort(cs.stale)
	for _, i := range slices.Compact(cs.stale) {
		ps := &cs.pos[i]
		if !ps.has || ps.copy != nil {
			continue
		}
		c := cs.client[i]
		ps.copy = ss.Edited(c.Msg, ps.edit)
		cs.out[i] = policy.Truncated(c, ps.copy, c.Summary)
		ps.diff = policy.Count4(env, c) - policy.Count4(env, cs.out[i])
		cs.diff += ps.diff
		cs.unsent = append(cs.unsent, i)
	}
	cs.stale = cs.stale[:0]
}

// cut returns the ids of the items edited at this call that were not
// sent cut at the previous one, in order (in a chain, neither by the
// chain: env.ChainCut).
func (cs *clearState) cut(env *policy.Env) []string {
	slices.Sort(cs.uncut)
	keep := cs.uncut[:0]
	var ids []string
	for _, i := range slices.Compact(cs.uncut) {
		if cs.pos[i].has && !cs.made[i] && !env.ChainCut.Was(i, cs.out[i].ID) {
			ids = append(ids, cs.out[i].ID)
			keep = append(keep, i)
		}
	}
	cs.uncut = keep
	return ids
}

// remember records the copies that sent, the client's history or the
// edited one, holds and hist does not: what restore gives back as the
// original at the next call.
func (cs *clearState) remember(ss *serveredit.State, edited bool) {
	note := func(i int, sent policy.Item) {
		if sent.Msg != cs.hist[i].Msg && cs.count[sent.Msg] == 0 && sent.Index() >= 0 {
			ss.Mark(sent.Msg)
		}
	}
	if edited {
		keep := cs.unsent[:0]
		for _, i := range cs.unsent {
			ps := &cs.pos[i]
			if !ps.has || ps.copy == nil || ps.sent {
				continue
			}
			note(i, cs.out[i])
			if ps.sent = ss.Made[ps.copy]; !ps.sent {
				keep = append(keep, i)
			}
		}
		cs.unsent = keep
	}
	if edited && cs.plain == 0 || cs.restored == 0 {
		return
	}
	for i, made := range cs.made {
		if made && !(edited && cs.pos[i].has) {
			note(i, cs.client[i])
		}
	}
}

// give returns items, one of cs's arrays, to be sent: a copy, unless
// nothing reads what Apply returns after the call (env.ReuseSent).
func (cs *clearState) give(env *policy.Env, items []policy.Item) []policy.Item {
	if env.ReuseSent {
		return slices.Clip(items)
	}
	return slices.Clone(items)
}
