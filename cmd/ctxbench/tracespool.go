package main

import (
	"bufio"
	"errors"
	"io"
	"os"

	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// A traceSpool collects --trace as the runs make it, in memory that does
// not grow with the calls: each run of a transcript (the runs are
// replayed at once) writes its lines to a file of its own, appended to
// the spool in the policies' order when the transcript is done; the
// spool is copied to the trace's destination at the end, which is then
// written as every output is (whole or not at all).
type traceSpool struct {
	all     *os.File // the trace of the transcripts done
	runs    []*os.File
	bufs    []*bufio.Writer
	writers []*replay.TraceWriter
}

func newTraceSpool() (*traceSpool, error) {
	f, err := os.CreateTemp("", "ctxbench-trace-*.jsonl")
	if err != nil {
		return nil, err
	}
	return &traceSpool{all: f}, nil
}

// start opens a file for each run of t under ps.
func (sp *traceSpool) start(t *transcript.Transcript, ps []window.Policy) error {
	sp.dropRuns()
	for _, p := range ps {
		f, err := os.CreateTemp("", "ctxbench-trace-run-*.jsonl")
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(f, 64<<10)
		sp.runs, sp.bufs = append(sp.runs, f), append(sp.bufs, bw)
		sp.writers = append(sp.writers, replay.NewTraceWriter(bw, t.ID, p.Name(), p.Params()))
	}
	return nil
}

// observe writes run k's step s (each run on its own goroutine).
func (sp *traceSpool) observe(k int, s *replay.Step, priced *replay.PricedCall) error {
	return sp.writers[k].Write(s, priced)
}

// finish appends the runs' lines to the spool, in order.
func (sp *traceSpool) finish() error {
	for k, f := range sp.runs {
		if err := sp.bufs[k].Flush(); err != nil {
			return err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.Copy(sp.all, f); err != nil {
			return err
		}
	}
	sp.dropRuns()
	return nil
}

// writeTo copies the spool to w.
func (sp *traceSpool) writeTo(w io.Writer) error {
	if _, err := sp.all.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, sp.all)
	return err
}

// dropRuns closes and removes the runs' files.
func (sp *traceSpool) dropRuns() {
	for _, f := range sp.runs {
		f.Close()
		os.Remove(f.Name())
	}
	sp.runs, sp.bufs, sp.writers = nil, nil, nil
}

// close removes every file of the spool.
func (sp *traceSpool) close() error {
	sp.dropRuns()
	return errors.Join(sp.all.Close(), os.Remove(sp.all.Name()))
}
