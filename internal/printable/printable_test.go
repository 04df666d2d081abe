package printable

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"session.jsonl", "session.jsonl"},
		{"a\n::error::b", `a\n::error::b`},
		{"\x1b[31mred", `\x1b[31mred`},
		{"tab\tkept", "tab\tkept"},
		{"c1\u009b", `c1\u009b`},
		{"é ü 日本", "é ü 日本"},
	} {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := Writer(&b)
	for _, s := range []string{"line one\n", "name\x1b[2J\tx\r\n", "plain\n", "del\x7f c1\u0085 é\n"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if want := "line one\nname\\u001b[2J\tx\\u000d\nplain\ndel\\u007f c1\\u0085 é\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}

// TestMarkdown: markup read from an input is text in Markdown — HTML,
// entities, link brackets and backslashes escaped, control characters
// as in String — and plain text is left as it is.
func TestMarkdown(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"spotter/short.jsonl", "spotter/short.jsonl"},
		{"aidf:max_messages=30,summarize_on_trim=true", "aidf:max_messages=30,summarize_on_trim=true"},
		{"<script>alert(1)</script><img src=x onerror=alert(2)>", "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;"},
		{"&lt;b&gt; & co", "&amp;lt;b&amp;gt; &amp; co"},
		{"x](javascript:alert(1)) ![y", `x\](javascript:alert(1)) !\[y`},
		{`a\|b`, `a\\|b`},
		{"two\nlines <b>", `two\\nlines &lt;b&gt;`},
	} {
		if got := Markdown(c.in); got != c.want {
			t.Errorf("Markdown(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestCSVCell: a cell a spreadsheet would take for a formula starts with
// a quote; numbers, signed ones too, and other text are left as they are.
func TestCSVCell(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"},
		{"=cmd|calc!A1.jsonl", "'=cmd|calc!A1.jsonl"},
		{"+1+1", "'+1+1"},
		{"-2+3", "'-2+3"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		{"-", "'-"},
		{"-Inf", "'-Inf"},
		{"-0x1p3", "'-0x1p3"},
		{"-0.25", "-0.25"},
		{"+3", "+3"},
		{"-1e-05", "-1e-05"},
		{"0.1234", "0.1234"},
		{"", ""},
		{"session.jsonl", "session.jsonl"},
		{"a=b", "a=b"},
	} {
		if got := CSVCell(c.in); got != c.want {
			t.Errorf("CSVCell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
