package anthropic

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// mustPolicy builds the policy of this room spec names; policies joined
// by "+" are a policytest.WholeChain of them, in order.
func mustPolicy(t *testing.T, spec string) policy.Policy {
	t.Helper()
	if !strings.Contains(spec, "+") {
		return policytest.Parse(t, Specs, spec)
	}
	var c policytest.WholeChain
	for _, part := range strings.Split(spec, "+") {
		c.Parts = append(c.Parts, policytest.Parse(t, Specs, part))
	}
	return c
}

// clearedResults returns the ids of the results step sends as text.
func clearedResults(step policy.Step, text string) []string {
	var out []string
	for _, it := range step.History {
		for _, b := range it.Msg.Blocks {
			if b.Type == transcript.BlockToolResult && b.Text == text {
				out = append(out, b.ID)
			}
		}
	}
	return out
}
