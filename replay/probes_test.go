package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// TestProbes: under a window of four messages, the user's first message
// is lost at the third call, whose probes ask about it and its rule,
// and the context then sent cannot answer them; the path the window
// still holds keeps the artifact probe of a later loss.
func TestProbes(t *testing.T) {
	text := func(s string) transcript.Block { return transcript.Block{Type: transcript.BlockText, Text: s} }
	use := func(id, name, in string) transcript.Block {
		return transcript.Block{Type: transcript.BlockToolUse, ID: id, Name: name, Input: json.RawMessage(in)}
	}
	res := func(id, s string) transcript.Block {
		return transcript.Block{Type: transcript.BlockToolResult, ID: id, Text: s}
	}
	m := func(r transcript.Role, bs ...transcript.Block) transcript.Message {
		return transcript.Message{Role: r, Blocks: bs}
	}
	tr := &transcript.Transcript{ID: "p", Messages: []transcript.Message{
		m(transcript.RoleUser, text("Fix parse.go. Never touch the vendor folder.")),
		m(transcript.RoleAssistant, use("a", "Read", `{"file_path":"parse.go"}`)),
		m(transcript.RoleTool, res("a", "package parse")),
		m(transcript.RoleAssistant, use("b", "Edit", `{"file_path":"parse.go"}`)),
		m(transcript.RoleTool, res("b", "ok")),
		m(transcript.RoleAssistant, text("Edited parse.go.")),
		m(transcript.RoleUser, text("Thanks.")),
		m(transcript.RoleAssistant, text("Done.")),
	}}
	ps, err := window.ParseLabeled([]string{"aidf:max_messages=4,preserve_first_n=0,preserve_last_n=4"})
	if err != nil {
		t.Fatal(err)
	}
	calls, score, err := Probes(context.Background(), tr, ps[0].Policy, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) == 0 || calls[0].Dropped[0] != 0 {
		t.Fatalf("calls %+v", calls)
	}
	var rule *judgedProbe
	for i := range calls[0].Probes {
		if p := &calls[0].Probes[i]; p.Kind == probe.Decision {
			rule = p
		}
	}
	if rule == nil || rule.Answer != "Never touch the vendor folder." || rule.Kept {
		t.Errorf("the user's rule: %+v", rule)
	}
	total, pathKept := 0, false
	for _, c := range calls {
		total += len(c.Probes)
		for _, p := range c.Probes {
			pathKept = pathKept || p.Kind == probe.Artifact && p.Keys[0] == "parse.go" && p.Kept
		}
	}
	if !pathKept {
		t.Errorf("no artifact probe about parse.go kept: %+v", calls)
	}
	if _, n := score.Exact.Totals(); n != total || n == 0 || score.LLM != nil {
		t.Errorf("score counts %d probes, the calls hold %d", n, total)
	}
	// Nothing is lost when the policy sends everything.
	none, _ := window.ParseLabeled([]string{"none"})
	if calls, _, _ := Probes(context.Background(), tr, none[0].Policy, Options{}, nil); len(calls) != 0 {
		t.Errorf("none lost %+v", calls)
	}
}

// TestProbeScoreAgainstWholeContext holds the engine's probe score, found
// from what left and came into the context and searched message by
// message behind gram sets, to its definition, computed whole at every
// call: a message is lost at the first call that does not send it
// verbatim (it was sent at the call before, or came since), and a probe
// about it is kept when [probe.NewContext] of everything the call sent
// keeps it. Every policy, on a generated session and the corpus.
func TestProbeScoreAgainstWholeContext(t *testing.T) {
	trs := []*transcript.Transcript{generated(t, 120)}
	if !testing.Short() {
		trs = append(trs, corpus(t)...)
	}
	asked := 0
	for _, tr := range trs {
		for _, spec := range specs {
			w := &wholeProbes{tr: tr, lost: make([]bool, len(tr.Messages)), lostIDs: map[string]bool{}, wantLost: map[probe.Kind]int{}}
			opt := Options{Summarizer: &summarize.Mock{Tokens: 40}, NoSteps: true, Observe: func(_ int, s *Step) error { return w.observe(s) }}
			run, err := Replay(context.Background(), tr, must(t, spec), opt)
			if err != nil {
				t.Fatalf("%s %s: %v", tr.ID, spec, err)
			}
			w.check(t, spec, &run.Summary)
			asked += w.asked
		}
	}
	if asked == 0 {
		t.Fatal("no probe asked: the comparison proves nothing")
	}
	t.Logf("%d probes over %d transcripts and %d policies", asked, len(trs), len(specs))
}

