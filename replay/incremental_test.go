package replay

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/countcache"
	"github.com/ctxbench/ctxbench/internal/msgid"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// misbehaving are policies that mostly send the history unchanged, the
// steps the engine checks on the turn alone, and now and then break an
// invariant whose violation outlives the step that caused it.
func misbehaving() []window.Policy {
	return []window.Policy{
		// Evicts every fifth call's assistant messages: their tool results
		// stay, orphaned, in every later context.
		&broken{name: "orphans", apply: func(env *window.Env, h []window.Item) window.Step {
			if env.Call%5 != 4 {
				return window.Step{History: h}
			}
			var kept []window.Item
			var ev []string
			for _, it := range h {
				if it.Msg.Role == transcript.RoleAssistant && it.Index() > 0 {
					ev = append(ev, it.ID)
					continue
				}
				kept = append(kept, it)
			}
			return window.Step{History: kept, Evicted: ev}
		}},
		// Reports a message evicted before it is appended: it is sent
		// again (an order violation) once it comes.
		&broken{name: "early-evict", apply: func(env *window.Env, h []window.Item) window.Step {
			s := window.Step{History: h}
			if env.Call%7 == 3 && env.Next+3 < len(env.Transcript.Messages) {
				s.Evicted = []string{msgid.Of(env.Next + 3)}
			}
			return s
		}},
		// Drops an early message without reporting it at every sixth call.
		&broken{name: "forgets", apply: func(env *window.Env, h []window.Item) window.Step {
			if env.Call%6 != 5 || len(h) < 5 {
				return window.Step{History: h}
			}
			return window.Step{History: append(append([]window.Item{}, h[:3]...), h[4:]...)}
		}},
		// Replaces, in place, the oldest message with tool calls by a copy
		// without them at every eighth call: its results are orphaned.
		&broken{name: "cuts-calls", apply: func(env *window.Env, h []window.Item) window.Step {
			if env.Call%8 != 7 {
				return window.Step{History: h}
			}
			out := append([]window.Item{}, h...)
			for k, it := range out {
				if it.Msg.Role == transcript.RoleAssistant && len(it.Msg.Blocks) > 0 && it.Msg.Blocks[len(it.Msg.Blocks)-1].Type == transcript.BlockToolUse && !it.Truncated {
					c := *it.Msg
					c.Blocks = []transcript.Block{{Type: transcript.BlockText, Text: "(calls cut)"}}
					out[k] = window.Item{ID: it.ID, Msg: &c, Truncated: true}
					return window.Step{History: out, Truncated: []string{it.ID}}
				}
			}
			return window.Step{History: h}
		}},
		// Truncates, in place, a message of the head it promises to keep.
		&broken{name: "cuts-head", g: window.Guarantees{Head: 2}, apply: func(env *window.Env, h []window.Item) window.Step {
			if env.Call%9 != 8 || len(h) < 2 || h[1].Truncated {
				return window.Step{History: h}
			}
			out := append([]window.Item{}, h...)
			c := *h[1].Msg
			out[1] = window.Item{ID: h[1].ID, Msg: &c, Truncated: true}
			return window.Step{History: out, Truncated: []string{h[1].ID}}
		}},
		// Evicts (and reports) a message of the head it promises to keep.
		&broken{name: "evicts-head", g: window.Guarantees{Head: 2}, apply: func(env *window.Env, h []window.Item) window.Step {
			if env.Call%9 != 8 || len(h) < 3 {
				return window.Step{History: h}
			}
			return window.Step{History: append(append([]window.Item{}, h[:1]...), h[2:]...), Evicted: []string{h[1].ID}}
		}},
		// Evicts (and reports) a message of the tail it promises to keep,
		// just before the turn.
		&broken{name: "evicts-tail", g: window.Guarantees{Tail: 4}, apply: func(env *window.Env, h []window.Item) window.Step {
			k := len(h) - env.Turn - 2
			if env.Call%11 != 10 || k < 1 {
				return window.Step{History: h}
			}
			return window.Step{History: append(append([]window.Item{}, h[:k]...), h[k+1:]...), Evicted: []string{h[k].ID}}
		}},
		// Sends one message twice at every tenth call.
		&broken{name: "repeats", apply: func(env *window.Env, h []window.Item) window.Step {
			if env.Call%10 != 9 || len(h) < 2 {
				return window.Step{History: h}
			}
			return window.Step{History: append(append([]window.Item{}, h...), h[1])}
		}},
	}
}

