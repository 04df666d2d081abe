package replay

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/internal/msgid"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// broken is a test-only policy that breaks one invariant on purpose.
type broken struct {
	name  string
	g     window.Guarantees
	apply func(env *window.Env, hist []window.Item) window.Step
}

func (b *broken) Name() string                  { return b.name }
func (b *broken) Params() window.Values         { return window.Values{} }
func (b *broken) Guarantees() window.Guarantees { return b.g }
func (b *broken) Apply(_ context.Context, env *window.Env, _ *window.State, hist []window.Item) (window.Step, error) {
	return b.apply(env, hist), nil
}

func summaryItem(id string, role transcript.Role, text string) window.Item {
	return window.Item{ID: id, Summary: true, Msg: &transcript.Message{Role: role, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: text}}}}
}

func TestEachInvariantFires(t *testing.T) {
	tr := generated(t, 40)
	synth := 0
	for _, tc := range []struct {
		invariant string
		policy    *broken
	}{
		{invCap, &broken{name: "too-many", g: window.Guarantees{MaxMessages: 4},
			apply: func(_ *window.Env, h []window.Item) window.Step { return window.Step{History: h} }}},
		{invAnchors, &broken{name: "drops-head", g: window.Guarantees{Head: 1},
			apply: func(_ *window.Env, h []window.Item) window.Step {
				return window.Step{History: h[1:], Evicted: []string{h[0].ID}}
			}}},
		{invOrder, &broken{name: "reverses",
			apply: func(_ *window.Env, h []window.Item) window.Step {
				r := slices.Clone(h)
				slices.Reverse(r)
				return window.Step{History: r}
			}}},
		{invToolPairing, &broken{name: "drops-calls", g: window.Guarantees{PairSafe: true},
			apply: func(_ *window.Env, h []window.Item) window.Step {
				var kept []window.Item
				var ev []string
				for _, it := range h {
					if it.Msg.Role == transcript.RoleAssistant {
						ev = append(ev, it.ID)
						continue
					}
					kept = append(kept, it)
				}
				return window.Step{History: kept, Evicted: ev}
			}}},
		{invSummary, &broken{name: "two-summaries", g: window.Guarantees{SummaryRole: transcript.RoleSystem},
			apply: func(_ *window.Env, h []window.Item) window.Step {
				synth += 2
				a := summaryItem("s"+strconv.Itoa(synth-1), transcript.RoleUser, "one")
				b := summaryItem("s"+strconv.Itoa(synth), transcript.RoleUser, "two")
				return window.Step{History: append([]window.Item{a, b}, h...)}
			}}},
		{invShrinks, &broken{name: "grows", g: window.Guarantees{Compacts: true},
			apply: func(_ *window.Env, h []window.Item) window.Step {
				synth++
				s := summaryItem("s"+strconv.Itoa(synth), transcript.RoleUser, strings.Repeat("padding ", 50))
				var rest []window.Item
				for _, it := range h {
					if !it.Synthetic() {
						rest = append(rest, it)
					}
				}
				return window.Step{History: append([]window.Item{s}, rest...), Summary: &window.SummaryEvent{ID: s.ID}}
			}}},
		{invConservation, &broken{name: "loses",
			apply: func(_ *window.Env, h []window.Item) window.Step {
				if len(h) > 3 {
					return window.Step{History: append(slices.Clone(h[:1]), h[2:]...)}
				}
				return window.Step{History: h}
			}}},
	} {
		t.Run(tc.invariant, func(t *testing.T) {
			run, err := Replay(context.Background(), tr, tc.policy, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if run.Summary.Violations[tc.invariant] == 0 {
				t.Fatalf("%s never reported %s: %v", tc.policy.name, tc.invariant, run.Summary.Violations)
			}
			for _, st := range run.Steps {
				for _, v := range st.Violations {
					if v.Invariant == tc.invariant {
						if v.Step != st.Step || v.Detail == "" {
							t.Errorf("violation without step or sentence: %+v", v)
						}
						return
					}
				}
			}
		})
	}
}

// ruleTranscript is a session of 5 calls: a task, a tool call and its
// result, then text turns.
//
//	m0 user · m1 assistant (call 0, tool use t1) · m2 user (result t1)
//	m3 assistant (call 1) · m4 user · m5 assistant (call 2) · m6 user
//	m7 assistant (call 3) · m8 user · m9 assistant (call 4)
func ruleTranscript() *transcript.Transcript {
	text := func(r transcript.Role, s string) transcript.Message {
		return transcript.Message{Role: r, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: s}}}
	}
	tr := &transcript.Transcript{ID: "rules", File: "rules.jsonl", Messages: []transcript.Message{
		text(transcript.RoleUser, "fix the build in /src/main.go"),
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{{Type: transcript.BlockToolUse, ID: "t1", Name: "Bash", Input: []byte(`{"command":"go build ./..."}`)}}},
		{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockToolResult, ID: "t1", Text: "ok"}}},
	}}
	for i := range 7 {
		role := transcript.RoleAssistant
		if i%2 == 1 {
			role = transcript.RoleUser
		}
		tr.Messages = append(tr.Messages, text(role, fmt.Sprintf("turn %d", i)))
	}
	for i := range tr.Messages {
		if tr.Messages[i].Role == transcript.RoleAssistant {
			tr.Calls++
		}
	}
	return tr
}

