package transcript_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/transcript"
)

// corpusDir holds the real transcripts (a copy of the project's public
// corpus, with each source's LICENSE).
const corpusDir = "../fixtures/corpus"

// corpusFiles returns every transcript file of the corpus (skipping
// licenses and notes).
func corpusFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(corpusDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch ext := filepath.Ext(path); {
		case d.IsDir():
		case ext == ".jsonl" || ext == ".json" || strings.HasSuffix(path, "agent_log_raw.txt"):
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 15 {
		t.Fatalf("found %d corpus files, want the whole corpus (≥ 15)", len(files))
	}
	return files
}

func readOne(t testing.TB, path string, opt transcript.Options) *transcript.Transcript {
	t.Helper()
	ts, err := transcript.ReadFile(path, opt)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	if len(ts) != 1 {
		t.Fatalf("%s: %d transcripts, want 1", path, len(ts))
	}
	return ts[0]
}

// truth is what an independent walk of a raw file finds: the recorded
// calls and the usage totals, by each format's documented rules.
type truth struct {
	Format transcript.Format
	Calls  int
	Usage  transcript.Usage
}

func TestCorpusCallsAndUsage(t *testing.T) {
	for _, path := range corpusFiles(t) {
		t.Run(strings.TrimPrefix(path, corpusDir+"/"), func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := independentWalk(t, path, raw)
			tr := readOne(t, path, transcript.Options{})
			got := truth{Format: tr.Format, Calls: tr.Calls, Usage: tr.Usage()}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("calls and usage (-independent walk +reader):\n%s", diff)
			}
			if len(tr.Bad) != 0 || tr.InvalidUTF8 != 0 {
				t.Errorf("strict read of a real file reported %d bad and %d invalid-UTF-8 records", len(tr.Bad), tr.InvalidUTF8)
			}
		})
	}
}

// independentWalk computes calls and usage from the raw bytes with
// generic JSON, sharing no code with the readers.
func independentWalk(t *testing.T, path string, raw []byte) truth {
	t.Helper()
	switch {
	case strings.Contains(path, "spotter/") || strings.Contains(path, "session/fixtures") || strings.Contains(path, "ai-workflow-agent"):
		return walkClaudeCode(rawLines(t, raw))
	case strings.Contains(path, "rollout-"):
		return walkCodex(rawLines(t, raw))
	case strings.Contains(path, "gemini"):
		return walkGemini(rawMessages(t, raw))
	case strings.HasSuffix(path, ".traj.json"):
		return walkTraj(rawMessages(t, raw))
	case strings.Contains(path, "OpenHands"):
		var events []map[string]any
		if err := json.Unmarshal(raw, &events); err != nil {
			t.Fatal(err)
		}
		return walkOpenHands(events)
	case strings.Contains(path, "cline/"):
		return walkCline(rawMessages(t, raw))
	}
	t.Fatalf("no independent walk for %s", path)
	return truth{}
}

// num is the number at keys in m, 0 when there is none.
func num(m map[string]any, keys ...string) int64 {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return 0
		}
		v = mm[k]
	}
	f, _ := v.(float64)
	return int64(f)
}

// rawLines are raw's JSON lines.
func rawLines(t *testing.T, raw []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("independent walk: %v", err)
		}
		out = append(out, m)
	}
	return out
}

// rawMessages are the messages array of the JSON document raw.
func rawMessages(t *testing.T, raw []byte) []map[string]any {
	t.Helper()
	var doc struct{ Messages []map[string]any }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("independent walk: %v", err)
	}
	return doc.Messages
}

