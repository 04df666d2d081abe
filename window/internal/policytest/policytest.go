// Package policytest holds what the tests of window and of its rooms
// share: it builds a room's policies as window's registry builds them
// (defaults, the values given, each checked), without importing window,
// which imports the rooms; it builds messages, sessions and summarizers,
// replays a session through a policy as the replay engine does, holds a
// chain computing every call whole (the reference window's chain and the
// provider's edits chained are held to), and reads the corpus and the
// conformance goldens.
package policytest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/internal/countcache"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// New builds the policy s registers with params over its defaults,
// failing t on a parameter s does not take or a value it refuses.
func New(t testing.TB, s *policy.Spec, params map[string]string) policy.Policy {
	t.Helper()
	if s.Expand != nil {
		var err error
		if params, err = s.Expand(params); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
	}
	v := policy.Values{}
	for _, p := range s.Params {
		v[p.Name] = p.Default
	}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		i := slices.IndexFunc(s.Params, func(p policy.Param) bool { return p.Name == k })
		if i < 0 {
			t.Fatalf("%s takes no parameter %q", s.Name, k)
		}
		if err := s.Params[i].Check(params[k]); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		v[k] = params[k]
	}
	if s.Check != nil {
		if err := s.Check(v); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
	}
	return s.Build(v)
}

// Items returns the items of the first n messages of tr.
func Items(tr *transcript.Transcript, n int) []policy.Item {
	out := make([]policy.Item, n)
	for i := range out {
		out[i] = policy.Original(tr, i)
	}
	return out
}

// Drive replays tr through p in env as the replay engine does (append
// the turn, apply the policy, send, append the reply), calling each
// with the index of the call's assistant message, the turn's length,
// the step and the policy's state after it. When env.ReuseSent, the
// next history is a copy of what was sent.
func Drive(t testing.TB, p policy.Policy, tr *transcript.Transcript, env *policy.Env, each func(msg, turn int, step policy.Step, st *policy.State)) {
	t.Helper()
	DriveCalls(t, p, tr, env, Replies(tr), each)
}

// Replies returns the index of each call's assistant message in tr.
func Replies(tr *transcript.Transcript) []int {
	var out []int
	for i, m := range tr.Messages {
		if m.Role == transcript.RoleAssistant {
			out = append(out, i)
		}
	}
	return out
}

// DriveCalls is Drive with the calls at the messages calls names, in
// order: len(tr.Messages) is a call whose reply is not in tr yet.
func DriveCalls(t testing.TB, p policy.Policy, tr *transcript.Transcript, env *policy.Env, calls []int, each func(msg, turn int, step policy.Step, st *policy.State)) {
	t.Helper()
	st := &policy.State{}
	var hist []policy.Item
	next := 0
	for _, i := range calls {
		turn := 0
		for j := next; j < i; j++ {
			hist = append(hist, policy.Original(tr, j))
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
		hist = append(sent, policy.Original(tr, i))
		next = i + 1
		env.Call++
	}
}

// CacheCount returns an Env.Count that shares one count cache, as the
// replay engine's does.
func CacheCount() func(estimate.Estimator, policy.Item) int {
	c := countcache.New()
	return func(e estimate.Estimator, it policy.Item) int { return c.Count(e, it.Msg) }
}

// Parse builds the policy a SPEC names (NAME or NAME:key=value,…) from
// specs, as window.Parse does for one policy.
func Parse(t testing.TB, specs []*policy.Spec, spec string) policy.Policy {
	t.Helper()
	name, rest, _ := strings.Cut(spec, ":")
	params := map[string]string{}
	if rest != "" {
		for _, kv := range strings.Split(rest, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("%s: %q is not key=value", spec, kv)
			}
			params[k] = v
		}
	}
	for _, s := range specs {
		if s.Name == name {
			return New(t, s, params)
		}
	}
	t.Fatalf("%s: no such policy here", spec)
	return nil
}

// A Recorder is a summarizer that records its requests and answers
// "summary k of n messages", or fails when told.
type Recorder struct {
	mu   sync.Mutex
	Reqs []summarize.Request
	Fail bool
}

// Name is the summarizer's name.
func (r *Recorder) Name() string { return "recorder" }

// Summarize records req and answers it.
func (r *Recorder) Summarize(_ context.Context, req summarize.Request) (summarize.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Reqs = append(r.Reqs, req)
	if r.Fail {
		return summarize.Result{}, fmt.Errorf("recorder: failing as told")
	}
	return summarize.Result{Text: fmt.Sprintf("summary %d of %d messages", len(r.Reqs), len(req.Messages)), Model: "rec"}, nil
}

