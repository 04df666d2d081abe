package transcript_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	. "github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// The model's types the tests name and the package leaves unnamed: a
// message's position and a model's whole usage.
type (
	Pos        = model.Pos
	ModelUsage = model.ModelUsage
)

// Helpers that keep the expected transcripts readable.

func text(s string) Block     { return Block{Type: BlockText, Text: s} }
func thinking(s string) Block { return Block{Type: BlockThinking, Text: s} }
func use(id, name, input string) Block {
	return Block{Type: BlockToolUse, ID: id, Name: name, Input: json.RawMessage(input)}
}
func result(id, s string) Block { return Block{Type: BlockToolResult, ID: id, Text: s} }
func failed(id, s string) Block { return Block{Type: BlockToolResult, ID: id, Text: s, IsError: true} }

func msg(file string, line int, role Role, blocks ...Block) Message {
	return Message{Role: role, Blocks: blocks, Pos: Pos{File: file, Line: line}}
}

func withUsage(m Message, model string, u Usage) Message {
	m.Model, m.Usage = model, &u
	return m
}

func readTestdata(t *testing.T, name string) []*Transcript {
	t.Helper()
	ts, err := ReadFile(filepath.Join("testdata", name), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// rawEqual compares raw JSON as bytes: fast, and diffs print it whole.
var rawEqual = cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(a, b) })

// equateEmpty equates nil and empty slices and maps, raw JSON aside.
var equateEmpty = cmp.FilterPath(func(p cmp.Path) bool {
	return p.Last().Type() != reflect.TypeFor[json.RawMessage]()
}, cmpopts.EquateEmpty())

// transcriptOpts compares transcripts field by field; times have a test
// of their own (TestTimes).
var transcriptOpts = cmp.Options{equateEmpty, rawEqual, cmpopts.IgnoreFields(Message{}, "Time")}

func TestCodexRollout(t *testing.T) {
	f := "testdata/codex-rollout-tokens.jsonl"
	ts := readTestdata(t, "codex-rollout-tokens.jsonl")
	asst := func(line int, u Usage, blocks ...Block) Message {
		return withUsage(msg(f, line, RoleAssistant, blocks...), "gpt-5.1-codex", u)
	}
	want := []*Transcript{{
		ID: "0199a000-0000-7000-8000-000000000001", File: f, Format: FormatCodex,
		Models: []string{"gpt-5.1-codex"},
		Messages: []Message{
			msg(f, 1, RoleSystem, text("You are Codex.")),
			msg(f, 2, RoleUser, text("<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>")),
			msg(f, 4, RoleUser, text("fix the build")),
			asst(7, Usage{Input: 4000, CacheRead: 1000, Output: 120, Reasoning: 64},
				thinking("**Checking the build**"),
				use("call_1", "shell", `{"command":["bash","-lc","go build ./..."]}`)),
			msg(f, 10, RoleTool, result("call_1", `{"output":"main.go:3: undefined: x\n","metadata":{"exit_code":1}}`)),
			asst(12, Usage{Input: 400, CacheRead: 4900, Output: 80},
				use("call_2", "apply_patch", `"*** Begin Patch\n*** Update File: main.go\n@@\n-x\n+1\n*** End Patch\n"`)),
			msg(f, 14, RoleTool, result("call_2", "Success. Updated the following files:\nM main.go\n")),
			asst(16, Usage{Input: 1000, CacheRead: 1000, Output: 30}, text("Fixed: the build passes.")),
		},
		Compactions: []Compaction{{Index: 7, Pos: Pos{File: f, Line: 15},
			Summary: &Message{Role: RoleUser, Blocks: []Block{text("The user asked to fix the build; main.go was patched.")}, Pos: Pos{File: f, Line: 15}}}},
		Calls: 3,
		Skipped: map[string]int{"event_msg/user_message": 1, "event_msg/token_count (empty)": 1,
			"event_msg/token_count (repeat)": 1, "event_msg/agent_message": 1},
	}}
	if diff := cmp.Diff(want, ts, transcriptOpts); diff != "" {
		t.Errorf("codex rollout (-want +got):\n%s", diff)
	}
}

