package replay

import (
	"context"
	"strconv"
	"testing"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/internal/countcache"
	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// BenchmarkReplay replays a 2,000-call generated session under several
// policies, with the token counts cached across iterations (the common
// case: a message is tokenized once). BenchmarkTokenizeOnce is the
// baseline: one exact tokenization of the same session.
func BenchmarkReplay(b *testing.B) {
	tr := generated(b, 2000)
	counts := countcache.New()
	e := estimate.MustNew("cl100k_base", 0)
	counts.Counts(e, tr)
	for _, spec := range []string{"aidf:max_messages=30", "aidf:max_messages=100,summarize_on_trim=true", "prune", "compress:max_tokens=50000", "langchain-trim:max_tokens=30000"} {
		p := must(b, spec)
		b.Run(spec, func(b *testing.B) {
			for b.Loop() {
				if _, err := Replay(context.Background(), tr, p, Options{counts: counts, Summarizer: &summarize.Mock{Tokens: 50}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkTokenizeOnce(b *testing.B) {
	tr := generated(b, 2000)
	e := estimate.MustNew("cl100k_base", 0)
	for b.Loop() {
		countcache.New().Counts(e, tr)
	}
}

// BenchmarkReplay20k replays a 20,000-call session under the policies
// whose window is bounded; BenchmarkTokenize20k is its baseline. (Policies
// that never evict — none, prune — cost time quadratic in the calls: every
// step lists and checks the whole context.)
func BenchmarkReplay20k(b *testing.B) {
	tr := generated(b, 20_000)
	counts := countcache.New()
	counts.Counts(estimate.MustNew("cl100k_base", 0), tr)
	for _, spec := range []string{"aidf:max_messages=100", "langchain-trim:max_tokens=30000", "compress:max_tokens=60000"} {
		p := must(b, spec)
		b.Run(spec, func(b *testing.B) {
			for b.Loop() {
				if _, err := Replay(context.Background(), tr, p, Options{counts: counts, Summarizer: &summarize.Mock{Tokens: 50}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkTokenize20k(b *testing.B) {
	tr := generated(b, 20_000)
	e := estimate.MustNew("cl100k_base", 0)
	for b.Loop() {
		countcache.New().Counts(e, tr)
	}
}

// BenchmarkSweep sweeps 1,000 points over a 100-call session.
func BenchmarkSweep(b *testing.B) {
	tr := generated(b, 100)
	grid := []GridKey{{Key: "max_messages", Values: nil}}
	for m := 10; m < 1010; m++ {
		grid[0].Values = append(grid[0].Values, strconv.Itoa(m))
	}
	counts := countcache.New()
	for b.Loop() {
		if _, err := sweep(context.Background(), []*transcript.Transcript{tr}, "aidf", map[string]string{"preserve_last_n": "5"}, grid, Options{counts: counts}, 0, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSweepCorpus is make perf's sweep (figure 3) without the
// reading: 1,000 aidf points over the public corpus, its counts and
// artifacts made by the first iteration.
func BenchmarkSweepCorpus(b *testing.B) {
	trs := corpus(b)
	grid := []GridKey{{Key: "max_messages"}}
	for m := 10; m < 1010; m++ {
		grid[0].Values = append(grid[0].Values, strconv.Itoa(m))
	}
	opt := Options{counts: countcache.New(), arts: newArtifactCache()}
	for b.Loop() {
		if _, err := sweep(context.Background(), trs, "aidf", nil, grid, opt, 0, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNoneBaseline is the "share of none" baseline of a 2,000-call
// session: a none replay, whose steps list and check the whole history at
// every call, against NoneInputTokens, one pass over cached counts.
func BenchmarkNoneBaseline(b *testing.B) {
	tr := generated(b, 2000)
	counts := countcache.New()
	e := estimate.MustNew("cl100k_base", 0)
	counts.Counts(e, tr)
	none := must(b, "none")
	b.Run("replay", func(b *testing.B) {
		for b.Loop() {
			if _, err := Replay(context.Background(), tr, none, Options{counts: counts}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("one-pass", func(b *testing.B) {
		for b.Loop() {
			noneInputTokens(tr, e, counts)
		}
	})
}

// BenchmarkDeltaSteps replays a 2,000-call session with steps updated
// from the previous one (delta) and with every context measured and
// checked whole (whole, the reference run of the tests): the gain of the
// delta steps, in one run.
func BenchmarkDeltaSteps(b *testing.B) {
	tr := generated(b, 2000)
	counts := countcache.New()
	counts.Counts(estimate.MustNew("cl100k_base", 0), tr)
	arts := newArtifactCache()
	for _, spec := range []string{"none", "aidf:max_messages=100", "gemini-cli:token_limit=200000", "opencode:context_limit=60000,max_output=8000"} {
		p := must(b, spec)
		for _, mode := range []string{"whole", "delta"} {
			b.Run(spec+"/"+mode, func(b *testing.B) {
				opt := Options{counts: counts, arts: arts, Summarizer: &summarize.Mock{}, recompute: mode == "whole"}
				for b.Loop() {
					if _, err := Replay(context.Background(), tr, p, opt); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkKeyIndex indexes the probe keys of a 2,000-call generated
// session (its probes found first, as warm finds them); its baseline,
// texts, reads each message's text once, as the index does.
func BenchmarkKeyIndex(b *testing.B) {
	tr := generated(b, 2000)
	x := newProbeIndex(tr)
	size := 0
	for i := range tr.Messages {
		x.ex.Prepare(i)
		size += len(probe.Text(&tr.Messages[i]))
	}
	b.Run("texts", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for i := range tr.Messages {
				_ = probe.Text(&tr.Messages[i])
			}
		}
	})
	b.Run("index", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			newKeyIndex(x)
		}
	})
}
