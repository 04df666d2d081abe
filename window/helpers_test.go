package window

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// call is one replayed call: what was sent and what the policy did.
type call struct {
	turn int
	sent []string
	step Step
}

// drive replays t through p as DESIGN.md §4 describes (append the turn,
// apply the policy, send, append the response): the loop the replay engine
// runs, kept minimal for testing policies alone.
func drive(t *testing.T, p Policy, tr *transcript.Transcript, sum summarize.Summarizer) []call {
	t.Helper()
	return driveIn(t, p, tr, &Env{Transcript: tr, Summarizer: sum, Count: cacheCount()})
}

// driveIn is drive in env; when env.ReuseSent, the next history is a copy
// of what was sent, as the engine's summary-only runs make it.
func driveIn(t *testing.T, p Policy, tr *transcript.Transcript, env *Env) []call {
	t.Helper()
	var out []call
	driveEach(t, p, tr, env, func(_, turn int, step Step, _ *State) {
		out = append(out, call{turn: turn, sent: ids(step.History), step: step})
	})
	return out
}

// driveEach replays tr through p in env, calling each with the index of
// the call's assistant message, the turn's length, the step and the
// policy's state after it.
func driveEach(t *testing.T, p Policy, tr *transcript.Transcript, env *Env, each func(msg, turn int, step Step, st *State)) {
	t.Helper()
	driveCalls(t, p, tr, env, replies(tr), each)
}

// replies returns the index of each call's assistant message in tr.
func replies(tr *transcript.Transcript) []int {
	var out []int
	for i, m := range tr.Messages {
		if m.Role == transcript.RoleAssistant {
			out = append(out, i)
		}
	}
	return out
}

// driveCalls is driveEach with the calls at the messages calls names, in
// order: len(tr.Messages) is a call whose reply is not in tr yet.
func driveCalls(t *testing.T, p Policy, tr *transcript.Transcript, env *Env, calls []int, each func(msg, turn int, step Step, st *State)) {
	t.Helper()
	st := &State{}
	var hist []Item
	next := 0
	for _, i := range calls {
		turn := 0
		for j := next; j < i; j++ {
			hist = append(hist, Original(tr, j))
			turn++
		}
		env.Next, env.Turn = i, turn
		step, err := p.Apply(context.Background(), env, st, hist)
		if err != nil {
			t.Fatalf("call %d: %v", env.Call, err)
		}
		each(i, turn, step, st)
		if i == len(tr.Messages) {
			break
		}
		sent := step.History
		if env.ReuseSent {
			sent = slices.Clone(sent)
		}
		hist = append(sent, Original(tr, i))
		next = i + 1
		env.Call++
	}
}

func readCorpus(t *testing.T, name string) *transcript.Transcript {
	t.Helper()
	ts, err := transcript.ReadFile(filepath.Join("../fixtures/corpus", name), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
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

func mustPolicy(t *testing.T, spec string) Policy {
	t.Helper()
	p, err := Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// recorder is a summarizer that records its requests and answers a fixed
// text, or fails when told.
type recorder struct {
	mu   sync.Mutex
	reqs []summarize.Request
	fail bool
}

func (r *recorder) Name() string { return "recorder" }

func (r *recorder) Summarize(_ context.Context, req summarize.Request) (summarize.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	if r.fail {
		return summarize.Result{}, fmt.Errorf("recorder: failing as told")
	}
	return summarize.Result{Text: fmt.Sprintf("summary %d of %d messages", len(r.reqs), len(req.Messages)), Model: "rec"}, nil
}

// textTranscript builds a transcript of alternating user and assistant
// text messages, n in all.
func textTranscript(n int) *transcript.Transcript {
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

// items makes items for messages 0..n-1 of tr.
func items(tr *transcript.Transcript, n int) []Item {
	out := make([]Item, n)
	for i := range n {
		out[i] = Original(tr, i)
	}
	return out
}

func toolUse(id string) transcript.Block {
	return transcript.Block{Type: transcript.BlockToolUse, ID: id, Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}
}

func toolResult(id, text string) transcript.Block {
	return transcript.Block{Type: transcript.BlockToolResult, ID: id, Text: text}
}

// callNamed is an assistant message calling tool name with id.
func callNamed(id, name string) transcript.Message {
	m := callTool(id)
	m.Blocks[0].Name = name
	return m
}

func text(s string) transcript.Block { return transcript.Block{Type: transcript.BlockText, Text: s} }

// orphans counts the sent tool results whose tool_use was not sent before
// them.
func orphans(tr *transcript.Transcript, sent []Item) int {
	seen := map[string]bool{}
	n := 0
	for _, it := range sent {
		for _, id := range toolResults(it) {
			if !seen[id] {
				n++
			}
		}
		for _, id := range toolUses(it) {
			seen[id] = true
		}
	}
	return n
}

// TestEvictedFrom holds evictedFrom equal to a set difference for
// subsequences of a history (its one-walk path) and for sends that are not
// (reordered, or holding new items: its set path).
func TestEvictedFrom(t *testing.T) {
	hist := items(textTranscript(12), 12)
	setDiff := func(out []Item) []string {
		keep := map[string]bool{}
		for _, it := range out {
			keep[it.ID] = true
		}
		var ev []string
		for _, it := range hist {
			if !keep[it.ID] {
				ev = append(ev, it.ID)
			}
		}
		return ev
	}
	rng := rand.New(rand.NewPCG(1, 2))
	fresh := Item{ID: "s1", Msg: &transcript.Message{Role: transcript.RoleUser}}
	for trial := range 500 {
		var out []Item
		for _, it := range hist {
			if rng.IntN(3) > 0 {
				out = append(out, it)
			}
		}
		switch trial % 4 {
		case 1:
			out = append([]Item{fresh}, out...)
		case 2:
			out = append(out, fresh)
		case 3:
			rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		}
		if diff := cmp.Diff(setDiff(out), evictedFrom(hist, out)); diff != "" {
			t.Fatalf("trial %d, sent %v (-set difference +evictedFrom):\n%s", trial, ids(out), diff)
		}
	}
}

// checkParses parses each spec: one marked true must be accepted, one
// marked false refused as a *ParamError whose text holds why.
func checkParses(t *testing.T, specs map[string]bool, why string) {
	t.Helper()
	for spec, ok := range specs {
		_, err := Parse(spec)
		var pe *ParamError
		if (err == nil) != ok || (err != nil && !errors.As(err, &pe)) {
			t.Errorf("%s: error %v, want accepted: %t (refused as a ParamError)", spec, err, ok)
		}
		if err != nil && !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v does not say %q", spec, err, why)
		}
	}
}

// cacheCount counts items through a cache of their messages' counts, as
// the replay engine's Env.Count does.
func cacheCount() func(estimate.Estimator, Item) int {
	c := estimate.NewCache()
	return func(e estimate.Estimator, it Item) int { return c.Count(e, it.Msg) }
}