func TestCodexExec(t *testing.T) {
	f := "testdata/codex-exec.jsonl"
	ts := readTestdata(t, "codex-exec.jsonl")
	want := []*Transcript{{
		ID: "0199a213-81c0-7800-8aa1-bbab2a035a53", File: f, Format: FormatCodex,
		Messages: []Message{
			msg(f, 3, RoleAssistant, thinking("**Listing files**"), use("item_1", "command_execution", `{"command":"bash -lc ls"}`)),
			msg(f, 5, RoleTool, result("item_1", "README.md\nmain.go\n")),
			msg(f, 6, RoleAssistant, use("item_2", "command_execution", `{"command":"bash -lc 'go test ./...'"}`)),
			msg(f, 6, RoleTool, failed("item_2", "FAIL\n")),
			msg(f, 7, RoleAssistant, use("item_3", "file_change", `{"changes":[{"path":"main.go","kind":"update"}]}`)),
			msg(f, 7, RoleTool, result("item_3", "completed")),
			msg(f, 8, RoleAssistant,
				Block{Type: BlockOther, Name: "web_search", Raw: json.RawMessage(`{"id":"item_4","type":"web_search","query":"go test flags"}`)},
				text("Done: main.go fixed.")),
		},
		Calls:        4,
		Skipped:      map[string]int{"item.started": 1},
		Unattributed: &Usage{Input: 315, CacheRead: 24448, Output: 122},
	}}
	if diff := cmp.Diff(want, ts, transcriptOpts); diff != "" {
		t.Errorf("codex exec (-want +got):\n%s", diff)
	}
}

func TestAnthropicMessages(t *testing.T) {
	f := "testdata/anthropic-messages.jsonl"
	ts := readTestdata(t, "anthropic-messages.jsonl")
	a1 := withUsage(msg(f, 2, RoleAssistant, thinking("Read the file."), use("toolu_1", "Read", `{"file_path":"main.go"}`)),
		"claude-sonnet-4-5", Usage{Input: 10, CacheWrite: 200, CacheRead: 3000, Output: 40})
	a1.CallID = "msg_01A"
	a2 := withUsage(msg(f, 4, RoleAssistant, text("An empty main function.")),
		"claude-sonnet-4-5", Usage{Input: 5, CacheRead: 3250, Output: 8})
	a2.CallID = "msg_01B"
	want := []*Transcript{{
		ID: "anthropic-messages", File: f, Format: FormatAnthropic, Models: []string{"claude-sonnet-4-5"},
		Messages: []Message{
			msg(f, 1, RoleUser, text("What is in main.go?")),
			a1,
			msg(f, 3, RoleUser, result("toolu_1", "package main\nfunc main() {}")),
			a2,
		},
		Calls: 2,
	}}
	if diff := cmp.Diff(want, ts, transcriptOpts); diff != "" {
		t.Errorf("anthropic messages (-want +got):\n%s", diff)
	}
}

func TestAnthropicRequests(t *testing.T) {
	f := "testdata/anthropic-requests.jsonl"
	ts := readTestdata(t, "anthropic-requests.jsonl")
	want := []*Transcript{
		{ID: "anthropic-requests:1", File: f, Format: FormatAnthropic, Models: []string{"claude-haiku-4-5"}, Calls: 1,
			Messages: []Message{
				msg(f, 1, RoleSystem, text("Summarize.")),
				msg(f, 1, RoleUser, text("first conversation")),
				withUsage(msg(f, 1, RoleAssistant, text("ok")), "", Usage{}),
			}},
		{ID: "anthropic-requests:2", File: f, Format: FormatAnthropic, Models: []string{"claude-haiku-4-5"},
			Messages: []Message{
				msg(f, 2, RoleSystem, text("Be brief.")),
				msg(f, 2, RoleUser, text("second"), Block{Type: BlockImage,
					Raw:    json.RawMessage(`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}}`),
					Images: []Image{{MediaType: "image/png", Chars: 5}}}),
			}},
	}
	want[0].Messages[2].Usage = nil
	if diff := cmp.Diff(want, ts, transcriptOpts); diff != "" {
		t.Errorf("anthropic requests (-want +got):\n%s", diff)
	}
}

