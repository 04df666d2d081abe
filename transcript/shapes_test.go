package transcript_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	. "github.com/ctxbench/ctxbench/transcript"
)

// The shapes of real recordings ctxbench once misread: each test reads a
// testdata file of that shape (see testdata/README.md).

// TestCodexEncryptedCompaction: a compaction made by the server records
// no summary text ("message": "") and an encrypted item in its
// replacement history; the summary is what Codex sent instead of the
// history: the kept user message and the encrypted item.
func TestCodexEncryptedCompaction(t *testing.T) {
	ts := readTestdata(t, "codex-encrypted-compaction.jsonl")
	c := ts[0].Compactions
	if len(c) != 1 || c[0].Summary == nil {
		t.Fatalf("compactions %+v", c)
	}
	b := c[0].Summary.Blocks
	if len(b) != 2 || b[0].Text != "Rename the config loader and update its callers." || b[1].Type != BlockOther || b[1].Name != "compaction" {
		t.Errorf("summary blocks %+v", b)
	}
}

// TestCodexCalls: a call is an assistant message, as a replay counts it:
// a token_count update ends the response it reports on, so text and a
// tool call of two responses with no tool output between them are two
// calls, each with its usage.
func TestCodexCalls(t *testing.T) {
	tr := readTestdata(t, "codex-encrypted-compaction.jsonl")[0]
	assistants, withUsage := 0, 0
	for _, m := range tr.Messages {
		if m.Role == RoleAssistant {
			assistants++
			if m.Usage != nil {
				withUsage++
			}
		}
	}
	if tr.Calls != 6 || assistants != 6 || withUsage != 6 {
		t.Errorf("calls %d, assistant messages %d, %d with usage; want 6 of each", tr.Calls, assistants, withUsage)
	}
}

// TestOpenHandsParallelCalls: OpenHands writes the tool calls of one
// model response as action, observation, action, observation; they are
// one call, its usage counted once, its tool uses before their results.
func TestOpenHandsParallelCalls(t *testing.T) {
	tr := readTestdata(t, "openhands-parallel-calls.json")[0]
	var roles []string
	for _, m := range tr.Messages {
		roles = append(roles, string(m.Role)+":"+strings.Repeat("u", m.Count(BlockToolUse))+strings.Repeat("r", m.Count(BlockToolResult)))
	}
	want := []string{"system:", "user:", "assistant:uuu", "tool:r", "tool:r", "tool:r", "assistant:u"}
	if diff := cmp.Diff(want, roles); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if u := tr.Usage(); tr.Calls != 2 || u.Prompt() != 4200+4650 || u.Output != 180+40 {
		t.Errorf("calls %d, usage %+v; want 2 calls of 8,850 prompt and 220 output tokens", tr.Calls, u)
	}
}

// TestOpenHandsCloudExport: the Cloud export wraps the events; the
// conversation's id is the transcript's.
func TestOpenHandsCloudExport(t *testing.T) {
	tr := readTestdata(t, "openhands-cloud-export.json")[0]
	if tr.Format != FormatOpenHands || tr.ID != "7f3c2b8e1a9d4c60b1e2f3a4d5c6b7e8" || tr.Calls != 2 || len(tr.Messages) != 6 {
		t.Errorf("read as %s %q, %d calls, %d messages", tr.Format, tr.ID, tr.Calls, len(tr.Messages))
	}
}