// without returns h without the items whose ids are given, and those ids.
func without(h []window.Item, ids ...string) ([]window.Item, []string) {
	var kept []window.Item
	var gone []string
	for _, it := range h {
		if slices.Contains(ids, it.ID) {
			gone = append(gone, it.ID)
			continue
		}
		kept = append(kept, it)
	}
	return kept, gone
}

// TestEachRuleFires: every rule of every invariant, broken alone by a
// policy, is reported — with its own sentence, at the call that broke it —
// both when every step is checked whole and when steps are checked on
// what changed. Where the engine can check the breaking step on what
// changed (an edit of a clean context: a block removed or items replaced
// in place, then the fresh messages), the case is shaped so that it
// would, so that the invariant's incremental form must see the break.
// Disabling any one rule, in either form, fails its case.
func TestEachRuleFires(t *testing.T) {
	tr := ruleTranscript()
	sum := func(id string, role transcript.Role, text string) window.Item { return summaryItem(id, role, text) }
	// at returns a policy that sends the history as given but at call k,
	// where it applies f.
	at := func(k int, f func(env *window.Env, h []window.Item) window.Step) func(*window.Env, []window.Item) window.Step {
		return func(env *window.Env, h []window.Item) window.Step {
			if env.Call != k {
				return window.Step{History: h}
			}
			return f(env, h)
		}
	}
	evict := func(ids ...string) func(*window.Env, []window.Item) window.Step {
		return func(_ *window.Env, h []window.Item) window.Step {
			kept, gone := without(h, ids...)
			return window.Step{History: kept, Evicted: gone}
		}
	}
	for _, tc := range []struct {
		rule, invariant, detail string
		step                    int // the first call that breaks it
		g                       window.Guarantees
		apply                   func(env *window.Env, h []window.Item) window.Step
	}{
		{"cap", invCap, "7 messages sent; the cap is 4 + 1 of the latest turn", 3, window.Guarantees{MaxMessages: 4},
			func(_ *window.Env, h []window.Item) window.Step { return window.Step{History: h} }},
		// m0 removed as a block at the head.
		{"head anchor", invAnchors, "m0 is in the preserved head", 3, window.Guarantees{Head: 1}, at(3, evict("m0"))},
		// m3 removed as a block inside the tail of 4 (m3..m6).
		{"tail anchor", invAnchors, "m3 is in the preserved tail", 3, window.Guarantees{Tail: 4}, at(3, evict("m3"))},
		// m8 reported evicted before it is appended, and sent when it is.
		{"evicted comes back", invOrder, "m8 was evicted at an earlier step and is sent again", 4, window.Guarantees{},
			at(1, func(_ *window.Env, h []window.Item) window.Step {
				return window.Step{History: h, Evicted: []string{"m8"}}
			})},
		// m9 sent early, at call 3: the fresh m7 then follows it.
		{"original order", invOrder, "m7 is sent after m9, out of the original order", 4, window.Guarantees{},
			at(3, func(env *window.Env, h []window.Item) window.Step {
				return window.Step{History: append(slices.Clone(h), window.Original(env.Transcript, 9))}
			})},
		{"original order, whole", invOrder, "m3 is sent after m4, out of the original order", 2, window.Guarantees{},
			at(2, func(_ *window.Env, h []window.Item) window.Step {
				r := slices.Clone(h)
				r[len(r)-2], r[len(r)-1] = r[len(r)-1], r[len(r)-2]
				return window.Step{History: r}
			})},
		// The result m2 removed as a block, its call m1 kept.
		{"call without its result", invToolPairing, "the tool call t1 in m1 is sent without its result (in m2)", 3, window.Guarantees{}, at(3, evict("m2"))},
		// The call m1 removed as a block: its result is an orphan.
		{"result without its call", invToolPairing, "the tool result in m2 answers the call t1, which is not sent before it", 3, window.Guarantees{}, at(3, evict("m1"))},
		// m1 replaced in place by a copy without its call.
		{"result without its call, replaced", invToolPairing, "the tool result in m2 answers the call t1, which is not sent before it", 2, window.Guarantees{},
			at(2, func(_ *window.Env, h []window.Item) window.Step {
				r := slices.Clone(h)
				r[1] = window.Item{ID: "m1", Truncated: true, Msg: &transcript.Message{Role: transcript.RoleAssistant,
					Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "ran the build"}}}}
				return window.Step{History: r, Truncated: []string{"m1"}}
			})},
		{"summary role", invSummary, "the summary s1 is a user message; the design makes it system", 1, window.Guarantees{SummaryRole: transcript.RoleSystem},
			at(1, func(_ *window.Env, h []window.Item) window.Step {
				return window.Step{History: append([]window.Item{sum("s1", transcript.RoleUser, "summary")}, h...)}
			})},
		{"summary first", invSummary, "the summary s1 is at position 3; the design puts it first", 1, window.Guarantees{SummaryFirst: true},
			at(1, func(_ *window.Env, h []window.Item) window.Step {
				return window.Step{History: append(slices.Clone(h), sum("s1", transcript.RoleUser, "summary")), Summary: &window.SummaryEvent{ID: "s1"}}
			})},
		{"one summary", invSummary, "2 summaries are sent at once: s1, s2", 1, window.Guarantees{},
			at(1, func(_ *window.Env, h []window.Item) window.Step {
				return window.Step{History: append([]window.Item{sum("s1", transcript.RoleUser, "a"), sum("s2", transcript.RoleUser, "b")}, h...)}
			})},
		// s1, sent since call 1, holds the text of the error of the
		// summary that fails at call 2, which otherwise sends the history
		// as given.
		{"failed summary", invSummary, "the failed summary's error became history in s1", 2, window.Guarantees{},
			func(env *window.Env, h []window.Item) window.Step {
				switch env.Call {
				case 1:
					return window.Step{History: append([]window.Item{sum("s1", transcript.RoleUser, "error: quota exceeded")}, h...)}
				case 2:
					return window.Step{History: h, Summary: &window.SummaryEvent{Error: "quota exceeded"}}
				}
				return window.Step{History: h}
			}},
		{"compaction shrinks", invShrinks, "compaction into s1 left", 1, window.Guarantees{Compacts: true},
			at(1, func(_ *window.Env, h []window.Item) window.Step {
				return window.Step{History: append([]window.Item{sum("s1", transcript.RoleUser, strings.Repeat("long ", 200))}, h...),
					Summary: &window.SummaryEvent{ID: "s1", Covers: []string{"m0"}}}
			})},
		{"compaction fires once", invShrinks, "compaction fired again on the previous step's context with no new input", 2, window.Guarantees{Compacts: true},
			func(env *window.Env, h []window.Item) window.Step {
				switch env.Call {
				case 1:
					return window.Step{History: []window.Item{sum("s1", transcript.RoleUser, "s")}, Evicted: ids(h), Summary: &window.SummaryEvent{ID: "s1", Covers: ids(h)}}
				case 2:
					return window.Step{History: []window.Item{sum("s2", transcript.RoleUser, "s")}, Evicted: ids(h), Summary: &window.SummaryEvent{ID: "s2", Covers: []string{"s1"}}}
				}
				return window.Step{History: h}
			}},
		{"evicted was in the history", invConservation, "m7 is reported evicted but was not in the history", 2, window.Guarantees{},
			at(2, func(_ *window.Env, h []window.Item) window.Step {
				return window.Step{History: h, Evicted: []string{"m7"}}
			})},
		// m3 removed as a block, unreported.
		{"sent or evicted", invConservation, "m3 is neither sent nor evicted", 3, window.Guarantees{},
			at(3, func(_ *window.Env, h []window.Item) window.Step {
				kept, _ := without(h, "m3")
				return window.Step{History: kept}
			})},
		// m3 removed as a block, m4 reported in its place.
		{"sent or evicted, another reported", invConservation, "m3 is neither sent nor evicted", 3, window.Guarantees{},
			at(3, func(_ *window.Env, h []window.Item) window.Step {
				kept, _ := without(h, "m3")
				return window.Step{History: kept, Evicted: []string{"m4"}}
			})},
	} {
		for _, whole := range []bool{false, true} {
			name := tc.rule
			if whole {
				name += "/whole"
			}
			t.Run(name, func(t *testing.T) {
				p := &broken{name: tc.rule, g: tc.g, apply: tc.apply}
				run, err := Replay(context.Background(), tr, p, Options{recompute: whole})
				if err != nil {
					t.Fatal(err)
				}
				first := -1
				for _, v := range run.Violations {
					if v.Invariant == tc.invariant && strings.Contains(v.Detail, tc.detail) {
						first = v.Step
						break
					}
				}
				if first != tc.step {
					t.Errorf("%q first reported at call %d, want %d; violations: %v", tc.detail, first, tc.step, run.Violations)
				}
			})
		}
	}
}

