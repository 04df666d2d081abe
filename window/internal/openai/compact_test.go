package openai

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestOpenAICompaction: the documentation's behaviour — the server
// compacts when the request's rendered tokens cross compact_threshold;
// the window left is the user messages and the compaction item (what
// /responses/compact returns), or the item alone; later calls send the
// window and what followed.
func TestOpenAICompaction(t *testing.T) {
	names := []string{"Bash", "Read", "Bash"}
	at := func(last int64) *transcript.Transcript {
		return policytest.ToolSession(names, []int64{1000, 2000, 3000, last})
	}
	for _, tc := range []struct {
		name, spec string
		last       int64
		want       []string // what the last call sends
	}{
		{"at the threshold", "openai-compaction", 200_000, []string{"m0", "m1", "m2", "m3", "m4", "m5", "m6"}},
		{"over it: the user message and the item", "openai-compaction", 200_001, []string{"m0", "s1"}},
		{"the item alone", "openai-compaction:keep_user_messages=false", 200_001, []string{"s1"}},
		{"a threshold of 50,000", "openai-compaction:compact_threshold=50000", 50_001, []string{"m0", "s1"}},
	} {
		rec := &policytest.Recorder{}
		calls := policytest.Run(t, mustPolicy(t, tc.spec), at(tc.last), rec)
		last := calls[len(calls)-1]
		if diff := cmp.Diff(tc.want, last.Sent); diff != "" {
			t.Errorf("%s: sent (-want +got):\n%s", tc.name, diff)
		}
		fires := len(tc.want) < 7
		if (last.Step.Fired != nil) != fires || (len(rec.Reqs) == 1) != fires {
			t.Errorf("%s: fired %+v, %d summaries", tc.name, last.Step.Fired, len(rec.Reqs))
		}
		if !fires {
			continue
		}
		if s := last.Step.History[len(last.Step.History)-1]; !s.Summary || s.Msg.Role != transcript.RoleAssistant {
			t.Errorf("%s: the compaction item is %+v", tc.name, s)
		}
		// The whole request is compacted; the pass reads all of it.
		if n := len(rec.Reqs[0].Messages); n != 7 {
			t.Errorf("%s: compacted %d messages, want the request's 7", tc.name, n)
		}
		if in := last.Step.Summary.Usage.Prompt(); in != tc.last {
			t.Errorf("%s: the compaction pass's input is %d, want the request's %d", tc.name, in, tc.last)
		}
		if f := last.Step.Fired; f.Before != int(tc.last) || f.After >= f.Before {
			t.Errorf("%s: fired %+v", tc.name, f)
		}
	}

	// Later calls send the window and what followed it.
	tr := policytest.ToolSession([]string{"Bash", "Bash", "Bash"}, []int64{1000, 210_000, 3000, 4000})
	calls := policytest.Run(t, mustPolicy(t, "openai-compaction"), tr, &policytest.Recorder{})
	if diff := cmp.Diff([][]string{{"m0"}, {"m0", "s1"}, {"m0", "s1", "m3", "m4"}, {"m0", "s1", "m3", "m4", "m5", "m6"}}, policytest.Sents(calls)); diff != "" {
		t.Errorf("after a compaction (-want +got):\n%s", diff)
	}

	// A user message's text stays, its tool outputs go into the item.
	tr = at(200_001)
	tr.Messages[4].Blocks = append(tr.Messages[4].Blocks, transcript.Block{Type: transcript.BlockText, Text: "and check the logs"})
	calls = policytest.Run(t, mustPolicy(t, "openai-compaction"), tr, &policytest.Recorder{})
	last := calls[len(calls)-1]
	if diff := cmp.Diff([]string{"m0", "m4", "s1"}, last.Sent); diff != "" {
		t.Errorf("a user message with tool outputs (-want +got):\n%s", diff)
	}
	if m := last.Step.History[1].Msg; len(m.Blocks) != 1 || m.Blocks[0].Text != "and check the logs" || !cmp.Equal(last.Step.Truncated, []string{"m4"}) {
		t.Errorf("the user message was sent as %+v, truncated %v", m.Blocks, last.Step.Truncated)
	}
}
