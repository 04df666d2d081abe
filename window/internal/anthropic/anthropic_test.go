package anthropic

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestAnthropicClearToolUses: the documentation's parameters — the
// trigger (input tokens; at or over it), keep (the newest tool uses),
// exclude_tools, clear_at_least (not met: nothing cleared) — applied at
// every request to the client's whole history.
func TestAnthropicClearToolUses(t *testing.T) {
	names := []string{"Bash", "Read", "Bash", "Bash", "Bash"}
	// The last call (after 5 tool uses) records 50,000 input tokens.
	at := func(last int64) *transcript.Transcript {
		return policytest.ToolSession(names, []int64{1000, 2000, 3000, 4000, 5000, last})
	}
	for _, tc := range []struct {
		name, spec string
		last       int64
		want       []string
	}{
		{"below the trigger", "anthropic-clear-tool-uses:trigger=50000", 49_999, nil},
		{"at the trigger: all but the newest 3", "anthropic-clear-tool-uses:trigger=50000", 50_000, []string{"a", "b"}},
		{"keep 1", "anthropic-clear-tool-uses:trigger=50000,keep=1", 50_000, []string{"a", "b", "c", "d"}},
		{"Read excluded", "anthropic-clear-tool-uses:trigger=50000,keep=1,exclude_tools=Read", 50_000, []string{"a", "c", "d"}},
		{"clear_at_least not met", "anthropic-clear-tool-uses:trigger=50000,clear_at_least=100000", 50_000, nil},
		{"a tool-use trigger", "anthropic-clear-tool-uses:trigger_tool_uses=5,keep=4", 0, []string{"a"}},
	} {
		calls := policytest.Run(t, mustPolicy(t, tc.spec), at(tc.last), nil)
		last := calls[len(calls)-1].Step
		if diff := cmp.Diff(tc.want, clearedResults(last, anthropicPlaceholder)); diff != "" {
			t.Errorf("%s: cleared (-want +got):\n%s", tc.name, diff)
		}
		if (last.Fired != nil) != (tc.want != nil) {
			t.Errorf("%s: fired %+v", tc.name, last.Fired)
		}
		if strings.Contains(tc.spec, "clear_at_least") && len(last.Warnings) != 1 {
			t.Errorf("%s: warnings %v", tc.name, last.Warnings)
		}
	}
	// Inputs cleared with the results, and each request edited anew: a
	// request below the trigger sends the history whole, as the client
	// has it, though the one before it was cleared.
	tr := policytest.ToolSession(names, []int64{1000, 2000, 3000, 60_000, 5000, 6000})
	calls := policytest.Run(t, mustPolicy(t, "anthropic-clear-tool-uses:trigger=50000,keep=1,clear_tool_inputs=true"), tr, nil)
	if got := clearedResults(calls[3].Step, anthropicPlaceholder); !cmp.Equal(got, []string{"a", "b"}) {
		t.Errorf("at 60,000 tokens: cleared %v, want [a b]", got)
	}
	for _, it := range calls[3].Step.History {
		for _, b := range it.Msg.Blocks {
			if b.Type == transcript.BlockToolUse && (b.ID == "a" || b.ID == "b") && string(b.Input) != "{}" {
				t.Errorf("the call %s keeps its input %s", b.ID, b.Input)
			}
		}
	}
	if got := clearedResults(calls[4].Step, anthropicPlaceholder); got != nil {
		t.Errorf("at 5,000 tokens the request is not edited; it cleared %v", got)
	}
	for _, it := range calls[4].Step.History {
		if i := it.Index(); it.Msg != &tr.Messages[i] {
			t.Errorf("at 5,000 tokens %s is not the client's message", it.ID)
		}
	}
}

// TestAnthropicClearThinking: keep N removes the thinking of all but the
// newest N assistant turns; all removes none.
func TestAnthropicClearThinking(t *testing.T) {
	think := func(s string) transcript.Message {
		m := policytest.Asst(s)
		m.Blocks = append([]transcript.Block{{Type: transcript.BlockThinking, Text: "thinking " + s}}, m.Blocks...)
		return m
	}
	tr := policytest.Msgs(policytest.User("1"), think("a"), policytest.User("2"), think("b"), policytest.User("3"), think("c"), policytest.User("4"), think("d"))
	withThinking := func(step policy.Step) []string {
		var out []string
		for _, it := range step.History {
			if policy.Has(it, transcript.BlockThinking) {
				out = append(out, it.ID)
			}
		}
		return out
	}
	for _, tc := range []struct {
		keep string
		want []string
	}{{"1", []string{"m5"}}, {"2", []string{"m3", "m5"}}, {"0", nil}, {"all", []string{"m1", "m3", "m5"}}} {
		calls := policytest.Run(t, mustPolicy(t, "anthropic-clear-thinking:keep="+tc.keep), tr, nil)
		if diff := cmp.Diff(tc.want, withThinking(calls[3].Step)); diff != "" {
			t.Errorf("keep=%s: thinking sent (-want +got):\n%s", tc.keep, diff)
		}
	}
}

// TestServerEditsCopyOnce: the API edits send a message edited the same
// way at every request as one copy, not one per request — what makes
// memory and counting linear in the calls (3,000 calls took 3.8 GB).
// Over 150 calls that each clear every result but the newest and strip
// every thinking, at most one copy per message is ever sent.
func TestServerEditsCopyOnce(t *testing.T) {
	names := make([]string, 150)
	counts := make([]int64, 151)
	for k := range names {
		names[k] = "Bash"
		counts[k] = 1000
	}
	counts[150] = 1000
	tr := policytest.ToolSession(names, counts)
	for i := range tr.Messages {
		if m := &tr.Messages[i]; m.Role == transcript.RoleAssistant {
			m.Blocks = append([]transcript.Block{{Type: transcript.BlockThinking, Text: "thinking"}}, m.Blocks...)
		}
	}
	for _, spec := range []string{"anthropic-clear-tool-uses:trigger_tool_uses=1,keep=1,clear_tool_inputs=true", "anthropic-clear-thinking:keep=0"} {
		seen := map[*transcript.Message]bool{}
		cleared := 0
		policytest.Drive(t, mustPolicy(t, spec), tr, &policy.Env{Transcript: tr}, func(_, _ int, step policy.Step, _ *policy.State) {
			cleared += len(step.Truncated)
			for _, it := range step.History {
				seen[it.Msg] = true
			}
		})
		if len(seen) > 2*len(tr.Messages) {
			t.Errorf("%s: %d messages sent, %d distinct copies; want at most one copy each", spec, len(tr.Messages), len(seen))
		}
		if cleared < 100 {
			t.Errorf("%s: %d messages newly edited; the test needs edits", spec, cleared)
		}
	}
}
