package transcript

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

// DefaultMaxBytes bounds how much of one input is read (1 GiB). A single
// line may be as long as the input.
const DefaultMaxBytes = 1 << 30

// Options controls reading.
type Options struct {
	// Format, when set, overrides detection from content.
	Format Format
	// Lenient skips malformed records, recording each in [Transcript.Bad],
	// instead of stopping at the first one.
	Lenient bool
	// MaxBytes bounds the size of one input; 0 means [DefaultMaxBytes].
	MaxBytes int64
	// Measure keeps what a reader that counts needs (inspect), not the
	// content: Claude Code's blocks keep their types, ids and names, and
	// [Block.Measured] holds what [Message.Chars] would count of their
	// text, input and raw JSON, which are left empty, neither unescaped
	// nor copied; such a transcript says so ([Transcript.Measured]). Its
	// lines read in stages, and the other formats, keep their content:
	// Chars is the same either way.
	Measure bool
	// Select, when set, is called by a walk ([Walk]) on each input it
	// would read, in order, before reading any: only the inputs it
	// returns true for are read; the others are passed over as if they
	// held nothing, neither read nor listed as skipped. Names a walk
	// gives transcripts with no id are those of the whole walk.
	Select func(path string) bool
	// name is what a transcript is called when its format records no
	// id: [Walk] sets it where files of one walk share a base name;
	// otherwise the base name of the file, without its extensions.
	name string
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

// Read reads every transcript in r, whose name (used in positions and error
// messages) is file, up to opt.MaxBytes of it, as [Parse] reads the whole
// input. JSON Lines are read a line at a time, so that what is held beside
// the transcripts is the longest line, not the input; lines of any length
// are accepted.
func Read(r io.Reader, file string, opt Options) ([]*Transcript, error) {
	maxBytes := opt.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	// The head first: binary input (a device, an image) is refused
	// before the rest is read.
	head := make([]byte, min(maxBytes+1, 8192+3))
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	switch h := head[:n]; {
	case bytes.HasPrefix(h, gzipMagic):
		// A compressed log is read as the log: up to maxBytes of it.
		zr, err := gzip.NewReader(io.MultiReader(bytes.NewReader(h), r))
		if err != nil {
			return nil, fmt.Errorf("reading %s (gzip): %w", file, err)
		}
		return readStream(zr, file, file+" (gzip)", 0, maxBytes, opt)
	case bytes.HasPrefix(h, utf16LE), bytes.HasPrefix(h, utf16BE):
		return nil, &NotTranscriptError{file, "UTF-16 text: convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)"}
	}
	for _, c := range compressed {
		if bytes.HasPrefix(head[:n], c.magic) {
			return nil, &NotTranscriptError{file, c.name + "-compressed: decompress it first (" + c.tool + ")"}
		}
	}
	if bytes.HasPrefix(head[:n], sqliteMagic) {
		s, done, err := sqliteSource(r, head[:n], file, opt, maxBytes)
		if err != nil {
			return nil, err
		}
		defer done()
		return parse(s, opt)
	}
	if reason := sqliteCompanion(file, head[:n]); reason != "" {
		return nil, &NotTranscriptError{file, reason}
	}
	if binaryStart(bytes.TrimPrefix(head[:n], utf8BOM)) {
		return nil, &NotTranscriptError{file, "binary content (NUL bytes)"}
	}
	var size int64 // a file's, to refuse it or read it into a buffer of its size
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
	}
	if size > maxBytes {
		return nil, &limit.TooLargeError{Name: file, Max: maxBytes}
	}
	return readStream(io.MultiReader(bytes.NewReader(head[:n]), r), file, file, size, maxBytes, opt)
}

// Parse reads every transcript in data, as [Read] does.
func Parse(data []byte, file string, opt Options) ([]*Transcript, error) {
	s, err := newSource(data, file, opt)
	if err != nil {
		return nil, err
	}
	return parse(s, opt)
}

// parse reads every transcript of s.
func parse(s *source, opt Options) ([]*Transcript, error) {
	file := s.file
	f := opt.Format
	if f == "" {
		var err error
		if f, err = detect(s); err != nil {
			return nil, err
		}
	}
	rd, ok := readers[f]
	if !ok {
		return nil, fmt.Errorf("unknown format %q (known: %v)", f, Formats())
	}
	if s.db != "" && f != FormatOpencode {
		return nil, fmt.Errorf("%s: an SQLite database, read as %s only", file, FormatOpencode)
	}
	if s.storage != "" && f != FormatOpencode {
		return nil, fmt.Errorf("%s: opencode's storage directory, read as %s only", file, FormatOpencode)
	}
	ts, err := rd(s)
	if err != nil {
		return nil, err
	}
	if s.stream != nil && s.stream.err != nil {
		return nil, s.stream.err // the input ended early
	}
	for _, t := range ts {
		t.File = file
		t.Format = f
		if err := s.checkUsage(t); err != nil {
			return nil, err
		}
	}
	if err := noMessages(file, ts); err != nil {
		return nil, err
	}
	model.FindImages(ts)
	if s.doc && len(ts) > 0 {
		// A document is one transcript: count its lines with invalid UTF-8.
		for _, l := range bytes.Split(s.docRec.raw, []byte{'\n'}) {
			if !utf8.Valid(l) {
				ts[0].InvalidUTF8++
			}
		}
	}
	return ts, nil
}

