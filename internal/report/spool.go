package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ctxbench/ctxbench/internal/tempfile"
)

// A transcriptSpool holds the transcripts' results out of memory: a
// report over thousands of sessions keeps each session's name and size,
// and reads the rest back, one session at a time, when it draws and
// writes them. Each record is a session's TranscriptResult as JSON
// (which round-trips every number exactly), in a temporary file with no
// name.
type transcriptSpool struct {
	f    *os.File
	ends []int64 // where each record ends
}

func newTranscriptSpool() (*transcriptSpool, error) {
	f, err := tempfile.Unlinked("ctxbench-report-transcripts-*.json")
	if err != nil {
		return nil, err
	}
	return &transcriptSpool{f: f}, nil
}

// put appends t and returns what the report keeps of it in memory. A
// record is t without its runs, then each run, as JSON values written
// straight to the file: a long session's results are tens of MB of JSON,
// which one Marshal would hold twice over.
func (s *transcriptSpool) put(t *TranscriptResult) (TranscriptResult, error) {
	start := int64(0)
	if n := len(s.ends); n > 0 {
		start = s.ends[n-1]
	}
	w := &countingWriter{w: io.NewOffsetWriter(s.f, start)}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	head := *t
	head.Runs = t.Runs[:0] // nil stays nil, empty stays empty: get appends the runs to it
	if err := enc.Encode(&head); err != nil {
		return TranscriptResult{}, err
	}
	for i := range t.Runs {
		if err := enc.Encode(&t.Runs[i]); err != nil {
			return TranscriptResult{}, err
		}
	}
	if err := bw.Flush(); err != nil {
		return TranscriptResult{}, err
	}
	s.ends = append(s.ends, start+w.n)
	return TranscriptResult{File: t.File, ID: t.ID, Parent: t.Parent, Format: t.Format, Calls: t.Calls}, nil
}

// A countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// get returns the i-th transcript put, whose header is t.
func (s *transcriptSpool) get(i int, t TranscriptResult) (TranscriptResult, error) {
	start := int64(0)
	if i > 0 {
		start = s.ends[i-1]
	}
	var full TranscriptResult
	dec := json.NewDecoder(io.NewSectionReader(s.f, start, s.ends[i]-start))
	err := dec.Decode(&full)
	for err == nil && dec.More() {
		full.Runs = append(full.Runs, PolicyResult{})
		err = dec.Decode(&full.Runs[len(full.Runs)-1])
	}
	if err != nil {
		return t, fmt.Errorf("reading the results of %s back: %w", t.File, err)
	}
	return full, nil
}

func (s *transcriptSpool) close() error { return s.f.Close() }

// transcript returns the i-th transcript whole, read back from the spool
// where the report keeps it there.
func (r *Report) transcript(i int) (TranscriptResult, error) {
	if r.spool == nil {
		return r.Transcripts[i], nil
	}
	return r.spool.get(i, r.Transcripts[i])
}

// each calls f with each transcript whole, in order, one at a time (read
// back from the spool where the report keeps them there): those show
// says, or every one when show is nil.
func (r *Report) each(show []bool, f func(i int, t *TranscriptResult) error) error {
	for i := range r.Transcripts {
		if show != nil && !show[i] {
			continue
		}
		t, err := r.transcript(i)
		if err != nil {
			return err
		}
		if err := f(i, &t); err != nil {
			return err
		}
	}
	return nil
}

// Close lets go of what the report keeps out of memory (the transcripts
// of a Builder's report with SpoolTranscripts); the report can no longer be
// written after it.
func (r *Report) Close() error {
	var err error
	if r.counts != nil {
		err = r.counts.Close()
	}
	if r.spool != nil {
		err = errors.Join(err, r.spool.close())
	}
	return err
}