// walkClaudeCode: one call per assistant message id, its output the
// largest its lines record.
func walkClaudeCode(lines []map[string]any) truth {
	w := truth{Format: transcript.FormatClaudeCode}
	seen := map[string]*transcript.Usage{}
	var order []string
	var result map[string]any
	for _, m := range lines {
		if m["type"] == "result" {
			result, _ = m["usage"].(map[string]any)
		}
		if m["type"] != "assistant" {
			continue
		}
		msg := m["message"].(map[string]any)
		id := msg["id"].(string)
		u := msg["usage"].(map[string]any)
		if p, ok := seen[id]; ok {
			p.Output = max(p.Output, num(u, "output_tokens"))
			continue
		}
		seen[id] = &transcript.Usage{Input: num(u, "input_tokens"), CacheRead: num(u, "cache_read_input_tokens"),
			CacheWrite: num(u, "cache_creation_input_tokens"), Output: num(u, "output_tokens"),
			CacheWrite1h: num(u, "cache_creation", "ephemeral_1h_input_tokens")}
		order = append(order, id)
	}
	w.Calls = len(order)
	for _, id := range order {
		w.Usage.Add(*seen[id])
	}
	// A stream-json result whose input side is the calls' counts their
	// final output: the events carry only what was streamed when they
	// were written.
	if result != nil && num(result, "input_tokens") == w.Usage.Input && num(result, "cache_read_input_tokens") == w.Usage.CacheRead &&
		num(result, "cache_creation_input_tokens") == w.Usage.CacheWrite {
		w.Usage.Output = max(w.Usage.Output, num(result, "output_tokens"))
	}
	return w
}

// walkCodex: one call per run of response items between inputs.
func walkCodex(lines []map[string]any) truth {
	w := truth{Format: transcript.FormatCodex}
	inGroup := false
	for _, m := range lines {
		p, _ := m["payload"].(map[string]any)
		switch {
		case m["type"] == "response_item" && (p["type"] == "function_call_output" || (p["type"] == "message" && p["role"] != "assistant")):
			inGroup = false
		case m["type"] == "event_msg" && p["type"] == "user_message":
			inGroup = false
		case m["type"] == "response_item":
			if !inGroup {
				w.Calls++
			}
			inGroup = true
		}
	}
	return w
}

// walkGemini: one call per gemini message, its tokens as Gemini CLI
// records them.
func walkGemini(msgs []map[string]any) truth {
	w := truth{Format: transcript.FormatGeminiCLI}
	for _, m := range msgs {
		if m["type"] != "gemini" {
			continue
		}
		w.Calls++
		w.Usage.Add(transcript.Usage{Input: num(m, "tokens", "input") - num(m, "tokens", "cached") + num(m, "tokens", "tool"),
			CacheRead: num(m, "tokens", "cached"), Output: num(m, "tokens", "output") + num(m, "tokens", "thoughts"),
			Reasoning: num(m, "tokens", "thoughts")})
	}
	return w
}

// walkTraj: one call per assistant message of a mini-swe-agent
// trajectory, its usage the response's.
func walkTraj(msgs []map[string]any) truth {
	w := truth{Format: transcript.FormatOpenAIChat}
	for _, m := range msgs {
		if m["role"] != "assistant" {
			continue
		}
		w.Calls++
		u := m["extra"].(map[string]any)["response"].(map[string]any)["usage"].(map[string]any)
		cached := num(u, "prompt_tokens_details", "cached_tokens")
		w.Usage.Add(transcript.Usage{Input: num(u, "prompt_tokens") - cached, CacheRead: cached,
			Output: num(u, "completion_tokens"), Reasoning: num(u, "completion_tokens_details", "reasoning_tokens")})
	}
	return w
}

