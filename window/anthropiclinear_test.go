package window_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// toolHeavy returns a generated session of calls calls, every one of
// which calls tools.
func toolHeavy(t testing.TB, calls int) *transcript.Transcript {
	t.Helper()
	o := fixtures.DefaultGenOptions
	o.Calls, o.ToolRatio = calls, 1
	tr, err := conformance.Generated(o)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// replayLean replays tr under p keeping no steps, as ctxbench replay
// does.
func replayLean(t testing.TB, tr *transcript.Transcript, p window.Policy) *replay.Run {
	t.Helper()
	run, err := replay.Replay(context.Background(), tr, p, replay.Options{NoSteps: true})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestClearToolUsesLinear: a replay under anthropic-clear-tool-uses,
// alone and chained after anthropic-clear-thinking, of four times the
// calls of a tool-heavy session takes about four times the time (1,000
// calls against 4,000 took 2.2 s against 121 s: every call found every
// tool use, made every edit and counted every copy again; chained, 1.5 s
// against 25.6 s: the chain restored every item of every call and
// clear-thinking found every turn again): at most 10 times (best of
// three; quadratic is 16, and it took 14.6 times on 500 against 2,000
// calls).
func TestClearToolUsesLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing: make long")
	}
	for _, spec := range []string{"anthropic-clear-tool-uses", "anthropic-clear-thinking+anthropic-clear-tool-uses"} {
		p, err := window.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		timeOf := func(calls int) time.Duration {
			tr := toolHeavy(t, calls)
			best := time.Duration(math.MaxInt64)
			for range 3 {
				start := time.Now()
				run := replayLean(t, tr, p)
				best = min(best, time.Since(start))
				if run.Summary.Truncations == 0 {
					t.Fatalf("%s, %d calls: nothing cleared", spec, calls)
				}
			}
			return best
		}
		small, large := timeOf(500), timeOf(2000)
		t.Logf("%s: 500 calls %v, 2,000 calls %v: %.1f×", spec, small, large, large.Seconds()/small.Seconds())
		if r := large.Seconds() / small.Seconds(); r > 10 {
			t.Errorf("%s: 4× the calls took %.1f× the time (%v against %v), want at most 10×", spec, r, large, small)
		}
	}
}

// BenchmarkClearToolUses replays a tool-heavy session under
// anthropic-clear-tool-uses at N and 4N calls, keeping no steps:
// linear in the calls, the second costs about four times the first.
func BenchmarkClearToolUses(b *testing.B) {
	p, err := window.Parse("anthropic-clear-tool-uses")
	if err != nil {
		b.Fatal(err)
	}
	for _, calls := range []int{500, 2000} {
		tr := toolHeavy(b, calls)
		b.Run(fmt.Sprintf("calls=%d", calls), func(b *testing.B) {
			for b.Loop() {
				replayLean(b, tr, p)
			}
		})
	}
}