// latePairs is a transcript whose tool results come calls after their
// calls, and one result before its call, with a policy that evicts a
// pending call and, later, that early result, each followed by clean
// steps: the orphans then arrive in turns the engine checks alone.
func latePairs() (*transcript.Transcript, window.Policy) {
	text := func(r transcript.Role, s string) transcript.Message {
		return transcript.Message{Role: r, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: s}}}
	}
	call := func(id string) transcript.Message {
		return transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{{Type: transcript.BlockToolUse, ID: id, Name: "Bash", Input: []byte(`{"command":"ls /repo/src"}`)}}}
	}
	result := func(id string) transcript.Message {
		return transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockToolResult, ID: id, Text: "ok"}}}
	}
	u, a := transcript.RoleUser, transcript.RoleAssistant
	tr := &transcript.Transcript{ID: "late-pairs", Messages: []transcript.Message{
		text(u, "start"), call("X"), text(u, "go on"), text(a, "waiting"), text(u, "go on"), text(a, "still"),
		result("X"), text(a, "got X"), result("Z"), text(a, "early"), text(u, "go on"), text(a, "ok"),
		text(u, "go on"), call("Z"), text(u, "go on"), text(a, "done"),
	}}
	return tr, evicting("evicts-pending", map[int][]string{1: {"m1"}, 4: {"m6", "m8"}})
}

// evicting is a policy that, at call c, evicts the items evict[c] names
// and sends the rest.
func evicting(name string, evict map[int][]string) window.Policy {
	return &broken{name: name, apply: func(env *window.Env, h []window.Item) window.Step {
		s := window.Step{}
		for _, it := range h {
			if slices.Contains(evict[env.Call], it.ID) {
				s.Evicted = append(s.Evicted, it.ID)
				continue
			}
			s.History = append(s.History, it)
		}
		return s
	}}
}

// removedCalls is a session whose calls a policy evicts from the middle
// of what it sends, as a sliding window does, orphaning their results in
// steps the engine checks on what changed: m4 answers the calls of m1 (P)
// and m3 (Q) and m6 the call of m5 (S). Evicting m5 orphans m6; evicting
// the block m1 then orphans m4's result of P before m6 (the orphans stay
// in the context's order); evicting the block m2, m3 orphans m4's result
// of Q after its result of P (an item's orphans in block order).
func removedCalls() (*transcript.Transcript, window.Policy) {
	text := func(r transcript.Role, s string) transcript.Message {
		return transcript.Message{Role: r, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: s}}}
	}
	call := func(id string) transcript.Message {
		return transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{{Type: transcript.BlockToolUse, ID: id, Name: "Read", Input: []byte(`{"file_path":"/repo/a.go"}`)}}}
	}
	result := func(ids ...string) transcript.Message {
		m := transcript.Message{Role: transcript.RoleUser}
		for _, id := range ids {
			m.Blocks = append(m.Blocks, transcript.Block{Type: transcript.BlockToolResult, ID: id, Text: "package a"})
		}
		return m
	}
	u, a := transcript.RoleUser, transcript.RoleAssistant
	tr := &transcript.Transcript{ID: "removed-calls", Messages: []transcript.Message{
		text(u, "start"), call("P"), text(u, "go on"), call("Q"), result("P", "Q"), call("S"), result("S"),
		text(a, "a"), text(u, "go on"), text(a, "b"), text(u, "go on"), text(a, "c"), text(u, "go on"), text(a, "d"),
	}}
	return tr, evicting("evicts-calls", map[int][]string{3: {"m5"}, 4: {"m1"}, 5: {"m2", "m3"}})
}