func TestOpenAIMessages(t *testing.T) {
	f := "testdata/openai-messages.jsonl"
	ts := readTestdata(t, "openai-messages.jsonl")
	want := []*Transcript{{
		ID: "openai-messages", File: f, Format: FormatOpenAIChat, Models: []string{"gpt-4o"}, Calls: 2,
		Messages: []Message{
			msg(f, 1, RoleSystem, text("You are helpful.")),
			msg(f, 2, RoleUser, text("List files"), Block{Type: BlockImage,
				Raw:    json.RawMessage(`{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}`),
				Images: []Image{{MediaType: "image/png", Chars: 26}}}),
			withUsage(msg(f, 3, RoleAssistant, use("call_a", "ls", `{"path":"."}`)), "gpt-4o", Usage{Input: 36, CacheRead: 64, Output: 12}),
			msg(f, 4, RoleTool, result("call_a", "a.txt\nb.txt")),
			withUsage(msg(f, 5, RoleAssistant, text("Two files.")), "gpt-4o", Usage{Input: 30, CacheRead: 100, Output: 4}),
		},
	}}
	if diff := cmp.Diff(want, ts, transcriptOpts); diff != "" {
		t.Errorf("openai messages (-want +got):\n%s", diff)
	}
}

func TestOpenAIConversations(t *testing.T) {
	f := "testdata/openai-conversations.jsonl"
	ts := readTestdata(t, "openai-conversations.jsonl")
	want := []*Transcript{
		{ID: "openai-conversations:1", File: f, Format: FormatOpenAIChat, Calls: 1, Messages: []Message{
			msg(f, 1, RoleUser, text("hi")), msg(f, 1, RoleAssistant, text("hello"))}},
		{ID: "openai-conversations:2", File: f, Format: FormatOpenAIChat, Calls: 1, Messages: []Message{
			msg(f, 2, RoleSystem, text("Be terse.")), msg(f, 2, RoleUser, text("2+2?")), msg(f, 2, RoleAssistant, text("4"))}},
	}
	if diff := cmp.Diff(want, ts, transcriptOpts); diff != "" {
		t.Errorf("openai conversations (-want +got):\n%s", diff)
	}
}

