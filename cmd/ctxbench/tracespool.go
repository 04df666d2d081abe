package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/ctxbench/ctxbench/internal/jsonstream"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A runSpool collects lines the runs write as they make their steps (the
// trace, --json's steps), in memory that does not grow with the calls:
// each run of a transcript (the runs are replayed at once) writes its
// lines to a file of its own, appended to the spool in the policies'
// order when the transcript is done. The spool is copied to its
// destination at the end, which is then written as every output is
// (whole or not at all), or read back run by run.
type runSpool struct {
	all  *os.File // the lines of the transcripts done
	size int64
	// ranges are where each run's lines are in all, in the order the
	// runs were appended.
	ranges [][2]int64
	// line makes the writer of a run's lines.
	line  func(w io.Writer, t *transcript.Transcript, p window.Policy) stepWriter
	runs  []*os.File
	bufs  []*bufio.Writer
	write []stepWriter
}

// A stepWriter writes a step's line, with what pricing adds to it (nil:
// not priced).
type stepWriter func(s *replay.Step, priced *replay.PricedCall) error

func newRunSpool(line func(w io.Writer, t *transcript.Transcript, p window.Policy) stepWriter) (*runSpool, error) {
	f, err := os.CreateTemp("", "ctxbench-spool-*.jsonl")
	if err != nil {
		return nil, err
	}
	return &runSpool{all: f, line: line}, nil
}

// newTraceSpool spools the trace ([replay.TraceWriter]).
func newTraceSpool() (*runSpool, error) {
	return newRunSpool(func(w io.Writer, t *transcript.Transcript, p window.Policy) stepWriter {
		return replay.NewTraceWriter(w, t.ID, p.Name(), p.Params()).Write
	})
}

// newStepSpool spools each step as a line of compact JSON, as --json
// writes it ([replay.StepEncoder]).
func newStepSpool() (*runSpool, error) {
	return newRunSpool(func(w io.Writer, _ *transcript.Transcript, _ window.Policy) stepWriter {
		enc := replay.NewStepEncoder(w)
		return func(s *replay.Step, _ *replay.PricedCall) error { return enc.Encode(s) }
	})
}

// start opens a file for each run of t under ps.
func (sp *runSpool) start(t *transcript.Transcript, ps []window.Policy) error {
	sp.dropRuns()
	for _, p := range ps {
		f, err := os.CreateTemp("", "ctxbench-spool-run-*.jsonl")
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(f, 64<<10)
		sp.runs, sp.bufs = append(sp.runs, f), append(sp.bufs, bw)
		sp.write = append(sp.write, sp.line(bw, t, p))
	}
	return nil
}

// observe writes run k's step s (each run on its own goroutine).
func (sp *runSpool) observe(k int, s *replay.Step, priced *replay.PricedCall) error {
	return sp.write[k](s, priced)
}

// finish appends the runs' lines to the spool, in order.
func (sp *runSpool) finish() error {
	for k, f := range sp.runs {
		if err := sp.bufs[k].Flush(); err != nil {
			return err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		n, err := io.Copy(sp.all, f)
		if err != nil {
			return err
		}
		sp.ranges = append(sp.ranges, [2]int64{sp.size, sp.size + n})
		sp.size += n
	}
	sp.dropRuns()
	return nil
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
	br := bufio.NewReaderSize(io.NewSectionReader(sp.all, r[0], r[1]-r[0]), 64<<10)
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

// dropRuns closes and removes the runs' files.
func (sp *runSpool) dropRuns() {
	for _, f := range sp.runs {
		f.Close()
		os.Remove(f.Name())
	}
	sp.runs, sp.bufs, sp.write = nil, nil, nil
}

// close removes every file of the spool.
func (sp *runSpool) close() error {
	sp.dropRuns()
	return errors.Join(sp.all.Close(), os.Remove(sp.all.Name()))
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