// walkOpenHands: one call per model response id, and per agent message
// without one.
func walkOpenHands(events []map[string]any) truth {
	w := truth{Format: transcript.FormatOpenHands}
	seen := map[string]bool{}
	for _, e := range events {
		if e["action"] == nil {
			continue
		}
		md, _ := e["tool_call_metadata"].(map[string]any)
		if md == nil {
			if e["action"] == "message" && e["source"] == "agent" {
				w.Calls++
			}
			continue
		}
		mr := md["model_response"].(map[string]any)
		id := mr["id"].(string)
		if seen[id] {
			continue
		}
		seen[id] = true
		w.Calls++
		u := mr["usage"].(map[string]any)
		cached, created := num(u, "prompt_tokens_details", "cached_tokens"), num(u, "cache_creation_input_tokens")
		w.Usage.Add(transcript.Usage{Input: num(u, "prompt_tokens") - cached - created, CacheRead: cached,
			CacheWrite: created, Output: num(u, "completion_tokens")})
	}
	return w
}

// walkCline: a Cline 4 messages file, the AI SDK's usage on each
// assistant message, inputTokens the whole prompt.
func walkCline(msgs []map[string]any) truth {
	w := truth{Format: transcript.FormatAnthropic}
	for _, m := range msgs {
		if m["role"] != "assistant" {
			continue
		}
		w.Calls++
		read, write := num(m, "metrics", "cacheReadTokens"), num(m, "metrics", "cacheWriteTokens")
		w.Usage.Add(transcript.Usage{Input: num(m, "metrics", "inputTokens") - read - write,
			CacheRead: read, CacheWrite: write, Output: num(m, "metrics", "outputTokens")})
	}
	return w
}

func TestCorpusCompactions(t *testing.T) {
	for _, tc := range []struct {
		file      string
		trigger   string
		preTokens int64
		prefix    string
	}{
		{"spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl", "auto", 167731, "This session is being continued from a previous conversation"},
		{"ai-workflow-agent/issue-113/04_implementation/execute/agent_log_raw.txt", "auto", 156732, "This session is being continued from a previous conversation"},
	} {
		tr := readOne(t, filepath.Join(corpusDir, tc.file), transcript.Options{})
		if len(tr.Compactions) != 1 {
			t.Fatalf("%s: %d compactions, want 1", tc.file, len(tr.Compactions))
		}
		c := tr.Compactions[0]
		if c.Trigger != tc.trigger || c.PreTokens != tc.preTokens {
			t.Errorf("%s: compaction trigger %q pre-tokens %d, want %q %d", tc.file, c.Trigger, c.PreTokens, tc.trigger, tc.preTokens)
		}
		if c.Summary == nil || !strings.HasPrefix(c.Summary.Text(), tc.prefix) {
			t.Fatalf("%s: compaction summary missing or wrong: %+v", tc.file, c.Summary)
		}
		for _, m := range tr.Messages {
			if strings.HasPrefix(m.Text(), tc.prefix) {
				t.Errorf("%s: the compaction summary is also ordinary history (%s)", tc.file, m.Pos)
			}
		}
		if c.Index <= 0 || c.Index >= len(tr.Messages) {
			t.Errorf("%s: compaction index %d outside the history (%d messages)", tc.file, c.Index, len(tr.Messages))
		}
	}
}

// TestCorpusToolPairs checks that every tool result answers a tool use
// seen before it: the readers keep the pairs the agents recorded.
func TestCorpusToolPairs(t *testing.T) {
	for _, path := range corpusFiles(t) {
		tr := readOne(t, path, transcript.Options{})
		uses := map[string]bool{}
		for _, m := range tr.Messages {
			for _, b := range m.Blocks {
				switch b.Type {
				case transcript.BlockToolUse:
					uses[b.ID] = true
				case transcript.BlockToolResult:
					if !uses[b.ID] {
						t.Errorf("%s: %s: tool_result %q answers no earlier tool_use", path, m.Pos, b.ID)
					}
				}
			}
		}
	}
}

func TestCorpusDetection(t *testing.T) {
	for _, path := range corpusFiles(t) {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := independentWalk(t, path, raw).Format
		ts, err := transcript.Parse(raw, "x", transcript.Options{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if ts[0].Format != want {
			t.Errorf("%s: detected %s, want %s", path, ts[0].Format, want)
		}
	}
}