func ids(h []window.Item) []string {
	var out []string
	for _, it := range h {
		out = append(out, it.ID)
	}
	return out
}

// TestOrphanLeaves: a result orphaned by a block removed at a step
// checked on what changed is reported while it is sent, and no longer
// once it leaves the context, as the whole check says.
func TestOrphanLeaves(t *testing.T) {
	tr := ruleTranscript()
	p := &broken{name: "slides", apply: func(env *window.Env, h []window.Item) window.Step {
		switch env.Call {
		case 3:
			kept, gone := without(h, "m1")
			return window.Step{History: kept, Evicted: gone}
		case 4:
			kept, gone := without(h, "m2")
			return window.Step{History: kept, Evicted: gone}
		}
		return window.Step{History: h}
	}}
	var got [2][]Violation
	for k, whole := range []bool{false, true} {
		run, err := Replay(context.Background(), tr, p, Options{recompute: whole})
		if err != nil {
			t.Fatal(err)
		}
		got[k] = run.Violations
	}
	if diff := cmp.Diff(got[1], got[0]); diff != "" {
		t.Errorf("checked on what changed (+) against whole (-):\n%s", diff)
	}
	if len(got[1]) != 1 || got[1][0].Step != 3 || got[1][0].Invariant != invToolPairing {
		t.Errorf("violations %v, want the orphan m2 at call 3 only", got[1])
	}
}

