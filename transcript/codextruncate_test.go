package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestCodexSentOutputs: a rollout whose turn_context records a
// truncation_policy is read as Codex sent it: each function or custom
// tool output over the policy × 1.2 cut (history.rs process_item), the
// rest whole, and SentTruncated counts the cut ones; a turn recording no
// policy cuts nothing.
func TestCodexSentOutputs(t *testing.T) {
	big := strings.Repeat("012345<&>9", 10) // 100 bytes, which Go would HTML-escape
	line := func(typ, payload string) string {
		return fmt.Sprintf(`{"timestamp":"2026-01-01T00:00:00Z","type":%q,"payload":%s}`, typ, payload)
	}
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	call := func(id string) string {
		return line("response_item", `{"type":"function_call","name":"shell","arguments":"{}","call_id":"`+id+`"}`)
	}
	output := func(typ, id, out string) string {
		return line("response_item", `{"type":"`+typ+`","call_id":"`+id+`","output":`+out+`}`)
	}
	rollout := strings.Join([]string{
		line("session_meta", `{"id":"s1"}`),
		line("turn_context", `{"model":"gpt-5.5","truncation_policy":{"mode":"tokens","limit":10}}`),
		line("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}`),
		call("c1"), output("function_call_output", "c1", str(big)),
		call("c2"), output("function_call_output", "c2", str("short")),
		call("c3"), output("custom_tool_call_output", "c3", `{"content":`+str(big)+`,"success":false}`),
		call("c4"), output("function_call_output", "c4", `[{"type":"input_text","text":`+str(big)+`}]`),
		line("turn_context", `{"model":"gpt-5.5"}`),
		call("c5"), output("function_call_output", "c5", str(big)),
	}, "\n")
	ts, err := Parse([]byte(rollout), "rollout.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := ts[0]
	results := map[string]Block{}
	for _, m := range tr.Messages {
		for _, b := range m.Blocks {
			if b.Type == BlockToolResult {
				results[b.ID] = b
			}
		}
	}
	// Tokens(10) × 1.2 is Tokens(12): 48 bytes, 24 on each side of the
	// marker, the 52 bytes over it 13 tokens.
	cut := big[:24] + "…13 tokens truncated…" + big[100-24:]
	items := `[{"type":"input_text","text":"` + cut + `"}]` // unescaped, as serde writes it
	for id, want := range map[string]string{"c1": cut, "c2": "short", "c3": cut, "c4": items, "c5": big} {
		if got := results[id].Text; got != want {
			t.Errorf("%s: sent %q, want %q", id, got, want)
		}
	}
	if !results["c3"].IsError {
		t.Error("c3: the cut output lost its failure")
	}
	if tr.SentTruncated != 3 {
		t.Errorf("SentTruncated = %d, want 3", tr.SentTruncated)
	}
}
