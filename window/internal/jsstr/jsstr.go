// Package jsstr holds what the policies that model JavaScript and
// TypeScript systems need of JavaScript's strings, whose length and
// slices count UTF-16 code units.
package jsstr

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/internal/swar"
)

// Cut returns the first n UTF-16 units of s, never half a surrogate
// pair (JavaScript's slice would keep the half; Go strings cannot).
func Cut(s string, n int) string {
	units := 0
	for i, r := range s {
		u := utf16.RuneLen(r)
		if units+u > n {
			return s[:i]
		}
		units += u
	}
	return s
}

// Len is the length of JSON.stringify(s): quotes, the two-character
// escapes, \u00XX for the other control characters, UTF-16 units for the
// rest. A word of ASCII with none of these is passed at once.
func Len(s string) int {
	n := 2
	for i := 0; i < len(s); {
		if i+8 <= len(s) && swar.Plain(swar.Word(s, i)) {
			n, i = n+8, i+8
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:]) // as range: an invalid byte is one U+FFFD
		n, i = n+RuneLen(r), i+size
	}
	return n
}

// RuneLen is the length of a character in a JSON.stringify string.
func RuneLen(r rune) int {
	switch {
	case r == '"' || r == '\\' || r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20:
		return 6
	case r > 0xFFFF:
		return 2
	}
	return 1
}

// JSONLen is the length of JSON.stringify(JSON.parse(raw)); empty raw
// is {} (no arguments).
func JSONLen(raw []byte) int {
	if len(bytes.TrimSpace(raw)) == 0 {
		return 2
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := valueLen(dec)
	if err != nil {
		return len(raw)
	}
	return n
}

func valueLen(dec *json.Decoder) (int, error) {
	tok, err := dec.Token()
	if err != nil {
		return 0, err
	}
	switch v := tok.(type) {
	case json.Delim:
		n := 2 // the brackets
		for k := 0; dec.More(); k++ {
			if k > 0 {
				n++ // comma
			}
			if v == '{' {
				key, err := dec.Token()
				if err != nil {
					return 0, err
				}
				n += Len(key.(string)) + 1 // colon
			}
			m, err := valueLen(dec)
			if err != nil {
				return 0, err
			}
			n += m
		}
		_, err := dec.Token()
		return n, err
	case string:
		return Len(v), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return 0, err
		}
		return len(Number(f)), nil
	case bool:
		if v {
			return 4, nil
		}
		return 5, nil
	}
	return 4, nil // null
}

// Number is JavaScript's Number#toString.
func Number(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "null" // JSON.stringify
	case f == 0:
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exps, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exps)
	n := x + 1 // the decimal point's position
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	exp := "+" + strconv.Itoa(n-1)
	if n-1 < 0 {
		exp = strconv.Itoa(n - 1)
	}
	if k == 1 {
		return sign + digits + "e" + exp
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + exp
}

// Slice returns s's UTF-16 units [from, to) as a string; a surrogate
// pair the cut splits becomes U+FFFD (one unit, as the half it stands for).
func Slice(s string, from, to int) string {
	u := utf16.Encode([]rune(s))
	from, to = max(0, min(from, len(u))), max(0, min(to, len(u)))
	var b strings.Builder
	for i := from; i < to; i++ {
		c := rune(u[i])
		switch {
		case utf16.IsSurrogate(c) && i+1 < to && c < 0xDC00 && u[i+1] >= 0xDC00 && u[i+1] < 0xE000:
			b.WriteRune(utf16.DecodeRune(c, rune(u[i+1])))
			i++
		case utf16.IsSurrogate(c):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// Thousands writes n as toLocaleString does in English: 1,234,567.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
