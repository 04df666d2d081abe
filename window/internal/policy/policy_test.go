package policy

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/transcript"
)

// TestHistoryTokens: the State's running count equals a fresh count of
// every history, whether the next history extends the previous one (sent
// as given, as the engine notes it, or not), drops or
// replaces items in it, shrinks, or is counted with another estimator.
func TestHistoryTokens(t *testing.T) {
	tr := &transcript.Transcript{}
	for i := range 60 {
		tr.Messages = append(tr.Messages, transcript.Message{Role: transcript.RoleUser,
			Blocks: []transcript.Block{{Type: transcript.BlockText, Text: strings.Repeat("word ", i+1)}}})
	}
	var all []Item
	for i := range tr.Messages {
		all = append(all, Original(tr, i))
	}
	cl := estimate.MustNew("cl100k_base", estimate.OverheadNone)
	c4 := estimate.MustNew("chars4", estimate.OverheadNone)
	rng := rand.New(rand.NewPCG(3, 4))
	st := &State{}
	hist := all[:5]
	for step := range 400 {
		e := cl
		if step%50 == 49 {
			e = c4
		}
		st.given(hist)
		if got, want := st.HistoryTokens(nil, e, hist), Tokens(nil, e, hist); got != want {
			t.Fatalf("step %d (%d items): running count %d, fresh count %d", step, len(hist), got, want)
		}
		next := append([]Item(nil), hist...)
		switch rng.IntN(5) {
		case 0: // the turn appended
			next = append(next, all[rng.IntN(len(all))])
		case 4: // sent as given, as the engine reports it, then extended
			st.returned(hist)
			next = append(hist, all[rng.IntN(len(all))])
		case 1: // an item replaced by a copy, as truncation does
			if len(next) > 0 {
				k := rng.IntN(len(next))
				c := *all[rng.IntN(len(all))].Msg // other content, as a truncation has
				next[k] = Item{ID: next[k].ID, Msg: &c, Truncated: true}
			}
		case 2: // evicted from the front
			next = next[min(len(next), rng.IntN(3)):]
		case 3: // the same slice, extended in place
			next = append(hist, all[rng.IntN(len(all))])
		}
		hist = next
	}
}

// TestToolNamesKeepNoTranscript: the tool names ToolNames keeps
// for the last transcripts replayed do not keep those transcripts alive
// (eight whole sessions were most of the memory of a replay of many).
func TestToolNamesKeepNoTranscript(t *testing.T) {
	tr := &transcript.Transcript{Messages: []transcript.Message{
		{Role: transcript.RoleAssistant, Blocks: []transcript.Block{{Type: transcript.BlockToolUse, ID: "call-1", Name: "Bash"}}}}}
	w := weak.Make(tr)
	if got := ToolNames(tr)["call-1"]; got != "Bash" {
		t.Fatalf("ToolNames gave %q", got)
	}
	tr = nil
	runtime.GC()
	if w.Value() != nil {
		t.Error("the transcript is still alive after its replay: the names cache holds it")
	}
}
