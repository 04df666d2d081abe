package opencode

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// opencode's npm package is a compiled binary: these table tests hold the
// opencode policy to the code of opencode 1.18.33, quoted as it reads in
// that binary (minified: the names are the bundler's).

// TestOpencodePruneRules: SessionCompaction.prune —
//
//	for(let F=z.parts.length-1;F>=0;F--){let $=z.parts[F];if($.type!=="tool")continue;
//	if($.state.status!=="completed")continue;if(Id.includes($.tool))continue;   // Id=["skill"]
//	if($.state.time.compacted)break e;let ne=Dl.estimate($.state.output);
//	if(V+=ne,V<=Na)continue;K+=ne,x.push($)}                                      // Na=40000
//	if(K>Fa){ … compacted … }                                                     // Fa=20000
func TestOpencodePruneRules(t *testing.T) {
	out := func(n int) string { return strings.Repeat("o", 4*n) } // n tokens
	errored := policytest.Result("e", out(30))
	errored.Blocks[0].IsError = true
	several := transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{
		{Type: transcript.BlockToolResult, ID: "p", Text: out(10)},
		{Type: transcript.BlockToolResult, ID: "q", Text: out(10)},
	}}
	tr := policytest.Msgs(
		policytest.User("start"),
		policytest.CallTool("a"), policytest.Result("a", out(50)), // 1, 2
		policytest.CallNamed("k", "skill"), policytest.Result("k", out(90)), // 3, 4: the skill tool's, never
		policytest.CallTool("e"), errored, // 5, 6: errored, neither counted nor cleared
		policytest.CallTool("p"), several, // 7, 8: walked newest part first
		policytest.User("turn 2"), policytest.Asst("ok"), policytest.User("turn 3"))
	p := &opencodePolicy{protect: 15, minimum: 20, protectTurns: 2}
	got, cut := p.pruneOutputs(&policy.Env{Transcript: tr}, policytest.Items(tr, len(tr.Messages)))
	// Newest first: q (10, protected), p (10: 20 > 15, cleared), a (50,
	// cleared): 60 > 20 cleared.
	if diff := cmp.Diff([]string{"m8", "m2"}, cut); diff != "" {
		t.Errorf("cleared (-want +got):\n%s", diff)
	}
	want := map[[2]int]bool{{2, 0}: true, {8, 0}: true} // message, block cleared
	for i, it := range got {
		for j, b := range it.Msg.Blocks {
			if b.Type == transcript.BlockToolResult && (b.Text == opencodeCleared) != want[[2]int{i, j}] {
				t.Errorf("m%d block %d: %.30q", i, j, b.Text)
			}
		}
	}
	// An output cleared before stops the walk: nothing older is counted.
	again, cut := p.pruneOutputs(&policy.Env{Transcript: tr}, append(got[:len(got):len(got)], policy.Original(tr, 9)))
	if len(cut) != 0 || again[2].Msg.Blocks[0].Text != opencodeCleared {
		t.Errorf("pruned again: %v", cut)
	}
}

// TestOpencodePruneTiming: prune runs when the prompt loop ends, before
// the next user turn —
//
//	return yield*r.prune({sessionID:t}).pipe(n.ignore,n.forkIn(V)),yield*ye(t)
//
// and only with compaction.prune set (if(!(yield*e.get()).compaction?.prune)return).
func TestOpencodePruneTiming(t *testing.T) {
	big := strings.Repeat("y", 120_000)                                                                                                                                                  // 30,000 tokens
	tr := policytest.Msgs(policytest.User("first"), policytest.CallTool("a"), policytest.Result("a", big), policytest.CallTool("b"), policytest.Result("b", big), policytest.Asst("ok"), // m0–m5
		policytest.User("go"), policytest.CallTool("c"), policytest.Result("c", big), policytest.Asst("done"), // m6–m9
		policytest.User("next"), policytest.CallTool("d"), policytest.Result("d", "ok")) // m10–m12
	apply := func(spec string, n, turn int) policy.Step {
		t.Helper()
		step, err := mustPolicy(t, spec).Apply(context.Background(), &policy.Env{Transcript: tr, Summarizer: &policytest.Recorder{}, Turn: turn}, &policy.State{}, policytest.Items(tr, n))
		if err != nil {
			t.Fatal(err)
		}
		return step
	}
	// The last turn is protected (protect_turns=1); of the turn before, b
	// is within PRUNE_PROTECT and a is cleared.
	spec := "opencode:prune=true,protect_turns=1,context_limit=10000000"
	if s := apply(spec, 13, 1); len(s.Truncated) != 0 {
		t.Errorf("pruned mid-turn: %v", s.Truncated)
	}
	if s := apply(spec, 11, 1); !cmp.Equal(s.Truncated, []string{"m2"}) {
		t.Errorf("at a new user turn, pruned %v; want m2", s.Truncated)
	}
	if s := apply("opencode:context_limit=10000000", 11, 1); len(s.Truncated) != 0 {
		t.Errorf("pruned without compaction.prune: %v", s.Truncated)
	}
}

