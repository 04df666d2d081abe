// Package decode holds what the readers share: an input prepared for
// reading (Source and its Records), the JSON decoder and how its errors
// are described, malformed-record handling, the line stream and its
// buffers, and the decoders of the wire formats several readers carry
// (Anthropic's Messages API, OpenAI's chat messages).
package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/internal/jsstring"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// DefaultMaxBytes bounds how much of one input is read (1 GiB). A single
// line may be as long as the input.
const DefaultMaxBytes = 1 << 30

// Options controls reading.
type Options struct {
	// Format, when set, overrides detection from content.
	Format model.Format
	// Lenient skips malformed records, recording each in [model.Transcript.Bad],
	// instead of stopping at the first one.
	Lenient bool
	// MaxBytes bounds the size of one input; 0 means [DefaultMaxBytes].
	MaxBytes int64
	// Measure keeps what a reader that counts needs (inspect), not the
	// content: Claude Code's blocks keep their types, ids and names, and
	// [model.Block.Measured] holds what [model.Message.Chars] would count of their
	// text, input and raw JSON, which are left empty, neither unescaped
	// nor copied; such a transcript says so ([model.Transcript.Measured]). Its
	// lines read in stages, and the other formats, keep their content:
	// Chars is the same either way.
	Measure bool
	// Select, when set, is called by a walk (transcript.Walk) on each input it
	// would read, in order, before reading any: only the inputs it
	// returns true for are read; the others are passed over as if they
	// held nothing, neither read nor listed as skipped. Names a walk
	// gives transcripts with no id are those of the whole walk.
	Select func(path string) bool
	// name is what a transcript is called when its format records no
	// id: transcript.Walk sets it where files of one walk share a base name;
	// otherwise the base name of the file, without its extensions.
	name string
}

// Named returns opt with the name a transcript is given when its format
// records no id set to name, as transcript.Walk gives it.
func Named(opt Options, name string) Options {
	opt.name = name
	return opt
}

// A NotTranscriptError says that an input holds no transcript ctxbench can
// read: it is empty, binary, or in no known format. Directory walks list
// such files as skipped; a file named explicitly is an error.
type NotTranscriptError struct {
	File   string
	Reason string
}

func (e *NotTranscriptError) Error() string {
	return fmt.Sprintf("%s: not a transcript: %s", e.File, e.Reason)
}

// A Record is one JSON value of the input and the line it starts at.
type Record struct {
	Line int
	Raw  []byte
	// Last marks the final line of an input that does not end in a newline.
	Last bool
	// Nested marks a value inside a record already counted (a line's
	// message, a document's elements).
	Nested bool
}

// A Source is one input prepared for a reader.
type Source struct {
	File string
	Opt  Options
	// data is the input, its records read from it as they are asked for
	// ([source.records]); docRec is the whole document's record when doc.
	data   []byte
	DocRec Record
	Doc    bool
	// Stream, when not nil, is the input's lines being read: head holds
	// the records read from it before (copies), stream the ones after.
	Stream *LineStream
	Head   []Record
	// Db is the path of an SQLite database the input is, and storage
	// of opencode's storage directory, read by opencode's reader instead
	// of records.
	Db      string
	Storage string
}

// Records yields the input's records in order: its non-blank lines for
// JSON Lines without their ends (LF or CRLF), read one at a time (no
// index of all lines is made, so a reader that fails at a line has not
// looked past it), or the single record holding the whole document. A
// stream's records are yielded once, but for those [source.probe] kept.
func (s *Source) Records() iter.Seq[Record] {
	return func(yield func(Record) bool) {
		if s.Stream != nil {
			for _, r := range s.Head {
				if !yield(r) {
					return
				}
			}
			for r, ok := s.Stream.record(); ok; r, ok = s.Stream.record() {
				if !yield(r) {
					return
				}
			}
			return
		}
		if s.Doc {
			yield(s.DocRec)
			return
		}
		data, line := s.data, 0
		for len(data) > 0 {
			line++
			i := bytes.IndexByte(data, '\n')
			var l []byte
			last := false
			if i < 0 {
				l, data, last = data, nil, true
			} else {
				l, data = data[:i], data[i+1:]
			}
			l = bytes.TrimSuffix(l, []byte{'\r'})
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			if !yield(Record{Line: line, Raw: l, Last: last}) {
				return
			}
		}
	}
}

// Probe yields the first records, up to [detectProbe], as records does;
// those read from a stream are kept, for records to yield again.
func (s *Source) Probe() iter.Seq[Record] {
	if s.Stream == nil {
		return s.Records()
	}
	return func(yield func(Record) bool) {
		for i := 0; ; i++ {
			if i == len(s.Head) {
				if i >= DetectProbe {
					return
				}
				r, ok := s.Stream.record()
				if !ok {
					return
				}
				r.Raw = bytes.Clone(r.Raw)
				s.Head = append(s.Head, r)
			}
			if !yield(s.Head[i]) {
				return
			}
		}
	}
}

