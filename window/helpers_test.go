package window

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

func mustPolicy(t *testing.T, spec string) Policy {
	t.Helper()
	p, err := Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEvictedFrom holds evictedFrom equal to a set difference for
// subsequences of a history (its one-walk path) and for sends that are not
// (reordered, or holding new items: its set path).
func TestEvictedFrom(t *testing.T) {
	hist := policytest.Items(policytest.TextTranscript(12), 12)
	setDiff := func(out []Item) []string {
		keep := map[string]bool{}
		for _, it := range out {
			keep[it.ID] = true
		}
		var ev []string
		for _, it := range hist {
			if !keep[it.ID] {
				ev = append(ev, it.ID)
			}
		}
		return ev
	}
	rng := rand.New(rand.NewPCG(1, 2))
	fresh := Item{ID: "s1", Msg: &transcript.Message{Role: transcript.RoleUser}}
	for trial := range 500 {
		var out []Item
		for _, it := range hist {
			if rng.IntN(3) > 0 {
				out = append(out, it)
			}
		}
		switch trial % 4 {
		case 1:
			out = append([]Item{fresh}, out...)
		case 2:
			out = append(out, fresh)
		case 3:
			rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		}
		if diff := cmp.Diff(setDiff(out), evictedFrom(hist, out)); diff != "" {
			t.Fatalf("trial %d, sent %v (-set difference +evictedFrom):\n%s", trial, ids(out), diff)
		}
	}
}

// checkParses parses each spec: one marked true must be accepted, one
// marked false refused as a *ParamError whose text holds why.
func checkParses(t *testing.T, specs map[string]bool, why string) {
	t.Helper()
	for spec, ok := range specs {
		_, err := Parse(spec)
		var pe *ParamError
		if (err == nil) != ok || (err != nil && !errors.As(err, &pe)) {
			t.Errorf("%s: error %v, want accepted: %t (refused as a ParamError)", spec, err, ok)
		}
		if err != nil && !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v does not say %q", spec, err, why)
		}
	}
}

func evictedFrom(hist, out []Item) []string { return policy.EvictedFrom(hist, out) }

func has(it Item, t transcript.BlockType) bool { return policy.Has(it, t) }

func chars4Estimator() estimate.Estimator { return policy.Chars4() }
