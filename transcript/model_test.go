package transcript

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestRuneCount: runeCount is utf8.RuneCountInString on every corpus
// file, at every offset of a text mixing ASCII runs of every length with
// characters of every width and invalid bytes, and on fuzzed strings.
func TestRuneCount(t *testing.T) {
	for _, f := range inputFiles(t) {
		if got, want := runeCount(f.data), utf8.RuneCount(f.data); got != want {
			t.Errorf("%s: %d, want %d", f.path, got, want)
		}
	}
	mixed := "abcdefghijklmnopé€😀\xff\xe2\x82abcdefgh\xc3" + strings.Repeat("x", 17) + "\xf0\x9f\x98"
	for i := range len(mixed) {
		for j := i; j <= len(mixed); j++ {
			if got, want := runeCount(mixed[i:j]), utf8.RuneCountInString(mixed[i:j]); got != want {
				t.Fatalf("%q: %d, want %d", mixed[i:j], got, want)
			}
		}
	}
}

func FuzzRuneCount(f *testing.F) {
	f.Add("abcdefghé€😀\xff")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := runeCount(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("%q: %d, want %d", s, got, want)
		}
	})
}

// BenchmarkRuneCount: runeCount against utf8.RuneCount on a Claude Code
// session.
func BenchmarkRuneCount(b *testing.B) {
	data, err := os.ReadFile("../fixtures/corpus/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("runeCount", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			runeCount(data)
		}
	})
	b.Run("utf8.RuneCount", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			utf8.RuneCount(data)
		}
	})
}
