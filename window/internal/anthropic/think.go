package anthropic

import (
	"slices"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/serveredit"
)

// thinkState is what [AnthropicClearThinking] keeps from one call to the
// next so that a call costs what changed since the previous one, and not
// its whole history again. The client's history (the history given, the
// server's copies restored) grows by its latest turn: the turns and the
// assistant messages with thinking are extended, and the thinking of
// those before the newest keep turns removed, each message once, as the
// turns pass it. An item of the history given that differs from the one
// it replaces is restored again; one whose client message changes, a
// history shorter than the previous one or the transcript's messages
// moved start the state afresh, as the first call does.
// TestClearToolUsesIncremental holds it to computing every call whole
// (ref_test.go).
type thinkState struct {
	tr   *transcript.Transcript
	base *transcript.Message // &tr.Messages[0]: the originals' addresses

	hist []policy.Item // the history given at the previous call
	// call is the chain's call hist was given at (0: not in a chain);
	// sent the chain's call out was last sent at, and sentLen its length
	// before this call's: fresh lists what the call sent anew.
	call, sent, sentLen int
	// made[i] says hist[i].Msg is one of the server's copies (ss.Made):
	// the client has the original there.
	made []bool
	// count holds how many positions of hist hold each message.
	count  map[*transcript.Message]int
	client []policy.Item // hist with the originals restored

	// turns are the starts of client's assistant turns; user says a turn
	// starts at the next assistant message.
	turns []int
	user  bool
	// think lists the positions of client's assistant messages with
	// thinking; the first edited of them have it removed in out (ed).
	think  []int
	edited int
	ed     []bool
	out    []policy.Item // what is sent: client with the thinking removed
	// plain counts the positions restored that are not edited (their
	// original is sent); fresh lists the positions whose item given or
	// sent changed at this call; uncut the edited positions whose item
	// given may not be one of the server's copies (cut at this call).
	plain        int
	fresh, uncut []int
}

// reset empties ts for transcript t.
func (ts *thinkState) reset(t *transcript.Transcript) {
	*ts = thinkState{tr: t, count: map[*transcript.Message]int{}, user: true,
		hist: ts.hist[:0], made: ts.made[:0], client: ts.client[:0], turns: ts.turns[:0], think: ts.think[:0],
		ed: ts.ed[:0], out: ts.out[:0], fresh: ts.fresh[:0], uncut: ts.uncut[:0]}
	if len(t.Messages) > 0 {
		ts.base = &t.Messages[0]
	}
}

// sync brings ts to the history hist.
func (ts *thinkState) sync(env *policy.Env, ss *serveredit.State, hist []policy.Item) {
	t := env.Transcript
	if ts.tr != t || len(t.Messages) > 0 && ts.base != &t.Messages[0] || len(hist) < len(ts.hist) {
		ts.reset(t)
	}
	ts.fresh = ts.fresh[:0]
	env.Given.Differing(ts.call, ts.hist, hist, func(i int, it policy.Item) bool {
		if !ts.replace(ss, i, it) {
			ts.reset(t)
			return false
		}
		return true
	})
	for i := len(ts.hist); i < len(hist); i++ {
		ts.append(ss, hist[i])
	}
	ts.call = env.Given.CallOf()
}

// restore returns the client's item for it: the original where it is
// one of the server's copies.
func (ts *thinkState) restore(ss *serveredit.State, it policy.Item) (policy.Item, bool) {
	if ss.Made[it.Msg] {
		return policy.Original(ts.tr, it.Index()), true
	}
	return it, false
}

// append adds it, given after the history ts holds.
func (ts *thinkState) append(ss *serveredit.State, it policy.Item) {
	i := len(ts.hist)
	c, made := ts.restore(ss, it)
	ts.hist, ts.made, ts.client = append(ts.hist, it), append(ts.made, false), append(ts.client, c)
	ts.ed, ts.out = append(ts.ed, false), append(ts.out, c)
	ts.count[it.Msg]++
	ts.setMade(i, made)
	ts.fresh = append(ts.fresh, i)
	switch m := c.Msg; {
	case m.Role == transcript.RoleUser && !policy.Has(c, transcript.BlockToolResult):
		ts.user = true
	case m.Role == transcript.RoleAssistant && ts.user:
		ts.turns = append(ts.turns, i)
		ts.user = false
	}
	if c.Msg.Role == transcript.RoleAssistant && policy.Has(c, transcript.BlockThinking) {
		ts.think = append(ts.think, i)
	}
}

