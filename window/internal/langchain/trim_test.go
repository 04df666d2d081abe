package langchain

import (
	"context"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/google/go-cmp/cmp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// TestLangchainTrim shows trim_messages' leading orphan ToolMessage
// (langchain-ai/langchain #33245) and start_on="human" removing it.
func TestLangchainTrim(t *testing.T) {
	tr := policytest.Msgs(
		transcript.Message{Role: transcript.RoleSystem, Blocks: []transcript.Block{policytest.Text("sys")}},
		policytest.User("q1"), policytest.CallTool("a"), policytest.Result("a", strings.Repeat("r", 40)), policytest.Asst("a1"), policytest.User("q2"), policytest.CallTool("b"), policytest.Result("b", "rb"))
	h := policytest.Items(tr, len(tr.Messages))
	budget := 0
	for _, it := range h[3:] {
		budget += lcMessageTokens(it.Msg)
	}
	run := func(spec string) []string {
		step, err := mustPolicy(t, spec).Apply(context.Background(), &policy.Env{Transcript: tr}, &policy.State{}, h)
		if err != nil {
			t.Fatal(err)
		}
		return policy.ItemIDs(step.History)
	}
	plain := run("langchain-trim:max_tokens=" + strconv.Itoa(budget))
	if diff := cmp.Diff([]string{"m3", "m4", "m5", "m6", "m7"}, plain); diff != "" {
		t.Errorf("strategy last (-want +got):\n%s", diff)
	}
	if policytest.Orphans(policytest.ItemsOf(tr, plain)) != 1 {
		t.Errorf("the leading tool result should be orphaned, as in #33245")
	}
	fixed := run("langchain-trim:start_on=human,include_system=true,max_tokens=" + strconv.Itoa(budget+lcMessageTokens(h[0].Msg)))
	if diff := cmp.Diff([]string{"m0", "m5", "m6", "m7"}, fixed); diff != "" {
		t.Errorf("start_on=human, include_system (-want +got):\n%s", diff)
	}
}

// lcMessageTokens is count_tokens_approximately of m's LangChain messages.
func lcMessageTokens(m *transcript.Message) int {
	n := 0
	for _, u := range lcView(m) {
		n += u.tokens
	}
	return n
}
