package claudecode

import (
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/fixtures"
	"path/filepath"
	"testing"

	"github.com/ctxbench/ctxbench/summarize"
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

// call is one replayed call: what was sent and what the policy did.
type call struct {
	turn int
	sent []string
	step policy.Step
}

// drive replays tr through p as the replay engine does.
func drive(t *testing.T, p policy.Policy, tr *transcript.Transcript, sum summarize.Summarizer) []call {
	t.Helper()
	var out []call
	env := &policy.Env{Transcript: tr, Summarizer: sum, Count: policytest.CacheCount()}
	policytest.Drive(t, p, tr, env, func(_, turn int, step policy.Step, _ *policy.State) {
		out = append(out, call{turn: turn, sent: policy.ItemIDs(step.History), step: step})
	})
	return out
}

// callNamed is an assistant message calling tool name with id.
func callNamed(id, name string) transcript.Message {
	m := callTool(id)
	m.Blocks[0].Name = name
	return m
}

func wideTurnOf(tool string, n int) *transcript.Transcript { return policytest.WideTurn(tool, n) }

func driveEach(t *testing.T, p policy.Policy, tr *transcript.Transcript, env *policy.Env, each func(msg, turn int, step policy.Step, st *policy.State)) {
	t.Helper()
	policytest.Drive(t, p, tr, env, each)
}

func generated(t testing.TB, calls int, seed uint64) *transcript.Transcript {
	t.Helper()
	o := fixtures.DefaultGenOptions
	o.Calls, o.Seed = calls, seed
	tr, err := fixtures.GenerateTranscript(o)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func readCorpus(t *testing.T, name string) *transcript.Transcript {
	t.Helper()
	ts, err := transcript.ReadFile(filepath.Join("../../../fixtures/corpus", name), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}

func cacheCount() func(estimate.Estimator, policy.Item) int { return policytest.CacheCount() }
