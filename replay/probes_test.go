package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/replay/probe"
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
	var rule *JudgedProbe
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
			p := must(t, spec)
			lost := make([]bool, len(tr.Messages))
			var before map[int]bool
			prevNext := 0
			var want probe.Score
			lostIDs := map[string]bool{}
			wantLost := map[probe.Kind]int{}
			opt := Options{Summarizer: &summarize.Mock{Tokens: 40}, NoSteps: true}
			opt.Observe = func(_ int, s *Step) error {
				now := map[int]bool{}
				msgs := make([]*transcript.Message, len(s.sent))
				for k, it := range s.sent {
					msgs[k] = it.Msg
					if i := it.Index(); i >= 0 && !it.Truncated {
						now[i] = true
					}
				}
				var dropped []int
				for i := range tr.Messages[:s.next] {
					if (before[i] || i >= prevNext) && !now[i] && !lost[i] {
						lost[i] = true
						dropped = append(dropped, i)
					}
				}
				before, prevNext = now, s.next
				if !slices.Equal(dropped, s.probes.dropped) {
					return fmt.Errorf("call %d: lost %v, the engine %v", s.Step, dropped, s.probes.dropped)
				}
				if len(dropped) == 0 {
					return nil
				}
				c := probe.NewContext(msgs)
				probes := probe.Of(tr, dropped, s.next)
				if diff := cmp.Diff(probes, s.probes.probes); diff != "" {
					return fmt.Errorf("call %d: probes (-whole +engine):\n%s", s.Step, diff)
				}
				kept := 0
				for k, pr := range probes {
					if c.Keeps(pr) != s.probes.kept[k] {
						return fmt.Errorf("call %d: %s probe %q: whole context keeps %v, the engine %v", s.Step, pr.Kind, pr.Keys, c.Keeps(pr), s.probes.kept[k])
					}
					want.Add(pr, c.Keeps(pr))
					if c.Keeps(pr) {
						kept++
					} else if !lostIDs[pr.Identity()] {
						lostIDs[pr.Identity()] = true
						wantLost[pr.Kind]++
					}
				}
				if s.ProbesAsked != len(probes) || s.ProbesKept != kept {
					return fmt.Errorf("call %d: step counts %d/%d, want %d/%d", s.Step, s.ProbesKept, s.ProbesAsked, kept, len(probes))
				}
				asked += len(probes)
				return nil
			}
			run, err := Replay(context.Background(), tr, p, opt)
			if err != nil {
				t.Fatalf("%s %s: %v", tr.ID, spec, err)
			}
			loss := run.Summary.ProbeLoss
			for _, k := range probe.Kinds() {
				if run.Summary.Probes.Kept[k] != want.Kept[k] || run.Summary.Probes.Total[k] != want.Total[k] {
					t.Errorf("%s %s: %s %d/%d, want %d/%d", tr.ID, spec, k, run.Summary.Probes.Kept[k], run.Summary.Probes.Total[k], want.Kept[k], want.Total[k])
				}
				// A probe lost is one of the session's: the score is a
				// share.
				if loss.Lost[k] != wantLost[k] || loss.Lost[k] > loss.Of[k] {
					t.Errorf("%s %s: %s lost %d of %d, want %d lost", tr.ID, spec, k, loss.Lost[k], loss.Of[k], wantLost[k])
				}
			}
			if lost, _ := loss.Totals(); lost == 0 && run.Summary.ProbeScore != 1 || run.Summary.ProbeScore < 0 {
				t.Errorf("%s %s: lost %d, score %v", tr.ID, spec, lost, run.Summary.ProbeScore)
			}
		}
	}
	if asked == 0 {
		t.Fatal("no probe asked: the comparison proves nothing")
	}
	t.Logf("%d probes over %d transcripts and %d policies", asked, len(trs), len(specs))
}
