package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"

	"github.com/ctxbench/ctxbench/internal/jsonstream"
	"github.com/ctxbench/ctxbench/internal/tempfile"
)

// An elemSpool keeps the elements of a large array of a --json document
// (cost's transcripts) out of memory: each is encoded as it is made, a
// line of compact JSON in a temporary file with no name, and read back
// when the document is written.
type elemSpool struct {
	f   *os.File
	w   *bufio.Writer
	enc *json.Encoder
}

func newElemSpool() (*elemSpool, error) {
	f, err := tempfile.Unlinked("ctxbench-elements-*.jsonl")
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // as env.writeJSON
	return &elemSpool{f: f, w: w, enc: enc}, nil
}

// add appends v's compact JSON.
func (s *elemSpool) add(v any) error {
	return s.enc.Encode(v) // one line: compact JSON holds no newline
}

// addRaw appends an element already encoded as compact JSON.
func (s *elemSpool) addRaw(b []byte) error {
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
