package replay

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ctxbench/ctxbench/replay/probe"
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
