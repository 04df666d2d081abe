package transcript_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/ctxbench/ctxbench/transcript"
)

// A Claude Code session writes one line per content block, with the
// call's usage repeated on each: ctxbench merges them into one message and
// counts the call once.
func ExampleParse() {
	session := `{"type":"user","sessionId":"s1","message":{"role":"user","content":"What is in go.mod?"}}
{"type":"assistant","sessionId":"s1","message":{"id":"msg_1","model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"text","text":"Let me look."}],"usage":{"input_tokens":3,"cache_read_input_tokens":9000,"cache_creation_input_tokens":400,"output_tokens":1}}}
{"type":"assistant","sessionId":"s1","message":{"id":"msg_1","model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"go.mod"}}],"usage":{"input_tokens":3,"cache_read_input_tokens":9000,"cache_creation_input_tokens":400,"output_tokens":42}}}
{"type":"progress","sessionId":"s1","data":{"type":"hook_progress"}}
{"type":"user","sessionId":"s1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"module example.com/m"}]}}
`
	ts, err := transcript.Parse([]byte(session), "session.jsonl", transcript.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := ts[0]
	fmt.Println(t.Format, t.ID, "calls:", t.Calls)
	for i, m := range t.Messages {
		var kinds []string
		for _, b := range m.Blocks {
			kinds = append(kinds, string(b.Type))
		}
		fmt.Printf("%s %-9s %s (line %d)\n", fmt.Sprintf("m%d", i), m.Role, strings.Join(kinds, "+"), m.Pos.Line)
	}
	u := t.Usage()
	fmt.Printf("prompt %d = input %d + cache read %d + cache write %d; output %d\n", u.Prompt(), u.Input, u.CacheRead, u.CacheWrite, u.Output)
	fmt.Println("skipped:", t.Skipped)
	// Output:
	// claude-code s1 calls: 1
	// m0 user      text (line 1)
	// m1 assistant text+tool_use (line 2)
	// m2 user      tool_result (line 5)
	// prompt 9403 = input 3 + cache read 9000 + cache write 400; output 42
	// skipped: map[progress:1]
}

// A malformed record stops a strict read with its file and line; a lenient
// read skips it and says where.
func ExampleParse_lenient() {
	lines := `{"role":"user","content":"hi"}
{"role":"assistant","content":"hel
{"role":"assistant","content":"hello"}
`
	_, err := transcript.Parse([]byte(lines), "chat.jsonl", transcript.Options{})
	fmt.Println("strict:", err)
	ts, _ := transcript.Parse([]byte(lines), "chat.jsonl", transcript.Options{Lenient: true})
	fmt.Println("lenient:", len(ts[0].Messages), "messages; skipped:", ts[0].Bad[0])
	// Output:
	// strict: chat.jsonl:2: invalid JSON: unexpected end of JSON input
	// lenient: 2 messages; skipped: chat.jsonl:2: invalid JSON: unexpected end of JSON input
}

// Write converts a transcript; reading the output gives the same messages.
func ExampleWrite() {
	ts, _ := transcript.Parse([]byte(`{"role":"user","content":"2+2?"}
{"role":"assistant","content":"4","usage":{"prompt_tokens":12,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":0}}}
`), "chat.jsonl", transcript.Options{})
	transcript.Write(os.Stdout, ts[0], transcript.FormatAnthropic)
	// Output:
	// {"id":"chat","system":[],"messages":[{"role":"user","content":[{"type":"text","text":"2+2?"}]},{"role":"assistant","content":[{"type":"text","text":"4"}],"usage":{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}]}
}
