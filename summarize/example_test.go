package summarize_test

import (
	"context"
	"fmt"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// Summaries of the same messages by two summarizers that need no
// model: the rule-based tier-1 summary (ralph-gpu's) and the mock a
// replay uses offline, 12 tokens long: a marker with the prompt's
// hash, and as many of the messages' words as fit.
func Example() {
	text := func(r transcript.Role, s string) transcript.Message {
		return transcript.Message{Role: r, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: s}}}
	}
	call := transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{
		{Type: transcript.BlockToolUse, ID: "t1", Name: "Bash", Input: []byte(`{"command":"go test ./pager"}`)},
	}}
	req := summarize.Request{Messages: []transcript.Message{
		text(transcript.RoleUser, "The pager skips the last line; fix it."),
		call,
		text(transcript.RoleAssistant, "The loop stops one line early; fixed the bound and the test passes."),
	}}
	for _, s := range []summarize.Summarizer{summarize.Heuristic{}, &summarize.Mock{Tokens: 12}} {
		res, err := s.Summarize(context.Background(), req)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s (%s):\n%s\n", s.Name(), res.Model, res.Text)
	}
	// Output:
	// heuristic (heuristic):
	// Summary of 3 earlier messages.
	// Tools used: Bash (1)
	// Commands run:
	// - go test ./pager
	// mock (mock):
	// [mock summary 2d4b3bc1]
}
