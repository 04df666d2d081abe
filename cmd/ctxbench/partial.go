package main

import (
	"bufio"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/batch"
	"github.com/ctxbench/ctxbench/internal/report"
	"github.com/ctxbench/ctxbench/transcript"
)

// startShard checks a command's --shard, --partial and --merge, and
// starts the shard's partial (nil: not a shard), which picks the walk's
// files.
func startShard(e *env, command, shard, partial string, merge []string, f *inputFlags, paths []string) (*batch.Writer, error) {
	switch {
	case len(merge) > 0 && shard != "":
		return nil, errors.New("--merge and --shard: merge the partials of a sharded run, or run a shard")
	case len(merge) > 0:
		return nil, nil
	case shard == "" && partial != "":
		return nil, errors.New("--partial is the file a shard writes: give --shard K/N")
	case shard == "":
		return nil, nil
	case partial == "":
		return nil, withHint(errors.New("--shard needs --partial FILE"), fmt.Sprintf("then 'ctxbench %s --merge FILE…', with the same flags, writes what one run would", command))
	}
	sh, err := batch.ParseShard(shard)
	if err != nil {
		return nil, fmt.Errorf("--shard: %w", err)
	}
	if len(f.defaultPaths(e, paths)) == 0 {
		if !f.Samples {
			return nil, errNoSessions
		}
		return nil, errors.New("--shard splits the files of the paths given: the embedded samples are one run")
	}
	if slices.Contains(paths, stdinPath) {
		return nil, errors.New("--shard splits files: standard input cannot be split")
	}
	w, err := batch.NewWriter(sh)
	if err == nil {
		f.selectFile = w.Select
	}
	return w, err
}

// mergePartials merges the partials at paths ([batch.Merge]) of a run
// of want's command, flags and rows by this version, giving each entry
// to add, then warns of the files the shards passed over and fails, as
// a run over them would, when they read no transcript.
func mergePartials(e *env, paths []string, want batch.Header, add func(line []byte) error) (*batch.Merged, error) {
	m, err := batch.Merge(paths, want, version, add)
	var noRows *batch.NoRowsError
	switch {
	case errors.Is(err, batch.ErrOtherFlags):
		return nil, withHint(err, "give the merge the flags every shard was given, but --shard, --partial and the paths")
	case errors.As(err, &noRows):
		return nil, fmt.Errorf("%s: a partial without the rows --parquet and --jsonl write: give the shards --parquet or --jsonl too", noRows.Path)
	case err != nil:
		return nil, err
	}
	for _, s := range m.Skipped {
		e.warn(fmt.Errorf("skipped %s: %s", s.File, s.Reason))
	}
	if m.Read == 0 && len(m.Skipped) > 0 {
		return nil, fmt.Errorf("no transcript read from %s: all %d files were skipped", strings.Join(m.Paths, ", "), len(m.Skipped))
	}
	return m, nil
}

// addToShard appends a transcript's entry, read from file, to the
// shard's partial.
func addToShard(w *batch.Writer, file string, entry any) error {
	if err := w.Add(file, entry); err != nil {
		return fmt.Errorf("--shard: %w", err)
	}
	return nil
}

// writeShard writes the shard's partial to path, h completed by the
// shard ([batch.Writer.WriteTo]).
func writeShard(w *batch.Writer, path string, h batch.Header, skipped []transcript.SkippedFile) error {
	return report.WriteFile(path, func(bw *bufio.Writer) error { return w.WriteTo(bw, h, skipped) })
}
