package printable

import (
	"io"
	"strings"
	"testing"
)

// BenchmarkWriter writes 1 MiB of JSON-like text with no control
// character, the common case, through Writer.
func BenchmarkWriter(b *testing.B) {
	line := []byte(strings.Repeat(`{"file":"sessions/a.jsonl","policy":"aidf","tokens":12345,"text":"héllo wörld"}`, 8) + "\n")
	w := Writer(io.Discard)
	b.SetBytes(int64(len(line)) * 1024)
	for b.Loop() {
		for range 1024 {
			w.Write(line)
		}
	}
}
