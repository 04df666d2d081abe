package decode

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/ctxbench/ctxbench/internal/limit"
)

// StreamBuffer is the size of the buffer JSON Lines are read through: a
// longer line is gathered in a slice of its own.
const StreamBuffer = 256 << 10

// StreamReaders holds the buffered readers of the inputs read before, for
// the next ones.
var StreamReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, StreamBuffer) }}

// A LineStream reads an input's lines one at a time, within a limit of
// bytes: a line is held until the next is read, not the whole input.
type LineStream struct {
	Br   *bufio.Reader
	Name string // the input, as errors name it
	Max  int64
	Read int64 // bytes read
	line int   // lines read
	long []byte
	Err  error // why the input ends early: a read error or the limit
	done bool
	prev []byte // the line returned last, overwritten when poisonLines
}

// PoisonLines, set by tests, makes a lineStream overwrite each line it
// returned when the next is asked for, so that a reader that keeps a
// line's bytes past that reads garbage at once, wherever the buffer is.
var PoisonLines bool

// Next returns the next line with its end, if any; false at the end of
// the input or at an error (ls.err). The line is valid until the next call.
func (ls *LineStream) Next() ([]byte, bool) {
	if PoisonLines {
		for i := range ls.prev {
			ls.prev[i] = '#'
		}
	}
	if ls.done {
		return nil, false
	}
	l, err := ls.Br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		ls.long = append(ls.long[:0], l...)
		for errors.Is(err, bufio.ErrBufferFull) && ls.Read+int64(len(ls.long)) <= ls.Max {
			l, err = ls.Br.ReadSlice('\n')
			ls.long = append(ls.long, l...)
		}
		l = ls.long
	}
	ls.Read += int64(len(l))
	switch {
	case ls.Read > ls.Max:
		ls.done, ls.Err = true, &limit.TooLargeError{Name: ls.Name, Max: ls.Max}
		return nil, false
	case err == io.EOF:
		ls.done = true
		if len(l) == 0 {
			return nil, false
		}
	case err != nil && !errors.Is(err, bufio.ErrBufferFull):
		ls.done, ls.Err = true, fmt.Errorf("reading %s: %w", ls.Name, err)
		return nil, false
	}
	ls.line++
	if PoisonLines {
		ls.prev = l
	}
	return l, true
}

// record returns the next non-blank line as a record; false at the end
// of the input or at an error.
func (ls *LineStream) record() (Record, bool) {
	for {
		l, ok := ls.Next()
		if !ok {
			return Record{}, false
		}
		if r := ls.LineRecord(l); len(bytes.TrimSpace(r.Raw)) > 0 {
			return r, true
		}
	}
}

// LineRecord is l, the line just read with its end, as a record: without
// its end (LF or CRLF), last when it has none.
func (ls *LineStream) LineRecord(l []byte) Record {
	last := l[len(l)-1] != '\n'
	return Record{Line: ls.line, Raw: bytes.TrimSuffix(bytes.TrimSuffix(l, []byte{'\n'}), []byte{'\r'}), Last: last}
}
