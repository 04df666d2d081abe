package transcript_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	. "github.com/ctxbench/ctxbench/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestReadGoldens: each file of the formats read whole into goldens
// reads as its golden says (NAME.golden.json beside it; go test -run
// TestReadGoldens -update rewrites them).
func TestReadGoldens(t *testing.T) {
	for _, c := range []struct {
		path   string
		format Format
	}{
		{"otel/copilot-spans.jsonl", FormatOTel},
		{"otel/otlp-traces.jsonl", FormatOTel},
		{"otel/openinference-traces.json", FormatOTel},
		{"atif/claude-code.trajectory.json", FormatATIF},
		{"langfuse/observations.jsonl", FormatLangfuse},
		{"opencode/export.json", FormatOpencode},
		{"opencode/api-messages.json", FormatOpencode},
		{"opencode/export-1.0.json", FormatOpencode},
		{"copilot/session-state/6f1d2c3b-8a9e-4f70-b1c2-d3e4f5a6b7c8/events.jsonl", FormatCopilot},
	} {
		t.Run(c.path, func(t *testing.T) {
			path := filepath.Join("testdata", c.path)
			name := c.path
			ts, err := ReadFile(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range ts {
				if tr.Format != c.format {
					t.Errorf("%s read as %s", tr.ID, tr.Format)
				}
			}
			got, err := json.MarshalIndent(ts, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(strings.TrimSuffix(path, ".jsonl"), ".json") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)+"\n"); diff != "" {
				t.Errorf("%s (-golden +read):\n%s", name, diff)
			}
		})
	}
}

// TestOTelCopilotSpans: GitHub Copilot's span file (the JavaScript SDK's
// spans, one per line, written as each ends): a session with a
// subagent under an execute_tool span and a session recorded without
// content, split as Claude Code's are; usage as the conventions count
// it; an inference event of a chat span already read is not a call.
func TestOTelCopilotSpans(t *testing.T) {
	ts := readTestdata(t, "otel/copilot-spans.jsonl")
	type got struct {
		ID, Parent, Subagent string
		Calls                int
		Roles                string
		Usage                Usage
	}
	var all []got
	for _, tr := range ts {
		g := got{ID: tr.ID, Parent: tr.Parent, Subagent: tr.Subagent, Calls: tr.Calls, Usage: tr.Usage()}
		for _, m := range tr.Messages {
			g.Roles += string(m.Role[0])
		}
		all = append(all, g)
	}
	const s1, s2 = "3f2c1e9a-5b7d-4c2e-9f10-a1b2c3d4e5f6", "9a8b7c6d-0000-4000-8000-000000000002"
	want := []got{
		// input 6200+6520+6700 less reads 12500 and writes 6650.
		{ID: s1, Calls: 3, Roles: "suatata", Usage: Usage{Input: 270, CacheRead: 12500, CacheWrite: 6650, Output: 330, Reasoning: 40}},
		{ID: s1 + "/agent-5e6f708192031425", Parent: s1, Subagent: "agent-5e6f708192031425", Calls: 1, Roles: "sua", Usage: Usage{Input: 900, Output: 40}},
		{ID: s2, Calls: 2, Roles: "aa", Usage: Usage{Input: 3656, CacheRead: 2944, Output: 1200, Reasoning: 832}},
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Fatalf("transcripts (-want +got):\n%s", diff)
	}
	// Copilot writes a tool response's text in content, not response.
	if b := ts[0].Messages[3].Blocks[0]; b.Type != BlockToolResult || b.ID != "call_1" || !strings.HasPrefix(b.Text, "--- FAIL: TestParse") {
		t.Errorf("tool response %+v", b)
	}
	if m := ts[0].Messages[2]; m.Blocks[0].Type != BlockThinking || m.Blocks[1].Type != BlockToolUse || string(m.Blocks[1].Input) != `{"command":"go test ./..."}` ||
		m.CallID != "msg_01" || m.Time.Unix() != 1782900004 {
		t.Errorf("first call %+v", m)
	}
	sk := ts[0].Skipped
	if sk["span invoke_agent"] != 3 || sk["span execute_tool"] != 2 || sk["log gen_ai.client.inference.operation.details (of a chat span)"] != 1 {
		t.Errorf("skipped %v", sk)
	}
}

// TestOTelHistory: OTLP JSON Lines whose calls each carry the whole
// prompt: a prompt that continues the last adds its new messages; one
// that does not starts the history again after a compaction; an
// inference event is the call of a trace with no chat span.
func TestOTelHistory(t *testing.T) {
	ts := readTestdata(t, "otel/otlp-traces.jsonl")
	if len(ts) != 2 || ts[0].ID != "conv_68a1f0c2" || ts[1].ID != "conv_7c2e" || ts[1].Calls != 1 || ts[1].Models[0] != "gpt-4.1-mini" {
		t.Fatalf("transcripts %v", ts)
	}
	tr := ts[0]
	var idx []int
	for _, c := range tr.Compactions {
		idx = append(idx, c.Index)
	}
	// s u a(call 1) t a(call 2) | s u(summary) u a(call 3) | s u a(call 4)
	if len(tr.Messages) != 12 || !cmp.Equal(idx, []int{5, 9}) {
		t.Fatalf("%d messages, compactions at %v", len(tr.Messages), idx)
	}
	if u := tr.Messages[4].Usage; u == nil || u.Input != 148 || u.CacheRead != 1152 {
		t.Errorf("second call's usage %+v, want input 1300 less 1152 read", u)
	}
	if b := tr.Messages[3].Blocks[0]; b.Type != BlockToolResult || b.Text != `{"status":"paid","charges":[49.0,49.0]}` || b.Raw != nil {
		t.Errorf("structured tool response %+v", b)
	}
}

