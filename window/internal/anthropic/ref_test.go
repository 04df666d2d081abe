package anthropic

import (
	"context"
	"maps"
	"slices"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/serveredit"
)

// wholeClearTools is anthropic-clear-tool-uses keeping no clearState:
// every call restores the client's history, finds its tool uses, and
// makes every edit, copy and count anew, whole. It is the reference
// TestClearToolUsesIncremental holds the policy to.
type wholeClearTools struct{ *anthropicClearTools }

func (p wholeClearTools) Apply(_ context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	ss := serveredit.Of(env, st)
	client := serveredit.RestoreCopies(env, ss.Made, hist)
	step := policy.Step{History: client}
	uses := toolUsesOf(client)
	input := ss.Request.At(env, st, client, nil)
	fires := p.triggerUses > 0 && len(uses) >= p.triggerUses || p.trigger > 0 && input >= p.trigger
	if !fires {
		ss.Remember(hist, client)
		return step, nil
	}
	edits := p.edits(client, uses)
	if len(edits) == 0 {
		ss.Remember(hist, client)
		return step, nil
	}
	positions := slices.Sorted(maps.Keys(edits))
	out := slices.Clone(client)
	var diff int
	for _, i := range positions {
		e := edits[i]
		slices.Sort(e.Results)
		slices.Sort(e.Inputs)
		out[i] = policy.Truncated(out[i], ss.Edited(out[i].Msg, *e), out[i].Summary)
		diff += policy.Count4(env, client[i]) - policy.Count4(env, out[i])
	}
	cleared := ss.Request.Scale(env, diff)
	if cleared < p.clearAtLeast {
		policy.Warnf(&step, "clearing would clear %d input tokens, under clear_at_least %d: nothing cleared", cleared, p.clearAtLeast)
		ss.Remember(hist, client)
		return step, nil
	}
	for _, i := range positions {
		if !ss.Made[hist[i].Msg] { // else sent cut at the previous call too
			step.Truncated = append(step.Truncated, out[i].ID)
		}
	}
	step.History = out
	if p.triggerUses > 0 && p.trigger == 0 {
		step.Fired = &policy.Firing{What: "clearing", Unit: "tool uses", Trigger: p.triggerUses, Before: len(uses), After: len(uses)}
	} else {
		step.Fired = &policy.Firing{What: "clearing", Unit: "tokens", Trigger: p.trigger, Before: input, After: input - cleared}
	}
	ss.Remember(hist, out)
	return step, nil
}

// toolUsesOf returns the tool uses of hist, oldest first.
func toolUsesOf(hist []policy.Item) []clearUse {
	var uses []clearUse
	at := map[string]int{}
	for i, it := range hist {
		for _, b := range it.Msg.Blocks {
			switch b.Type {
			case transcript.BlockToolUse:
				at[b.ID] = len(uses)
				uses = append(uses, clearUse{id: b.ID, name: b.Name, call: i, result: -1})
			case transcript.BlockToolResult:
				if k, ok := at[b.ID]; ok {
					uses[k].result = i
				}
			}
		}
	}
	return uses
}

// edits returns the edits of clearing client, by message position: the
// results of the oldest uses, all but the newest keep, the excluded
// tools' never, and their calls' inputs where they are cleared too.
func (p wholeClearTools) edits(client []policy.Item, uses []clearUse) map[int]*serveredit.Edit {
	edits := map[int]*serveredit.Edit{}
	editOf := func(i int) *serveredit.Edit {
		e, ok := edits[i]
		if !ok {
			e = &serveredit.Edit{Placeholder: p.placeholder}
			edits[i] = e
		}
		return e
	}
	for _, u := range uses[:max(0, len(uses)-p.keep)] {
		if p.exclude[u.name] || u.result < 0 {
			continue
		}
		e := editOf(u.result)
		for j, b := range client[u.result].Msg.Blocks {
			if b.Type == transcript.BlockToolResult && b.ID == u.id {
				e.Results = append(e.Results, j)
			}
		}
		if p.inputs == "true" || p.inputTools[u.name] {
			e := editOf(u.call)
			for j, b := range client[u.call].Msg.Blocks {
				if b.Type == transcript.BlockToolUse && b.ID == u.id {
					e.Inputs = append(e.Inputs, j)
				}
			}
		}
	}
	return edits
}

// wholeClearThinking is anthropic-clear-thinking keeping no thinkState:
// every call restores the client's history, finds its turns, and makes
// every edit anew, whole. It is the reference
// TestClearToolUsesIncremental holds the policy to.
type wholeClearThinking struct{ *anthropicClearThinking }

func (p wholeClearThinking) Apply(_ context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	ss := serveredit.Of(env, st)
	client := serveredit.RestoreCopies(env, ss.Made, hist)
	step := policy.Step{History: client}
	if p.keep < 0 {
		ss.Remember(hist, client)
		return step, nil
	}
	var turns []int
	user := true
	for i, it := range client {
		switch {
		case it.Msg.Role == transcript.RoleUser && !policy.Has(it, transcript.BlockToolResult):
			user = true
		case it.Msg.Role == transcript.RoleAssistant && user:
			turns = append(turns, i)
			user = false
		}
	}
	if len(turns) <= p.keep {
		ss.Remember(hist, client)
		return step, nil
	}
	end := len(client)
	if p.keep > 0 {
		end = turns[len(turns)-p.keep]
	}
	var out []policy.Item
	for i := range end {
		it := client[i]
		if it.Msg.Role != transcript.RoleAssistant || !policy.Has(it, transcript.BlockThinking) {
			continue
		}
		if out == nil {
			out = slices.Clone(client)
		}
		out[i] = policy.Truncated(it, ss.Edited(it.Msg, serveredit.Edit{Thinking: true}), it.Summary)
		if !ss.Made[hist[i].Msg] {
			step.Truncated = append(step.Truncated, it.ID)
		}
	}
	if out != nil {
		step.History = out
	}
	ss.Remember(hist, step.History)
	return step, nil
}
