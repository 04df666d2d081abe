package window

import (
	"testing"

	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestAllowReuse: after Env.AllowReuse, aidf builds each history it cuts
// in the array of the one it sent before; without it, in a new array.
func TestAllowReuse(t *testing.T) {
	tr := policytest.ReadCorpus(t, "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	p := mustPolicy(t, "aidf:max_messages=12")
	shared := func(env *Env) (cuts, same int) {
		var prev *Item
		policytest.Drive(t, p, tr, env, func(_, _ int, step Step, _ *State) {
			if len(step.Evicted) == 0 {
				return
			}
			if cuts++; prev == &step.History[0] {
				same++
			}
			prev = &step.History[0]
		})
		return cuts, same
	}
	fresh := &Env{Transcript: tr}
	if cuts, same := shared(fresh); cuts < 2 || same != 0 {
		t.Errorf("without AllowReuse: %d of %d cut histories in the previous array, want 0 of at least 2", same, cuts)
	}
	reused := &Env{Transcript: tr}
	reused.AllowReuse()
	if cuts, same := shared(reused); cuts < 2 || same != cuts-1 {
		t.Errorf("after AllowReuse: %d of %d cut histories in the previous array, want all but the first", same, cuts)
	}
}
