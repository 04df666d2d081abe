package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"sync/atomic"

	"github.com/ctxbench/ctxbench/internal/jsonstream"
	"github.com/ctxbench/ctxbench/internal/tempfile"
	"github.com/ctxbench/ctxbench/internal/tracefmt"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A runSpool collects lines the runs write as they make their steps (the
// trace, --json's steps), in memory that does not grow with the calls nor
// with the policies. Each run of a transcript (the runs are replayed at
// once) writes to a buffer of its own; a buffer past its share of
// spoolMemory is moved to the scratch file as a chunk. When the
// transcript is done, each run's chunks and buffer are appended to the
// spool in the policies' order. The spool is copied to its destination at
// the end, which is then written as every output is (whole or not at
// all), or read back run by run.
//
// The spool uses two files whatever the number of runs, both removed from
// their directory as soon as they are made: a run that is killed leaves
// nothing behind.
type runSpool struct {
	all  *os.File // the lines of the transcripts done
	size int64
	// ranges are where each run's lines are in all, in the order the
	// runs were appended.
	ranges [][2]int64
	// scratch holds the current transcript's chunks, in the order they
	// were moved out; next is its end.
	scratch *os.File
	next    atomic.Int64
	// line makes the writer of a run's lines.
	line  func(w io.Writer, t *transcript.Transcript, p window.Policy) stepWriter
	runs  []*runBuffer
	write []stepWriter
}

// spoolMemory bounds what a spool keeps in memory at once, whatever the
// number of runs: each run's buffer holds at most its share of it (and
// never less than minRunBuffer).
const (
	spoolMemory  = 16 << 20
	minRunBuffer = 4 << 10
)

// A runBuffer is one run's lines: the chunks moved to the scratch file,
// then what is still in memory. Only the run's goroutine writes to it.
type runBuffer struct {
	sp     *runSpool
	limit  int
	buf    []byte
	chunks [][2]int64 // offset and length in sp.scratch
	err    error
}

func (b *runBuffer) Write(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	b.buf = append(b.buf, p...)
	if len(b.buf) >= b.limit {
		b.err = b.moveOut()
	}
	return len(p), b.err
}

// moveOut writes the buffer to the scratch file as a chunk.
func (b *runBuffer) moveOut() error {
	n := int64(len(b.buf))
	off := b.sp.next.Add(n) - n
	if _, err := b.sp.scratch.WriteAt(b.buf, off); err != nil {
		return err
	}
	b.chunks = append(b.chunks, [2]int64{off, n})
	b.buf = b.buf[:0]
	return nil
}

// A stepWriter writes a step's line, with what pricing adds to it (nil:
// not priced).
type stepWriter func(s *replay.Step, priced *tracefmt.PricedCall) error

func newRunSpool(line func(w io.Writer, t *transcript.Transcript, p window.Policy) stepWriter) (*runSpool, error) {
	all, err := tempfile.Unlinked("ctxbench-spool-*.jsonl")
	if err != nil {
		return nil, err
	}
	scratch, err := tempfile.Unlinked("ctxbench-spool-runs-*.jsonl")
	if err != nil {
		all.Close()
		return nil, err
	}
	return &runSpool{all: all, scratch: scratch, line: line}, nil
}

// newTraceSpool spools the trace ([tracefmt.TraceWriter]).
func newTraceSpool() (*runSpool, error) {
	return newRunSpool(func(w io.Writer, t *transcript.Transcript, p window.Policy) stepWriter {
		return tracefmt.NewTraceWriter(w, t.ID, p.Name(), p.Params()).Write
	})
}

// newStepSpool spools each step as a line of compact JSON, as --json
// writes it ([tracefmt.StepEncoder]).
func newStepSpool() (*runSpool, error) {
	return newRunSpool(func(w io.Writer, _ *transcript.Transcript, _ window.Policy) stepWriter {
		enc := tracefmt.NewStepEncoder(w)
		return func(s *replay.Step, _ *tracefmt.PricedCall) error { return enc.Encode(s) }
	})
}

// start makes a buffer for each run of t under ps.
func (sp *runSpool) start(t *transcript.Transcript, ps []window.Policy) error {
	sp.runs, sp.write = sp.runs[:0], sp.write[:0]
	limit := max(minRunBuffer, spoolMemory/max(1, len(ps)))
	for _, p := range ps {
		b := &runBuffer{sp: sp, limit: limit}
		sp.runs = append(sp.runs, b)
		sp.write = append(sp.write, sp.line(b, t, p))
	}
	return nil
}

// observe writes run k's step s (each run on its own goroutine).
func (sp *runSpool) observe(k int, s *replay.Step, priced *tracefmt.PricedCall) error {
	return sp.write[k](s, priced)
}

// finish appends the runs' lines to the spool, in order, and empties the
// scratch file for the next transcript.
func (sp *runSpool) finish() error {
	for _, b := range sp.runs {
		if b.err != nil {
			return b.err
		}
		start := sp.size
		for _, c := range b.chunks {
			n, err := io.Copy(sp.all, io.NewSectionReader(sp.scratch, c[0], c[1]))
			sp.size += n
			if err != nil {
				return err
			}
		}
		n, err := sp.all.Write(b.buf)
		sp.size += int64(n)
		if err != nil {
			return err
		}
		sp.ranges = append(sp.ranges, [2]int64{start, sp.size})
	}
	sp.runs, sp.write = sp.runs[:0], sp.write[:0]
	sp.next.Store(0)
	return sp.scratch.Truncate(0)
}

// writeTo copies the spool to w.
func (sp *runSpool) writeTo(w io.Writer) error {
	_, err := io.Copy(w, io.NewSectionReader(sp.all, 0, sp.size))
	return err
}

// eachLine calls emit with each line of the i-th run appended, without
// its newline.
func (sp *runSpool) eachLine(i int, emit func([]byte) error) error {
	r := sp.ranges[i]
	return eachLine(io.NewSectionReader(sp.all, r[0], r[1]-r[0]), emit)
}

// eachLine calls emit with each line of r, without its newline.
func eachLine(r io.Reader, emit func([]byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if err := emit(bytes.TrimSuffix(line, []byte("\n"))); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// close closes the spool's files (their names are already gone).
func (sp *runSpool) close() error {
	return errors.Join(sp.all.Close(), sp.scratch.Close())
}

// writeReplayJSON writes the --json document, each run's steps read back
// from the spool, in the order they were appended.
func writeReplayJSON(e *env, res replayResult, steps *runSpool) error {
	var doc jsonstream.Document
	n := 0
	for _, tr := range res.Transcripts {
		for k := range tr.Runs {
			i := n
			n++
			tr.Runs[k].Steps = doc.Stream(func(emit func([]byte) error) error { return steps.eachLine(i, emit) })
		}
	}
	bw := bufio.NewWriterSize(e.stdout, 64<<10)
	if err := doc.Write(bw, res, e.indent); err != nil {
		return err
	}
	return bw.Flush()
}
