package window

import (
	"context"
	"testing"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// TestApplyBeforeTheReply: a policy applied as an agent applies it, to a
// history that ends where the call being prepared begins — the call's
// reply not yet in the transcript — decides without it: every
// registered policy, after deciding the calls before on the same
// session, returns a step and no panic.
func TestApplyBeforeTheReply(t *testing.T) {
	whole := readCorpus(t, "spotter/tool_heavy.jsonl")
	last := -1
	for i, m := range whole.Messages {
		if m.Role == transcript.RoleAssistant {
			last = i
		}
	}
	cut := *whole
	cut.Messages = whole.Messages[:last]
	for _, name := range Names() {
		p := mustPolicy(t, name)
		env := &Env{Transcript: &cut, Summarizer: &summarize.Mock{}}
		st := &State{}
		var hist []Item
		next := 0
		for i, m := range cut.Messages {
			if m.Role != transcript.RoleAssistant {
				continue
			}
			for j := next; j < i; j++ {
				hist = append(hist, Original(&cut, j))
			}
			env.Next = i
			step, err := p.Apply(context.Background(), env, st, hist)
			if err != nil {
				t.Fatalf("%s: call %d: %v", name, env.Call, err)
			}
			hist, next = append(step.History, Original(&cut, i)), i+1
			env.Call++
		}
		for j := next; j < len(cut.Messages); j++ {
			hist = append(hist, Original(&cut, j))
		}
		env.Next = len(cut.Messages)
		step, err := p.Apply(context.Background(), env, st, hist)
		if err != nil || len(step.History) == 0 {
			t.Errorf("%s: before the reply: %d items, %v", name, len(step.History), err)
		}
	}
}
