package transcript_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	. "github.com/ctxbench/ctxbench/transcript"
)

// seedLines adds the first lines of a corpus file, and some of its lines
// alone, as fuzz seeds.
func seedLines(f *testing.F, name string, n int) {
	raw, err := os.ReadFile(filepath.Join(corpusDir, name))
	if err != nil {
		f.Fatal(err)
	}
	lines := bytes.SplitAfter(raw, []byte{'\n'})
	f.Add(bytes.Join(lines[:min(n, len(lines))], nil))
	for i := 0; i < len(lines); i += max(1, len(lines)/n) {
		if len(lines[i]) < 16<<10 {
			f.Add(lines[i])
		}
	}
}

func seedFile(f *testing.F, name string) {
	raw, err := os.ReadFile(filepath.Join(corpusDir, name))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
}

// fuzzReader checks what every reader must do with any input: return
// transcripts or an error, never panic; a lenient read of JSON Lines
// fails only when the input is no transcript at all; and whatever is read
// converts to openai-chat, anthropic and otel and reads back unchanged
// after one round.
func fuzzReader(f *testing.F, format Format) {
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := Parse(data, "fuzz", Options{Format: format})
		lenient, lerr := Parse(data, "fuzz", Options{Format: format, Lenient: true})
		if err == nil && lerr != nil {
			t.Fatalf("strict read succeeded, lenient failed: %v", lerr)
		}
		var se *SyntaxError
		if err != nil && errors.As(err, &se) && lerr == nil {
			bad := 0
			for _, tr := range lenient {
				bad += len(tr.Bad)
			}
			if bad == 0 && !isDocument(data) {
				t.Fatalf("strict read failed (%v) but the lenient read skipped nothing", err)
			}
		}
		for _, tr := range ts {
			if len(tr.Messages) == 0 && len(tr.UnattributedByModel) > 0 {
				continue // usage recorded apart from any message: nothing to convert
			}
			for _, out := range []Format{FormatOpenAIChat, FormatAnthropic, FormatOTel} {
				roundTrip(t, tr, out)
			}
		}
	})
}

func isDocument(data []byte) bool {
	d := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")))
	return len(d) > 0 && d[0] == '['
}

func roundTrip(t *testing.T, tr *Transcript, f Format) {
	t.Helper()
	var b1, b2 bytes.Buffer
	if err := Write(&b1, tr, f); err != nil {
		t.Fatalf("writing %s: %v", f, err)
	}
	once, err := Parse(b1.Bytes(), "once", Options{Format: f})
	if err != nil {
		t.Fatalf("reading back %s: %v\n%s", f, err, b1.Bytes())
	}
	if err := Write(&b2, once[0], f); err != nil {
		t.Fatalf("writing %s again: %v", f, err)
	}
	twice, err := Parse(b2.Bytes(), "twice", Options{Format: f})
	if err != nil {
		t.Fatalf("reading back %s again: %v", f, err)
	}
	if diff := cmp.Diff(once[0].Messages, twice[0].Messages, ignorePos); diff != "" {
		t.Fatalf("%s round trip not stable (-once +twice):\n%s", f, diff)
	}
}

func FuzzClaudeCode(f *testing.F) {
	seedLines(f, "spotter/short.jsonl", 20)
	seedLines(f, "ai-workflow-agent/issue-113/04_implementation/execute/agent_log_raw.txt", 12)
	f.Add([]byte(ccUser + "\n" + ccAsst + "\n" + ccAsst))
	fuzzReader(f, FormatClaudeCode)
}

