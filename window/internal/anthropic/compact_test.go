package anthropic

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/internal/msgid"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestAnthropicCompaction: the documentation's parameters — the trigger
// (input tokens; compaction when the request exceeds it, 50,000 at
// least), pause_after_compaction with the newest messages kept verbatim,
// instructions in place of the default prompt.
func TestAnthropicCompaction(t *testing.T) {
	names := []string{"Bash", "Read", "Bash"}
	// The last call (after 3 tool uses) records last input tokens.
	at := func(last int64) *transcript.Transcript {
		return policytest.ToolSession(names, []int64{1000, 2000, 3000, last})
	}
	for _, tc := range []struct {
		name, spec string
		last       int64
		want       []string // what the last call sends
	}{
		{"at the default trigger", "anthropic-compaction", 150_000, []string{"m0", "m1", "m2", "m3", "m4", "m5", "m6"}},
		{"over the default trigger: the summary alone", "anthropic-compaction", 150_001, []string{"s1"}},
		{"a trigger of 50,000", "anthropic-compaction:trigger=50000", 50_001, []string{"s1"}},
		{"paused, the last two kept", "anthropic-compaction:pause_after_compaction=true", 150_001, []string{"s1", "m5", "m6"}},
		{"paused, keep 1 reaches back to the call", "anthropic-compaction:pause_after_compaction=true,keep=1", 150_001, []string{"s1", "m5", "m6"}},
		{"paused, keep 3 reaches back to the call", "anthropic-compaction:pause_after_compaction=true,keep=3", 150_001, []string{"s1", "m3", "m4", "m5", "m6"}},
		{"paused, keep 0", "anthropic-compaction:pause_after_compaction=true,keep=0", 150_001, []string{"s1"}},
	} {
		rec := &policytest.Recorder{}
		calls := policytest.Run(t, mustPolicy(t, tc.spec), at(tc.last), rec)
		last := calls[len(calls)-1]
		if diff := cmp.Diff(tc.want, last.Sent); diff != "" {
			t.Errorf("%s: sent (-want +got):\n%s", tc.name, diff)
		}
		fires := tc.want[0] == "s1"
		if (last.Step.Fired != nil) != fires || (len(rec.Reqs) == 1) != fires {
			t.Errorf("%s: fired %+v, %d summaries", tc.name, last.Step.Fired, len(rec.Reqs))
		}
		if !fires {
			continue
		}
		if s := last.Step.History[0]; !s.Summary || s.Msg.Role != transcript.RoleAssistant {
			t.Errorf("%s: the compaction block is %+v", tc.name, s)
		}
		// The whole request is summarized, the kept messages too.
		if n := len(rec.Reqs[0].Messages); n != 7 {
			t.Errorf("%s: summarized %d messages, want the request's 7", tc.name, n)
		}
		if f := last.Step.Fired; f.Before != int(tc.last) || f.After >= f.Before {
			t.Errorf("%s: fired %+v", tc.name, f)
		}
		// The compaction iteration reads the whole request.
		if in := last.Step.Summary.Usage.Prompt(); in != tc.last {
			t.Errorf("%s: the compaction iteration's input is %d, want the request's %d", tc.name, in, tc.last)
		}
		if want := 7 - (len(tc.want) - 1); len(last.Step.Evicted) != want {
			t.Errorf("%s: evicted %v", tc.name, last.Step.Evicted)
		}
	}

	// Later calls send the block and what followed it.
	tr := policytest.ToolSession([]string{"Bash", "Bash", "Bash"}, []int64{1000, 160_000, 3000, 4000})
	calls := policytest.Run(t, mustPolicy(t, "anthropic-compaction"), tr, &policytest.Recorder{})
	if diff := cmp.Diff([][]string{{"m0"}, {"s1"}, {"s1", "m3", "m4"}, {"s1", "m3", "m4", "m5", "m6"}}, policytest.Sents(calls)); diff != "" {
		t.Errorf("after a compaction (-want +got):\n%s", diff)
	}

	// instructions replace the prompt, braces and all.
	rec := &policytest.Recorder{}
	policytest.Run(t, mustPolicy(t, "anthropic-compaction:instructions=Keep file paths {{.Previous}}"), at(150_001), rec)
	if len(rec.Reqs) != 1 {
		t.Fatalf("%d summaries", len(rec.Reqs))
	}
	pr, err := rec.Reqs[0].Render()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(pr.User, "Keep file paths {{.Previous}}\n\n[User] task") {
		t.Errorf("prompt %q", pr.User)
	}

	// No summarizer: the compaction fails, the history is kept, a warning.
	calls = policytest.Run(t, mustPolicy(t, "anthropic-compaction"), at(150_001), &policytest.Recorder{Fail: true})
	if last := calls[len(calls)-1]; len(last.Sent) != 7 || len(last.Step.Warnings) != 1 {
		t.Errorf("failed compaction: sent %v, warnings %v", last.Sent, last.Step.Warnings)
	}
}

// TestAnthropicCompactionCorpus: on a recorded Claude Code session, the
// compaction fires at the first call whose input, as known before it
// (the previous call's billed prompt and chars4 of what was appended
// since), exceeds the trigger — the call after the first whose billed
// input does — and the next call sends the block and what followed it.
func TestAnthropicCompactionCorpus(t *testing.T) {
	tr := policytest.ReadCorpus(t, "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	first, billed := -1, -1
	last, lastAt, x := int64(-1), 0, 0
	for i, m := range tr.Messages {
		if m.Role == transcript.RoleAssistant && m.Usage != nil && m.Usage.Prompt() > 0 {
			if billed < 0 && m.Usage.Prompt() > 150_000 {
				billed = i
			}
			if first < 0 && last >= 0 && last+int64(x-lastAt) > 150_000 {
				first = i
			}
			last, lastAt = m.Usage.Prompt(), x
		}
		x += policy.Chars4().CountMessage(&tr.Messages[i])
	}
	if first < 0 || billed < 0 {
		t.Fatal("no call over 150,000 input tokens")
	}
	if next := nextCall(tr, billed); first != billed && first != next {
		t.Errorf("known over the trigger at message %d; billed over it at message %d, the call after at %d", first, billed, next)
	}
	var fired []int
	var after []string
	env := &policy.Env{Transcript: tr, Summarizer: &policytest.Recorder{}}
	policytest.Drive(t, mustPolicy(t, "anthropic-compaction"), tr, env, func(msg, _ int, step policy.Step, _ *policy.State) {
		if step.Fired != nil {
			fired = append(fired, msg)
		}
		if len(fired) == 1 && msg > fired[0] && after == nil {
			after = policy.ItemIDs(step.History)
		}
	})
	if len(fired) == 0 || fired[0] != first {
		t.Fatalf("fired at messages %v; the first call over the trigger is message %d", fired, first)
	}
	if len(after) < 2 || after[0] != "s1" || after[1] != msgid.Of(first) {
		t.Errorf("the call after the compaction sends %v", after)
	}
}

// nextCall returns the index of the first assistant message after i.
func nextCall(tr *transcript.Transcript, i int) int {
	for j := i + 1; j < len(tr.Messages); j++ {
		if tr.Messages[j].Role == transcript.RoleAssistant {
			return j
		}
	}
	return -1
}