func NewSource(data []byte, file string, opt Options) (*Source, error) {
	data = bytes.TrimPrefix(data, Utf8BOM)
	if bytes.IndexByte(data, '\n') < 0 && bytes.IndexByte(data, '\r') >= 0 {
		// Lines ended by CR alone (classic Mac OS): JSON strings hold no
		// raw CR, so each is a line end.
		data = bytes.ReplaceAll(data, []byte{'\r'}, []byte{'\n'})
	}
	head := data[:min(len(data), 8192)]
	if BinaryStart(head) {
		return nil, &NotTranscriptError{file, "binary content (NUL bytes)"}
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, &NotTranscriptError{file, "empty"}
	}
	s := &Source{File: file, Opt: opt}
	switch trimmed[0] {
	case '[':
		s.Doc = true
	case '{':
		// One JSON object per line, or one (pretty-printed) document?
		first, rest, _ := bytes.Cut(trimmed, []byte{'\n'})
		first = bytes.TrimSpace(first)
		if !json.Valid(first) && (json.Valid(trimmed) || !bytes.HasSuffix(first, []byte{'}'})) {
			// A malformed first line before lines that are objects of their
			// own is a JSON Lines file with a bad record (skipped with
			// --lenient), not a document.
			// A first line that is a brace alone opens a document.
			s.Doc = json.Valid(trimmed) || len(first) == 1 || !objectLines(rest)
		}
	default:
		if !utf8.Valid(head) {
			return nil, &NotTranscriptError{file, "binary content"}
		}
		return nil, &NotTranscriptError{file, "not JSON or JSON Lines"}
	}
	if s.Doc {
		line := 1 + bytes.Count(data[:len(data)-len(bytes.TrimLeft(data, " \t\r\n"))], []byte{'\n'})
		var v any
		if err := validate(trimmed, &v); err != nil {
			// A document cannot be read in part: this is an error even when
			// reading leniently.
			var se *json.SyntaxError
			if errors.As(err, &se) {
				line += bytes.Count(trimmed[:min(int(se.Offset), len(trimmed))], []byte{'\n'})
			}
			return nil, &model.SyntaxError{File: file, Line: line, Msg: DescribeJSONError(err, Record{Last: true})}
		}
		s.DocRec = Record{Line: line, Raw: trimmed}
		return s, nil
	}
	s.data = data
	return s, nil
}

// BinaryStart reports whether the head of an input holds a NUL byte
// that makes it a binary file (a device, an image, a compressed file not
// named): any NUL, unless the first line is a whole JSON value, or the
// head is JSON text (it starts with an object or an array, is UTF-8, and
// holds at most 8 NULs, or 1 byte in 100). In JSON text a NUL is its record's
// fault, a malformed record named at its line (JSON allows no raw control
// character).
func BinaryStart(head []byte) bool {
	nuls := bytes.Count(head, []byte{0})
	if nuls == 0 {
		return false
	}
	first, _, found := bytes.Cut(head, []byte{'\n'})
	if found && json.Valid(first) {
		return false
	}
	text := bytes.TrimLeft(head, " \t\r\n")
	return len(text) == 0 || text[0] != '{' && text[0] != '[' || nuls > max(8, len(head)/100) || !utf8Head(head)
}

// utf8Head reports whether head is UTF-8 but for a character cut at its
// end.
func utf8Head(head []byte) bool {
	for cut := range min(len(head), utf8.UTFMax) {
		if utf8.Valid(head[:len(head)-cut]) {
			return true
		}
	}
	return false
}

// objectLines reports whether one of the first lines of data (up to
// [detectProbe]) is a JSON object with a member on a line of its own, as
// JSON Lines' are and a pretty-printed document's never are.
func objectLines(data []byte) bool {
	for range DetectProbe {
		if len(data) == 0 {
			return false
		}
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		line = bytes.TrimSpace(line)
		if len(line) > 2 && line[0] == '{' && line[len(line)-1] == '}' && json.Valid(line) {
			return true
		}
	}
	return false
}

// MaxUsage is the most tokens one field of one call's usage may count:
// far beyond any API's context, and low enough that a session's sums of
// millions of calls do not overflow.
const MaxUsage = 1 << 40