// TestSameFileNameTwoSessions: files of one walk that share a base name
// (a/trajectory.json, b/trajectory.json) are two sessions, named by the
// folder that tells them apart.
func TestSameFileNameTwoSessions(t *testing.T) {
	var ids []string
	if _, err := Walk([]string{"testdata/same-name"}, Options{}, nil, func(tr *Transcript) error {
		ids = append(ids, tr.ID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a/trajectory", "b/trajectory"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

// TestInputNames: the shortest run of folders that tells files apart,
// else the whole path.
func TestInputNames(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"x/run/t.json", "y/run/t.json", "y/t.jsonl", "y/t.json", "solo.json"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(`[{"role":"user","content":"hi"}]`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	if _, err := Walk([]string{dir}, Options{}, nil, func(tr *Transcript) error {
		ids = append(ids, strings.TrimPrefix(tr.ID, filepath.ToSlash(dir)+"/"))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"solo", "x/run/t", "y/run/t", "y/t.json", "y/t.jsonl"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

// TestCline: Cline's api_conversation_history.json, an array of Messages
// API messages whose assistant ones carry metrics.tokens (the whole
// prompt, the cached part, the completion) and metrics.cost.
func TestCline(t *testing.T) {
	tr := readTestdata(t, "cline/1767001234567/api_conversation_history.json")[0]
	want := Usage{Input: 14210 + 380 + 290, CacheRead: 14100 + 14400, Output: 96 + 140 + 58}
	if tr.Format != FormatAnthropic || tr.ID != "1767001234567" || tr.Calls != 3 || tr.Usage() != want {
		t.Errorf("read as %s %q, %d calls, usage %+v; want %+v", tr.Format, tr.ID, tr.Calls, tr.Usage(), want)
	}
	if got := tr.Models; len(got) != 1 || got[0] != "claude-sonnet-4-5-20250929" {
		t.Errorf("models %v", got)
	}
	if c := tr.ReportedCostUSD; c < 0.064999 || c > 0.065001 {
		t.Errorf("reported cost %v, want 0.065", c)
	}
	if tr.Messages[1].Time.UnixMilli() != 1767001238100 {
		t.Errorf("time %v", tr.Messages[1].Time)
	}
}

// TestForeignInputRefused: input in a format ctxbench does not read,
// or chat-like records it cannot read, is never read as empty
// transcripts: strict reading names the file (and line), lenient reading
// refuses a file of which nothing could be read.
func TestForeignInputRefused(t *testing.T) {
	for name, want := range map[string]string{
		"foreign-gemini-contents.json":          "Gemini API contents",
		"foreign-gemini-cli-stream.jsonl":       "Gemini CLI stream-json",
		"foreign-opencode-storage-message.json": "opencode storage message",
		"foreign-agent-events.jsonl":            "foreign-agent-events.jsonl:1: message has no content",
		"foreign-text-field.jsonl":              "foreign-text-field.jsonl:1: message has no content (a chat message's text is in \"content\") (its fields: role, text)",
	} {
		f := filepath.Join("testdata", name)
		_, err := ReadFile(f, Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", name, err, want)
		}
		_, err = ReadFile(f, Options{Lenient: true})
		var nt *NotTranscriptError
		if !errors.As(err, &nt) {
			t.Errorf("%s, lenient: error %v, want not a transcript", name, err)
		}
	}
	_, err := Parse([]byte(`{"role":"agent","content":"hi"}`+"\n"), "f", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), `f:1: unknown role "agent": not a chat message`) {
		t.Errorf("unknown role: %v", err)
	}
}

// TestNegativeOpenAIUsage: a negative count is refused at its line, as
// the other readers refuse it, not read as 0.
func TestNegativeOpenAIUsage(t *testing.T) {
	in := `{"role":"user","content":"hi"}` + "\n" + `{"role":"assistant","content":"hello","usage":{"prompt_tokens":-5,"completion_tokens":2}}` + "\n"
	_, err := Parse([]byte(in), "f", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "f:2: usage: input tokens -5") {
		t.Errorf("error %v, want f:2: usage: input tokens -5", err)
	}
}

// TestStreamJSONModelUsage: Claude Code 2.1.4x's stream-json result
// counts the session's own thread alone in usage, and every model's
// calls, those no line shows among them, in modelUsage. The thread's
// output is the result's; the rest of modelUsage is usage of its model.
func TestStreamJSONModelUsage(t *testing.T) {
	ts := readTestdata(t, "stream-json-model-usage.jsonl")
	if len(ts) != 2 {
		t.Fatalf("%d transcripts, want the session's and its subagent's", len(ts))
	}
	main, sub := ts[0], ts[1]
	if got, want := main.Usage().Output, main.Reported.Output; got != want {
		t.Errorf("the session's own output %d, want the result's %d", got, want)
	}
	if got := sub.Usage().Output; got != 6 {
		t.Errorf("the subagent's output %d, want its lines' 6", got)
	}
	want := []ModelUsage{{Model: "claude-haiku-4-5-20251001", Usage: Usage{Input: 55718, Output: 564}}}
	if diff := cmp.Diff(want, main.UnattributedByModel); diff != "" {
		t.Errorf("usage beyond the lines (-want +got):\n%s", diff)
	}
	if len(main.ReportedByModel) != 2 || main.ReportedByModel[0].Model != "claude-haiku-4-5-20251001" || main.ReportedByModel[0].CostUSD != 0.065834 {
		t.Errorf("reported by model %+v", main.ReportedByModel)
	}
	if sub.UnattributedByModel != nil || sub.ReportedByModel != nil {
		t.Errorf("the subagent carries the session's totals")
	}
}

// TestCodexRollback: thread_rolled_back drops the last num_turns user
// turns as Codex does (the environment context is no turn); the calls
// among them stay, billed. An interrupted turn, which no token_count
// reports on, is a call with no usage, as a replay counts it.
func TestCodexRollback(t *testing.T) {
	tr := readTestdata(t, "codex-rollback.jsonl")[0]
	if len(tr.Rollbacks) != 1 {
		t.Fatalf("rollbacks %+v", tr.Rollbacks)
	}
	rb := tr.Rollbacks[0]
	if got := tr.Messages[rb.From].Text(); rb.Turns != 1 || !strings.HasPrefix(got, "No: use a sharded map") || tr.Messages[rb.Index].Text() != "Actually keep the mutex, but add a benchmark." {
		t.Errorf("rollback %+v drops from %q", rb, got)
	}
	if tr.Calls != 7 || tr.Summary().CallsWithUsage != 6 {
		t.Errorf("calls %d, %d with usage; want 7 and 6", tr.Calls, tr.Summary().CallsWithUsage)
	}
}

// TestScreenshotIsAnImage: a screenshot a tool read (Claude Code's Read
// of a PNG: a tool result whose content is a base64 image block) is an
// image of its size, not 72,936 characters of text, whether the reader
// keeps the content or only measures it.
func TestScreenshotIsAnImage(t *testing.T) {
	for _, measure := range []bool{false, true} {
		ts, err := ReadFile(filepath.Join("testdata", "claude-code-screenshot.jsonl"), Options{Measure: measure})
		if err != nil {
			t.Fatal(err)
		}
		s := ts[0].Summary()
		want := []Image{{MediaType: "image/png", Chars: 72936, Width: 1280, Height: 800}}
		if diff := cmp.Diff(want, s.Images); diff != "" {
			t.Errorf("measure %v: images (-want +got):\n%s", measure, diff)
		}
		if s.Characters != 416 {
			t.Errorf("measure %v: characters %d, want 416 (the text, not the image's data)", measure, s.Characters)
		}
	}
}

// TestSplitResponseIsOneCall: the lines of one response are one
// assistant message and one call, whatever stands between them, and a
// line written twice adds nothing.
func TestSplitResponseIsOneCall(t *testing.T) {
	tr := readTestdata(t, "claude-code-split-response.jsonl")[0]
	var roles []string
	for _, m := range tr.Messages {
		roles = append(roles, string(m.Role))
	}
	if want := "user assistant user user assistant"; strings.Join(roles, " ") != want || tr.Calls != 2 {
		t.Fatalf("roles %v, %d calls; want %s, 2 calls", roles, tr.Calls, want)
	}
	m := tr.Messages[1]
	if m.CallID != "msg_1" || len(m.Blocks) != 2 || m.Blocks[0].Type != BlockText || m.Blocks[1].ID != "toolu_1" || m.Usage == nil || m.Usage.Output != 48 {
		t.Errorf("msg_1: %+v", m)
	}
}

// TestMicrocompactBoundary: Claude Code's record of a microcompact (a
// system line of subtype microcompact_boundary) is a clearing at its
// place among the messages, with what the agent recorded of it; it is
// not a skipped line.
func TestMicrocompactBoundary(t *testing.T) {
	tr := readTestdata(t, "claude-code-microcompact.jsonl")[0]
	want := []Clearing{{Index: 11, Trigger: "auto", PreTokens: 55_000, TokensSaved: 22_000, ToolIDs: []string{"toolu_00", "toolu_01"}}}
	if diff := cmp.Diff(want, tr.Clearings, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Pos" }, cmp.Ignore())); diff != "" {
		t.Errorf("clearings (-want +got):\n%s", diff)
	}
	if pos := tr.Clearings[0].Pos; pos.Line != 12 {
		t.Errorf("clearing at line %d, want 12", pos.Line)
	}
	if n := tr.Skipped["system/microcompact_boundary"]; n != 0 || tr.Calls != 6 {
		t.Errorf("%d microcompact_boundary lines skipped, %d calls", n, tr.Calls)
	}
}

// TestClineSession: a Cline 4 session's messages file (cline/cline
// sdk/packages/core/fixtures/session/session.messages.json): the system
// prompt first, a file block as the text Cline sends for it, each
// assistant message's metrics (inputTokens the whole prompt) as its
// usage, their costs summed.
func TestClineSession(t *testing.T) {
	tr := readTestdata(t, "cline4/1784094124598_rruoq.messages.json")[0]
	want := Usage{Input: 95_819, CacheRead: 534_435, Output: 4_395}
	if tr.Format != FormatAnthropic || tr.ID != "1784094124598_rruoq" || tr.Calls != 16 || tr.Usage() != want {
		t.Errorf("read as %s %q, %d calls, usage %+v; want %+v", tr.Format, tr.ID, tr.Calls, tr.Usage(), want)
	}
	if c := tr.ReportedCostUSD; math.Abs(c-2.036022565) > 1e-9 {
		t.Errorf("reported cost %v, want 2.036022565", c)
	}
	if m := tr.Messages[0]; m.Role != RoleSystem || !strings.HasPrefix(m.Text(), "You are Cline") {
		t.Errorf("the first message is %s %.40q, want the system prompt", m.Role, m.Text())
	}
	file := tr.Messages[1].Blocks[1]
	if file.Type != BlockText || !strings.HasPrefix(file.Text, `<file_content path="/Users/example/dev/cline/apps/examples/desktop-app/webview/components/agent-sidebar.tsx">`+"\n\"use client\";") ||
		!strings.HasSuffix(file.Text, "\n</file_content>") {
		t.Errorf("the file block read as %s %.120q", file.Type, file.Text)
	}
	if a := tr.Messages[2]; a.Model != "anthropic/claude-opus-4.8-fast" || a.Usage == nil || *a.Usage != (Usage{Input: 34_334, Output: 741}) || a.Time.UnixMilli() != 1783376873493 {
		t.Errorf("the first call: %s %+v at %v", a.Model, a.Usage, a.Time)
	}
	if u := tr.Messages[4].Usage; u == nil || *u != (Usage{Input: 35_912 - 34_332, CacheRead: 34_332, Output: 164}) {
		t.Errorf("the second call's usage %+v: inputTokens holds the cache reads", u)
	}
}

// TestClineCompactions: the same session compacted by Cline's basic
// strategy (its messages rewritten, their metrics summed on the first
// prompt kept) bills what the session did; compacted by the agentic
// one, its summary is the compaction's, not a message.
func TestClineCompactions(t *testing.T) {
	whole := readTestdata(t, "cline4/1784094124598_rruoq.messages.json")[0]
	basic := readTestdata(t, "cline4/basic.compaction.json")[0]
	if len(basic.Compactions) != 1 || basic.Compactions[0].Index != 1 || basic.Compactions[0].Trigger != "manual" || basic.Compactions[0].Summary != nil {
		t.Errorf("basic compaction read as %+v", basic.Compactions)
	}
	if basic.Usage() != whole.Usage() || math.Abs(basic.ReportedCostUSD-whole.ReportedCostUSD) > 1e-9 || basic.Unattributed == nil {
		t.Errorf("the compacted session bills %+v ($%v), the session %+v ($%v)", basic.Usage(), basic.ReportedCostUSD, whole.Usage(), whole.ReportedCostUSD)
	}
	agentic := readTestdata(t, "cline4/agentic.compaction.json")[0]
	if len(agentic.Compactions) != 1 || len(agentic.Messages) != 3 || agentic.Calls != 1 {
		t.Fatalf("agentic compaction: %d compactions, %d messages, %d calls", len(agentic.Compactions), len(agentic.Messages), agentic.Calls)
	}
	c := agentic.Compactions[0]
	if c.Index != 1 || c.PreTokens != 21_919 || c.Summary == nil || !strings.HasPrefix(c.Summary.Text(), "Context summary:\n\n## Goal") {
		t.Errorf("the agentic compaction: index %d, %d tokens before, summary %v", c.Index, c.PreTokens, c.Summary)
	}
	if u := agentic.Usage(); u != (Usage{Input: 14, CacheRead: 12_224, Output: 10}) {
		t.Errorf("usage %+v", u)
	}
}
