package langchain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Python's repr of the values LangChain's count_tokens_approximately
// measures (repr(tool_calls)): strings, and the JSON values tool
// arguments hold, as json.loads makes them — with one exception: a
// number is an integer when its value is whole (1.0 is 1), as the
// JavaScript the conformance goldens come from parses it.

// pyReprString is Python's repr of s: single quotes unless s holds a
// single quote and no double quote; backslash escapes for the quote,
// backslash, \t, \n, \r; \xNN, \uNNNN or \UNNNNNNNN for the other
// characters str.isprintable rejects (categories C and Z but the space).
func pyReprString(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x7f:
			b.WriteRune(r)
		case !pyPrintable(r):
			switch {
			case r <= 0xff:
				fmt.Fprintf(&b, `\x%02x`, r)
			case r <= 0xffff:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// pyPrintable is str.isprintable for one character above U+007E: not in
// categories C (control, format, surrogate, private use, unassigned) or Z
// (separators).
func pyPrintable(r rune) bool {
	if unicode.In(r, unicode.C, unicode.Z) {
		return false
	}
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S) // assigned
}

// pyReprJSON is Python's repr of the value raw holds; raw that is not JSON
// is repr'd as the string it is.
func pyReprJSON(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	if err := pyReprValue(dec, &b); err != nil {
		return pyReprString(string(raw))
	}
	return b.String()
}

func pyReprValue(dec *json.Decoder, b *strings.Builder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		closing := json.Delim(']')
		open := byte('[')
		if v == '{' {
			closing, open = '}', '{'
		}
		b.WriteByte(open)
		for n := 0; dec.More(); n++ {
			if n > 0 {
				b.WriteString(", ")
			}
			if v == '{' {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				b.WriteString(pyReprString(k.(string)))
				b.WriteString(": ")
			}
			if err := pyReprValue(dec, b); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return err
		}
		b.WriteString(string(closing))
	case string:
		b.WriteString(pyReprString(v))
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return err
		}
		b.WriteString(pyReprNumber(f))
	case bool:
		if v {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case nil:
		b.WriteString("None")
	}
	return nil
}

// pyReprNumber is repr of a parsed JSON number: an integer when whole
// (below 10²¹, as JavaScript prints it), else Python's float repr — the
// shortest digits, in exponent form below 10⁻⁴ or from 10¹⁶.
func pyReprNumber(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	case f == math.Trunc(f) && math.Abs(f) < 1e21 && !(f == 0 && math.Signbit(f)):
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