func FuzzCodex(f *testing.F) {
	seedLines(f, "codemie-code/src/agents/plugins/codex/__tests__/fixtures/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl", 12)
	for _, name := range []string{"codex-rollout-tokens.jsonl", "codex-exec.jsonl"} {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	fuzzReader(f, FormatCodex)
}

func FuzzOpenAIChat(f *testing.F) {
	seedLines(f, "mini-swe-agent/output/deepseek_chat_dev/pvlib__pvlib-python-1072/pvlib__pvlib-python-1072.traj.json", 8)
	for _, name := range []string{"openai-messages.jsonl", "openai-conversations.jsonl"} {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	fuzzReader(f, FormatOpenAIChat)
}

func FuzzAnthropic(f *testing.F) {
	for _, name := range []string{"anthropic-messages.jsonl", "anthropic-requests.jsonl", "cline/1767001234567/api_conversation_history.json",
		"cline4/agentic.compaction.json", "cline4/basic.compaction.json"} {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(`{"version":1,"sessionId":"s","messages":[{"role":"user","content":[{"type":"file","path":"a","content":"b"}],"metadata":{"kind":"compaction","usageBefore":{"inputTokens":5,"cacheReadTokens":9}}},{"role":"assistant","content":"x","metrics":{"inputTokens":3,"cost":1}}]}`))
	fuzzReader(f, FormatAnthropic)
}

func FuzzGeminiCLI(f *testing.F) {
	seedFile(f, "codemie-code/tests/integration/metrics/fixtures/gemini/session-2025-12-01T21-45-5b959dae.json")
	f.Add([]byte(`{"sessionId":"s","messages":[{"type":"user","content":[{"text":"hi"}]},{"type":"gemini","content":"x","toolCalls":[{"id":"a","name":"n","args":{},"result":null,"status":"cancelled"}],"tokens":{"input":5,"cached":2}}]}`))
	fuzzReader(f, FormatGeminiCLI)
}

func FuzzOpenHands(f *testing.F) {
	seedFile(f, "OpenHands/tests/runtime/trajs/wrong_initial_state.json")
	fuzzReader(f, FormatOpenHands)
}

func FuzzOTel(f *testing.F) {
	for _, name := range []string{"otel/copilot-spans.jsonl", "otel/otlp-traces.jsonl"} {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
		for _, l := range bytes.SplitAfter(raw, []byte{'\n'})[:3] {
			f.Add(l)
		}
	}
	f.Add([]byte(`{"name":"chat m","traceId":"t","attributes":{"gen_ai.usage.input_tokens":"5","gen_ai.input.messages":"[{\"role\":\"user\",\"parts\":[{\"type\":\"compaction\"}]}]"}}`))
	raw, err := os.ReadFile(filepath.Join("testdata", "otel", "openinference-traces.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add([]byte(`{"name":"x","traceId":"t","attributes":{"openinference.span.kind":"LLM","llm.input_messages.0.message.role":"tool","llm.input_messages.1.message.tool_calls.-1.tool_call.id":"a","llm.input_messages.07.message.contents.0.message_content.type":"image"}}`))
	fuzzReader(f, FormatOTel)
}

func FuzzATIF(f *testing.F) {
	raw, err := os.ReadFile(filepath.Join("testdata", "atif", "claude-code.trajectory.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add([]byte(`{"schema_version":"ATIF-v1.6","agent":{},"steps":[{"source":"agent","message":[{"type":"image"}],"observation":{"results":[{"content":[{"type":"text","text":"a"}]}]},"metrics":{"prompt_tokens":3,"cached_tokens":9}}]}`))
	fuzzReader(f, FormatATIF)
}

func FuzzLangfuse(f *testing.F) {
	raw, err := os.ReadFile(filepath.Join("testdata", "langfuse", "observations.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	for _, l := range bytes.SplitAfter(raw, []byte{'\n'})[:5] {
		f.Add(l)
	}
	f.Add([]byte(`{"data":[{"id":"a","traceId":"t","type":"GENERATION","startTime":"2026-01-01T00:00:00Z","input":"hi","output":{"content":1},"usageDetails":{"input":"3","x":2}}]}`))
	fuzzReader(f, FormatLangfuse)
}

// FuzzDetect reads any input with detection: no panic, and a detected
// format reads back through its own reader.
func FuzzDetect(f *testing.F) {
	for _, name := range []string{"spotter/short.jsonl", "OpenHands/tests/runtime/trajs/wrong_initial_state.json"} {
		seedFile(f, name)
	}
	f.Add([]byte("\xEF\xBB\xBF{\"role\":\"user\",\"content\":\"hi\"}\r\n"))
	f.Add([]byte("[]"))
	f.Add([]byte("{\"messages\":null}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := Parse(data, "fuzz", Options{Lenient: true})
		if err != nil {
			return
		}
		again, err := Parse(data, "fuzz", Options{Lenient: true, Format: ts[0].Format})
		if err != nil {
			t.Fatalf("detected %s, but reading as %s fails: %v", ts[0].Format, ts[0].Format, err)
		}
		if diff := cmp.Diff(ts, again, transcriptOpts); diff != "" {
			t.Fatalf("detection and an explicit format read differently:\n%s", diff)
		}
	})
}

func FuzzOpencode(f *testing.F) {
	for _, name := range []string{"export.json", "api-messages.json", "export-1.0.json"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "opencode", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(`[{"info":{"id":"m","sessionID":"s","role":"assistant","tokens":{"input":1,"output":1,"reasoning":9,"cache":{"read":2}}},"parts":[{"type":"tool","callID":"c","state":{"status":"completed","input":null,"time":{"compacted":5}}},{"type":"step-finish"}]}]`))
	f.Add([]byte(`{"info":{"id":"s","time":{}},"messages":[{"info":{"id":"u","sessionID":"s","role":"user"},"parts":[{"type":"compaction","auto":true,"tail_start_id":"u"}]},{"info":{"id":"a","sessionID":"s","role":"assistant","summary":true},"parts":[{"type":"text","text":"sum"}]}]}`))
	fuzzReader(f, FormatOpencode)
}

func FuzzCopilot(f *testing.F) {
	raw, err := os.ReadFile(filepath.Join("testdata", "copilot", "session-state", "6f1d2c3b-8a9e-4f70-b1c2-d3e4f5a6b7c8", "events.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	for _, l := range bytes.SplitAfter(raw, []byte{'\n'})[:6] {
		f.Add(l)
	}
	f.Add([]byte(`{"type":"assistant.message","id":"a","data":{"messageId":"m","content":"","toolRequests":[{"toolCallId":"","name":"x","arguments":null}]},"agentId":"s"}` + "\n" +
		`{"type":"assistant.message","id":"b","data":{"messageId":"m","reasoningText":"r"}}` + "\n" +
		`{"type":"session.shutdown","id":"c","data":{"modelMetrics":{"m":{"usage":{"inputTokens":1,"cacheReadTokens":5}}}}}`))
	fuzzReader(f, FormatCopilot)
}
