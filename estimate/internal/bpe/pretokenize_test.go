package bpe

import (
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"github.com/google/go-cmp/cmp"
)

var randomTexts = flag.Int("random-texts", 20_000, "how many random texts the differential tests of the pre-tokenizers split (make exact runs millions)")

// patternSplit splits text with the encoding's pattern compiled by
// regexp2, the backtracking engine pkoukk/tiktoken-go uses: the reference
// the hand-written pre-tokenizers must equal.
func patternSplit(t testing.TB, re *regexp2.Regexp, text string) []string {
	var pieces []string
	m, err := re.FindStringMatch(text)
	for m != nil && err == nil {
		pieces = append(pieces, m.String())
		m, err = re.FindNextMatch(m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return pieces
}

func handSplit(next func(string, int) int, text string) []string {
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	var pieces []string
	for i := 0; i < len(text); {
		j := next(text, i)
		if j <= i || j > len(text) {
			panic("pre-tokenizer did not advance")
		}
		pieces = append(pieces, text[i:j])
		i = j
	}
	return pieces
}

type splitPair struct {
	name string
	re   *regexp2.Regexp
	next func(string, int) int
}

func splitPairs(t testing.TB) []splitPair {
	loadClasses()
	var out []splitPair
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		re, err := regexp2.Compile(patterns[name], regexp2.None)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, splitPair{name, re, splitters[name]})
	}
	return out
}

func compareSplits(t *testing.T, pairs []splitPair, what string, text string) bool {
	t.Helper()
	for _, p := range pairs {
		want := patternSplit(t, p.re, text)
		got := handSplit(p.next, text)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: %s (%.80q): pieces differ from the pattern's (-pattern +ctxbench):\n%s", p.name, what, text, d)
			return false
		}
	}
	return true
}

// edgeRunes are the characters where the patterns' classes meet: each
// letter class (Lu, Ll, Lt, Lm, Lo), marks (Mn, Mc, Me), each number class
// (Nd, Nl, No), every kind of whitespace, the contraction letters in both
// cases, CJK, emoji, U+FEFF and an invalid byte.
var edgeRunes = []string{
	"a", "Z", "s", "S", "t", "T", "r", "R", "e", "E", "v", "V", "m", "M", "l", "L", "d", "D", "x",
	"'", "’", " ", " ", " ", "\n", "\n", "\r", "\t", "\v", "\f", "\u00a0", "\u0085", "\u2028", "\u3000", "\u1680",
	"0", "7", "٣", "Ⅻ", "½", "²",
	"ǅ", "ʰ", "ª", "中", "日", "한", "ß", "É", "é", "Σ", "ς", "ﬁ", "İ",
	"\u0301", "\u0903", "\u20dd", "😀", "👍🏽", "\ufeff", "\u200d",
	"/", "!", ".", "-", "_", "<|endoftext|>", "{", "\"", "\\", "\xff",
}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range 1 + r.IntN(24) {
		b.WriteString(edgeRunes[r.IntN(len(edgeRunes))])
	}
	return b.String()
}

// TestPretokenizersMatchPatterns splits random texts built from the
// characters where the pattern classes meet, the reference texts (CJK,
// emoji, whitespace runs, special-token text, 100,000 repeated letters)
// and the start of every corpus file, with the hand-written pre-tokenizers
// and with the patterns, and wants the same pieces.
func TestPretokenizersMatchPatterns(t *testing.T) {
	pairs := splitPairs(t)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range *randomTexts {
		if !compareSplits(t, pairs, "random text "+strconv.Itoa(i), randomText(r)) {
			return
		}
	}
	raw, err := os.ReadFile("../../testdata/reference-texts.json")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	if err := json.Unmarshal(raw, &texts); err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		compareSplits(t, pairs, "reference text "+strconv.Itoa(i), text)
	}
	const head = 64 << 10
	for _, f := range corpusFiles(t) {
		compareSplits(t, pairs, f.path, string(f.raw[:min(len(f.raw), head)]))
	}
}

// A corpusFile is a file of the public corpus and its bytes.
type corpusFile struct {
	path string
	raw  []byte
}

// corpusFiles reads every file of the public corpus, in walk order.
func corpusFiles(t testing.TB) []corpusFile {
	t.Helper()
	var out []corpusFile
	err := filepath.WalkDir("../../../fixtures/corpus", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(path)
		out = append(out, corpusFile{path, raw})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzPretokenizers is the differential test against the patterns under
// the fuzzer.
func FuzzPretokenizers(f *testing.F) {
	for _, s := range edgeRunes {
		f.Add(s + " " + s + s + "\n")
	}
	f.Add("Don't  \n\n  stop'S   ＡＢＣdéf ǅx ʰʰA\u0301b 12345 ½/\n/")
	pairs := splitPairs(f)
	f.Fuzz(func(t *testing.T, s string) {
		compareSplits(t, pairs, "fuzz input", s)
	})
}
