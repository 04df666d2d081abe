package cline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"path/filepath"
	"testing"

	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
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

func readGolden(t *testing.T, name string, v any) { t.Helper(); policytest.ReadGolden(t, name, v) }

func conformanceSource(t *testing.T, name string) *transcript.Transcript {
	t.Helper()
	return policytest.ConformanceSource(t, name)
}

// Lookup returns the spec of this room named name.
func Lookup(name string) (*policy.Spec, error) {
	for _, s := range Specs {
		if s.Name == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("no policy %s here", name)
}

// orphans counts the sent tool results whose tool_use was not sent before
// them.
func orphans(tr *transcript.Transcript, sent []policy.Item) int {
	seen := map[string]bool{}
	n := 0
	for _, it := range sent {
		for _, id := range policy.ToolResults(it) {
			if !seen[id] {
				n++
			}
		}
		for _, id := range policy.ToolUses(it) {
			seen[id] = true
		}
	}
	return n
}

// itemsOf returns the originals of tr that sent names.
func itemsOf(tr *transcript.Transcript, sent []string) []policy.Item {
	var out []policy.Item
	for _, id := range sent {
		if i := (policy.Item{ID: id}).Index(); i >= 0 {
			out = append(out, policy.Original(tr, i))
		}
	}
	return out
}

// A hashedRun is a golden's calls of one history (policytest.HashedRun).
type hashedRun = policytest.HashedRun

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// encodeRuns writes ids as the aidf golden does (policytest.EncodeRuns).
func encodeRuns(ids []string) []string { return policytest.EncodeRuns(ids) }
