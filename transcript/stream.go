package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/ctxbench/ctxbench/internal/limit"
)

// streamBuffer is the size of the buffer JSON Lines are read through: a
// longer line is gathered in a slice of its own.
const streamBuffer = 256 << 10

// streamReaders holds the buffered readers of the inputs read before, for
// the next ones.
var streamReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, streamBuffer) }}

// A lineStream reads an input's lines one at a time, within a limit of
// bytes: a line is held until the next is read, not the whole input.
type lineStream struct {
	br   *bufio.Reader
	name string // the input, as errors name it
	max  int64
	read int64 // bytes read
	line int   // lines read
	long []byte
	err  error // why the input ends early: a read error or the limit
	done bool
	prev []byte // the line returned last, overwritten when poisonLines
}

// poisonLines, set by tests, makes a lineStream overwrite each line it
// returned when the next is asked for, so that a reader that keeps a
// line's bytes past that reads garbage at once, wherever the buffer is.
var poisonLines bool

// next returns the next line with its end, if any; false at the end of
// the input or at an error (ls.err). The line is valid until the next call.
func (ls *lineStream) next() ([]byte, bool) {
	if poisonLines {
		for i := range ls.prev {
			ls.prev[i] = '#'
		}
	}
	if ls.done {
		return nil, false
	}
	l, err := ls.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		ls.long = append(ls.long[:0], l...)
		for errors.Is(err, bufio.ErrBufferFull) && ls.read+int64(len(ls.long)) <= ls.max {
			l, err = ls.br.ReadSlice('\n')
			ls.long = append(ls.long, l...)
		}
		l = ls.long
	}
	ls.read += int64(len(l))
	switch {
	case ls.read > ls.max:
		ls.done, ls.err = true, &limit.TooLargeError{Name: ls.name, Max: ls.max}
		return nil, false
	case err == io.EOF:
		ls.done = true
		if len(l) == 0 {
			return nil, false
		}
	case err != nil && !errors.Is(err, bufio.ErrBufferFull):
		ls.done, ls.err = true, fmt.Errorf("reading %s: %w", ls.name, err)
		return nil, false
	}
	ls.line++
	if poisonLines {
		ls.prev = l
	}
	return l, true
}

// record returns the next non-blank line as a record; false at the end
// of the input or at an error.
func (ls *lineStream) record() (record, bool) {
	for {
		l, ok := ls.next()
		if !ok {
			return record{}, false
		}
		if r := ls.lineRecord(l); len(bytes.TrimSpace(r.raw)) > 0 {
			return r, true
		}
	}
}

// lineRecord is l, the line just read with its end, as a record: without
// its end (LF or CRLF), last when it has none.
func (ls *lineStream) lineRecord(l []byte) record {
	last := l[len(l)-1] != '\n'
	return record{line: ls.line, raw: bytes.TrimSuffix(bytes.TrimSuffix(l, []byte{'\n'}), []byte{'\r'}), last: last}
}

// readStream reads the transcripts of r, whose name in errors is name and
// whose transcripts are those of file: JSON Lines a line at a time, so
// that no more than the longest line of the input is held beside the
// transcripts; any other input (a document, lines ended by CR alone,
// binary content) whole, as [Parse] reads it. size is the input's, when
// known (0: unknown), and max the most bytes read of it.
func readStream(r io.Reader, file, name string, size, max int64, opt Options) ([]*Transcript, error) {
	br := streamReaders.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		streamReaders.Put(br)
	}()
	ls := &lineStream{br: br, name: name, max: max}
	// What is read before the first line that is not blank decides, and
	// is read again when the input is read whole.
	var pre []byte
	if b, _ := br.Peek(len(utf8BOM)); bytes.Equal(b, utf8BOM) {
		pre = bytes.Clone(utf8BOM)
		br.Discard(len(utf8BOM))
		ls.read = int64(len(utf8BOM))
	}
	head, _ := br.Peek(8192)
	lines := !binaryStart(head)
	var rec record // the first line that is not blank
	var first []byte
	for lines && first == nil {
		l, ok := ls.next()
		if !ok {
			break
		}
		pre = append(pre, l...)
		rec = ls.lineRecord(pre[len(pre)-len(l):])
		first = bytes.TrimSpace(rec.raw)
		if len(first) == 0 {
			first = nil
		}
	}
	if ls.err != nil {
		return nil, ls.err
	}
	// JSON Lines: a first line that is a JSON object of its own, ended by
	// LF (newSource reads the same input as JSON Lines).
	if first == nil || rec.last || first[0] != '{' || !json.Valid(first) {
		data, err := limit.ReadAllInto(io.MultiReader(bytes.NewReader(pre), br), name, max, size, readBuffers.get(size))
		if err != nil {
			return nil, err
		}
		ts, err := Parse(data, file, opt)
		readBuffers.put(data)
		return ts, err
	}
	s := &source{file: file, opt: opt, stream: ls, head: []record{rec}}
	return parse(s, opt)
}
