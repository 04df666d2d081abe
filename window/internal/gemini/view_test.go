package gemini

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/window/internal/jsstr"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// textQuartersByRune and jsStringLenByRune are the measures a character
// at a time, as they were before their ASCII words were passed at once.
func textQuartersByRune(s string) int {
	n, units := 0, 0
	for _, r := range s {
		q, u := runeQuarters(r)
		n, units = n+q, units+u
	}
	if units > 100_000 {
		return units
	}
	return n
}

func jsStringLenByRune(s string) int {
	n := 2
	for _, r := range s {
		n += jsstr.RuneLen(r)
	}
	return n
}

// TestGeminiMeasuresByWord: the measures that pass ASCII eight bytes at a
// time equal them a character at a time on every text of a Claude Code
// session and on every slice of a text that mixes ASCII runs, escapes,
// control characters, characters of every width and invalid bytes.
func TestGeminiMeasuresByWord(t *testing.T) {
	var texts []string
	tr := policytest.ReadCorpus(t, "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	for _, m := range tr.Messages {
		for _, b := range m.Blocks {
			texts = append(texts, b.Text, b.Name, b.ID, string(b.Input))
		}
	}
	mixed := "plain text \"quoted\" back\\slash\ttab\nline\x01\x1f é€😀\xff\xe2\x82 " + strings.Repeat("x", 17)
	for i := range len(mixed) {
		for j := i; j <= len(mixed); j++ {
			texts = append(texts, mixed[i:j])
		}
	}
	texts = append(texts, strings.Repeat("a", 100_001), strings.Repeat("é", 50_001))
	for _, s := range texts {
		if got, want := textQuarters(s), textQuartersByRune(s); got != want {
			t.Fatalf("textQuarters(%.80q) = %d, want %d", s, got, want)
		}
		if got, want := jsstr.Len(s), jsStringLenByRune(s); got != want {
			t.Fatalf("jsstr.Len(%.80q) = %d, want %d", s, got, want)
		}
	}
}

func FuzzGeminiMeasuresByWord(f *testing.F) {
	f.Add("plain \"q\" \\ \t\n\x01 é€😀\xff")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := textQuarters(s), textQuartersByRune(s); got != want {
			t.Fatalf("textQuarters(%q) = %d, want %d", s, got, want)
		}
		if got, want := jsstr.Len(s), jsStringLenByRune(s); got != want {
			t.Fatalf("jsstr.Len(%q) = %d, want %d", s, got, want)
		}
	})
}
