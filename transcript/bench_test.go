package transcript_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
)

// BenchmarkRead reads real transcripts of each format; b.SetBytes makes
// the result a throughput (MB/s).
func BenchmarkRead(b *testing.B) {
	for _, name := range []string{
		"spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
		"ai-workflow-agent/issue-113/04_implementation/execute/agent_log_raw.txt",
		"codemie-code/src/agents/plugins/codex/__tests__/fixtures/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl",
		"mini-swe-agent/output/deepseek_chat_test_1-100/django__django-11910/django__django-11910.traj.json",
		"codemie-code/tests/integration/metrics/fixtures/gemini/session-2025-12-01T21-45-5b959dae.json",
	} {
		raw, err := os.ReadFile(filepath.Join(corpusDir, name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(filepath.Dir(name))+"/"+filepath.Base(name), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := transcript.Parse(raw, name, transcript.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWriteRead converts a real session to each written format and
// reads it back.
func BenchmarkWriteRead(b *testing.B) {
	tr := readOne(b, filepath.Join(corpusDir, "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"), transcript.Options{})
	for _, f := range []transcript.Format{transcript.FormatOpenAIChat, transcript.FormatAnthropic} {
		b.Run(string(f), func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := transcript.Write(&buf, tr, f); err != nil {
					b.Fatal(err)
				}
				if _, err := transcript.Parse(buf.Bytes(), "x", transcript.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(buf.Len()))
		})
	}
}

// BenchmarkReadFile reads a real session from its file, whose size sets
// the read buffer's at once, and from a reader of unknown size (the
// buffer doubled up to it): the allocations per read show the gain.
func BenchmarkReadFile(b *testing.B) {
	name := filepath.Join(corpusDir, "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	raw, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("file", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := transcript.ReadFile(name, transcript.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reader", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := transcript.Read(struct{ io.Reader }{bytes.NewReader(raw)}, name, transcript.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