// TestHeadroom: SummarizationMiddleware with a token trigger and a
// message-count tail (langchain-summarization) re-compacts at every call
// once the tail alone is over the trigger — 12 messages of 100 tokens
// against 1,000 — and the headroom invariant fires at every
// re-compaction; with a tail of 2 messages (200 tokens) the history falls
// well below the trigger, the next compaction waits for calls of new
// input, and headroom holds. The same with the API's compaction
// (anthropic-compaction) and pause_after_compaction, the client keeping
// its newest messages: 6 messages of 10,000 tokens against 50,000
// thrash, 2 do not.
func TestHeadroom(t *testing.T) {
	for _, tc := range []struct {
		text, spec string
		thrashes   bool
	}{
		{strings.Repeat("w", 400), "langchain-summarization:trigger_tokens=1000,keep_messages=12", true},
		{strings.Repeat("w", 400), "langchain-summarization:trigger_tokens=1000,keep_messages=2", false},
		{strings.Repeat("word ", 8_000), "anthropic-compaction:trigger=50000,pause_after_compaction=true,keep=6", true},
		{strings.Repeat("word ", 8_000), "anthropic-compaction:trigger=50000,pause_after_compaction=true,keep=2", false},
	} {
		tr := &transcript.Transcript{ID: "headroom", File: "headroom.jsonl"}
		for i := range 40 {
			role := transcript.RoleUser
			if i%2 == 1 {
				role = transcript.RoleAssistant
			}
			tr.Messages = append(tr.Messages, transcript.Message{Role: role,
				Blocks: []transcript.Block{{Type: transcript.BlockText, Text: tc.text}}})
		}
		run, err := Replay(context.Background(), tr, must(t, tc.spec), Options{Summarizer: &summarize.Mock{}})
		if err != nil {
			t.Fatal(err)
		}
		fired, flagged := 0, 0
		for _, s := range run.Steps {
			if s.Fired == nil {
				continue
			}
			fired++
			if slices.ContainsFunc(s.Violations, func(v Violation) bool { return v.Invariant == invHeadroom }) {
				flagged++
			}
		}
		switch {
		case fired < 3:
			t.Errorf("%s: %d compactions in 20 calls", tc.spec, fired)
		case tc.thrashes && flagged != fired:
			t.Errorf("%s: headroom flagged %d of %d re-compactions", tc.spec, flagged, fired)
		case !tc.thrashes && flagged != 0:
			t.Errorf("%s: headroom flagged %d compactions that bought headroom", tc.spec, flagged)
		}
		if tc.thrashes && run.Summary.Violations[invHeadroom] < fired {
			t.Errorf("%s: the summary counts %d headroom violations for %d re-compactions", tc.spec, run.Summary.Violations[invHeadroom], fired)
		}
		for _, inv := range []string{invToolPairing, invSummary, invOrder, invConservation} {
			if n := run.Summary.Violations[inv]; n != 0 {
				t.Errorf("%s: %d %s violations", tc.spec, n, inv)
			}
		}
	}
}

