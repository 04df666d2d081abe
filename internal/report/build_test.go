package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"weak"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/batch"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/internal/suitecheck"
	"github.com/ctxbench/ctxbench/pricing"
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
	b := &Builder{Policies: ps}
	p := batch.New(batch.Spec{Policies: ps, Runs: b.AddRuns, Sweep: &suitecheck.SweepSpec{Policy: "aidf", Grid: []replay.GridKey{
		{Key: "max_messages", Values: []string{"4", "8"}}, {Key: "preserve_last_n", Values: []string{"2", "3"}}}}})
	var gone []weak.Pointer[transcript.Transcript]
	for seed := range 3 {
		o := fixtures.DefaultGenOptions
		o.Calls, o.Seed = 40, uint64(seed+1)
		tr, err := conformance.Generated(o)
		if err != nil {
			t.Fatal(err)
		}
		gone = append(gone, weak.Make(tr))
		if err := p.Add(context.Background(), tr, p.Prepare(tr)); err != nil {
			t.Fatal(err)
		}
	}
	sweep, err := p.Finish()
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Finish(sweep)
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
	runtime.KeepAlive(p)
}

// TestBuilderKeepsMessageCounts: of a transcript's estimator counts the
// report keeps what the estimator plots read, each message's exact,
// chars4 and gemini counts, and lets the rest go.
func TestBuilderKeepsMessageCounts(t *testing.T) {
	ps, err := window.ParseLabeled([]string{"none"})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := conformance.Generated(fixtures.GenOptions{Calls: 20, Seed: 3, ToolRatio: 0.7, NonASCII: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"gemini", "o200k_base", "chars4", "cl100k_base"}
	var ests []estimate.Estimator
	for _, n := range names {
		ests = append(ests, estimate.MustNew(n, estimate.OverheadNone))
	}
	b := &Builder{Policies: ps, CountedWith: names}
	p := batch.New(batch.Spec{Policies: ps, Estimators: ests, Runs: b.AddRuns})
	whole := analyzed(tr, ests)
	if err := p.Add(context.Background(), tr, batch.Prepared{}); err != nil {
		t.Fatal(err)
	}
	r, err := b.Finish(nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for _, m := range whole.Messages {
		want = append(want, m.Counts[3], m.Counts[2], m.Counts[0])
	}
	if got := r.counts.rows; !slices.Equal(got, want) || r.counts.added != 1 {
		t.Errorf("kept %v of %d transcripts, want %v", got, r.counts.added, want)
	}
}

// TestSpooledTranscriptsWriteTheSame: a report whose transcripts the
// builder spooled writes every file byte for byte as one that kept them
// in memory, on corpus sessions priced and not, with cache misses and
// breaks, times and notes; and keeps of each in memory only its name,
// its parent session's, format and calls.
func TestSpooledTranscriptsWriteTheSame(t *testing.T) {
	ts, err := conformance.Corpus("../../fixtures/corpus")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := window.ParseLabeled([]string{"none", "aidf:max_messages=10", "prune"})
	if err != nil {
		t.Fatal(err)
	}
	write := func(spool bool) string {
		r := built(t, &Builder{Policies: ps, SpoolTranscripts: spool}, cost.Options{Prices: pricing.Default()}, ts)
		for _, tr := range r.Transcripts {
			if head := (TranscriptResult{File: tr.File, ID: tr.ID, Parent: tr.Parent, Format: tr.Format, Calls: tr.Calls}); spool && !cmp.Equal(tr, head) {
				t.Fatalf("%s: kept in memory: %s", tr.File, cmp.Diff(head, tr))
			}
		}
		dir := filepath.Join(t.TempDir(), "report")
		if _, err := WriteReport(dir, r); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	kept, spooled := write(false), write(true)
	files, err := os.ReadDir(kept)
	if err != nil {
		t.Fatal(err)
	}
	series := 0
	for _, f := range files {
		a, err := os.ReadFile(filepath.Join(kept, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(spooled, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs", f.Name())
		}
		if strings.HasPrefix(f.Name(), "growth-") || strings.HasPrefix(f.Name(), "cost-") || strings.HasPrefix(f.Name(), "cache-") {
			series++
		}
	}
	if len(files) < 20 || series < 10 {
		t.Errorf("%d files, %d of series", len(files), series)
	}
}

// built is the report b makes of ts, priced with copt by a pipeline of
// b's policies, closed when the test ends.
func built(t *testing.T, b *Builder, copt cost.Options, ts []*transcript.Transcript) *Report {
	t.Helper()
	return finished(t, b, batch.New(batch.Spec{Policies: b.Policies, Cost: copt, Runs: b.AddRuns}), ts)
}

// finished is the report b makes of ts, given it by p, with p's sweep;
// closed when the test ends.
func finished(t testing.TB, b *Builder, p *batch.Pipeline, ts []*transcript.Transcript) *Report {
	t.Helper()
	r, err := finish(b, p, ts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// finish adds ts to p and returns b's report of them, or the first
// error.
func finish(b *Builder, p *batch.Pipeline, ts []*transcript.Transcript) (*Report, error) {
	for _, tr := range ts {
		if err := p.Add(context.Background(), tr, p.Prepare(tr)); err != nil {
			return nil, err
		}
	}
	sweep, err := p.Finish()
	if err != nil {
		return nil, err
	}
	return b.Finish(sweep)
}

// TestBuilderRefusesAnotherEstimator: runs whose tokens a pipeline
// counted with another estimator than the report's are refused, never
// read as no tokens.
func TestBuilderRefusesAnotherEstimator(t *testing.T) {
	ps, err := window.ParseLabeled([]string{"none"})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := conformance.Generated(fixtures.GenOptions{Calls: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b := &Builder{Policies: ps}
	p := batch.New(batch.Spec{Policies: ps, Runs: b.AddRuns,
		Replay: replay.Options{Estimators: []estimate.Estimator{estimate.MustNew("chars4", estimate.OverheadNone)}}})
	if err := p.Add(context.Background(), tr, batch.Prepared{}); err == nil || !strings.Contains(err.Error(), "runs counted with chars4, the report's tokens with cl100k_base") {
		t.Errorf("runs of chars4 into a report of cl100k_base: %v", err)
	}
}
