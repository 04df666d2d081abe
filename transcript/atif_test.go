package transcript_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	. "github.com/ctxbench/ctxbench/transcript"
)

// TestATIF: an ATIF trajectory (Harbor's RFC 0001 field names): steps
// to messages, an agent step's observation to the tool message after
// it, prompt_tokens read as including the cache reads and the writes
// recorded in metrics.extra, the final metrics and cost kept for the
// cross-check.
func TestATIF(t *testing.T) {
	ts := readTestdata(t, "atif/claude-code.trajectory.json")
	if len(ts) != 1 {
		t.Fatalf("%d transcripts", len(ts))
	}
	tr := ts[0]
	var roles []string
	for _, m := range tr.Messages {
		roles = append(roles, string(m.Role))
	}
	want := []string{"system", "user", "assistant", "tool", "assistant", "tool", "system", "user", "assistant"}
	if !cmp.Equal(roles, want) || tr.ID != "b41c2f0e-7d3a-4e55-9a61-2c8f5d1e0a77" || tr.AgentVersion != "2.1.39" || tr.Calls != 3 {
		t.Fatalf("%s %s %d calls: roles %v", tr.ID, tr.AgentVersion, tr.Calls, roles)
	}
	first := tr.Messages[2]
	if first.Blocks[0].Type != BlockThinking || first.Blocks[1].Text != "I'll run the tests first." || first.Blocks[2].Name != "Bash" ||
		string(first.Blocks[2].Input) != `{"command":"pytest tests/test_dates.py -q"}` {
		t.Errorf("first agent step %+v", first.Blocks)
	}
	if u := *first.Usage; u != (Usage{Input: 10, CacheWrite: 14200, Output: 96, Reasoning: 12}) {
		t.Errorf("first call's usage %+v", u)
	}
	// An empty message adds no text block; two results, one tool message.
	if m := tr.Messages[4]; len(m.Blocks) != 2 || tr.Messages[5].Count(BlockToolResult) != 2 {
		t.Errorf("second agent step %+v, then %+v", m.Blocks, tr.Messages[5].Blocks)
	}
	if m := tr.Messages[7]; m.Text() != "subagent b41c2f0e-review" {
		t.Errorf("subagent reference read as %q", m.Text())
	}
	if tr.Messages[1].Count(BlockImage) != 1 || tr.Messages[8].Model != "claude-sonnet-4-5-20250929" {
		t.Errorf("image part or the agent's model lost")
	}
	if r := tr.Reported; r == nil || r.Input+r.CacheRead != 43430 || r.CacheRead != 28710 || tr.ReportedCostUSD != 0.0676455 {
		t.Errorf("reported %+v $%v", r, tr.ReportedCostUSD)
	}
}

// TestATIFBadStep: a step of no known source is a malformed record at
// its line; lenient reads count it.
func TestATIFBadStep(t *testing.T) {
	data := []byte("{\"schema_version\":\"ATIF-v1.6\",\"session_id\":\"s\",\"agent\":{\"name\":\"a\",\"version\":\"1\"},\"steps\":[\n" +
		"{\"step_id\":1,\"source\":\"user\",\"message\":\"hi\"},\n" +
		"{\"step_id\":2,\"source\":\"robot\",\"message\":\"x\"},\n" +
		"{\"step_id\":3,\"source\":\"agent\",\"message\":\"ok\",\"metrics\":{\"prompt_tokens\":10,\"completion_tokens\":2}}]}\n")
	_, err := Parse(data, "t.json", Options{})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 3 || !strings.Contains(se.Msg, `source "robot"`) {
		t.Fatalf("error %v, want t.json:3 naming the source", err)
	}
	ts, err := Parse(data, "t.json", Options{Lenient: true})
	if err != nil || ts[0].BadRecords != 1 || ts[0].Calls != 1 || ts[0].Usage().Input != 10 {
		t.Fatalf("lenient: %v %+v", err, ts)
	}
	// JSON Lines of trajectories: one transcript each.
	one := strings.ReplaceAll(string(data), "\n", "")
	one = strings.Replace(one, `"robot"`, `"user"`, 1)
	ts, err = Parse([]byte(one+"\n"+strings.Replace(one, `"session_id":"s"`, `"session_id":"s2"`, 1)+"\n"), "t.jsonl", Options{})
	if err != nil || len(ts) != 2 || ts[0].Format != FormatATIF || ts[1].ID != "s2" {
		t.Fatalf("JSON Lines of trajectories: %v %v", err, ts)
	}
}
