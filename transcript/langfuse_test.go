package transcript_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	. "github.com/ctxbench/ctxbench/transcript"
)

// TestLangfuse: a Langfuse blob-storage export (observations_v2 JSONL
// rows): the session's generations over two traces rebuilt into one
// conversation, a generation under an AGENT nested in another a
// subagent's, usage_details read as the disjoint buckets Langfuse
// prices, cost_details' totals kept for the cross-check.
func TestLangfuse(t *testing.T) {
	ts := readTestdata(t, "langfuse/observations.jsonl")
	type got struct {
		ID, Subagent string
		Calls        int
		Roles        string
		Usage        Usage
	}
	var all []got
	for _, tr := range ts {
		g := got{ID: tr.ID, Subagent: tr.Subagent, Calls: tr.Calls, Usage: tr.Usage()}
		for _, m := range tr.Messages {
			g.Roles += string(m.Role[0])
		}
		all = append(all, g)
	}
	want := []got{
		// input 1850+96+113, input_cached_tokens 1792+1920.
		{ID: "sess-7f3a", Calls: 3, Roles: "suataua", Usage: Usage{Input: 2059, CacheRead: 3712, Output: 67}},
		{ID: "sess-7f3a/agent-obs-agent-2", Subagent: "agent-obs-agent-2", Calls: 1, Roles: "sua", Usage: Usage{Input: 12, CacheWrite: 410, Output: 9}},
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Fatalf("transcripts (-want +got):\n%s", diff)
	}
	main := ts[0]
	if b := main.Messages[2].Blocks; len(b) != 1 || b[0].Type != BlockToolUse || string(b[0].Input) != `{"month":"2026-03"}` || main.Messages[2].CallID != "" {
		t.Errorf("first call %+v", main.Messages[2])
	}
	if m := main.Messages[6]; m.Model != "gpt-4.1" || m.Time.Format("15:04:05") != "10:01:02" {
		t.Errorf("last call: model %q time %v", m.Model, m.Time)
	}
	if sys := ts[1].Messages[0]; sys.Role != RoleSystem || sys.Text() != "You issue refunds." {
		t.Errorf("an Anthropic input's system: %+v", sys)
	}
	if c := main.ReportedCostUSD; c < 0.00650999 || c > 0.00651001 {
		t.Errorf("reported cost $%v, want 0.003892+0.001336+0.001282", c)
	}
	if main.Skipped["observation AGENT"] != 3 || main.Skipped["observation TOOL"] != 1 {
		t.Errorf("skipped %v", main.Skipped)
	}
}

// TestLangfuseShapes: a page of the public API ({"data": [...]},
// camelCase) and a JSON array of rows read alike; a usage key of no
// known kind is counted, not dropped; an input that is text is a user
// message.
func TestLangfuseShapes(t *testing.T) {
	row := `{"id":"g1","traceId":"t1","type":"GENERATION","startTime":"2026-05-02T10:00:00.000Z","endTime":"2026-05-02T10:00:02.000Z",` +
		`"providedModelName":"gpt-4.1-mini","input":"Summarize the ticket.","output":"Done.","usageDetails":{"input":40,"output":3,"audio_seconds":2,"total":43}}`
	for _, doc := range []string{`{"data":[` + row + `],"meta":{"page":1}}`, `[` + row + `]`, row + "\n"} {
		ts, err := Parse([]byte(doc), "lf.json", Options{})
		if err != nil {
			t.Fatalf("%.40s: %v", doc, err)
		}
		tr := ts[0]
		if tr.Format != FormatLangfuse || tr.ID != "t1" || len(tr.Messages) != 2 || tr.Messages[0].Text() != "Summarize the ticket." ||
			tr.Messages[1].Text() != "Done." || tr.Usage() != (Usage{Input: 40, Output: 3}) || tr.Skipped["usage_details audio_seconds"] != 1 {
			t.Errorf("%.40s: %+v", doc, tr)
		}
	}
	if _, err := Parse([]byte(strings.Replace(row, `"input":40`, `"input":"x"`, 1)), "lf.jsonl", Options{}); err != nil {
		t.Errorf("a count that is not one: %v (want it counted as skipped)", err)
	}
}
