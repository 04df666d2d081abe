package replay

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/internal/countcache"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// cutBefore returns t as the agent knew it when it prepared call k: the
// messages before that call's reply, then a reply of which nothing is
// known but its model (the agent chose it), and the compactions and
// rollbacks recorded before it.
func cutBefore(t *transcript.Transcript, k int) *transcript.Transcript {
	next := callMessage(t, k)
	c := *t
	c.Messages = append(slices.Clip(t.Messages[:next]), transcript.Message{Role: transcript.RoleAssistant, Model: t.Messages[next].Model, Time: t.Messages[next].Time})
	c.Compactions = slices.DeleteFunc(slices.Clone(t.Compactions), func(x transcript.Compaction) bool { return x.Index > next })
	c.Rollbacks = slices.DeleteFunc(slices.Clone(t.Rollbacks), func(x transcript.Rollback) bool { return x.Index > next })
	c.Calls = k + 1
	c.Unattributed, c.UnattributedByModel, c.Reported, c.ReportedByModel = nil, nil, nil, nil
	return &c
}

// decision is what a step decided: what it sent, evicted, truncated and
// summarized.
func decision(s *Step) string {
	summary := ""
	if s.Summary != nil {
		summary = fmt.Sprint(s.Summary.Covers)
	}
	return fmt.Sprintf("sent %v evicted %v truncated %v summary %s", s.Context, s.Evicted, s.Truncated, summary)
}

// TestNoReadAhead: every policy decides a call from what the agent knew
// before it. Replayed on each corpus transcript cut before the reply of
// one of its calls — the reply replaced by one of which only the model
// is known — every policy decides every call up to the cut as it does
// on the whole transcript: it reads neither the reply's usage nor its
// content nor anything after it.
func TestNoReadAhead(t *testing.T) {
	trs := corpus(t)
	counts := countcache.New()
	all := append(slices.Clone(specs), "anthropic-compaction:trigger=50000", "anthropic-clear-thinking:keep=0")
	policies := labeled(t, all)
	seen := map[string]bool{}
	for _, spec := range all {
		for _, part := range strings.Split(spec, "+") {
			name, _, _ := strings.Cut(part, ":")
			seen[name] = true
		}
	}
	for _, s := range window.Specs() {
		if name := s.Name; !seen[name] {
			t.Errorf("policy %s is not checked: add it to specs", name)
		}
	}
	for j, tr := range trs {
		if tr.Calls < 4 {
			continue
		}
		cuts := []int{tr.Calls / 3, 2 * tr.Calls / 3, tr.Calls - 1}
		if testing.Short() {
			cuts = cuts[1:2] // make long: every cut
		}
		for i, p := range policies {
			if testing.Short() && (i+j)%3 != 0 {
				continue // make long: every pair
			}
			opt := Options{Summarizer: &summarize.Mock{}, counts: counts}
			whole, err := Replay(context.Background(), tr, p.Policy, opt)
			if err != nil {
				t.Fatalf("%s on %s: %v", p.Label, tr.File, err)
			}
			for _, k := range cuts {
				cut, err := Replay(context.Background(), cutBefore(tr, k), p.Policy, opt)
				if err != nil {
					t.Errorf("%s on %s cut before call %d's reply: %v", p.Label, tr.File, k, err)
					continue
				}
				for c := 0; c <= k && c < len(cut.Steps); c++ {
					if d := cmp.Diff(decision(&whole.Steps[c]), decision(&cut.Steps[c])); d != "" {
						t.Errorf("%s on %s: call %d decided otherwise when the transcript ends at call %d's reply (-whole +cut):\n%s", p.Label, tr.File, c, k, d)
						break
					}
				}
			}
		}
	}
}
