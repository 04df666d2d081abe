package model

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/internal/swar"
)

// ContentJSONSize is transcript.ContentJSONSize: the length of the
// content's JSON in bytes and UTF-16 code units, without making it.
func ContentJSONSize(blocks []Block) (size, units int) {
	var s jsonSize
	s.lit("[")
	for i, b := range blocks {
		if i > 0 {
			s.lit(",")
		}
		switch b.Type {
		case BlockText:
			s.object("text", "text", b.Text)
		case BlockThinking:
			if len(b.Raw) > 0 {
				s.raw(b.Raw)
			} else {
				s.object("thinking", "thinking", b.Text)
			}
		case BlockToolUse:
			s.lit(`{"type":"tool_use","id":`)
			s.str(b.ID)
			s.lit(`,"name":`)
			s.str(b.Name)
			s.lit(`,"input":`)
			if len(b.Input) > 0 {
				s.raw(b.Input)
			} else {
				s.lit("{}")
			}
			s.lit("}")
		case BlockToolResult:
			s.lit(`{"type":"tool_result","tool_use_id":`)
			s.str(b.ID)
			s.lit(`,"content":`)
			if len(b.Raw) > 0 {
				s.raw(b.Raw)
			} else {
				s.str(b.Text)
			}
			if b.IsError {
				s.lit(`,"is_error":true`)
			}
			s.lit("}")
		default:
			if len(b.Raw) > 0 {
				s.raw(b.Raw)
			} else {
				s.lit(`{"type":`)
				s.str(string(b.Type))
				s.lit("}")
			}
		}
	}
	s.lit("]")
	if s.invalid {
		return 0, 0
	}
	return s.size, s.units
}

// jsonSize adds up the lengths of encoding/json's output, piece by piece.
type jsonSize struct {
	size, units int
	invalid     bool
}

// lit adds ASCII text as it is.
func (s *jsonSize) lit(text string) { s.size += len(text); s.units += len(text) }

// object adds {"type":kind,"<field>":text}.
func (s *jsonSize) object(kind, field, text string) {
	s.lit(`{"type":"`)
	s.lit(kind)
	s.lit(`","`)
	s.lit(field)
	s.lit(`":`)
	s.str(text)
	s.lit("}")
}

// str adds a string as encoding/json writes it without HTML escaping:
// quoted; \" \\ \b \f \n \r \t; other control characters as \u00XX;
// invalid UTF-8 as \ufffd; U+2028 and U+2029 as \u2028, \u2029.
func (s *jsonSize) str(text string) {
	s.lit(`""`)
	for i := 0; i < len(text); {
		if i+8 <= len(text) && swar.Plain(swar.Word(text, i)) {
			s.size, s.units, i = s.size+8, s.units+8, i+8
			continue
		}
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				s.size, s.units = s.size+2, s.units+2
			case c < 0x20:
				s.size, s.units = s.size+6, s.units+6
			default:
				s.size, s.units = s.size+1, s.units+1
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && n == 1, r == '\u2028', r == '\u2029':
			s.size, s.units = s.size+6, s.units+6
		case r > 0xFFFF:
			s.size, s.units = s.size+n, s.units+2
		default:
			s.size, s.units = s.size+n, s.units+1
		}
		i += n
	}
}

// raw adds raw JSON as encoding/json compacts it: without the whitespace
// outside strings (where valid JSON holds only ASCII), the rest byte for
// byte.
func (s *jsonSize) raw(b json.RawMessage) {
	if !json.Valid(b) {
		s.invalid = true
		return
	}
	units, inString, escaped := 0, false, false
	for i := 0; i < len(b); {
		c := b[i]
		if c >= utf8.RuneSelf { // only in strings
			r, n := utf8.DecodeRune(b[i:])
			units, i = units+1, i+n
			if r > 0xFFFF {
				units++
			}
			continue
		}
		i++
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			s.size--
			continue
		}
		units++
	}
	s.size += len(b)
	s.units += units
}
