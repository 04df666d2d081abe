package keymatch

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestMatcher: the keys a text holds, found in one pass, are those
// strings.Contains finds, on random texts and keys of every length from
// a small alphabet (so that windows and prefixes collide).
func TestMatcher(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte("ab /."[r.IntN(5)])
		}
		return b.String()
	}
	for range 300 {
		var keys []string
		for range 40 {
			keys = append(keys, word(1+r.IntN(12)))
		}
		m := New(keys)
		for range 20 {
			text := word(r.IntN(60))
			var got []string
			m.Scan(text, func(id int32) { got = append(got, m.keys[id]) })
			slices.Sort(got)
			got = slices.Compact(got)
			var want []string
			for _, k := range m.keys {
				if strings.Contains(text, k) {
					want = append(want, k)
				}
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("text %q: found %q, want %q", text, got, want)
			}
		}
		for _, k := range keys {
			if _, ok := m.ids[k]; ok != (len(k) >= minKeyBytes) {
				t.Fatalf("key %q indexed: %v", k, ok)
			}
		}
	}
}