// TestClaudeCodeMerge checks the merge of one response's lines: by
// message.id, across the tool results Claude Code writes between them,
// with the input side of the usage counted once and the largest output;
// an inline sidechain line is a subagent's transcript of its own.
func TestClaudeCodeMerge(t *testing.T) {
	const f = "merge.jsonl"
	in := `{"type":"user","sessionId":"s1","message":{"role":"user","content":"go"}}
{"type":"assistant","sessionId":"s1","message":{"id":"msg_1","model":"claude-opus-4-6","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":3,"cache_read_input_tokens":100,"cache_creation_input_tokens":20,"output_tokens":2}}}
{"type":"progress","sessionId":"s1","data":{}}
{"type":"user","sessionId":"s1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a"}]}}
{"type":"assistant","sessionId":"s1","message":{"id":"msg_1","model":"claude-opus-4-6","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"pwd"}}],"usage":{"input_tokens":3,"cache_read_input_tokens":100,"cache_creation_input_tokens":20,"output_tokens":57}}}
{"type":"user","sessionId":"s1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"/"}]}}
{"type":"assistant","sessionId":"s1","isSidechain":true,"message":{"id":"msg_9","role":"assistant","content":[{"type":"text","text":"subagent"}]}}
`
	ts, err := Parse([]byte(in), f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := withUsage(msg(f, 2, RoleAssistant, use("t1", "Bash", `{"command":"ls"}`), use("t2", "Bash", `{"command":"pwd"}`)),
		"claude-opus-4-6", Usage{Input: 3, CacheRead: 100, CacheWrite: 20, Output: 57})
	a.CallID = "msg_1"
	want := []*Transcript{{ID: "s1", File: f, Format: FormatClaudeCode, Models: []string{"claude-opus-4-6"}, Calls: 1,
		Messages: []Message{
			msg(f, 1, RoleUser, text("go")),
			a,
			msg(f, 4, RoleUser, result("t1", "a")),
			msg(f, 6, RoleUser, result("t2", "/")),
		},
		Skipped: map[string]int{"progress": 1},
	}, {ID: "s1/sidechain-1", Parent: "s1", Subagent: "sidechain-1", File: f, Format: FormatClaudeCode, Calls: 1,
		Messages: []Message{{Role: RoleAssistant, Blocks: []Block{text("subagent")}, CallID: "msg_9", Pos: Pos{File: f, Line: 7}}},
	}}
	if diff := cmp.Diff(want, ts, transcriptOpts); diff != "" {
		t.Errorf("merge (-want +got):\n%s", diff)
	}
}

// TestTimes checks the recorded times of the first and last messages of a
// file per format.
func TestTimes(t *testing.T) {
	for _, tc := range []struct {
		file        string
		first, last string
	}{
		{"spotter/short.jsonl", "2026-02-10T21:11:56.846Z", "2026-02-10T21:12:02.48Z"},
		{"ai-workflow-agent/issue-113/04_implementation/execute/agent_log_raw.txt", "", ""},
		{"codemie-code/src/agents/plugins/codex/__tests__/fixtures/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl", "2026-05-11T10:29:40.15Z", "2026-05-11T11:47:56.074Z"},
		{"codemie-code/tests/integration/metrics/fixtures/gemini/session-2025-12-01T21-45-5b959dae.json", "2025-12-01T21:45:34.362Z", "2025-12-01T21:50:10.837Z"},
		{"OpenHands/tests/runtime/trajs/basic_gui_mode.json", "2025-01-20T20:29:32.262843Z", "2025-01-20T20:30:35.414886Z"},
	} {
		tr := readOne(t, filepath.Join(corpusDir, tc.file), Options{})
		format := func(m Message) string {
			if m.Time.IsZero() {
				return ""
			}
			return m.Time.Format("2006-01-02T15:04:05.999999999Z")
		}
		if got := format(tr.Messages[0]); got != tc.first {
			t.Errorf("%s: first message at %q, want %q", tc.file, got, tc.first)
		}
		if got := format(tr.Messages[len(tr.Messages)-1]); got != tc.last {
			t.Errorf("%s: last message at %q, want %q", tc.file, got, tc.last)
		}
	}
	// mini-swe-agent: the response's creation time (Unix seconds) on assistant messages.
	tr := readOne(t, filepath.Join(corpusDir, "mini-swe-agent/output/deepseek_reasoner_dev/sqlfluff__sqlfluff-1517/sqlfluff__sqlfluff-1517.traj.json"), Options{})
	if got := tr.Messages[2].Time.Unix(); got != 1776073880 {
		t.Errorf("traj assistant time %d, want 1776073880", got)
	}
}

// TestStreamJSONSubagents: a stream-json log's subagents are transcripts
// of their own, one per Task call, with the calls each made; the session
// keeps its own; the result's output beyond the events' is the session's
// unattributed output.
func TestStreamJSONSubagents(t *testing.T) {
	ts := readTestdata(t, "stream-json-subagents.jsonl")
	type got struct {
		ID, Parent string
		Calls      int
		CallIDs    []string
		Models     []string
	}
	var all []got
	for _, tr := range ts {
		g := got{ID: tr.ID, Parent: tr.Parent, Calls: tr.Calls, Models: tr.Models}
		for _, m := range tr.Messages {
			if m.Role == RoleAssistant {
				g.CallIDs = append(g.CallIDs, m.CallID)
			}
		}
		all = append(all, g)
	}
	want := []got{
		{ID: "s2", Calls: 2, CallIDs: []string{"msg_m1", "msg_m2"}, Models: []string{"claude-opus-4-6"}},
		{ID: "s2/toolu_A", Parent: "s2", Calls: 2, CallIDs: []string{"msg_a1", "msg_a2"}, Models: []string{"claude-haiku-4-5-20251001"}},
		{ID: "s2/toolu_B", Parent: "s2", Calls: 2, CallIDs: []string{"msg_b1", "msg_b2"}, Models: []string{"claude-haiku-4-5-20251001"}},
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Fatalf("transcripts (-want +got):\n%s", diff)
	}
	// The subagent's conversation is its prompt, its calls and results.
	if a := ts[1].Messages; len(a) != 4 || a[0].Text() != "Find the failing test." || a[2].Blocks[0].Type != BlockToolResult {
		t.Errorf("subagent A's messages: %+v", a)
	}
	// The calls' events carry 3+2+2+1+1+2 = 11 output tokens; the result
	// counts 412: the other 401 are the session's, unattributed.
	var out int64
	for _, tr := range ts {
		out += tr.Usage().Output
	}
	if u := ts[0].Unattributed; u == nil || u.Output != 401 || out != ts[0].Reported.Output {
		t.Errorf("unattributed %+v; the transcripts' output sums to %d, the result says %d", u, out, ts[0].Reported.Output)
	}
}

// TestInlineSidechains: older Claude Code wrote subagents into the session
// file as sidechain lines; each subagent, a chain of lines linked by
// parentUuid, is a transcript of its own, its calls billed as its own,
// even when two run interleaved.
func TestInlineSidechains(t *testing.T) {
	const f = "inline.jsonl"
	line := func(uuid, parent, typ, content string, side bool) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		msg := `{"role":"user","content":"` + content + `"}`
		if typ == "assistant" {
			msg = `{"id":"msg_` + uuid + `","model":"claude-haiku-4-5","role":"assistant","content":[{"type":"text","text":"` + content + `"}],"usage":{"input_tokens":1,"output_tokens":1}}`
		}
		return `{"type":"` + typ + `","sessionId":"s3","uuid":"` + uuid + `","parentUuid":` + p + `,"isSidechain":` + strconv.FormatBool(side) + `,"message":` + msg + "}\n"
	}
	in := line("u1", "", "user", "go", false) +
		line("x1", "", "user", "task one", true) + line("y1", "", "user", "task two", true) +
		line("x2", "x1", "assistant", "one done", true) + line("y2", "y1", "assistant", "two done", true) +
		line("a1", "u1", "assistant", "both done", false)
	ts, err := Parse([]byte(in), f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range ts {
		var texts []string
		for _, m := range tr.Messages {
			texts = append(texts, m.Text())
		}
		got = append(got, tr.ID+" "+tr.Parent+": "+strings.Join(texts, " / "))
	}
	want := []string{"s3 : go / both done", "s3/sidechain-x1 s3: task one / one done", "s3/sidechain-y1 s3: task two / two done"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transcripts (-want +got):\n%s", diff)
	}
	if ts[1].Usage().Prompt() != 1 || ts[2].Calls != 1 {
		t.Errorf("sidechain usage %+v, calls %d", ts[1].Usage(), ts[2].Calls)
	}
}

// TestCodexExecTurnTotals: codex exec's turn.completed usage is the
// thread's total so far, carried on by a resumed thread (three turns of
// one thread recorded 16504 -> 85681 -> 103779 input tokens), so a
// stream's bill is each thread's last total, not the sum of its turns;
// another thread counts from nothing, and so does a total that cannot
// follow the last (more cached tokens added than input).
func TestCodexExecTurnTotals(t *testing.T) {
	ts := readTestdata(t, "codex-exec-turns.jsonl")
	if len(ts) != 1 {
		t.Fatalf("%d transcripts", len(ts))
	}
	// Thread a001: its last total; thread b002: its one turn; thread
	// c003: both its totals whole.
	want := &Usage{Input: (103779 - 76800) + 17777 + (100 - 10) + (150 - 70), CacheRead: 76800 + 10 + 70, Output: 45 + 273 + 1 + 2}
	if diff := cmp.Diff(want, ts[0].Unattributed); diff != "" {
		t.Errorf("unattributed usage (-want +got):\n%s", diff)
	}
}
