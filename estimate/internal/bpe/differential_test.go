package bpe

import (
	"flag"
	"math/rand/v2"
	"sync"
	"testing"
	"unicode/utf8"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

var pkoukkTexts = flag.Int("pkoukk-texts", 2_000, "how many random texts, and as many corpus slices, the differential test of the counts against pkoukk/tiktoken-go counts (make exact runs a million of each)")

// TestCountsMatchPkoukk counts texts with ctxbench's encodings and with
// pkoukk/tiktoken-go's Encode and wants the same counts: random texts
// built from the characters where the pattern classes meet (CJK, emoji,
// U+FEFF, whitespace runs, special-token text, an invalid byte), and
// random slices, cut at rune starts, of the corpus files' text. make test
// counts -pkoukk-texts of each (2,000); make exact, a million.
func TestCountsMatchPkoukk(t *testing.T) {
	offlineTiktoken()
	var corpus []byte
	for _, f := range corpusFiles(t) {
		corpus = append(corpus, f.raw...)
	}
	type pair struct {
		name string
		ref  *tiktoken.Tiktoken
		e    *Encoding
	}
	var pairs []pair
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		ref, err := tiktoken.GetEncoding(name)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, pair{name, ref, e})
	}
	slice := func(r *rand.Rand) string {
		i := r.IntN(len(corpus))
		j := min(len(corpus), i+1+r.IntN(400))
		for i > 0 && !utf8.RuneStart(corpus[i]) {
			i--
		}
		for j < len(corpus) && !utf8.RuneStart(corpus[j]) {
			j++
		}
		return string(corpus[i:j])
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := range *pkoukkTexts {
		for k, text := range []string{randomText(r), slice(r)} {
			for _, p := range pairs {
				if got, want := p.e.Count(text), len(p.ref.Encode(text, nil, nil)); got != want {
					t.Fatalf("%s: %s %d (%q): %d tokens, pkoukk says %d", p.name, [...]string{"random text", "corpus slice"}[k], i, text, got, want)
				}
			}
		}
	}
	t.Logf("%d random texts and as many corpus slices", *pkoukkTexts)
}

var useOfflineLoader sync.Once

// offlineTiktoken makes pkoukk/tiktoken-go load its encodings from the
// ranks github.com/pkoukk/tiktoken-go-loader embeds instead of
// downloading them.
func offlineTiktoken() {
	useOfflineLoader.Do(func() { tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader()) })
}