// wholeProbes computes a run's probes whole at every call, and holds the
// engine's steps to them.
type wholeProbes struct {
	tr       *transcript.Transcript
	lost     []bool       // the messages lost so far
	before   map[int]bool // the messages the previous call sent verbatim
	prevNext int
	want     probe.Score
	lostIDs  map[string]bool
	wantLost map[probe.Kind]int
	asked    int
}

// dropped returns the messages first lost at the call s: sent verbatim
// at the call before, or come since, and not sent verbatim now.
func (w *wholeProbes) dropped(s *Step) []int {
	now := map[int]bool{}
	for _, it := range s.sent {
		if i := it.Index(); i >= 0 && !it.Truncated {
			now[i] = true
		}
	}
	var dropped []int
	for i := range w.tr.Messages[:s.next] {
		if (w.before[i] || i >= w.prevNext) && !now[i] && !w.lost[i] {
			w.lost[i] = true
			dropped = append(dropped, i)
		}
	}
	w.before, w.prevNext = now, s.next
	return dropped
}

// observe holds the step s to the probes computed whole.
func (w *wholeProbes) observe(s *Step) error {
	dropped := w.dropped(s)
	if !slices.Equal(dropped, s.probes.dropped) {
		return fmt.Errorf("call %d: lost %v, the engine %v", s.Step, dropped, s.probes.dropped)
	}
	if len(dropped) == 0 {
		return nil
	}
	msgs := make([]*transcript.Message, len(s.sent))
	for k, it := range s.sent {
		msgs[k] = it.Msg
	}
	c := probe.NewContext(msgs)
	probes := probe.Of(w.tr, dropped, s.next)
	if diff := cmp.Diff(probes, s.probes.probes); diff != "" {
		return fmt.Errorf("call %d: probes (-whole +engine):\n%s", s.Step, diff)
	}
	kept := 0
	for k, pr := range probes {
		keeps := c.Keeps(pr)
		if keeps != s.probes.kept[k] {
			return fmt.Errorf("call %d: %s probe %q: whole context keeps %v, the engine %v", s.Step, pr.Kind, pr.Keys, keeps, s.probes.kept[k])
		}
		w.want.Add(pr, keeps)
		if keeps {
			kept++
		} else if !w.lostIDs[pr.Identity()] {
			w.lostIDs[pr.Identity()] = true
			w.wantLost[pr.Kind]++
		}
	}
	if s.ProbesAsked != len(probes) || s.ProbesKept != kept {
		return fmt.Errorf("call %d: step counts %d/%d, want %d/%d", s.Step, s.ProbesKept, s.ProbesAsked, kept, len(probes))
	}
	w.asked += len(probes)
	return nil
}

// check holds the run's summary to the probes computed whole.
func (w *wholeProbes) check(t *testing.T, spec string, sum *Summary) {
	t.Helper()
	loss := sum.ProbeLoss
	for _, k := range probe.Kinds() {
		if sum.Probes.Kept[k] != w.want.Kept[k] || sum.Probes.Total[k] != w.want.Total[k] {
			t.Errorf("%s %s: %s %d/%d, want %d/%d", w.tr.ID, spec, k, sum.Probes.Kept[k], sum.Probes.Total[k], w.want.Kept[k], w.want.Total[k])
		}
		// A probe lost is one of the session's: the score is a share.
		if loss.Lost[k] != w.wantLost[k] || loss.Lost[k] > loss.Of[k] {
			t.Errorf("%s %s: %s lost %d of %d, want %d lost", w.tr.ID, spec, k, loss.Lost[k], loss.Of[k], w.wantLost[k])
		}
	}
	if lost, _ := loss.Totals(); lost == 0 && sum.ProbeScore != 1 || sum.ProbeScore < 0 {
		t.Errorf("%s %s: lost %d, score %v", w.tr.ID, spec, lost, sum.ProbeScore)
	}
}

// TestNoneKeepsEveryProbeOverARollback: the turns a user undid leave
// every policy's context (a Codex rollback), so the policy that sends
// everything loses no probe over them, nor does recorded: before, none
// scored 67% (2 of 6 lost) on this rollout.
func TestNoneKeepsEveryProbeOverARollback(t *testing.T) {
	ts, err := transcript.ReadFile("../transcript/testdata/codex-rollback.jsonl", transcript.Options{})
	if err != nil || len(ts) != 1 || len(ts[0].Rollbacks) == 0 {
		t.Fatalf("%v, %d transcripts", err, len(ts))
	}
	for _, name := range []string{window.None, window.Recorded} {
		p, err := window.Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		calls, score, err := Probes(context.Background(), ts[0], p, Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if lost, of := score.Loss.Totals(); score.Score != 1 || lost > 0 || of == 0 || len(calls) != 0 {
			t.Errorf("%s: score %v, %d calls asked, loss %+v", name, score.Score, len(calls), score.Loss)
		}
	}
}
