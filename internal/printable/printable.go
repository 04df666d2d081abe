// Package printable makes text from an input safe to print on a line of
// a terminal or a CI log.
package printable

import (
	"bytes"
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
	if bytes.IndexFunc(b, func(r rune) bool { return r != '\n' && isControl(r) }) < 0 {
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