// WideTurn is a session whose one turn makes n calls at once to the tool
// named tool and gets their n results in one message, then ends.
func WideTurn(tool string, n int) *transcript.Transcript {
	call := transcript.Message{Role: transcript.RoleAssistant}
	results := transcript.Message{Role: transcript.RoleUser}
	for i := range n {
		id := fmt.Sprintf("toolu_%d", i)
		call.Blocks = append(call.Blocks, transcript.Block{Type: transcript.BlockToolUse, ID: id, Name: tool, Input: []byte(`{"cmd":"echo"}`)})
		results.Blocks = append(results.Blocks, transcript.Block{Type: transcript.BlockToolResult, ID: id, Text: strings.Repeat("x", 60)})
	}
	text := func(s string) []transcript.Block { return []transcript.Block{{Type: transcript.BlockText, Text: s}} }
	return &transcript.Transcript{Messages: []transcript.Message{
		{Role: transcript.RoleUser, Blocks: text("do it")}, call, results, {Role: transcript.RoleAssistant, Blocks: text("done")}}}
}

// here is this package's directory: the conformance goldens
// (window/testdata/conformance) and the corpus (fixtures/corpus) are
// found from it, whichever room's tests ask.
var here = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}()

var (
	sourcesOnce sync.Once
	sources     map[string]*transcript.Transcript
	sourcesErr  error
)

// ConformanceSource returns the transcript a conformance golden names
// (conformance.Sources).
func ConformanceSource(t testing.TB, name string) *transcript.Transcript {
	t.Helper()
	sourcesOnce.Do(func() {
		var ss []conformance.Source
		ss, sourcesErr = conformance.Sources(filepath.Join(here, "../../../fixtures/corpus"))
		sources = map[string]*transcript.Transcript{}
		for _, s := range ss {
			sources[s.Name] = s.Transcript
		}
	})
	if sourcesErr != nil {
		t.Fatal(sourcesErr)
	}
	tr, ok := sources[name]
	if !ok {
		t.Fatalf("the golden names %s, which conformance.Sources no longer returns: run make conformance", name)
	}
	return tr
}

// ReadGolden reads the conformance golden name (testdata/conformance of
// window) into v.
func ReadGolden(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(here, "../../testdata/conformance", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// CallMessage returns the index of the assistant message of call c.
func CallMessage(tr *transcript.Transcript, c int) int {
	for i, m := range tr.Messages {
		if m.Role == transcript.RoleAssistant {
			if c == 0 {
				return i
			}
			c--
		}
	}
	return -1
}

// A GoldenSource names the code a conformance golden was made from when
// it is not a published package: its repository, commit and file.
type GoldenSource struct {
	Repository, Commit, File string
}

// A HashedRun is a golden's calls of one history, each what it sent by
// its entries' SHA-256 (the first 16 hex digits), their number and the
// last three.
type HashedRun struct {
	Source string `json:"source"`
	Calls  []struct {
		SHA256  string   `json:"sha256"`
		Entries int      `json:"entries"`
		Tail    []string `json:"tail"`
	} `json:"calls"`
}

// CheckHashed replays p, which spec names, on each run's history and compares what each
// call sends, as encode writes it, with what peer sent; it returns how
// many calls sent something encode marks with "~".
func CheckHashed(t testing.TB, p policy.Policy, spec, peer string, runs []HashedRun, encode func(*transcript.Transcript, []policy.Item) []string) (marked int) {
	t.Helper()
	calls, same := 0, 0
	for _, r := range runs {
		tr := ConformanceSource(t, r.Source)
		got := Run(t, p, tr, nil)
		if len(got) != len(r.Calls) {
			t.Fatalf("%s: %d calls, the golden has %d", r.Source, len(got), len(r.Calls))
		}
		for c, want := range r.Calls {
			calls++
			enc := strings.Join(encode(tr, got[c].Step.History), ",")
			if strings.Contains(enc, "~") {
				marked++
			}
			if SHA256Hex(enc)[:16] == want.SHA256 {
				same++
			} else if !t.Failed() || calls < 20 {
				entries := strings.Split(enc, ",")
				t.Errorf("%s, %s, call %d: %s sent %d entries ending %v, ctxbench %d ending %v",
					spec, r.Source, c, peer, want.Entries, want.Tail, len(entries), entries[max(0, len(entries)-3):])
			}
		}
	}
	t.Logf("%s: %d of %d calls as %s", spec, same, calls, peer)
	return marked
}

// EncodeRuns writes ids as the aidf golden does: consecutive originals as
// one range ("m3-m9"), synthetic items by their id.
func EncodeRuns(ids []string) []string {
	var out []string
	from, to := -1, -1
	flush := func() {
		switch {
		case from < 0:
		case from == to:
			out = append(out, "m"+strconv.Itoa(from))
		default:
			out = append(out, "m"+strconv.Itoa(from)+"-m"+strconv.Itoa(to))
		}
		from, to = -1, -1
	}
	for _, id := range ids {
		i, err := strconv.Atoi(strings.TrimPrefix(id, "m"))
		if !strings.HasPrefix(id, "m") || err != nil {
			flush()
			out = append(out, id)
			continue
		}
		if from >= 0 && i == to+1 {
			to = i
			continue
		}
		flush()
		from, to = i, i
	}
	flush()
	return out
}
