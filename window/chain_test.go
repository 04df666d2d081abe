package window

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestChain: policies joined by "+" apply in order; the chain's SPEC and
// parameters round-trip, each named policy.param.
func TestChain(t *testing.T) {
	spec := "anthropic-clear-thinking:keep=all+anthropic-clear-tool-uses:keep=5"
	p := mustPolicy(t, spec)
	if p.Name() != "anthropic-clear-thinking+anthropic-clear-tool-uses" || format(p) != spec {
		t.Errorf("name %q, format %q", p.Name(), format(p))
	}
	want := map[string]string{"anthropic-clear-thinking.keep": "all", "anthropic-clear-tool-uses.keep": "5"}
	if diff := cmp.Diff(want, changed(p)); diff != "" {
		t.Errorf("changed (-want +got):\n%s", diff)
	}
	q, err := New(p.Name(), changed(p))
	if err != nil || format(q) != spec {
		t.Errorf("New(%q, %v) = %v, %v", p.Name(), changed(p), q, err)
	}
	for _, bad := range []string{"anthropic-clear-thinking+anthropic-clear-thinking", "anthropic-clear-thinking+nosuch"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	if _, err := New(p.Name(), map[string]string{"keep": "1"}); err == nil || !strings.Contains(err.Error(), "POLICY.PARAM") {
		t.Errorf("a parameter without its policy: %v", err)
	}
	// Applied in order: thinking removed (keep=0: the session is one
	// turn, its tool results start none), then results cleared.
	tr := policytest.ToolSession([]string{"Bash", "Bash", "Bash"}, []int64{1000, 2000, 200_000, 200_000})
	for i := range tr.Messages {
		if tr.Messages[i].Role == transcript.RoleAssistant {
			tr.Messages[i].Blocks = append([]transcript.Block{{Type: transcript.BlockThinking, Text: "hm"}}, tr.Messages[i].Blocks...)
		}
	}
	calls := policytest.Run(t, mustPolicy(t, "anthropic-clear-thinking:keep=0+anthropic-clear-tool-uses:keep=1"), tr, nil)
	last := calls[len(calls)-1].Step
	var cleared []string
	for _, it := range last.History {
		for _, b := range it.Msg.Blocks {
			if b.Type == transcript.BlockToolResult && b.Text == "[cleared]" {
				cleared = append(cleared, b.ID)
			}
		}
		if has(it, transcript.BlockThinking) {
			t.Errorf("%s keeps its thinking", it.ID)
		}
	}
	if !cmp.Equal(cleared, []string{"a", "b"}) {
		t.Errorf("cleared %v, want [a b]", cleared)
	}
}

// chainSpecs are the chains of the provider's edits checked, with a
// policy of the client's before them or after.
var chainSpecs = []string{
	"anthropic-clear-thinking:keep=1+anthropic-clear-tool-uses:trigger=3000,keep=1,clear_tool_inputs=true",
	"anthropic-clear-tool-uses:trigger=3000+anthropic-clear-thinking:keep=0",
	"anthropic-clear-thinking:keep=0+anthropic-clear-tool-uses:trigger=2000,keep=1",
	"anthropic-compaction:trigger=50000+anthropic-clear-tool-uses:trigger=10000,keep=2",
	"anthropic-compaction:trigger=50000+anthropic-clear-thinking:keep=1+anthropic-clear-tool-uses:trigger=10000,keep=2",
	"aidf:max_messages=40+anthropic-clear-thinking:keep=1+anthropic-clear-tool-uses:trigger=3000,keep=1",
	"anthropic-clear-tool-uses:trigger=3000,keep=2+aidf:max_messages=30",
	"openai-compaction:compact_threshold=20000+anthropic-clear-tool-uses:trigger=3000,keep=1",
}

// TestChainIncremental: a chain, which keeps its history from call to
// call and tells its parts what changed since the previous call, sends,
// cuts, fires and warns exactly as policytest.WholeChain, which restores
// the provider's copies whole at every call and tells the parts
// nothing, over the same parts, on the sessions of
// policytest.EditSessions. The rooms hold each edit, alone and chained
// that way, to computing every call whole (window/internal/anthropic's
// TestClearToolUsesIncremental).
func TestChainIncremental(t *testing.T) {
	calls, seeds := 200, 2
	if testing.Short() {
		calls, seeds = 100, 1
	}
	fired, cut := map[string]int{}, map[string]int{}
	for k, tr := range policytest.EditSessions(t, calls, seeds) {
		for _, spec := range chainSpecs {
			c := mustPolicy(t, spec).(*chainPolicy)
			// Every other session, the chain may build in the arrays of
			// what it sent (as the replay command lets it).
			f, n := policytest.SameAsWhole(t, spec, tr, c, policytest.WholeChain{Parts: c.parts}, k%2 == 1)
			fired[spec] += f
			cut[spec] += n
		}
	}
	for _, spec := range chainSpecs {
		if fired[spec] == 0 || cut[spec] == 0 {
			t.Errorf("%s fired %d times and cut %d items: the sessions do not exercise it", spec, fired[spec], cut[spec])
		}
	}
}
