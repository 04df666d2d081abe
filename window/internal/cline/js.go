package cline

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/jsstr"
)

// jsValue is a JSON value as JavaScript holds it: objects keep their
// keys in order, strings are counted in UTF-16 code units, and its
// length is that of JSON.stringify. The cline policy holds Cline's
// messages in it, because Cline measures a message by the length of its
// JSON (and rewrites messages as objects spread with new fields).
// Values are never changed once made: a change makes a new value.
type jsValue struct {
	kind byte // 's' string, 'n' number or literal (s is its JSON), 'a' array, 'o' object
	s    string
	a    []*jsValue
	o    []jsField
	// units is the length of its JSON in UTF-16 code units, 0 unknown.
	units int
	// block is the transcript block a content block was read from; a
	// changed block is a new value, without one.
	block *transcript.Block
}

type jsField struct {
	key string
	val *jsValue
}

func jsString(s string) *jsValue { return &jsValue{kind: 's', s: s} }
func jsInt(n int) *jsValue       { return &jsValue{kind: 'n', s: strconv.Itoa(n)} }

// jsObject returns an object of the fields, key and value in turn.
func jsObject(kv ...any) *jsValue {
	v := &jsValue{kind: 'o'}
	for i := 0; i+1 < len(kv); i += 2 {
		v.o = append(v.o, jsField{kv[i].(string), kv[i+1].(*jsValue)})
	}
	return v
}

// parseJS reads raw JSON as JSON.parse does (a repeated key keeps its
// first place and its last value).
func parseJS(raw []byte) (*jsValue, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return parseJSValue(dec)
}

func parseJSValue(dec *json.Decoder) (*jsValue, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			v := &jsValue{kind: 'a', a: []*jsValue{}}
			for dec.More() {
				e, err := parseJSValue(dec)
				if err != nil {
					return nil, err
				}
				v.a = append(v.a, e)
			}
			_, err := dec.Token()
			return v, err
		}
		v := &jsValue{kind: 'o'}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			e, err := parseJSValue(dec)
			if err != nil {
				return nil, err
			}
			v = v.with(kt.(string), e)
		}
		_, err := dec.Token()
		return v, err
	case string:
		return jsString(t), nil
	case json.Number:
		return &jsValue{kind: 'n', s: jsNumberText(string(t))}, nil
	case bool:
		return &jsValue{kind: 'n', s: strconv.FormatBool(t)}, nil
	default:
		return &jsValue{kind: 'n', s: "null"}, nil
	}
}

// jsNumberText is a JSON number as JSON.stringify writes it back.
func jsNumberText(lit string) string {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return "null"
	}
	return jsstr.Number(f)
}

// field returns the value of key, or nil.
func (v *jsValue) field(key string) *jsValue {
	if v == nil || v.kind != 'o' {
		return nil
	}
	for _, f := range v.o {
		if f.key == key {
			return f.val
		}
	}
	return nil
}

// str returns the string value of key ("" when it is not a string).
func (v *jsValue) str(key string) string {
	if f := v.field(key); f != nil && f.kind == 's' {
		return f.s
	}
	return ""
}

// isStr reports whether key holds a string.
func (v *jsValue) isStr(key string) bool {
	f := v.field(key)
	return f != nil && f.kind == 's'
}

// with returns {...v, key: val}: the key keeps its place when v has it,
// else comes last.
func (v *jsValue) with(key string, val *jsValue) *jsValue {
	out := &jsValue{kind: 'o', o: make([]jsField, 0, len(v.o)+1)}
	found := false
	for _, f := range v.o {
		if f.key == key {
			f.val, found = val, true
		}
		out.o = append(out.o, f)
	}
	if !found {
		out.o = append(out.o, jsField{key, val})
	}
	return out
}

// merged returns {...v, ...w}.
func (v *jsValue) merged(w *jsValue) *jsValue {
	out := v
	if out == nil {
		out = &jsValue{kind: 'o'}
	}
	for _, f := range w.o {
		out = out.with(f.key, f.val)
	}
	if out == v {
		out = &jsValue{kind: 'o', o: append([]jsField(nil), v.o...)}
	}
	return out
}

// len returns the length of JSON.stringify(v) in UTF-16 code units.
func (v *jsValue) len() int {
	if v.units > 0 {
		return v.units
	}
	n := 0
	switch v.kind {
	case 's':
		n = jsStringUnits(v.s)
	case 'n':
		n = len(v.s)
	case 'a':
		n = 2 + max(0, len(v.a)-1)
		for _, e := range v.a {
			n += e.len()
		}
	case 'o':
		n = 2 + max(0, len(v.o)-1)
		for _, f := range v.o {
			n += jsStringUnits(f.key) + 1 + f.val.len()
		}
	}
	v.units = n
	return n
}

// equal reports whether JSON.stringify gives the same text for both.
func (v *jsValue) equal(w *jsValue) bool {
	if v == w {
		return true
	}
	if v == nil || w == nil || v.kind != w.kind || v.s != w.s || len(v.a) != len(w.a) || len(v.o) != len(w.o) {
		return false
	}
	if v.units > 0 && w.units > 0 && v.units != w.units {
		return false
	}
	for i := range v.a {
		if !v.a[i].equal(w.a[i]) {
			return false
		}
	}
	for i := range v.o {
		if v.o[i].key != w.o[i].key || !v.o[i].val.equal(w.o[i].val) {
			return false
		}
	}
	return true
}

// jsStringUnits is the length of JSON.stringify(s) in UTF-16 code units:
// its quotes; " and \ and \b \f \n \r \t two each; other control
// characters six (\u00XX); a character above U+FFFF two; any other one.
func jsStringUnits(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
		i += w
	}
	return n
}

// jsLength is s.length: its UTF-16 code units.
func jsLength(s string) int {
	n := 0
	for _, r := range s {
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// jsSlice is s.slice(0, n) in UTF-16 code units; a character cut in two
// keeps its first half, which a string here holds as U+FFFD.
func jsSlice(s string, n int) string {
	if n <= 0 {
		return ""
	}
	u := 0
	for i, r := range s {
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if u+w > n {
			if u < n {
				return s[:i] + "\uFFFD"
			}
			return s[:i]
		}
		u += w
	}
	return s
}

// jsTrim is String.prototype.trim: white space and line terminators
// (tab, VT, FF, space, NBSP, ZWNBSP, the Zs characters, LF, CR, LS, PS)
// off both ends.
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\v', '\f', ' ', '\u00a0', '\ufeff', '\n', '\r', '\u2028', '\u2029', '\u1680', '\u202f', '\u205f', '\u3000':
			return true
		}
		return r >= '\u2000' && r <= '\u200a'
	})
}

// jsJSON writes v as JSON.
func jsJSON(v *jsValue) json.RawMessage {
	if v == nil {
		return nil
	}
	var b strings.Builder
	writeJS(&b, v)
	return json.RawMessage(b.String())
}

func writeJS(b *strings.Builder, v *jsValue) {
	switch v.kind {
	case 's':
		writeJSString(b, v.s)
	case 'n':
		b.WriteString(v.s)
	case 'a':
		b.WriteByte('[')
		for i, e := range v.a {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJS(b, e)
		}
		b.WriteByte(']')
	case 'o':
		b.WriteByte('{')
		for i, f := range v.o {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSString(b, f.key)
			b.WriteByte(':')
			writeJS(b, f.val)
		}
		b.WriteByte('}')
	}
}

// writeJSString writes s quoted, without HTML escapes, as
// JSON.stringify does.
func writeJSString(b *strings.Builder, s string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Write(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
}
