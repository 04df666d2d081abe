package opencode

import (
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// The helpers window's tests name, for the tests that moved here.

func mustPolicy(t *testing.T, spec string) policy.Policy { return policytest.Parse(t, Specs, spec) }

func items(tr *transcript.Transcript, n int) []policy.Item { return policytest.Items(tr, n) }

type recorder = policytest.Recorder

func text(s string) transcript.Block { return transcript.Block{Type: transcript.BlockText, Text: s} }

func toolUse(id string) transcript.Block {
	return transcript.Block{Type: transcript.BlockToolUse, ID: id, Name: "Bash", Input: []byte(`{"command":"ls"}`)}
}

func toolResult(id, text string) transcript.Block {
	return transcript.Block{Type: transcript.BlockToolResult, ID: id, Text: text}
}

func msgs(ms ...transcript.Message) *transcript.Transcript {
	return &transcript.Transcript{Messages: ms}
}

func user(s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{text(s)}}
}

func asst(s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{text(s)}}
}

func callTool(id string) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{toolUse(id)}}
}

func result(id, s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{toolResult(id, s)}}
}
