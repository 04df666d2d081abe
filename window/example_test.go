package window_test

import (
	"context"
	"fmt"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

func text(role transcript.Role, s string) transcript.Message {
	return transcript.Message{Role: role, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: s}}}
}

// Apply returns what a policy sends at the next call of a conversation:
// here AIDF's window of 4 messages, the first and the last 2 kept.
func ExampleApply() {
	p, err := window.Parse("aidf:max_messages=4,preserve_first_n=1,preserve_last_n=2")
	if err != nil {
		panic(err)
	}
	history := []transcript.Message{
		text(transcript.RoleUser, "fix the failing test"),
		text(transcript.RoleAssistant, "reading the test"),
		text(transcript.RoleUser, "it is in cost/"),
		text(transcript.RoleAssistant, "found it: a rounding"),
		text(transcript.RoleUser, "fix it"),
		text(transcript.RoleAssistant, "fixed"),
		text(transcript.RoleUser, "now the docs"),
	}
	sent, err := window.Apply(context.Background(), p, history)
	if err != nil {
		panic(err)
	}
	for _, m := range sent {
		fmt.Printf("%s: %s\n", m.Role, m.Text())
	}
	// Output:
	// user: fix the failing test
	// user: fix it
	// assistant: fixed
	// user: now the docs
}

// A Conversation applies a policy call by call, as an agent loop does:
// append what came, ask what to send, call the model, append its reply.
// Here LangChain's trimMessages keeps the newest messages within 30
// tokens (its approximate count).
func ExampleConversation() {
	p, err := window.Parse("langchain-trim:max_tokens=30")
	if err != nil {
		panic(err)
	}
	c := window.NewConversation(p, window.ConversationOptions{Model: "claude-sonnet-4-5"})
	for _, prompt := range []string{"list the files of the repository", "open the README", "summarize it"} {
		c.Append(text(transcript.RoleUser, prompt))
		step, err := c.Next(context.Background())
		if err != nil {
			panic(err)
		}
		var sent []string
		for _, it := range step.History {
			sent = append(sent, it.ID)
		}
		fmt.Println("sent", sent, "evicted", step.Evicted)
		c.Append(text(transcript.RoleAssistant, "done: "+prompt)) // the model's reply
	}
	// Output:
	// sent [m0] evicted []
	// sent [m1 m2] evicted [m0]
	// sent [m2 m3 m4] evicted [m1]
}
