package policytest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/internal/msgid"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// Text is a text block.
func Text(s string) transcript.Block { return transcript.Block{Type: transcript.BlockText, Text: s} }

// ToolUse is a call of the Bash tool with id.
func ToolUse(id string) transcript.Block {
	return transcript.Block{Type: transcript.BlockToolUse, ID: id, Name: "Bash", Input: []byte(`{"command":"ls"}`)}
}

// ToolResult is the result of the call id.
func ToolResult(id, text string) transcript.Block {
	return transcript.Block{Type: transcript.BlockToolResult, ID: id, Text: text}
}

// Msgs is a transcript of ms.
func Msgs(ms ...transcript.Message) *transcript.Transcript {
	return &transcript.Transcript{Messages: ms}
}

// User is a user message of text s.
func User(s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{Text(s)}}
}

// Asst is an assistant message of text s.
func Asst(s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{Text(s)}}
}

// CallTool is an assistant message calling the Bash tool with id.
func CallTool(id string) transcript.Message {
	return transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{ToolUse(id)}}
}

// CallNamed is an assistant message calling tool name with id.
func CallNamed(id, name string) transcript.Message {
	m := CallTool(id)
	m.Blocks[0].Name = name
	return m
}

// Result is a user message holding the result s of the call id.
func Result(id, s string) transcript.Message {
	return transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{ToolResult(id, s)}}
}

// TextTranscript is a transcript of alternating user and assistant text
// messages, n in all, the i-th (from 1) saying "message i".
func TextTranscript(n int) *transcript.Transcript {
	tr := &transcript.Transcript{ID: "text"}
	for i := range n {
		role := transcript.RoleUser
		if i%2 == 1 {
			role = transcript.RoleAssistant
		}
		tr.Messages = append(tr.Messages, transcript.Message{Role: role,
			Blocks: []transcript.Block{{Type: transcript.BlockText, Text: fmt.Sprintf("message %d", i+1)}}})
	}
	return tr
}

// A Call is one replayed call: the turn's length, the ids sent and what
// the policy did.
type Call struct {
	Turn int
	Sent []string
	Step policy.Step
}

// Run replays tr through p with the summarizer sum and a shared count
// cache, returning each call.
func Run(t testing.TB, p policy.Policy, tr *transcript.Transcript, sum summarize.Summarizer) []Call {
	t.Helper()
	return RunIn(t, p, tr, &policy.Env{Transcript: tr, Summarizer: sum, Count: CacheCount()})
}

// RunIn is Run in env (Drive's rules for env.ReuseSent).
func RunIn(t testing.TB, p policy.Policy, tr *transcript.Transcript, env *policy.Env) []Call {
	t.Helper()
	var out []Call
	Drive(t, p, tr, env, func(_, turn int, step policy.Step, _ *policy.State) {
		out = append(out, Call{Turn: turn, Sent: policy.ItemIDs(step.History), Step: step})
	})
	return out
}

// Generated is the session fixtures generates with calls calls from seed
// (fixtures.DefaultGenOptions otherwise).
func Generated(t testing.TB, calls int, seed uint64) *transcript.Transcript {
	t.Helper()
	o := fixtures.DefaultGenOptions
	o.Calls, o.Seed = calls, seed
	tr, err := conformance.Generated(o)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// ReadCorpus reads the first transcript of fixtures/corpus/name.
func ReadCorpus(t testing.TB, name string) *transcript.Transcript {
	t.Helper()
	ts, err := transcript.ReadFile(filepath.Join(here, "../../../fixtures/corpus", name), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}

// Orphans counts the sent tool results whose tool_use was not sent
// before them.
func Orphans(sent []policy.Item) int {
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

// ItemsOf returns the originals of tr that sent names, in its order.
func ItemsOf(tr *transcript.Transcript, sent []string) []policy.Item {
	var out []policy.Item
	for _, id := range sent {
		if i := (policy.Item{ID: id}).Index(); i >= 0 {
			out = append(out, policy.Original(tr, i))
		}
	}
	return out
}

// Lookup returns the spec in specs named name.
func Lookup(specs []*policy.Spec, name string) (*policy.Spec, error) {
	for _, s := range specs {
		if s.Name == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("no policy %s here", name)
}

// SHA256Hex is the hex SHA-256 of s.
func SHA256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// MessageIDs returns the ids of messages lo to hi-1.
func MessageIDs(lo, hi int) []string {
	var out []string
	for i := lo; i < hi; i++ {
		out = append(out, msgid.Of(i))
	}
	return out
}

// ToolSession is a user task, then calls of tools (names[k] at call k)
// each answered by a 400-character result, their bills such that the
// server is known to count counts[k] input tokens at call k before it
// is sent: call k−1's billed prompt plus chars4 of what followed it
// (call 0 counts chars4 of its history; the last call bills its count).
func ToolSession(names []string, counts []int64) *transcript.Transcript {
	tr := Msgs(User("task"))
	for k, name := range names {
		c := CallNamed(string(rune('a'+k)), name)
		c.Model = "claude-sonnet-4-5"
		tr.Messages = append(tr.Messages, c, Result(string(rune('a'+k)), strings.Repeat("r", 400)))
	}
	done := Asst("done")
	done.Model = "claude-sonnet-4-5"
	tr = &transcript.Transcript{ID: tr.ID, Messages: append(tr.Messages, done), Models: []string{"claude-sonnet-4-5"}}
	// Call k's prompt is what the server counts at call k+1 less chars4
	// of the messages between: the count a request is known by before
	// it is sent.
	var calls, before []int
	x := 0
	for i := range tr.Messages {
		if tr.Messages[i].Role == transcript.RoleAssistant {
			calls, before = append(calls, i), append(before, x)
		}
		x += policy.Chars4().CountMessage(&tr.Messages[i])
	}
	for k, i := range calls {
		prompt := counts[k]
		if k+1 < len(calls) {
			prompt = counts[k+1] - int64(before[k+1]-before[k])
		}
		tr.Messages[i].Usage = &transcript.Usage{CacheRead: prompt}
	}
	return tr
}

// Sents returns what each call sent.
func Sents(calls []Call) [][]string {
	out := make([][]string, len(calls))
	for i, c := range calls {
		out[i] = c.Sent
	}
	return out
}
