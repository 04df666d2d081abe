package main

import (
	"bufio"
	"errors"
	"io"
	"os"

	"github.com/ctxbench/ctxbench/internal/jsonstream"
	"github.com/ctxbench/ctxbench/internal/tempfile"
)

// An elemSpool keeps the elements of a large array of a --json document
// (cost's transcripts) out of memory: each, encoded as compact JSON as
// it is made, is a line of a temporary file with no name, read back
// when the document is written.
type elemSpool struct {
	f *os.File
	w *bufio.Writer
}

func newElemSpool() (*elemSpool, error) {
	f, err := tempfile.Unlinked("ctxbench-elements-*.jsonl")
	if err != nil {
		return nil, err
	}
	return &elemSpool{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// add appends an element encoded as compact JSON (one line: compact
// JSON holds no newline).
func (s *elemSpool) add(b []byte) error {
	s.w.Write(b)
	return s.w.WriteByte('\n')
}

// stream returns the array of the elements added, for d.
func (s *elemSpool) stream(d *jsonstream.Document) *jsonstream.Stream {
	return d.Stream(func(emit func([]byte) error) error {
		if err := s.w.Flush(); err != nil {
			return err
		}
		return eachLine(io.NewSectionReader(s.f, 0, 1<<62), emit)
	})
}

// close closes the spool's file (its name is already gone).
func (s *elemSpool) close() error {
	return errors.Join(s.w.Flush(), s.f.Close())
}
