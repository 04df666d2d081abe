package replay

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// broken is a test-only policy that breaks one invariant on purpose.
type broken struct {
	name  string
	g     window.Guarantees
	apply func(env *window.Env, hist []window.Item) window.Step
}

func (b *broken) Name() string                  { return b.name }
func (b *broken) Params() window.Values         { return window.Values{} }
func (b *broken) Guarantees() window.Guarantees { return b.g }
func (b *broken) Apply(_ context.Context, env *window.Env, _ *window.State, hist []window.Item) (window.Step, error) {
	return b.apply(env, hist), nil
}

func summaryItem(id string, role transcript.Role, text string) window.Item {
	return window.Item{ID: id, Summary: true, Msg: &transcript.Message{Role: role, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: text}}}}
}

func TestEachInvariantFires(t *testing.T) {
	tr := generated(t, 40)
	synth := 0
	for _, tc := range []struct {
		invariant string
		policy    *broken
	}{
		{InvCap, &broken{name: "too-many", g: window.Guarantees{MaxMessages: 4},
			apply: func(_ *window.Env, h []window.Item) window.Step { return window.Step{History: h} }}},
		{InvAnchors, &broken{name: "drops-head", g: window.Guarantees{Head: 1},
			apply: func(_ *window.Env, h []window.Item) window.Step {
				return window.Step{History: h[1:], Evicted: []string{h[0].ID}}
			}}},
		{InvOrder, &broken{name: "reverses",
			apply: func(_ *window.Env, h []window.Item) window.Step {
				r := slices.Clone(h)
				slices.Reverse(r)
				return window.Step{History: r}
			}}},
		{InvToolPairing, &broken{name: "drops-calls", g: window.Guarantees{PairSafe: true},
			apply: func(_ *window.Env, h []window.Item) window.Step {
				var kept []window.Item
				var ev []string
				for _, it := range h {
					if it.Msg.Role == transcript.RoleAssistant {
						ev = append(ev, it.ID)
						continue
					}
					kept = append(kept, it)
				}
				return window.Step{History: kept, Evicted: ev}
			}}},
		{InvSummary, &broken{name: "two-summaries", g: window.Guarantees{SummaryRole: transcript.RoleSystem},
			apply: func(_ *window.Env, h []window.Item) window.Step {
				synth += 2
				a := summaryItem("s"+strconv.Itoa(synth-1), transcript.RoleUser, "one")
				b := summaryItem("s"+strconv.Itoa(synth), transcript.RoleUser, "two")
				return window.Step{History: append([]window.Item{a, b}, h...)}
			}}},
		{InvShrinks, &broken{name: "grows", g: window.Guarantees{Compacts: true},
			apply: func(_ *window.Env, h []window.Item) window.Step {
				synth++
				s := summaryItem("s"+strconv.Itoa(synth), transcript.RoleUser, strings.Repeat("padding ", 50))
				var rest []window.Item
				for _, it := range h {
					if !it.Synthetic() {
						rest = append(rest, it)
					}
				}
				return window.Step{History: append([]window.Item{s}, rest...), Summary: &window.SummaryEvent{ID: s.ID}}
			}}},
		{InvConservation, &broken{name: "loses",
			apply: func(_ *window.Env, h []window.Item) window.Step {
				if len(h) > 3 {
					return window.Step{History: append(slices.Clone(h[:1]), h[2:]...)}
				}
				return window.Step{History: h}
			}}},
	} {
		t.Run(tc.invariant, func(t *testing.T) {
			run, err := Replay(context.Background(), tr, tc.policy, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if run.Summary.Violations[tc.invariant] == 0 {
				t.Fatalf("%s never reported %s: %v", tc.policy.name, tc.invariant, run.Summary.Violations)
			}
			for _, st := range run.Steps {
				for _, v := range st.Violations {
					if v.Invariant == tc.invariant {
						if v.Step != st.Step || v.Detail == "" {
							t.Errorf("violation without step or sentence: %+v", v)
						}
						return
					}
				}
			}
		})
	}
}