// noMessages returns a [*NotTranscriptError] when no transcript of ts
// holds a message or a compaction: an input read as nothing is not read
// as an empty session. The reason says what the records were: skipped
// kinds, or the first malformed one.
func noMessages(file string, ts []*Transcript) error {
	skipped, bad := map[string]int{}, 0
	var first *SyntaxError
	for _, t := range ts {
		if len(t.Messages) > 0 || len(t.Compactions) > 0 {
			return nil
		}
		for k, n := range t.Skipped {
			skipped[k] += n
		}
		bad += t.BadRecords
		if first == nil && len(t.Bad) > 0 {
			first = t.Bad[0]
		}
	}
	reason := "no messages"
	if len(skipped) > 0 {
		var kinds []string
		for k, n := range skipped {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
		slices.Sort(kinds)
		reason += "; records skipped: " + strings.Join(kinds, ", ")
	}
	if bad > 0 {
		reason += fmt.Sprintf("; %d malformed records skipped, the first %v", bad, first)
	}
	return &NotTranscriptError{file, reason}
}

// A record is one JSON value of the input and the line it starts at.
type record struct {
	line int
	raw  []byte
	// last marks the final line of an input that does not end in a newline.
	last bool
	// nested marks a value inside a record already counted (a line's
	// message, a document's elements).
	nested bool
}

// A source is one input prepared for a reader.
type source struct {
	file string
	opt  Options
	// data is the input, its records read from it as they are asked for
	// ([source.records]); docRec is the whole document's record when doc.
	data   []byte
	docRec record
	doc    bool
	// stream, when not nil, is the input's lines being read: head holds
	// the records read from it before (copies), stream the ones after.
	stream *lineStream
	head   []record
	// db is the path of an SQLite database the input is, and storage
	// of opencode's storage directory, read by opencode's reader instead
	// of records.
	db      string
	storage string
}

// records yields the input's records in order: its non-blank lines for
// JSON Lines without their ends (LF or CRLF), read one at a time (no
// index of all lines is made, so a reader that fails at a line has not
// looked past it), or the single record holding the whole document. A
// stream's records are yielded once, but for those [source.probe] kept.
func (s *source) records() iter.Seq[record] {
	return func(yield func(record) bool) {
		if s.stream != nil {
			for _, r := range s.head {
				if !yield(r) {
					return
				}
			}
			for r, ok := s.stream.record(); ok; r, ok = s.stream.record() {
				if !yield(r) {
					return
				}
			}
			return
		}
		if s.doc {
			yield(s.docRec)
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
			if !yield(record{line: line, raw: l, last: last}) {
				return
			}
		}
	}
}

// probe yields the first records, up to [detectProbe], as records does;
// those read from a stream are kept, for records to yield again.
func (s *source) probe() iter.Seq[record] {
	if s.stream == nil {
		return s.records()
	}
	return func(yield func(record) bool) {
		for i := 0; ; i++ {
			if i == len(s.head) {
				if i >= detectProbe {
					return
				}
				r, ok := s.stream.record()
				if !ok {
					return
				}
				r.raw = bytes.Clone(r.raw)
				s.head = append(s.head, r)
			}
			if !yield(s.head[i]) {
				return
			}
		}
	}
}

var (
	utf8BOM   = []byte{0xEF, 0xBB, 0xBF}
	utf16LE   = []byte{0xFF, 0xFE}
	utf16BE   = []byte{0xFE, 0xFF}
	gzipMagic = []byte{0x1f, 0x8b}
	// compressed are the formats named, not read.
	compressed = []struct {
		magic      []byte
		name, tool string
	}{
		{[]byte{0xFD, '7', 'z', 'X', 'Z', 0x00}, "xz", "xz -d"},
		{[]byte{0x28, 0xB5, 0x2F, 0xFD}, "zstd", "zstd -d"},
		{[]byte("BZh"), "bzip2", "bzip2 -d"},
	}
)

func newSource(data []byte, file string, opt Options) (*source, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if bytes.IndexByte(data, '\n') < 0 && bytes.IndexByte(data, '\r') >= 0 {
		// Lines ended by CR alone (classic Mac OS): JSON strings hold no
		// raw CR, so each is a line end.
		data = bytes.ReplaceAll(data, []byte{'\r'}, []byte{'\n'})
	}
	head := data[:min(len(data), 8192)]
	if binaryStart(head) {
		return nil, &NotTranscriptError{file, "binary content (NUL bytes)"}
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, &NotTranscriptError{file, "empty"}
	}
	s := &source{file: file, opt: opt}
	switch trimmed[0] {
	case '[':
		s.doc = true
	case '{':
		// One JSON object per line, or one (pretty-printed) document?
		first, rest, _ := bytes.Cut(trimmed, []byte{'\n'})
		first = bytes.TrimSpace(first)
		if !json.Valid(first) && (json.Valid(trimmed) || !bytes.HasSuffix(first, []byte{'}'})) {
			// A malformed first line before lines that are objects of their
			// own is a JSON Lines file with a bad record (skipped with
			// --lenient), not a document.
			// A first line that is a brace alone opens a document.
			s.doc = json.Valid(trimmed) || len(first) == 1 || !objectLines(rest)
		}
	default:
		if !utf8.Valid(head) {
			return nil, &NotTranscriptError{file, "binary content"}
		}
		return nil, &NotTranscriptError{file, "not JSON or JSON Lines"}
	}
	if s.doc {
		line := 1 + bytes.Count(data[:len(data)-len(bytes.TrimLeft(data, " \t\r\n"))], []byte{'\n'})
		var v any
		if err := validate(trimmed, &v); err != nil {
			// A document cannot be read in part: this is an error even when
			// reading leniently.
			var se *json.SyntaxError
			if errors.As(err, &se) {
				line += bytes.Count(trimmed[:min(int(se.Offset), len(trimmed))], []byte{'\n'})
			}
			return nil, &SyntaxError{File: file, Line: line, Msg: describeJSONError(err, record{last: true})}
		}
		s.docRec = record{line: line, raw: trimmed}
		return s, nil
	}
	s.data = data
	return s, nil
}

// binaryStart reports whether the head of an input holds a NUL byte
// that makes it a binary file (a device, an image, a compressed file not
// named): any NUL, unless the first line is a whole JSON value, or the
// head is JSON text (it starts with an object or an array, is UTF-8, and
// holds at most 8 NULs, or 1 byte in 100). In JSON text a NUL is its record's
// fault, a malformed record named at its line (JSON allows no raw control
// character).
func binaryStart(head []byte) bool {
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
	for range detectProbe {
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

// checkUsage holds every call's recorded usage to 0 ≤ field ≤ MaxUsage:
// a negative or overflowing count is a malformed record, named at its
// line (in lenient mode the usage is dropped and the record counted in
// t.Bad).
func (s *source) checkUsage(t *Transcript) error {
	check := func(u *Usage, line int) (bool, error) {
		if err := u.Check(MaxUsage); err != nil {
			return false, s.bad(t, line, "usage: %v", err)
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

// bad handles a malformed record: in strict mode it returns the error that
// stops the read; in lenient mode it records it in t and returns nil.
func (s *source) bad(t *Transcript, line int, format string, args ...any) error {
	e := &SyntaxError{File: s.file, Line: line, Msg: fmt.Sprintf(format, args...)}
	if !s.opt.Lenient {
		return e
	}
	t.BadRecords++
	if len(t.Bad) < MaxBadListed {
		t.Bad = append(t.Bad, e)
	}
	return nil
}

// MaxBadListed is how many malformed records a transcript lists
// ([Transcript.Bad]); the rest are counted, not kept: a file of millions
// of bad lines read leniently takes no memory for them.
const MaxBadListed = 1000

// decode unmarshals a record into v. A malformed record is reported through
// s.bad, and decode returns ok=false so that the caller skips it.
//
// Invalid UTF-8 is read as the WHATWG decoder (JavaScript's TextDecoder,
// which the TypeScript agents read their logs with) reads it: one U+FFFD
// per maximal ill-formed subsequence ([ReplaceInvalid]), where
// encoding/json would make one per byte.
func (s *source) decode(t *Transcript, r record, v any) (ok bool, err error) {
	raw := r.raw
	if !utf8.Valid(raw) {
		if !r.nested && !s.doc {
			t.InvalidUTF8++
		}
		raw = []byte(ReplaceInvalid(string(raw)))
	}
	if e := unmarshal(raw, v); e != nil {
		return false, s.bad(t, r.line, "%s", describeJSONError(e, r))
	}
	return true, nil
}

func describeJSONError(err error, r record) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se) && se.Error() == "unexpected end of JSON input" && r.last:
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

// elems returns the elements of the JSON array raw, each with the line it
// starts at, raw itself starting at line base.
func elems(raw []byte, base int) ([]record, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("expected a JSON array, found %v", tok)
	}
	var out []record
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
		out = append(out, record{line: line, raw: v, nested: true})
	}
	return out, nil
}

// member returns the raw value of key in the JSON object raw and the line
// it starts at, raw itself starting at line base.
func member(raw []byte, base int, key string) (json.RawMessage, int, bool) {
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
