package transcript

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/model"
)

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
		return nil, &NotTranscriptError{File: file, Reason: "UTF-16 text: convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)"}
	}
	for _, c := range compressed {
		if bytes.HasPrefix(head[:n], c.magic) {
			return nil, &NotTranscriptError{File: file, Reason: c.name + "-compressed: decompress it first (" + c.tool + ")"}
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
		return nil, &NotTranscriptError{File: file, Reason: reason}
	}
	if decode.BinaryStart(bytes.TrimPrefix(head[:n], decode.Utf8BOM)) {
		return nil, &NotTranscriptError{File: file, Reason: "binary content (NUL bytes)"}
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
	s, err := decode.NewSource(data, file, opt)
	if err != nil {
		return nil, err
	}
	return parse(s, opt)
}

// parse reads every transcript of s.
func parse(s *decode.Source, opt Options) ([]*Transcript, error) {
	file := s.File
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
	if s.Db != "" && f != FormatOpencode {
		return nil, fmt.Errorf("%s: an SQLite database, read as %s only", file, FormatOpencode)
	}
	if s.Storage != "" && f != FormatOpencode {
		return nil, fmt.Errorf("%s: opencode's storage directory, read as %s only", file, FormatOpencode)
	}
	ts, err := rd(s)
	if err != nil {
		return nil, err
	}
	if s.Stream != nil && s.Stream.Err != nil {
		return nil, s.Stream.Err // the input ended early
	}
	for _, t := range ts {
		t.File = file
		t.Format = f
		if err := s.CheckUsage(t); err != nil {
			return nil, err
		}
	}
	if err := noMessages(file, ts); err != nil {
		return nil, err
	}
	model.FindImages(ts)
	if s.Doc && len(ts) > 0 {
		// A document is one transcript: count its lines with invalid UTF-8.
		for _, l := range bytes.Split(s.DocRec.Raw, []byte{'\n'}) {
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
	return &NotTranscriptError{File: file, Reason: reason}
}

var (
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

// readStream reads the transcripts of r, whose name in errors is name and
// whose transcripts are those of file: JSON Lines a line at a time, so
// that no more than the longest line of the input is held beside the
// transcripts; any other input (a document, lines ended by CR alone,
// binary content) whole, as [Parse] reads it. size is the input's, when
// known (0: unknown), and max the most bytes read of it.
func readStream(r io.Reader, file, name string, size, max int64, opt Options) ([]*Transcript, error) {
	br := decode.StreamReaders.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		decode.StreamReaders.Put(br)
	}()
	ls := &decode.LineStream{Br: br, Name: name, Max: max}
	// What is read before the first line that is not blank decides, and
	// is read again when the input is read whole.
	var pre []byte
	if b, _ := br.Peek(len(decode.Utf8BOM)); bytes.Equal(b, decode.Utf8BOM) {
		pre = bytes.Clone(decode.Utf8BOM)
		br.Discard(len(decode.Utf8BOM))
		ls.Read = int64(len(decode.Utf8BOM))
	}
	head, _ := br.Peek(8192)
	lines := !decode.BinaryStart(head)
	var rec decode.Record // the first line that is not blank
	var first []byte
	for lines && first == nil {
		l, ok := ls.Next()
		if !ok {
			break
		}
		pre = append(pre, l...)
		rec = ls.LineRecord(pre[len(pre)-len(l):])
		first = bytes.TrimSpace(rec.Raw)
		if len(first) == 0 {
			first = nil
		}
	}
	if ls.Err != nil {
		return nil, ls.Err
	}
	// JSON Lines: a first line that is a JSON object of its own, ended by
	// LF (newSource reads the same input as JSON Lines).
	if first == nil || rec.Last || first[0] != '{' || !json.Valid(first) {
		data, err := limit.ReadAllInto(io.MultiReader(bytes.NewReader(pre), br), name, max, size, decode.ReadBuffers.Get(size))
		if err != nil {
			return nil, err
		}
		ts, err := Parse(data, file, opt)
		decode.ReadBuffers.Put(data)
		return ts, err
	}
	s := &decode.Source{File: file, Opt: opt, Stream: ls, Head: []decode.Record{rec}}
	return parse(s, opt)
}

// sqliteMagic begins every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// sqliteCompanion names the files SQLite keeps beside a database in WAL
// mode (its write-ahead log, by its magic number; its shared-memory
// index, by name), which are read with the database, or returns "".
func sqliteCompanion(file string, head []byte) string {
	switch {
	case len(head) >= 4 && head[0] == 0x37 && head[1] == 0x7f && head[2] == 0x06 && head[3]&^1 == 0x82:
		return "an SQLite write-ahead log, read with its database"
	case strings.HasSuffix(file, "-shm") && bytes.IndexByte(head, 0) >= 0:
		return "an SQLite shared-memory index, read with its database"
	}
	return ""
}

// sqliteSource prepares an SQLite database for reading: the file itself
// when r is one (so that its write-ahead log is read too), else a copy of
// r's bytes (head, then the rest, up to maxBytes) in a temporary file,
// removed by done.
func sqliteSource(r io.Reader, head []byte, file string, opt Options, maxBytes int64) (s *decode.Source, done func(), err error) {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			return &decode.Source{File: file, Opt: opt, Db: f.Name()}, func() {}, nil
		}
	}
	tmp, err := os.CreateTemp("", "ctxbench-*.db")
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", file, err)
	}
	done = func() { tmp.Close(); os.Remove(tmp.Name()) }
	n, err := io.Copy(tmp, io.LimitReader(io.MultiReader(bytes.NewReader(head), r), maxBytes+1))
	if err == nil && n > maxBytes {
		err = fmt.Errorf("%s: larger than %d bytes", file, maxBytes)
	}
	if err != nil {
		done()
		return nil, nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return &decode.Source{File: file, Opt: opt, Db: tmp.Name()}, done, nil
}
