package estimate_test

import (
	"strings"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"

	"github.com/ctxbench/ctxbench/estimate"
)

// BenchmarkEstimators counts every message of a real session (MB/s of
// message text) with each estimator, and with pkoukk's Encode as the
// baseline for the exact encodings.
func BenchmarkEstimators(b *testing.B) {
	tr := readCorpus(b, "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	var texts []string
	size := 0
	for _, m := range tr.Messages {
		for _, bl := range m.Blocks {
			for _, s := range []string{bl.Text, bl.Name, string(bl.Input)} {
				if s != "" {
					texts = append(texts, s)
					size += len(s)
				}
			}
		}
	}
	for _, name := range estimate.Names() {
		e := estimate.MustNew(name, estimate.OverheadNone)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for i := range tr.Messages {
					e.CountMessage(&tr.Messages[i])
				}
			}
		})
	}
	estimate.OfflineTiktoken()
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		ref, err := tiktoken.GetEncoding(enc)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("pkoukk-"+enc, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, s := range texts {
					ref.Encode(s, nil, nil)
				}
			}
		})
	}
}

// BenchmarkLongPiece counts 20,000 repeated letters, one pre-tokenizer
// piece: ctxbench's heap merge against pkoukk's quadratic one.
func BenchmarkLongPiece(b *testing.B) {
	s := strings.Repeat("a", 20_000)
	e := estimate.MustNew("cl100k_base", estimate.OverheadNone)
	b.Run("ctxbench", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			e.Count(s)
		}
	})
	estimate.OfflineTiktoken()
	ref, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("pkoukk", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			ref.Encode(s, nil, nil)
		}
	})
}

// BenchmarkLongRun counts 4 MiB of one letter, one pre-tokenizer piece
// (chunked: a few windows merged, then bytes compared), against 4 MiB of
// words (item 5 of issue 64: 25 MB of x took 2.8 times 25 MB of words in
// replay).
func BenchmarkLongRun(b *testing.B) {
	words := strings.Fields("the of and to in is that for it as with was on be by this are or at from an which have not but had his they you were their one all we can her has there been if more when will would who so no")
	var w strings.Builder
	for i := 0; w.Len() < 4<<20; i++ {
		w.WriteString(words[(i*7+i/len(words))%len(words)])
		w.WriteByte(' ')
	}
	e := estimate.MustNew("cl100k_base", estimate.OverheadNone)
	for _, in := range []struct{ name, text string }{{"x", strings.Repeat("x", 4<<20)}, {"words", w.String()}} {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				e.Count(in.text)
			}
		})
	}
}
