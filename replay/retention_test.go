package replay

import (
	"context"
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

func TestRetention(t *testing.T) {
	// none keeps everything: retention 1 at every call.
	tr := generated(t, 60)
	run, err := Replay(context.Background(), tr, must(t, "none"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if run.Summary.MinRetention != 1 {
		t.Errorf("none: min retention %v, want 1", run.Summary.MinRetention)
	}
	// A tight window loses artifacts.
	tight, _ := Replay(context.Background(), tr, must(t, "aidf:max_messages=10,preserve_last_n=4"), Options{})
	if r := tight.Summary.MeanRetention; r >= 0.9 || r <= 0 {
		t.Errorf("aidf 10: mean retention %.3f, want well below 1", r)
	}
	// By hand: two messages with one artifact each, the first evicted,
	// then summarized with its path in the text.
	tr2 := &transcript.Transcript{Messages: []transcript.Message{
		{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "look at /repo/a.go"}}},
		{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "and /repo/b.go"}}},
	}}
	r := newRetention(tr2, nil)
	b := window.Original(tr2, 1)
	if got := r.step(2, nil, []window.Item{b}, []window.Item{b}); got != 0.5 {
		t.Errorf("one of two artifacts sent: retention %v", got)
	}
	s := window.Item{ID: "s1", Summary: true, Msg: &transcript.Message{Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "Read /repo/a.go."}}}}
	if got := r.step(2, []window.Item{b}, []window.Item{s, b}, []window.Item{s, b}); got != 1 {
		t.Errorf("the summary names the evicted path: retention %v, want 1", got)
	}
	if got := r.step(2, []window.Item{s, b}, nil, nil); got != 0 {
		t.Errorf("nothing sent: retention %v, want 0", got)
	}
}
