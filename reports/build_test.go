package reports

import (
	"context"
	"runtime"
	"testing"
	"weak"

	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// TestBuilderLetsGo: a report keeps what it draws of each transcript,
// not the transcript: once Finish has the sweep, none of the transcripts
// added is held (the report held them all for its final sweep, and its
// shared caches held them too).
func TestBuilderLetsGo(t *testing.T) {
	ps, err := window.ParseLabeled([]string{"none", "aidf:max_messages=10"})
	if err != nil {
		t.Fatal(err)
	}
	b := &Builder{Policies: ps, Sweep: &SweepSpec{Policy: "aidf", Grid: []replay.GridKey{
		{Key: "max_messages", Values: []string{"4", "8"}}, {Key: "preserve_last_n", Values: []string{"2", "3"}}}}}
	var gone []weak.Pointer[transcript.Transcript]
	for seed := range 3 {
		o := fixtures.DefaultGenOptions
		o.Calls, o.Seed = 40, uint64(seed+1)
		tr, err := fixtures.GenerateTranscript(o)
		if err != nil {
			t.Fatal(err)
		}
		gone = append(gone, weak.Make(tr))
		if err := b.Add(context.Background(), tr, b.Prepare(tr)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := b.Finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Sweep == nil || len(r.Sweep.Points) != 4 || r.Sweep.Points[0].Transcripts != 3 {
		t.Fatalf("sweep %+v, want 4 points over 3 transcripts", r.Sweep)
	}
	runtime.GC()
	for i, w := range gone {
		if w.Value() != nil {
			t.Errorf("transcript %d still held by the report", i)
		}
	}
	runtime.KeepAlive(b)
}
