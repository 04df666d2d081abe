package window

import (
	"testing"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestApplyBeforeTheReply: a policy applied as an agent applies it, to a
// history that ends where the call being prepared begins — the call's
// reply not yet in the transcript — decides without it: every
// registered policy, after deciding the calls before on the same
// session, returns a step and no panic.
func TestApplyBeforeTheReply(t *testing.T) {
	whole := policytest.ReadCorpus(t, "spotter/tool_heavy.jsonl")
	// Cut before the last reply: the last call's index is then
	// len(cut.Messages), a call whose reply is not there.
	calls := policytest.Replies(whole)
	cut := *whole
	cut.Messages = whole.Messages[:calls[len(calls)-1]]
	for _, name := range policyNames() {
		env := &Env{Transcript: &cut, Summarizer: &summarize.Mock{}}
		policytest.DriveCalls(t, mustPolicy(t, name), &cut, env, calls, func(msg, _ int, step Step, _ *State) {
			if msg == len(cut.Messages) && len(step.History) == 0 {
				t.Errorf("%s: before the reply: nothing sent", name)
			}
		})
	}
}
