package transcript

import (
	"slices"
	"testing"

	"github.com/ctxbench/ctxbench/transcript/internal/claudecode"
)

// TestSyntheticLinesAreNoCalls: Claude Code's "<synthetic>" assistant
// lines (an API error's "Credit balance is too low", an interruption's
// "No response requested.", usage all zero, written after hours idle)
// are counted apart by name, neither calls, messages nor a model.
func TestSyntheticLinesAreNoCalls(t *testing.T) {
	for _, measure := range []bool{false, true} {
		ts, err := ReadFile("testdata/claude-code-synthetic.jsonl", Options{Measure: measure})
		if err != nil {
			t.Fatal(err)
		}
		tr := ts[0]
		st := tr.Summary()
		if st.Calls != 3 || tr.Skipped["assistant/"+claudecode.SyntheticModel] != 2 || slices.Contains(tr.Models, claudecode.SyntheticModel) {
			t.Errorf("measure %v: %d calls, skipped %v, models %v; want 3 calls, 2 synthetic lines skipped, no %s model",
				measure, st.Calls, tr.Skipped, tr.Models, claudecode.SyntheticModel)
		}
		for _, m := range tr.Messages {
			if m.Model == claudecode.SyntheticModel || m.Text() == "Credit balance is too low" {
				t.Errorf("measure %v: line %d, a synthetic line, read as a message", measure, m.Pos.Line)
			}
		}
	}
}

// TestBlockLinesAreOneCall: a message dump that writes each content
// block of a response as a line of its own (the first with no content)
// reads each response as one message, one call; lines of one response
// are written within a second, and lines further apart are two calls.
func TestBlockLinesAreOneCall(t *testing.T) {
	ts, err := ReadFile("testdata/anthropic-block-lines.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := ts[0]
	var calls [][]BlockType
	for _, m := range tr.Messages {
		if m.Role != RoleAssistant {
			continue
		}
		var types []BlockType
		for _, b := range m.Blocks {
			types = append(types, b.Type)
		}
		calls = append(calls, types)
	}
	want := [][]BlockType{{BlockText, BlockToolUse}, {BlockThinking, BlockText}, {BlockToolUse}, {BlockText}, {BlockText}}
	if d := quickDiff(want, calls); d != "" || tr.Calls != len(want) {
		t.Errorf("%d calls, want %d; blocks per call (-want +got):\n%s", tr.Calls, len(want), d)
	}
}
