package swar

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestRuneCount: RuneCount is utf8.RuneCountInString on every corpus
// file, at every offset of a text mixing ASCII runs of every length with
// characters of every width and invalid bytes, and on fuzzed strings.
func TestRuneCount(t *testing.T) {
	err := filepath.WalkDir("../../fixtures/corpus", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if got, want := RuneCount(data), utf8.RuneCount(data); got != want {
			t.Errorf("%s: %d, want %d", p, got, want)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	mixed := "abcdefghijklmnopé€😀\xff\xe2\x82abcdefgh\xc3" + strings.Repeat("x", 17) + "\xf0\x9f\x98"
	for i := range len(mixed) {
		for j := i; j <= len(mixed); j++ {
			if got, want := RuneCount(mixed[i:j]), utf8.RuneCountInString(mixed[i:j]); got != want {
				t.Fatalf("%q: %d, want %d", mixed[i:j], got, want)
			}
		}
	}
}

func FuzzRuneCount(f *testing.F) {
	f.Add("abcdefghé€😀\xff")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := RuneCount(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("%q: %d, want %d", s, got, want)
		}
	})
}

// BenchmarkRuneCount: RuneCount against utf8.RuneCount on a Claude Code
// session.
func BenchmarkRuneCount(b *testing.B) {
	data, err := os.ReadFile("../../fixtures/corpus/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("RuneCount", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			RuneCount(data)
		}
	})
	b.Run("utf8.RuneCount", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			utf8.RuneCount(data)
		}
	})
}
