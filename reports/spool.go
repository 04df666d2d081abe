package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/internal/tempfile"
	"github.com/ctxbench/ctxbench/replay"
)

// A seriesSpool holds the transcripts' per-call series out of memory: a
// report over thousands of sessions keeps each session's totals, and
// reads its series back, one session at a time, when it draws and
// writes them. Each record is a session's series as JSON (which
// round-trips every number exactly), in a temporary file with no name.
type seriesSpool struct {
	f    *os.File
	ends []int64 // where each record ends
}

// transcriptSeries is what the spool holds of a TranscriptResult.
type transcriptSeries struct {
	Billed []float64        `json:"b"`
	Misses []cost.CacheMiss `json:"m"`
	Runs   []runSeries      `json:"r"`
}

// runSeries is what the spool holds of a PolicyResult.
type runSeries struct {
	Messages   []int             `json:"m"`
	Tokens     []int             `json:"t"`
	Retention  []float64         `json:"r"`
	Cost       []float64         `json:"c"`
	Breaks     []cost.CacheBreak `json:"b"`
	CacheRead  []int64           `json:"cr"`
	CacheWrite []int64           `json:"cw"`
	Events     []int             `json:"e"`
	// Fired and Warnings are the run's summary's, which only
	// results.json shows.
	Fired    []replay.FiredAt `json:"f"`
	Warnings []replay.Warning `json:"w"`
}

func newSeriesSpool() (*seriesSpool, error) {
	f, err := tempfile.Unlinked("ctxbench-report-series-*.json")
	if err != nil {
		return nil, err
	}
	return &seriesSpool{f: f}, nil
}

// put appends t's series and takes them out of t.
func (s *seriesSpool) put(t *TranscriptResult) error {
	ts := transcriptSeries{Billed: t.Billed, Misses: t.Misses, Runs: make([]runSeries, len(t.Runs))}
	for k := range t.Runs {
		p := &t.Runs[k]
		ts.Runs[k] = runSeries{p.Messages, p.Tokens, p.Retention, p.Cost, p.Breaks, p.CacheRead, p.CacheWrite, p.Events, p.Summary.Fired, p.Summary.Warnings}
		p.Messages, p.Tokens, p.Retention, p.Cost, p.Breaks, p.CacheRead, p.CacheWrite, p.Events = nil, nil, nil, nil, nil, nil, nil, nil
		p.Summary.Fired, p.Summary.Warnings = nil, nil
	}
	t.Billed, t.Misses = nil, nil
	b, err := json.Marshal(ts)
	if err != nil {
		return err
	}
	end := int64(len(b))
	if n := len(s.ends); n > 0 {
		end += s.ends[n-1]
	}
	if _, err := s.f.WriteAt(b, end-int64(len(b))); err != nil {
		return err
	}
	s.ends = append(s.ends, end)
	return nil
}

// get returns t with its series, the i-th put.
func (s *seriesSpool) get(i int, t TranscriptResult) (TranscriptResult, error) {
	start := int64(0)
	if i > 0 {
		start = s.ends[i-1]
	}
	var ts transcriptSeries
	if err := json.NewDecoder(io.NewSectionReader(s.f, start, s.ends[i]-start)).Decode(&ts); err != nil {
		return t, fmt.Errorf("reading the series of %s back: %w", t.File, err)
	}
	if len(ts.Runs) != len(t.Runs) {
		return t, fmt.Errorf("reading the series of %s back: %d runs, want %d", t.File, len(ts.Runs), len(t.Runs))
	}
	t.Billed, t.Misses = ts.Billed, ts.Misses
	t.Runs = slices.Clone(t.Runs)
	for k, rs := range ts.Runs {
		p := &t.Runs[k]
		p.Messages, p.Tokens, p.Retention, p.Cost, p.Breaks, p.CacheRead, p.CacheWrite, p.Events = rs.Messages, rs.Tokens, rs.Retention, rs.Cost, rs.Breaks, rs.CacheRead, rs.CacheWrite, rs.Events
		p.Summary.Fired, p.Summary.Warnings = rs.Fired, rs.Warnings
	}
	return t, nil
}

func (s *seriesSpool) close() error { return s.f.Close() }

// transcript returns the i-th transcript with its per-call series, read
// back from the spool where the report keeps them there.
func (r *Report) transcript(i int) (TranscriptResult, error) {
	if r.series == nil {
		return r.Transcripts[i], nil
	}
	return r.series.get(i, r.Transcripts[i])
}

// Close lets go of what the report keeps out of memory (the series of a
// Builder's report with SpoolSeries); the report can no longer be
// written after it.
func (r *Report) Close() error {
	if r.series == nil {
		return nil
	}
	return r.series.close()
}