// TestInvariantBoundaries: the cap and headroom rules at their exact
// boundaries. A context of the cap plus the latest turn is within the
// cap, one more message is not; a firing that leaves the count one under
// its trigger bought headroom, one that leaves it at the trigger did not.
func TestInvariantBoundaries(t *testing.T) {
	tr := generated(t, 40)
	const capMessages, trigger, firesAt = 4, 1000, 5
	for _, tc := range []struct {
		name      string
		invariant string
		policy    *broken
		want      bool
	}{
		{"cap + turn", invCap, atCap(capMessages, 0), false},
		{"cap + turn + 1", invCap, atCap(capMessages, 1), true},
		{"left one under the trigger", invHeadroom, firesOnce(firesAt, trigger, trigger-1), false},
		{"left at the trigger", invHeadroom, firesOnce(firesAt, trigger, trigger), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, opt := range []Options{{}, {countViolations: true}} {
				run, err := Replay(context.Background(), tr, tc.policy, opt)
				if err != nil {
					t.Fatal(err)
				}
				if got := run.Summary.Violations[tc.invariant] > 0; got != tc.want {
					t.Errorf("countViolations=%v: %s reported %v, want %v (%v)", opt.countViolations, tc.invariant, got, tc.want, run.Summary.Violations)
				}
			}
		})
	}
}

// atCap sends, at every call, the last capMessages + the latest turn +
// over messages of the history, and names what it leaves out evicted.
func atCap(capMessages, over int) *broken {
	return &broken{name: "at-cap", g: window.Guarantees{MaxMessages: capMessages},
		apply: func(env *window.Env, h []window.Item) window.Step {
			n := min(len(h), capMessages+env.Turn+over)
			var gone []string
			for _, it := range h[:len(h)-n] {
				gone = append(gone, it.ID)
			}
			return window.Step{History: h[len(h)-n:], Evicted: gone}
		}}
}

// firesOnce sends the whole history and reports, at call k only, a
// firing of the given trigger that left after tokens.
func firesOnce(k, trigger, after int) *broken {
	return &broken{name: "fires-once",
		apply: func(env *window.Env, h []window.Item) window.Step {
			s := window.Step{History: h}
			if env.Call == k {
				s.Fired = &window.Firing{What: "compaction", Unit: "tokens", Trigger: trigger, Before: trigger + 500, After: after}
			}
			return s
		}}
}

// TestPairingLatestResult: a tool call sent without its result is a
// break of tool pairing when the result is the latest message before
// the call, as when it is older; a result recorded after the call is
// not yet owed. Checked whole and on what changed.
func TestPairingLatestResult(t *testing.T) {
	tr := ruleTranscript() // call 1 follows m2, t1's result
	for _, tc := range []struct {
		name string
		drop func(env *window.Env) bool
		want bool
	}{
		{"latest result left out", func(env *window.Env) bool { return env.Call == 1 }, true},
		{"older result left out", func(env *window.Env) bool { return env.Call == 2 }, true},
		{"nothing left out", func(*window.Env) bool { return false }, false},
	} {
		p := &broken{name: "drops-result", g: window.Guarantees{PairSafe: true},
			apply: func(env *window.Env, h []window.Item) window.Step {
				if !tc.drop(env) {
					return window.Step{History: h}
				}
				kept, gone := without(h, msgid.Of(2))
				return window.Step{History: kept, Evicted: gone}
			}}
		for _, opt := range []Options{{}, {countViolations: true}} {
			run, err := Replay(context.Background(), tr, p, opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := run.Summary.Violations[invToolPairing] > 0; got != tc.want {
				t.Errorf("%s, countViolations=%v: tool pairing broken %v, want %v (%v)", tc.name, opt.countViolations, got, tc.want, run.Summary.Violations)
			}
		}
	}
}
