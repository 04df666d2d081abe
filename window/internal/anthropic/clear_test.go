package anthropic

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
	"github.com/ctxbench/ctxbench/window/internal/serveredit"
)

// clearSpecs are the clear-tool-uses and clear-thinking settings, and
// chains of this room's edits, checked (clear-thinking never fires: it
// edits at every call).
var clearSpecs = []string{
	"anthropic-clear-tool-uses:trigger=30000",
	"anthropic-clear-tool-uses:trigger=5000,keep=1",
	"anthropic-clear-tool-uses:trigger=2000,keep=0,clear_tool_inputs=true",
	"anthropic-clear-tool-uses:trigger=0,trigger_tool_uses=5,keep=2,clear_tool_inputs=Bash|Read",
	"anthropic-clear-tool-uses:trigger=3000,exclude_tools=Read|Grep,clear_at_least=2000,placeholder=gone",
	"anthropic-clear-tool-uses:trigger=1000,keep=2,clear_at_least=20000",
	"anthropic-clear-thinking:keep=1+anthropic-clear-tool-uses:trigger=3000,keep=1,clear_tool_inputs=true",
	"anthropic-clear-tool-uses:trigger=3000+anthropic-clear-thinking:keep=0",
	"anthropic-clear-thinking:keep=0+anthropic-clear-tool-uses:trigger=2000,keep=1",
	"anthropic-compaction:trigger=50000+anthropic-clear-tool-uses:trigger=10000,keep=2",
	"anthropic-clear-thinking:keep=1",
	"anthropic-clear-thinking:keep=0",
	"anthropic-clear-thinking:keep=3",
	"anthropic-compaction:trigger=50000+anthropic-clear-thinking:keep=1+anthropic-clear-tool-uses:trigger=10000,keep=2",
}

// wholeOf returns p with its clear-tool-uses and its clear-thinking,
// alone or chained, computing each call whole.
func wholeOf(p policy.Policy) policy.Policy {
	switch p := p.(type) {
	case *anthropicClearTools:
		return wholeClearTools{p}
	case *anthropicClearThinking:
		return wholeClearThinking{p}
	case policytest.WholeChain:
		var c policytest.WholeChain
		for _, q := range p.Parts {
			c.Parts = append(c.Parts, wholeOf(q))
		}
		return c
	}
	return p
}

// TestClearToolUsesIncremental: anthropic-clear-tool-uses and
// anthropic-clear-thinking keeping their state from call to call send,
// clear, fire and warn exactly as computing every call whole does
// (wholeClearTools, wholeClearThinking), alone and chained
// (policytest.WholeChain, which gives each part the history as the
// parts before it sent it), on the sessions of policytest.EditSessions.
// window's TestChainIncremental holds its chain, which tells the parts
// what changed, to the same reference.
func TestClearToolUsesIncremental(t *testing.T) {
	calls, seeds := 200, 2
	if testing.Short() {
		calls, seeds = 100, 1
	}
	fired, cut := map[string]int{}, map[string]int{}
	for k, tr := range policytest.EditSessions(t, calls, seeds) {
		for _, spec := range clearSpecs {
			inc := mustPolicy(t, spec)
			// Every other session, the incremental policy may build in
			// the arrays of what it sent (as the replay command lets it).
			f, c := policytest.SameAsWhole(t, spec, tr, inc, wholeOf(inc), k%2 == 1)
			fired[spec] += f
			cut[spec] += c
		}
	}
	// The comparison means something only where the edits run.
	for _, spec := range clearSpecs {
		if fired[spec] == 0 && !strings.HasPrefix(spec, AnthropicClearThinking+":") || cut[spec] == 0 {
			t.Errorf("%s fired %d times and cut %d items: the sessions do not exercise it", spec, fired[spec], cut[spec])
		}
	}
}

// TestClearStateWhole: the count clear-tool-uses keeps of the positions
// of its client history that are not the transcript's messages as
// written says what serveredit.IsWholeHistory finds looking at every
// item, at every call, alone and chained, on the sessions of
// policytest.EditSessions.
func TestClearStateWhole(t *testing.T) {
	seen := map[bool]int{}
	for _, tr := range policytest.EditSessions(t, 100, 1) {
		for _, spec := range clearSpecs {
			if !strings.Contains(spec, AnthropicClearToolUses) {
				continue
			}
			env := &policy.Env{Transcript: tr, Count: policytest.CacheCount(), Summarizer: &summarize.Mock{}}
			policytest.Drive(t, mustPolicy(t, spec), tr, env, func(_, _ int, _ policy.Step, st *policy.State) {
				states := []*policy.State{st}
				if cs, ok := st.Data.(*policytest.WholeChainState); ok {
					states = cs.Sub
				}
				for _, s := range states {
					ss, _ := s.Data.(*serveredit.State)
					if ss == nil {
						continue
					}
					cs, _ := ss.Own.(*clearState)
					if cs == nil {
						continue
					}
					want := serveredit.IsWholeHistory(env, cs.client)
					if got := cs.whole(env); got != want {
						t.Fatalf("%s on %s, call %d: whole %v, IsWholeHistory %v", spec, tr.ID, env.Call, got, want)
					}
					seen[want]++
				}
			})
		}
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Errorf("the sessions give a whole history %d times and another %d times: want both", seen[true], seen[false])
	}
}
