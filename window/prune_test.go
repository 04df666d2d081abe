package window

import (
	"slices"
	"testing"

	"github.com/ctxbench/ctxbench/window/internal/policytest"
	"github.com/google/go-cmp/cmp"
)

// TestPruneReuseSent: prune building each history it changes in the array
// of the previous one (Env.ReuseSent) sends what building each in a new
// array does, item for item and content for content, on a corpus session
// it truncates, with the defaults and with a smaller limit.
func TestPruneReuseSent(t *testing.T) {
	tr := policytest.ReadCorpus(t, "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	for _, spec := range []string{"prune", "prune:max_chars=300,truncate_to=50,preserve_last_n=2"} {
		p := mustPolicy(t, spec)
		var want, got [][]Item
		var truncated int
		policytest.Drive(t, p, tr, &Env{Transcript: tr}, func(_, _ int, step Step, _ *State) {
			want = append(want, slices.Clone(step.History))
			truncated += len(step.Truncated)
		})
		policytest.Drive(t, p, tr, &Env{Transcript: tr, ReuseSent: true}, func(_, _ int, step Step, _ *State) {
			got = append(got, slices.Clone(step.History))
		})
		if truncated == 0 {
			t.Fatalf("%s truncates nothing in %s", spec, tr.ID)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d calls reused, %d in new arrays", spec, len(got), len(want))
		}
		for c := range want {
			if len(got[c]) != len(want[c]) {
				t.Fatalf("%s call %d: %d items reused, %d in new arrays", spec, c, len(got[c]), len(want[c]))
			}
			for i, w := range want[c] {
				g := got[c][i]
				if g.ID != w.ID || g.Truncated != w.Truncated || g.Summary != w.Summary || g.Index() != w.Index() ||
					(g.Msg != w.Msg && !cmp.Equal(g.Msg, w.Msg)) {
					t.Fatalf("%s call %d item %d: reused %+v, new arrays %+v", spec, c, i, g, w)
				}
			}
		}
	}
}
