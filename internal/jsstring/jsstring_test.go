package jsstring

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzLen holds Len equal to counting the UTF-16 units of each
// code point (an invalid byte one) on any text.
func FuzzLen(f *testing.F) {
	for _, s := range []string{"", "plain ascii text, longer than eight", "é 日本 😀 \xff\xfe mixed with ascii runs of text", "\x7f\x80abcdefgh"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := 0
		for _, r := range s { // an invalid byte decodes as one U+FFFD
			want++
			if r > 0xFFFF {
				want++
			}
		}
		if got := Len(s); got != want {
			t.Errorf("%q: Len %d, want %d", s, got, want)
		}
	})
}

// TestReplaceInvalid: each maximal ill-formed subsequence is one U+FFFD,
// as the Unicode standard's examples (Table 3-8) and the WHATWG decoder
// have it; valid text is untouched.
func TestReplaceInvalid(t *testing.T) {
	const r = "\uFFFD"
	for in, want := range map[string]string{
		"valid é 日本 🎉":     "valid é 日本 🎉",
		"\xff":             r,
		"\xc0\xaf":         r + r,
		"\xe0\x80\xaf":     r + r + r,
		"\xf0\x80\x80\xaf": r + r + r + r,
		"\xe2\x82":         r,
		"\xe2\x82 x":       r + " x",
		"\xed\xa0\x80":     r + r + r,
		"\xf0\x90\x80":     r,
		"\xf4\x90\x80\x80": r + r + r + r,
		"a\xf1\x80\x80\xe1\x80\xc2b\x80\xe1\x80\x80": "a" + r + r + r + "b" + r + "\u1000",
		"\xef\xbf\xbd": r,
	} {
		if got := ReplaceInvalid(in); got != want {
			t.Errorf("ReplaceInvalid(%q) = %q, want %q", in, got, want)
		}
		if Len(in) != Len(want) {
			t.Errorf("Len(%q) = %d, the decoded text's %d", in, Len(in), Len(want))
		}
	}
}

func FuzzReplaceInvalid(f *testing.F) {
	for _, s := range []string{"", "ok", "\xe2\x82", "\xf0\x9f\x8e\x89", "\xed\xa0\x80x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ReplaceInvalid(s)
		if !utf8.ValidString(got) || ReplaceInvalid(got) != got || (utf8.ValidString(s) && got != s) {
			t.Fatalf("ReplaceInvalid(%q) = %q", s, got)
		}
		if Len(s) != Len(got) {
			t.Fatalf("Len(%q) = %d, of its decoding %d", s, Len(s), Len(got))
		}
		// Never more replacements than bytes, never fewer than runs.
		if n := strings.Count(got, "\uFFFD") - strings.Count(s, "\uFFFD"); n > len(s) || n < strings.Count(strings.ToValidUTF8(s, "\x00"), "\x00")-strings.Count(s, "\x00") {
			t.Fatalf("ReplaceInvalid(%q): %d replacements", s, n)
		}
	})
}
