package transcript_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/internal/jsstring"
	"github.com/ctxbench/ctxbench/transcript"
)

// contentJSONSize is what ContentJSONSize must equal: the length of
// ContentJSON's output in bytes and in UTF-16 units.
func contentJSONSize(blocks []transcript.Block) [2]int {
	b := transcript.ContentJSON(blocks)
	return [2]int{len(b), jsstring.Len(string(b))}
}

// TestContentJSONSizeCorpus holds ContentJSONSize equal to the length of
// ContentJSON's output for every message of the corpus.
func TestContentJSONSizeCorpus(t *testing.T) {
	msgs := 0
	for _, f := range corpusFiles(t) {
		ts, err := transcript.ReadFile(f, transcript.Options{Lenient: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range ts {
			for i, m := range tr.Messages {
				msgs++
				size, units := transcript.ContentJSONSize(m.Blocks)
				if want := contentJSONSize(m.Blocks); [2]int{size, units} != want {
					t.Errorf("%s, message %d: size %d, %d units; ContentJSON's %v", f, i, size, units, want)
				}
			}
		}
	}
	if msgs < 1000 {
		t.Fatalf("only %d messages in the corpus", msgs)
	}
}

// FuzzContentJSONSize holds ContentJSONSize equal to the length of
// ContentJSON's output for blocks of every type made from any text and
// any raw JSON (valid or not).
func FuzzContentJSONSize(f *testing.F) {
	f.Add("plain", `{"a": [1, 2.5, "x y"], "b" :null}`, true)
	f.Add("esc \"q\" \\ \b\f\n\r\t \x01\x1f <>& \u2028\u2029 é 日本 😀 \xff\xfe", "  [ \"\\u00e9\\\"\", \"é 😀\", {\"k\"\t:\n\"\xff\"} ]  ", false)
	f.Add("", "", true)
	f.Add("x", `{"unterminated": `, false)
	f.Add("x", `"str"`, true)
	f.Fuzz(func(t *testing.T, text, raw string, isErr bool) {
		r := json.RawMessage(raw)
		sets := [][]transcript.Block{
			{{Type: transcript.BlockText, Text: text}},
			{{Type: transcript.BlockThinking, Text: text}, {Type: transcript.BlockThinking, Raw: r}},
			{{Type: transcript.BlockToolUse, ID: text, Name: text, Input: r}, {Type: transcript.BlockToolUse, ID: "t", Name: "n"}},
			{{Type: transcript.BlockToolResult, ID: text, Text: text, IsError: isErr}, {Type: transcript.BlockToolResult, ID: "t", Raw: r}},
			{{Type: transcript.BlockImage}, {Type: transcript.BlockType(text)}, {Type: transcript.BlockOther, Raw: r}},
			{},
		}
		for k, blocks := range sets {
			size, units := transcript.ContentJSONSize(blocks)
			if want := contentJSONSize(blocks); [2]int{size, units} != want {
				t.Errorf("set %d (text %q, raw %q): size %d, %d units; ContentJSON's %v", k, text, raw, size, units, want)
			}
		}
	})
}

// FuzzUTF16Len holds UTF16Len equal to counting the UTF-16 units of each
// code point (an invalid byte one) on any text.
func FuzzUTF16Len(f *testing.F) {
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
		if got := jsstring.Len(s); got != want {
			t.Errorf("%q: UTF16Len %d, want %d", s, got, want)
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
		if got := jsstring.ReplaceInvalid(in); got != want {
			t.Errorf("ReplaceInvalid(%q) = %q, want %q", in, got, want)
		}
		if jsstring.Len(in) != jsstring.Len(want) {
			t.Errorf("UTF16Len(%q) = %d, the decoded text's %d", in, jsstring.Len(in), jsstring.Len(want))
		}
	}
}

func FuzzReplaceInvalid(f *testing.F) {
	for _, s := range []string{"", "ok", "\xe2\x82", "\xf0\x9f\x8e\x89", "\xed\xa0\x80x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := jsstring.ReplaceInvalid(s)
		if !utf8.ValidString(got) || jsstring.ReplaceInvalid(got) != got || (utf8.ValidString(s) && got != s) {
			t.Fatalf("ReplaceInvalid(%q) = %q", s, got)
		}
		if jsstring.Len(s) != jsstring.Len(got) {
			t.Fatalf("UTF16Len(%q) = %d, of its decoding %d", s, jsstring.Len(s), jsstring.Len(got))
		}
		// Never more replacements than bytes, never fewer than runs.
		if n := strings.Count(got, "\uFFFD") - strings.Count(s, "\uFFFD"); n > len(s) || n < strings.Count(strings.ToValidUTF8(s, "\x00"), "\x00")-strings.Count(s, "\x00") {
			t.Fatalf("ReplaceInvalid(%q): %d replacements", s, n)
		}
	})
}