// TestIncrementalStepsMatchWhole: a replay that updates each step from the
// previous one (counts, retention, ids, checks on the turn alone) gives
// exactly the steps of a replay that measures and checks every context
// whole, for every policy on the whole corpus, violations included; its
// retention is the share an independent, set-based computation gives; and
// a replay that keeps no steps has the same summary and violations.
func TestIncrementalStepsMatchWhole(t *testing.T) {
	trs := corpus(t)
	trs = append(trs, generated(t, 300))
	var policies []window.Policy
	// opencode's prune with small thresholds acts on the corpus: it
	// rewrites items inside the history it counts.
	for _, spec := range append(specs, "opencode:prune_protect=2000,prune_minimum=1000,context_limit=60000,max_output=8000") {
		policies = append(policies, must(t, spec))
	}
	policies = append(policies, misbehaving()...)
	ests := []estimate.Estimator{estimate.MustNew("cl100k_base", estimate.OverheadNone), estimate.MustNew("chars4", estimate.OverheadNone)}
	counts, arts := countcache.New(), newArtifactCache()
	unchanged, violations := 0, 0
	type pair struct {
		p  window.Policy
		tr *transcript.Transcript
	}
	// make test (-short) replays a sixth of the pairs, every policy and
	// every transcript among them; make long replays them all.
	var pairs []pair
	for i, p := range policies {
		for j, tr := range trs {
			if !testing.Short() || (i+j)%6 == 0 {
				pairs = append(pairs, pair{p, tr})
			}
		}
	}
	late, evicts := latePairs()
	for _, p := range append(policies, evicts) {
		pairs = append(pairs, pair{p, late})
	}
	removed, evictsCalls := removedCalls()
	pairs = append(pairs, pair{evictsCalls, removed})
	// The orphans of the scripted sessions are found where they arrive.
	wantViolations := map[window.Policy][]string{
		evicts: {"3 tool_pairing [m6]", "7 tool_pairing [m13 m8]"},
		evictsCalls: {"3 tool_pairing [m6] S", "4 tool_pairing [m4] P", "4 tool_pairing [m6] S",
			"5 tool_pairing [m4] P", "5 tool_pairing [m4] Q", "5 tool_pairing [m6] S",
			"6 tool_pairing [m4] P", "6 tool_pairing [m4] Q", "6 tool_pairing [m6] S"},
	}
	for _, pt := range pairs {
		if want, ok := wantViolations[pt.p]; ok {
			scriptedViolations(t, pt.tr, pt.p, want, pt.p == evictsCalls)
		}
		u, v := incrementalMatchesWhole(t, pt.tr, pt.p, Options{Estimators: ests, Summarizer: &summarize.Mock{}, counts: counts, arts: arts})
		unchanged += u
		violations += v
	}
	// The comparison means something only if both kinds of step occur.
	if unchanged < 1000 || violations < 100 {
		t.Errorf("%d steps sent their history unchanged and %d violations were found: too few to compare", unchanged, violations)
	}
	t.Logf("%d unchanged steps, %d violations compared", unchanged, violations)
}

// scriptedViolations holds p's violations on tr to want, each "step
// invariant [ids]", and the call a result answers when withCall.
func scriptedViolations(t *testing.T, tr *transcript.Transcript, p window.Policy, want []string, withCall bool) {
	t.Helper()
	run, _ := Replay(context.Background(), tr, p, Options{})
	var at []string
	for _, st := range run.Steps {
		for _, v := range st.Violations {
			s := fmt.Sprintf("%d %s %v", v.Step, v.Invariant, v.IDs)
			if withCall {
				_, call, _ := strings.Cut(v.Detail, "answers the call ")
				call, _, _ = strings.Cut(call, ",")
				s += " " + call
			}
			at = append(at, s)
		}
	}
	if diff := cmp.Diff(want, at); diff != "" {
		t.Errorf("%s: violations (-want +got):\n%s", p.Name(), diff)
	}
}