// replace puts it at position i of the history in place of what the
// previous call was given there. It reports false when the client's
// message there changes: the turns are to be found again.
func (ts *thinkState) replace(ss *serveredit.State, i int, it policy.Item) bool {
	if old := ts.hist[i]; old.Msg != it.Msg {
		if ts.count[old.Msg]--; ts.count[old.Msg] == 0 {
			delete(ts.count, old.Msg)
		}
		ts.count[it.Msg]++
	}
	ts.hist[i] = it
	ts.fresh = append(ts.fresh, i)
	c, made := ts.restore(ss, it)
	ts.setMade(i, made)
	if c == ts.client[i] {
		return true
	}
	if c.Msg != ts.client[i].Msg {
		return false
	}
	ts.client[i], ts.out[i] = c, c
	if ts.ed[i] {
		ts.out[i] = thinkingRemoved(ss, c)
	}
	return true
}

// setMade notes whether hist[i] is one of the server's copies.
func (ts *thinkState) setMade(i int, made bool) {
	if made == ts.made[i] {
		return
	}
	ts.made[i] = made
	switch {
	case ts.ed[i] && !made:
		ts.uncut = append(ts.uncut, i)
	case !ts.ed[i] && made:
		ts.plain++
	case !ts.ed[i]:
		ts.plain--
	}
}

// edit removes the thinking of the assistant messages before the newest
// keep turns that still have it.
func (ts *thinkState) edit(keep int, ss *serveredit.State) {
	if len(ts.turns) <= keep {
		return
	}
	end := len(ts.client)
	if keep > 0 {
		end = ts.turns[len(ts.turns)-keep]
	}
	for ; ts.edited < len(ts.think) && ts.think[ts.edited] < end; ts.edited++ {
		i := ts.think[ts.edited]
		ts.ed[i] = true
		if ts.made[i] {
			ts.plain--
		} else {
			ts.uncut = append(ts.uncut, i)
		}
		ts.out[i] = thinkingRemoved(ss, ts.client[i])
		ts.fresh = append(ts.fresh, i)
	}
}

// thinkingRemoved returns it with its thinking removed.
func thinkingRemoved(ss *serveredit.State, it policy.Item) policy.Item {
	return policy.Truncated(it, ss.Edited(it.Msg, serveredit.Edit{Thinking: true}), it.Summary)
}

// cut returns the ids of the items edited whose item given is not one
// of the server's copies (it was not sent cut at the previous call; in a
// chain, neither by the chain: env.ChainCut), in order.
func (ts *thinkState) cut(env *policy.Env) []string {
	slices.Sort(ts.uncut)
	keep := ts.uncut[:0]
	var ids []string
	for _, i := range slices.Compact(ts.uncut) {
		if ts.ed[i] && !ts.made[i] && !env.ChainCut.Was(i, ts.out[i].ID) {
			ids = append(ids, ts.out[i].ID)
			keep = append(keep, i)
		}
	}
	ts.uncut = keep
	return ids
}

// remember records the copies that out holds and hist does not: what
// restore gives back as the original at the next call. A position whose
// item given and sent are those of the previous call was recorded then.
func (ts *thinkState) remember(ss *serveredit.State) {
	note := func(i int) {
		if sent := ts.out[i]; sent.Msg != ts.hist[i].Msg && ts.count[sent.Msg] == 0 && sent.Index() >= 0 {
			ss.Mark(sent.Msg)
		}
	}
	for _, i := range ts.fresh {
		note(i)
	}
	if ts.plain == 0 {
		return
	}
	for i, made := range ts.made {
		if made && !ts.ed[i] {
			note(i)
		}
	}
}

// give returns out to be sent: a copy, unless nothing reads what Apply
// returns after the call (env.ReuseSent).
func (ts *thinkState) give(env *policy.Env) []policy.Item {
	if env.ReuseSent {
		return slices.Clip(ts.out)
	}
	return slices.Clone(ts.out)
}