// TestOpencodeCompaction: overflow against the usable window —
//
//	return e.model.limit.input?Math.max(0,e.model.limit.input-l):Math.max(0,o-ue.maxOutputTokens(e.model,e.outputTokenMax))
//
// the tail select keeps (preserve_recent_tokens =
// Math.min(Dd,Math.max(vd,Math.floor(vn(e)*0.25))), Dd=15000, vd=2000) —
//
//	for(let q=K.length-1;q>=0;q--){ … if(x+F<=a){x+=F,m={start:z.start,id:z.id};continue}
//	let $=a-x,ne=yield*ny({…budget:$…});if(ne)m=ne; … break}
//	if(!m||m.start===0)return{head:w.messages,tail_start_id:void 0}
//
// and the history filterCompacted sends:
//
//	return[...$.slice(W,J+1),...$.slice(V,W),...$.slice(J+1)]   // request, summary; tail; continue
func TestOpencodeCompaction(t *testing.T) {
	text := func(n int) string { return strings.Repeat("t", 4*n) } // about n chars4 tokens
	tr := policytest.Msgs(
		policytest.User("turn 1 "+text(4000)), policytest.CallTool("a"), policytest.Result("a", text(8000)), policytest.Asst(text(100)), // m0–m3: ~12,100
		policytest.User("turn 2 "+text(500)), policytest.CallTool("b"), policytest.Result("b", text(1500)), // m4–m6
		policytest.CallTool("c"), policytest.Result("c", text(300)), policytest.Asst(text(200))) // m7–m9: turn 2 ~2,510
	apply := func(spec string) policy.Step {
		t.Helper()
		step, err := mustPolicy(t, spec).Apply(context.Background(), &policy.Env{Transcript: tr, Summarizer: &policytest.Recorder{}}, &policy.State{}, policytest.Items(tr, len(tr.Messages)))
		if err != nil {
			t.Fatal(err)
		}
		return step
	}
	// usable = 18,000 − 2,000 = 16,000 over a ~14,600-token history: no
	// compaction (a reserve of 2,000 more would have compacted).
	if s := apply("opencode:context_limit=18000,max_output=2000"); s.Summary != nil {
		t.Error("compacted below the usable window (context − max output, no reserve)")
	}
	// usable 12,000, budget 3,000: turn 2 fits whole; of turn 1, what is
	// left fits from its last assistant message, m3.
	s := apply("opencode:context_limit=14000,max_output=2000")
	if diff := cmp.Diff([]string{"s1", "s2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "s3"}, policy.ItemIDs(s.History)); diff != "" {
		t.Errorf("tail of whole turns (-want +got):\n%s", diff)
	}
	if s.History[0].Msg.Text() != opencodeCompaction || !s.History[1].Summary || s.History[len(s.History)-1].Msg.Text() != opencodeContinue {
		t.Errorf("placement: %q … %q", s.History[0].Msg.Text(), s.History[len(s.History)-1].Msg.Text())
	}
	// usable 5,000, budget 2,000: turn 2 does not fit whole; it is kept
	// from its first assistant message whose rest fits — m7, never the
	// tool result m6 or m8.
	s = apply("opencode:context_limit=7000,max_output=2000")
	if diff := cmp.Diff([]string{"s1", "s2", "m7", "m8", "m9", "s3"}, policy.ItemIDs(s.History)); diff != "" {
		t.Errorf("tail within a turn (-want +got):\n%s", diff)
	}
}
