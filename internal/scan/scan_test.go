package scan

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctxbench/ctxbench/transcript"
)

// The regular expressions the scanners replace.
var (
	pathPattern = regexp.MustCompile(`(?:^|[\s"'(\x60])((?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@+-]+)+)`)
	filePattern = regexp.MustCompile(`(?:^|[\s"'(\x60])((?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@+-]+)*\.\w{1,8})\b`)
	urlPattern  = regexp.MustCompile(`(https?://[^\s"'<>)\]]+)`)
)

// diff returns how the scanners' matches in s differ from the patterns',
// or "".
func diff(s string) string {
	out := ""
	for _, sc := range []struct {
		scan    func(string, func(string))
		pattern *regexp.Regexp
	}{{Paths, pathPattern}, {Files, filePattern}, {URLs, urlPattern}} {
		var want, got []string
		for _, m := range sc.pattern.FindAllStringSubmatch(s, -1) {
			want = append(want, m[1])
		}
		sc.scan(s, func(p string) { got = append(got, p) })
		out += cmp.Diff(want, got, cmpopts.EquateEmpty())
	}
	return out
}

// TestScannersMatchPatterns: Paths, Files and URLs find what their
// regular expressions find, on every text and tool input of the corpus and on
// random texts made of the characters where the patterns' classes meet.
func TestScannersMatchPatterns(t *testing.T) {
	texts := 0
	_, err := transcript.Walk([]string{"../../fixtures/corpus"}, transcript.Options{}, nil, func(tr *transcript.Transcript) error {
		for _, m := range tr.Messages {
			for _, b := range m.Blocks {
				for _, s := range []string{b.Text, string(b.Input)} {
					if d := diff(s); d != "" {
						t.Fatalf("%s: (-pattern +scanner)\n%s", tr.ID, d)
					}
					texts++
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if texts < 4_000 {
		t.Fatalf("%d corpus texts", texts)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"/", "//", "~", ".", "..", "...", "a", "Z", "9", "_", "@", "+", "-", " ", "\t", "\n", "\"", "'", "(", ")", "`",
		":", "é", "\xff", "/usr/lib", "~/.config", "../x", ".go", ".tar", ".gz", ".verylongext", "/src", "x.y",
		"http", "https", "://", "s", "<", ">", "]", ",", ";"}
	for range 30_000 {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		if d := diff(b.String()); d != "" {
			t.Fatalf("%q: (-pattern +scanner)\n%s", b.String(), d)
		}
	}
	t.Logf("%d corpus texts and 30,000 random ones", texts)
}

func FuzzScanners(f *testing.F) {
	for _, s := range []string{"see /a/b and ./a/b.go", "(~/.cfg/x ../a/b ./c/d .../e/f", "(/a.b/c /d/e.verylongext", "../x.y_z ~/x.tar.gz",
		"see https://x.y/z).", "http:// https://a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d := diff(s); d != "" {
			t.Fatalf("%q: (-pattern +scanner)\n%s", s, d)
		}
	})
}

func BenchmarkScanners(b *testing.B) {
	text := strings.Repeat("edit ./src/main.go then run go test ./... in /home/u/proj; see ~/.config/x.toml (and /a/b), https://go.dev/doc.\n", 200)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Paths(text, func(string) {})
		Files(text, func(string) {})
		URLs(text, func(string) {})
	}
}