// TestOTelInputTokens: gen_ai.usage.input_tokens includes the cache
// reads and writes, as the conventions say; a count too small to hold
// both holds what it can.
func TestOTelInputTokens(t *testing.T) {
	for _, c := range []struct {
		in, read, write int64
		want            int64
	}{
		{1000, 600, 300, 100}, // the conventions
		{1000, 600, 500, 400}, // reads only (OpenAI's count)
		{100, 600, 300, 100},  // neither (Anthropic's)
	} {
		line := `{"name":"chat m","traceId":"t","spanId":"s","attributes":{"gen_ai.request.model":"m","gen_ai.usage.input_tokens":` +
			itoa(c.in) + `,"gen_ai.usage.cache_read.input_tokens":` + itoa(c.read) + `,"gen_ai.usage.cache_creation.input_tokens":"` + itoa(c.write) + `","gen_ai.usage.output_tokens":1}}`
		ts, err := Parse([]byte(line), "u.jsonl", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if u := ts[0].Usage(); u.Input != c.want || u.CacheRead != c.read || u.CacheWrite != c.write {
			t.Errorf("input %d read %d write %d: %+v, want input %d", c.in, c.read, c.write, u, c.want)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestOTelBadContent: content that is not the conventions' messages is
// a malformed record named at its line; lenient reads count it and keep
// the call's usage.
func TestOTelBadContent(t *testing.T) {
	data := []byte(`{"name":"chat m","traceId":"t","spanId":"a","attributes":{"gen_ai.usage.input_tokens":5,"gen_ai.output.messages":"[{\"role\":\"assistant\",\"parts\":[]}]"}}` + "\n" +
		`{"name":"chat m","traceId":"t","spanId":"b","attributes":{"gen_ai.usage.input_tokens":7,"gen_ai.input.messages":"[{\"parts\":[]}]"}}` + "\n")
	_, err := Parse(data, "bad.jsonl", Options{})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 || !strings.Contains(se.Msg, "gen_ai.input.messages: message 0 has no role") {
		t.Fatalf("error %v, want bad.jsonl:2 naming the message with no role", err)
	}
	ts, err := Parse(data, "bad.jsonl", Options{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	if ts[0].BadRecords != 1 || ts[0].Calls != 2 || ts[0].Usage().Input != 12 {
		t.Errorf("lenient: %d bad, %d calls, usage %+v", ts[0].BadRecords, ts[0].Calls, ts[0].Usage())
	}
}

// TestOTelDetected: both shapes are told from their content, and the
// writer's output is detected as otel.
func TestOTelDetected(t *testing.T) {
	for _, name := range []string{"otel/copilot-spans.jsonl", "otel/otlp-traces.jsonl"} {
		for _, tr := range readTestdata(t, name) {
			if tr.Format != FormatOTel {
				t.Errorf("%s: %s", name, tr.Format)
			}
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, readTestdata(t, "otel/otlp-traces.jsonl")[0], FormatOTel); err != nil {
		t.Fatal(err)
	}
	ts, err := Parse(buf.Bytes(), "w.jsonl", Options{})
	if err != nil || ts[0].Format != FormatOTel {
		t.Fatalf("written otel read back as %v (%v)", ts, err)
	}
}

// TestOpenInference: OpenInference's flattened attributes read as the
// GenAI ones they stand for (Arize-ai/openinference
// spec/semantic_conventions.md): llm.token_count.prompt holds the cache
// reads and writes, tool call arguments are a JSON string, a tool
// message answers its tool_call_id.
func TestOpenInference(t *testing.T) {
	ts, err := ReadFile(filepath.Join("testdata", "otel", "openinference-traces.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].ID != "sess-7f3a" || ts[0].Calls != 3 {
		t.Fatalf("%d transcripts, first %s with %d calls", len(ts), ts[0].ID, ts[0].Calls)
	}
	m := ts[0].Messages
	call := m[2]
	if call.Role != RoleAssistant || call.Model != "claude-sonnet-4-5-20250929" || len(call.Blocks) != 2 ||
		call.Blocks[0].Type != BlockThinking || call.Blocks[1].Name != "read_file" || string(call.Blocks[1].Input) != `{"path":"tests/test_parse.py"}` {
		t.Errorf("first call %+v", call)
	}
	if u := *call.Usage; u != (Usage{Input: 22, CacheWrite: 3390, Output: 58}) {
		t.Errorf("first call usage %+v", u)
	}
	if r := m[3]; r.Role != RoleTool || r.Blocks[0].Type != BlockToolResult || r.Blocks[0].ID != "toolu_01" || !strings.HasPrefix(r.Blocks[0].Text, "def test_parse") {
		t.Errorf("tool result %+v", r)
	}
	last := m[len(m)-1]
	if u := *last.Usage; last.Model != "gpt-5-mini-2025-08-07" || u != (Usage{Input: 866, CacheRead: 1024, Output: 420, Reasoning: 384}) {
		t.Errorf("last call %s %+v", last.Model, u)
	}
}
