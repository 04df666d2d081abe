// Package printable makes text from an input safe to print: on a line
// of a terminal or a CI log ([String], [Writer]), in Markdown
// ([Markdown]), and in a CSV cell a spreadsheet opens ([CSVCell]).
package printable

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// String returns s with its control characters (a newline, a terminal's
// escape, C1 controls) written as Go escapes, tabs kept: a model or file
// name read from a transcript cannot start a line of its own in a CI log
// ("::error::") or drive the terminal.
func String(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool { return r != '\t' && (r < 0x20 || r >= 0x7f && r < 0xa0) }

// Writer returns a writer to w that writes the control characters of
// what it is given, but newlines and tabs, as \uXXXX escapes (valid in a
// JSON string too, where encoding/json leaves DEL and C1 raw): output
// whose lines hold names read from a transcript cannot drive the
// terminal.
// What it is given should be text; a control character split across two
// writes of a UTF-8 sequence is not one.
func Writer(w io.Writer) io.Writer { return &writer{w: w} }

type writer struct{ w io.Writer }

func (p *writer) Write(b []byte) (int, error) {
	if !hasControl(b) {
		return p.w.Write(b)
	}
	var out []byte
	for _, r := range string(b) {
		if r != '\n' && isControl(r) {
			out = fmt.Appendf(out, "\\u%04x", r)
			continue
		}
		out = append(out, string(r)...)
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// hasControl reports whether b holds a control character Writer escapes,
// byte by byte: C0 but newline and tab, DEL, and C1 (U+0080–U+009F, which
// UTF-8 writes 0xC2 0x80–0x9F). Output is mostly text without any, and
// this is the path it takes.
func hasControl(b []byte) bool {
	for i, c := range b {
		switch {
		case c < 0x20 && c != '\n' && c != '\t', c == 0x7f:
			return true
		case c == 0xC2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] < 0xa0:
			return true
		}
	}
	return false
}

// markdown writes Markdown's markup as text: inline HTML and entities
// (&, <, >) as entities, and the backslash and link brackets escaped.
var markdown = strings.NewReplacer(`\`, `\\`, "&", "&amp;", "<", "&lt;", ">", "&gt;", "[", `\[`, "]", `\]`)

// Markdown returns s as Markdown text that renders as s reads: its
// control characters escaped ([String]), so that it stays on its line,
// and its HTML, entities, links and backslash escapes written as text, so
// that a model or file name read from a transcript (<script>…, <img
// onerror=…>) is never markup in a report.
func Markdown(s string) string { return markdown.Replace(String(s)) }

// CSVCell returns s as a cell a spreadsheet takes for text, never for a
// formula (OWASP's CSV injection advice): a cell that starts with =, +,
// -, @, a tab or a carriage return gets a leading single quote, unless
// it is a plain decimal number (-0.25, +3, -1e-5), which a spreadsheet
// reads as one.
func CSVCell(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) || plainNumber(s) {
		return s
	}
	return "'" + s
}

// plainNumber reports whether s is a decimal number: digits, a point,
// an exponent and signs only, which strconv reads as a float (no
// infinity, NaN or hexadecimal).
func plainNumber(s string) bool {
	if strings.Trim(s, "0123456789.eE+-") != "" {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}
