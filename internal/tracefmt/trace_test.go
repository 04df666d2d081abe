package tracefmt

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

func generated(t testing.TB, calls int) *transcript.Transcript {
	t.Helper()
	o := fixtures.DefaultGenOptions
	o.Calls = calls
	tr, err := conformance.Generated(o)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func must(t testing.TB, spec string) window.Policy {
	t.Helper()
	p, err := window.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDeterministicTrace(t *testing.T) {
	tr := generated(t, 200)
	var a, b bytes.Buffer
	for _, w := range []*bytes.Buffer{&a, &b} {
		for _, spec := range []string{"aidf:max_messages=30,summarize_on_trim=true", "compress:max_tokens=20000"} {
			run, err := replay.Replay(context.Background(), tr, must(t, spec), replay.Options{Summarizer: &summarize.Mock{},
				Estimators: []estimate.Estimator{estimate.MustNew("cl100k_base", 0), estimate.MustNew("chars4", 0)}})
			if err != nil {
				t.Fatal(err)
			}
			if err := WriteTrace(w, run, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	if a.Len() == 0 || !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("two replays wrote different traces (%d and %d bytes)", a.Len(), b.Len())
	}
}

// TestTraceReadsBack: a trace read with ReadTrace gives every step's
// lists as the run holds them, for policies that slide, summarize and
// keep scattered messages; and its size grows linearly with the calls
// (4× the calls, at most 4.5× the bytes; each policy's trigger low
// enough to fire from the start, so that lines are alike throughout).
func TestTraceReadsBack(t *testing.T) {
	specs := []string{"none", "aidf:max_messages=30,summarize_on_trim=true", "codex:context_window=60000", "compress:max_tokens=20000",
		"anthropic-clear-tool-uses:trigger=3000,keep=2", "opencode:prune_protect=2000,prune_minimum=1000,context_limit=60000,max_output=8000"}
	size := map[string][2]int{}
	for k, calls := range []int{100, 400} {
		tr := generated(t, calls)
		for _, spec := range specs {
			run, err := replay.Replay(context.Background(), tr, must(t, spec), replay.Options{Summarizer: &summarize.Mock{}})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := WriteTrace(&b, run, nil); err != nil {
				t.Fatal(err)
			}
			// --json's steps: the same contexts, read back by ExpandSteps,
			// in bytes as linear.
			var sb bytes.Buffer
			enc := NewStepEncoder(&sb)
			for i := range run.Steps {
				if err := enc.Encode(&run.Steps[i]); err != nil {
					t.Fatal(err)
				}
			}
			s := size[spec]
			s[k] = b.Len()
			size[spec] = s
			js := size[spec+" (--json steps)"]
			js[k] = sb.Len()
			size[spec+" (--json steps)"] = js
			if k == 1 {
				continue
			}
			var back []replay.Step
			dec := json.NewDecoder(&sb)
			for dec.More() {
				var st replay.Step
				if err := dec.Decode(&st); err != nil {
					t.Fatal(err)
				}
				back = append(back, st)
			}
			if err := ExpandSteps(back); err != nil || len(back) != len(run.Steps) {
				t.Fatalf("%s: %d steps read back: %v", spec, len(back), err)
			}
			for i := range back {
				if !slices.Equal(back[i].Context, run.Steps[i].Context) {
					t.Fatalf("%s step %d: --json context %v, want %v", spec, i, back[i].Context, run.Steps[i].Context)
				}
			}
			i := 0
			err = ReadTrace(&b, func(l *TraceLine) error {
				want := run.Steps[i]
				if ev := want.Summary; ev != nil { // the trace has the prompt whole
					c := *ev
					c.Usage = transcript.Usage{Input: ev.Usage.Prompt(), Output: ev.Usage.Output}
					want.Summary = &c
				}
				if diff := cmp.Diff(&want, &l.Step, cmpopts.IgnoreUnexported(replay.Step{}), cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("%s step %d read back (-written +read):\n%s", spec, i, diff)
				}
				i++
				return nil
			})
			if err != nil || i != len(run.Steps) {
				t.Fatalf("%s: %d of %d lines read: %v", spec, i, len(run.Steps), err)
			}
		}
	}
	for _, spec := range slices.Sorted(maps.Keys(size)) {
		s := size[spec]
		t.Logf("%s: %d, %d bytes", spec, s[0], s[1])
		if r := float64(s[1]) / float64(s[0]); r > 4.5 {
			t.Errorf("%s: 4× the calls, %.1f× the bytes (%d, %d)", spec, r, s[0], s[1])
		}
	}
	if err := ReadTrace(strings.NewReader(`{"transcript":"t","policy":"none","step":0,"context":["^3"]}`+"\n"), func(*TraceLine) error { return nil }); err == nil {
		t.Error("a ^N with no line before: no error")
	}
}