// CheckUsage holds every call's recorded usage to 0 ≤ field ≤ MaxUsage:
// a negative or overflowing count is a malformed record, named at its
// line (in lenient mode the usage is dropped and the record counted in
// t.Bad).
func (s *Source) CheckUsage(t *model.Transcript) error {
	check := func(u *model.Usage, line int) (bool, error) {
		if err := u.Check(MaxUsage); err != nil {
			return false, s.Bad(t, line, "usage: %v", err)
		}
		return true, nil
	}
	for i := range t.Messages {
		m := &t.Messages[i]
		if m.Usage == nil {
			continue
		}
		ok, err := check(m.Usage, m.Pos.Line)
		if err != nil {
			return err
		}
		if !ok {
			m.Usage = nil
		}
	}
	if t.Unattributed != nil {
		ok, err := check(t.Unattributed, 0)
		if err != nil {
			return err
		}
		if !ok {
			t.Unattributed = nil
		}
	}
	kept := t.UnattributedByModel[:0]
	for _, m := range t.UnattributedByModel {
		ok, err := check(&m.Usage, 0)
		if err != nil {
			return err
		}
		if ok {
			kept = append(kept, m)
		}
	}
	t.UnattributedByModel = kept
	return nil
}

// Bad handles a malformed record: in strict mode it returns the error that
// stops the read; in lenient mode it records it in t and returns nil.
func (s *Source) Bad(t *model.Transcript, line int, format string, args ...any) error {
	e := &model.SyntaxError{File: s.File, Line: line, Msg: fmt.Sprintf(format, args...)}
	if !s.Opt.Lenient {
		return e
	}
	t.BadRecords++
	if len(t.Bad) < MaxBadListed {
		t.Bad = append(t.Bad, e)
	}
	return nil
}

// MaxBadListed is how many malformed records a transcript lists
// ([model.Transcript.Bad]); the rest are counted, not kept: a file of millions
// of bad lines read leniently takes no memory for them.
const MaxBadListed = 1000

// Decode unmarshals a record into v. A malformed record is reported through
// s.bad, and decode returns ok=false so that the caller skips it.
//
// Invalid UTF-8 is read as the WHATWG decoder (JavaScript's TextDecoder,
// which the TypeScript agents read their logs with) reads it: one U+FFFD
// per maximal ill-formed subsequence ([jsstring.ReplaceInvalid]), where
// encoding/json would make one per byte.
func (s *Source) Decode(t *model.Transcript, r Record, v any) (ok bool, err error) {
	raw := r.Raw
	if !utf8.Valid(raw) {
		if !r.Nested && !s.Doc {
			t.InvalidUTF8++
		}
		raw = []byte(jsstring.ReplaceInvalid(string(raw)))
	}
	if e := Unmarshal(raw, v); e != nil {
		return false, s.Bad(t, r.Line, "%s", DescribeJSONError(e, r))
	}
	return true, nil
}

func DescribeJSONError(err error, r Record) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se) && se.Error() == "unexpected end of JSON input" && r.Last:
		return "truncated record: the input ends inside it"
	case errors.As(err, &se) || err.Error() == "unexpected end of JSON input":
		return "invalid JSON: " + err.Error()
	case errors.As(err, &te):
		found := te.Value
		if len(found) > 40 {
			found = strings.ToValidUTF8(found[:40], "") + "…"
		}
		if te.Field != "" {
			return fmt.Sprintf("field %.80q: expected %s, found JSON %s", te.Field, jsonKind(te.Type), found)
		}
		return fmt.Sprintf("expected %s, found JSON %s", jsonKind(te.Type), found)
	}
	msg := err.Error()
	if len(msg) > 200 {
		msg = strings.ToValidUTF8(msg[:200], "") + "…"
	}
	return msg
}

// jsonKind names what JSON a Go type reads: "an object", "a number"…
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer within " + t.Kind().String()
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "a value"
}

// Elems returns the elements of the JSON array raw, each with the line it
// starts at, raw itself starting at line base.
func Elems(raw []byte, base int) ([]Record, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("expected a JSON array, found %v", tok)
	}
	var out []Record
	line, pos := base, 0
	for dec.More() {
		off := int(dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		start := skipSep(raw, off)
		line += bytes.Count(raw[pos:start], []byte{'\n'})
		pos = start
		out = append(out, Record{Line: line, Raw: v, Nested: true})
	}
	return out, nil
}

// Member returns the raw value of key in the JSON object raw and the line
// it starts at, raw itself starting at line base.
func Member(raw []byte, base int, key string) (json.RawMessage, int, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, 0, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, 0, false
		}
		off := int(dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, 0, false
		}
		if k, _ := tok.(string); k == key {
			start := skipSep(raw, off)
			return v, base + bytes.Count(raw[:start], []byte{'\n'}), true
		}
	}
	return nil, 0, false
}

// skipSep skips white space, commas and colons from raw[i:].
func skipSep(raw []byte, i int) int {
	for i < len(raw) {
		switch raw[i] {
		case ' ', '\t', '\r', '\n', ',', ':':
			i++
		default:
			return i
		}
	}
	return i
}

// validate returns nil if raw is valid JSON, and otherwise the error
// json.Unmarshal gives for it (which carries the offset).
func validate(raw []byte, v *any) error {
	if json.Valid(raw) {
		return nil
	}
	return json.Unmarshal(raw, v)
}
