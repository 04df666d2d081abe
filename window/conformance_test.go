package window

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/window/internal/aidf"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// The conformance goldens (testdata/conformance) hold what the peers'
// real code keeps at every call of the histories
// scripts/conformance/export writes; make conformance regenerates them
// with node. These tests replay ctxbench's policies on the same
// transcripts and compare, call by call, without node.

// TestAIDFConformance: at every call of every history, under every
// setting, aidf sends what AIDF's ConversationWindow.trim (the real code,
// run by make conformance from a checkout of rubenmavarezb/aidf) sends:
// the same messages in the same order, a message twice where the code
// sends it twice, and the summary in the same place. The golden also holds
// the code's estimatedTokens of what it sent, which the test sets beside
// chars4's count of the same history.
func TestAIDFConformance(t *testing.T) {
	var g struct {
		AIDF     policytest.GoldenSource `json:"aidf"`
		Settings []struct {
			MaxMessages     int  `json:"max_messages"`
			PreserveFirstN  int  `json:"preserve_first_n"`
			PreserveLastN   int  `json:"preserve_last_n"`
			SummarizeOnTrim bool `json:"summarize_on_trim"`
		} `json:"settings"`
		Results [][]struct {
			Source string `json:"source"`
			Calls  []struct {
				Sent   []string `json:"sent"`
				Tokens int      `json:"tokens"`
			} `json:"calls"`
		} `json:"results"`
	}
	policytest.ReadGolden(t, "aidf.json", &g)
	if g.AIDF.Commit != aidf.Commit {
		t.Errorf("the golden is of %s@%s; the policy says it follows %s", g.AIDF.Repository, g.AIDF.Commit, aidf.Commit)
	}
	chars4 := chars4Estimator()
	twice := 0
	var aidfTokens, chars4Tokens int
	for k, s := range g.Settings {
		spec := fmt.Sprintf("aidf:max_messages=%d,preserve_first_n=%d,preserve_last_n=%d,summarize_on_trim=%t",
			s.MaxMessages, s.PreserveFirstN, s.PreserveLastN, s.SummarizeOnTrim)
		calls, same, summaries := 0, 0, 0
		for _, r := range g.Results[k] {
			tr := policytest.ConformanceSource(t, r.Source)
			got := policytest.Run(t, mustPolicy(t, spec), tr, &summarize.Mock{})
			if len(got) != len(r.Calls) {
				t.Fatalf("%s: %d calls, the golden has %d", r.Source, len(got), len(r.Calls))
			}
			for c, want := range r.Calls {
				calls++
				enc := policytest.EncodeRuns(got[c].Sent)
				if slices.Equal(enc, want.Sent) {
					same++
				} else if !t.Failed() || calls < 20 {
					t.Errorf("%s, %s, call %d: ConversationWindow sent %v, ctxbench %v", spec, r.Source, c, want.Sent, enc)
				}
				if len(got[c].Sent) > len(distinct(got[c].Sent)) {
					twice++
				}
				if got[c].Step.Summary != nil && got[c].Step.Summary.ID != "" {
					summaries++
				}
				aidfTokens += want.Tokens
				for _, it := range got[c].Step.History {
					chars4Tokens += chars4.CountMessage(it.Msg)
				}
			}
		}
		// The code summarizes only where head and tail leave a middle.
		if middle := s.PreserveFirstN+s.PreserveLastN < s.MaxMessages; s.SummarizeOnTrim && middle != (summaries > 0) {
			t.Errorf("%s: %d summaries made on the corpus", spec, summaries)
		}
		t.Logf("%s: %d of %d calls as ConversationWindow, %d summaries", spec, same, calls, summaries)
	}
	if twice == 0 {
		t.Error("no call sent a message twice: the golden no longer holds the code's overlapping head and tail")
	}
	t.Logf("%d calls send a message twice; over every call, ConversationWindow's estimateTokens is %d, chars4 %d (%.3f×)",
		twice, aidfTokens, chars4Tokens, float64(aidfTokens)/float64(chars4Tokens))
}

func distinct(ids []string) map[string]bool {
	m := map[string]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return m
}