// incrementalMatchesWhole replays tr under p with opt incrementally, whole,
// keeping no steps and counting violations, and holds them to each other,
// to the reference checks and to the set-based retention. It returns the
// steps that sent their history unchanged and the violations found.
func incrementalMatchesWhole(t *testing.T, tr *transcript.Transcript, p window.Policy, opt Options) (unchanged, violations int) {
	t.Helper()
	inc, err := Replay(context.Background(), tr, p, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.recompute = true
	whole, err := Replay(context.Background(), tr, p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(whole, inc, cmpopts.IgnoreUnexported(Step{})); diff != "" {
		t.Fatalf("%s on %s: incremental steps differ from whole ones (-whole +incremental):\n%s", p.Name(), tr.ID, diff)
	}
	if diff := cmp.Diff(refViolations(tr, p, whole, opt.Estimators[0], opt.counts), whole.Violations); diff != "" {
		t.Fatalf("%s on %s: violations differ from the reference checks' (-reference +engine):\n%s", p.Name(), tr.ID, diff)
	}
	opt.recompute, opt.NoSteps = false, true
	lean, err := Replay(context.Background(), tr, p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(inc.Summary, lean.Summary); diff != "" || lean.Steps != nil {
		t.Fatalf("%s on %s: a summary-only run (%d steps kept) summarizes differently (-steps +summary only):\n%s", p.Name(), tr.ID, len(lean.Steps), diff)
	}
	var stepViolations []Violation
	for _, st := range inc.Steps {
		stepViolations = append(stepViolations, st.Violations...)
	}
	if diff := cmp.Diff(stepViolations, lean.Violations); diff != "" {
		t.Fatalf("%s on %s: a summary-only run's violations differ (-steps +summary only):\n%s", p.Name(), tr.ID, diff)
	}
	countedMatchesListed(t, tr, p, opt, inc, stepViolations)
	stride := max(1, len(inc.Steps)/40)
	for k := 0; k < len(inc.Steps); k += stride {
		st := &inc.Steps[k]
		if want := setRetention(tr, opt.arts, st.next, st.sent); st.Retention != want {
			t.Fatalf("%s on %s step %d: retention %v, the sets give %v", p.Name(), tr.ID, k, st.Retention, want)
		}
	}
	for k := 1; k < len(inc.Steps); k++ {
		if len(inc.Steps[k].Context) == len(inc.Steps[k-1].Context)+1+len(inc.Steps[k].Appended) && len(inc.Steps[k].Evicted) == 0 {
			unchanged++
		}
		violations += len(inc.Steps[k].Violations)
	}
	return unchanged, violations
}

// countedMatchesListed: a run that counts its violations (a sweep's)
// summarizes as inc does, lists none, and gives Observe each step's
// violations by step and invariant: listed's.
func countedMatchesListed(t *testing.T, tr *transcript.Transcript, p window.Policy, opt Options, inc *Run, listed []Violation) {
	t.Helper()
	opt.countViolations = true
	var countedAt []string
	opt.Observe = func(_ int, st *Step) error {
		for _, v := range st.Violations {
			if v.Detail != "" || v.IDs != nil {
				return fmt.Errorf("step %d: a counted violation with details: %+v", st.Step, v)
			}
			countedAt = append(countedAt, fmt.Sprintf("%d %s", v.Step, v.Invariant))
		}
		return nil
	}
	counted, err := Replay(context.Background(), tr, p, opt)
	if err != nil {
		t.Fatal(err)
	}
	var wantAt []string
	for _, v := range listed {
		wantAt = append(wantAt, fmt.Sprintf("%d %s", v.Step, v.Invariant))
	}
	if diff := cmp.Diff(inc.Summary, counted.Summary); diff != "" || counted.Violations != nil {
		t.Fatalf("%s on %s: a run that counts violations (%d listed) summarizes differently (-listed +counted):\n%s", p.Name(), tr.ID, len(counted.Violations), diff)
	}
	if diff := cmp.Diff(wantAt, countedAt); diff != "" {
		t.Fatalf("%s on %s: counted violations differ (-listed +counted):\n%s", p.Name(), tr.ID, diff)
	}
}

// refViolations checks the steps of run with the reference checks,
// rebuilding each step's history as the engine does: the previous
// context, the call's assistant message, the turn.
func refViolations(tr *transcript.Transcript, p window.Policy, run *Run, e estimate.Estimator, counts *countcache.Cache) []Violation {
	ref := newRefChecker(tr, p)
	cnt := newCounter(counts, tr)
	var out []Violation
	var prev []window.Item
	var fired *window.Firing // the previous step's
	next := 0
	for k := range run.Steps {
		st := run.Steps[k]
		before := append([]window.Item(nil), prev...)
		if k > 0 {
			before = append(before, window.Original(tr, next-1))
		}
		for j := next; j < st.next; j++ {
			before = append(before, window.Original(tr, j))
		}
		out = append(out, ref.check(&st, before, e, cnt)...)
		// Headroom: a firing that leaves the count at its trigger or
		// above, and a firing right after another.
		if f := st.Fired; f != nil {
			if f.After >= f.Trigger {
				out = append(out, Violation{Step: st.Step, Invariant: invHeadroom, Detail: fmt.Sprintf("the %s left %d %s by the policy's own count, still at or above its trigger of %d: it bought no headroom", f.What, f.After, f.Unit, f.Trigger)})
			}
			if fired != nil {
				out = append(out, Violation{Step: st.Step, Invariant: invHeadroom, Detail: fmt.Sprintf("the %s fired again at the next call (%d %s by the policy's own count against its trigger of %d; %d after the previous one)", f.What, f.Before, f.Unit, f.Trigger, fired.After)})
			}
		}
		fired = st.Fired
		prev, next = st.sent, st.next+1
	}
	return out
}

// setRetention computes a step's retention from sets: the artifacts of the
// messages before next, those the context's originals and truncated
// copies hold, and those the text of its synthetic items contains.
func setRetention(tr *transcript.Transcript, arts *artifactCache, next int, sent []window.Item) float64 {
	seen := map[int32]bool{}
	for i := range next {
		for _, id := range arts.artifacts(&tr.Messages[i], true) {
			seen[id] = true
		}
	}
	if len(seen) == 0 {
		return 1
	}
	held := map[int32]bool{}
	var texts []string
	for _, it := range sent {
		i := it.Index()
		if i < 0 {
			texts = append(texts, it.Msg.Text())
			continue
		}
		for _, id := range arts.artifacts(it.Msg, !it.Truncated && it.Msg == &tr.Messages[i]) {
			held[id] = true
		}
	}
	summary := strings.Join(texts, "\n")
	artTexts, _ := arts.textsNow()
	n := 0
	for id := range seen {
		if held[id] || (len(texts) > 0 && strings.Contains(summary, artTexts[id])) {
			n++
		}
	}
	return float64(n) / float64(len(seen))
}

// TestStepContextsDoNotAlias: steps share the array of their context ids,
// and appending to one step's context never changes another's.
func TestStepContextsDoNotAlias(t *testing.T) {
	run, err := Replay(context.Background(), generated(t, 50), must(t, "none"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint(run.Steps[20].Context)
	_ = append(run.Steps[19].Context, "x")
	if got := fmt.Sprint(run.Steps[20].Context); got != want {
		t.Errorf("appending to step 19's context changed step 20's:\n%s\n%s", want, got)
	}
}
