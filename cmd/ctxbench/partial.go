package main

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/internal/tempfile"
	"github.com/ctxbench/ctxbench/reports"
	"github.com/ctxbench/ctxbench/suite"
	"github.com/ctxbench/ctxbench/transcript"
)

// A partial is one shard's part of a sharded cost or report run
// (--shard K/N --partial FILE), which --merge combines into what one
// run over every input writes. It is JSON Lines: a header, then one
// line per transcript of the shard, in the order the walk read them,
// each the input's place in the walk, a space, and the transcript's
// entry (what the command adds of it to its totals and outputs).
//
// The inputs are the files the walk lists, each given to the shard its
// path hashes to ([suite.Shard]): a file keeps its shard as others are
// added. The merge reads no transcript: it adds the entries in the
// walk's order, each from the partial that holds its input.
type partialHeader struct {
	Command  string `json:"command"`
	Ctxbench string `json:"ctxbench"`
	// Config is the digest of the flags that shape the results: every
	// shard and the merge must be given the same ([flagsDigest]), but
	// for the rows, which a merge may leave out.
	Config string `json:"config"`
	// Rows says the entries hold their rows (--parquet, --jsonl).
	Rows  bool     `json:"rows"`
	Paths []string `json:"paths"`
	Shard string   `json:"shard"`
	// Inputs counts the files the walk lists; Files are the shard's.
	Inputs int           `json:"inputs"`
	Files  []partialFile `json:"files"`
	// Read counts the transcripts read, Entries the lines that follow.
	Read    int          `json:"read"`
	Entries int          `json:"entries"`
	Skipped []placedSkip `json:"skipped"`
}

type partialFile struct {
	Input int    `json:"input"`
	Path  string `json:"path"`
}

// placedSkip is a file the walk passed over and its place (-1: listed
// as no file to read, by the first shard alone).
type placedSkip struct {
	Input int `json:"input"`
	transcript.SkippedFile
}

// flagsDigest is the digest of a command's flags, v with the shard's
// own (which it zeroes beforehand), as JSON.
func flagsDigest(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// A shardRun writes one shard's partial: it picks the shard's inputs
// (its select is the walk's [transcript.Options] Select) and keeps the
// entries in a temporary file until the header, which counts them, is
// known.
type shardRun struct {
	shard  suite.Shard
	inputs int
	files  []partialFile
	places map[string]int
	dup    string // a path listed twice, which would be given one place

	spool *os.File
	w     *bufio.Writer
	enc   *json.Encoder
	n     int
}

func newShardRun(sh suite.Shard) (*shardRun, error) {
	f, err := tempfile.Unlinked("ctxbench-partial-*.jsonl")
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &shardRun{shard: sh, places: map[string]int{}, spool: f, w: w, enc: enc}, nil
}

// selectFile is the walk's Select: it gives path its place and reports
// whether the shard holds it.
func (s *shardRun) selectFile(path string) bool {
	if _, dup := s.places[path]; dup && s.dup == "" {
		s.dup = path
	}
	s.places[path] = s.inputs
	s.inputs++
	if !s.shard.Holds(path) {
		return false
	}
	s.files = append(s.files, partialFile{s.places[path], path})
	return true
}

// addAt appends the entry of a transcript read from file.
func (s *shardRun) addAt(file string, entry any) error {
	if s.dup != "" {
		return fmt.Errorf("--shard: %s is listed twice: name each input once", s.dup)
	}
	place, ok := s.places[file]
	if !ok {
		return fmt.Errorf("--shard: %s was read but not listed", file)
	}
	s.n++
	s.w.WriteString(strconv.Itoa(place))
	s.w.WriteByte(' ')
	return s.enc.Encode(entry)
}

// write writes the partial to path: h, completed with the shard's
// inputs and skipped files, then the entries.
func (s *shardRun) write(path string, h partialHeader, skipped []transcript.SkippedFile) error {
	if err := s.w.Flush(); err != nil {
		return err
	}
	h.Shard, h.Inputs, h.Files, h.Entries = s.shard.String(), s.inputs, s.files, s.n
	h.Skipped = []placedSkip{}
	for _, f := range skipped {
		place, ok := s.places[f.File]
		if !ok && s.shard.K != 1 {
			continue // no file to read: every shard lists it, the first keeps it
		}
		if !ok {
			place = -1
		}
		h.Skipped = append(h.Skipped, placedSkip{place, f})
	}
	if h.Files == nil {
		h.Files = []partialFile{}
	}
	head, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return reports.WriteFile(path, func(w *bufio.Writer) error {
		w.Write(head)
		w.WriteByte('\n')
		_, err := io.Copy(w, io.NewSectionReader(s.spool, 0, 1<<62))
		return err
	})
}

func (s *shardRun) close() error { return s.spool.Close() }

// startShard checks a command's --shard, --partial and --merge, and
// starts the shard's partial (nil: not a shard).
func startShard(e *env, command, shard, partial string, merge []string, f inputFlags, paths []string) (*shardRun, error) {
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
	sh, err := suite.ParseShard(shard)
	if err != nil {
		return nil, fmt.Errorf("--shard: %w", err)
	}
	if len(f.defaultPaths(e, paths)) == 0 {
		if !f.Samples {
			return nil, errNoSessions
		}
		return nil, errors.New("--shard splits the files of the paths given: the embedded samples are one run")
	}
	if slices.Contains(paths, transcript.Stdin) {
		return nil, errors.New("--shard splits files: standard input cannot be split")
	}
	return newShardRun(sh)
}

// A partialReader reads a partial's entries in order.
type partialReader struct {
	path string
	h    partialHeader
	f    *os.File
	r    *bufio.Reader
	// next is the next entry's place and bytes (place -1: none left).
	next     int
	nextLine []byte
	read     int
}

func openPartial(path string) (*partialReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	p := &partialReader{path: path, f: f, r: bufio.NewReaderSize(f, 64<<10)}
	head, err := p.r.ReadBytes('\n')
	if err == io.EOF {
		err = errors.New("the header is cut short")
	}
	if err == nil && len(head) > limit.Baseline {
		err = fmt.Errorf("a header of %d bytes", len(head))
	}
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(head))
		dec.DisallowUnknownFields()
		err = dec.Decode(&p.h)
	}
	if err == nil && (p.h.Command == "" || p.h.Shard == "") {
		err = errors.New("no command or shard")
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: not a ctxbench partial: %w", path, err)
	}
	if err := p.advance(); err != nil {
		f.Close()
		return nil, err
	}
	return p, nil
}

// advance reads the next entry's line.
func (p *partialReader) advance() error {
	line, err := p.r.ReadBytes('\n')
	if err == io.EOF && len(line) == 0 {
		p.next, p.nextLine = -1, nil
		if p.read != p.h.Entries {
			return fmt.Errorf("%s: %d entries, its header says %d: a partial cut short", p.path, p.read, p.h.Entries)
		}
		return nil
	}
	if err != nil && err != io.EOF {
		return fmt.Errorf("%s: %w", p.path, err)
	}
	p.read++
	num, rest, ok := bytes.Cut(bytes.TrimSuffix(line, []byte("\n")), []byte(" "))
	place, perr := strconv.Atoi(string(num))
	if !ok || perr != nil || place < 0 {
		return fmt.Errorf("%s:%d: not an entry of a partial", p.path, p.read+1)
	}
	if place < p.next {
		return fmt.Errorf("%s:%d: entries out of the walk's order", p.path, p.read+1)
	}
	p.next, p.nextLine = place, rest
	return nil
}

// A mergedRun is what merging partials found besides the entries.
type mergedRun struct {
	Paths   []string
	Read    int
	Skipped []transcript.SkippedFile
}

// check warns of the files the shards passed over and fails, as a run
// over them would, when they read no transcript.
func (m *mergedRun) check(e *env) error {
	for _, s := range m.Skipped {
		e.warn(fmt.Errorf("skipped %s: %s", s.File, s.Reason))
	}
	if m.Read == 0 && len(m.Skipped) > 0 {
		return fmt.Errorf("no transcript read from %s: all %d files were skipped", strings.Join(m.Paths, ", "), len(m.Skipped))
	}
	return nil
}

// mergePartials checks that the partials at paths are every shard of
// one run of want's command, config and rows, by this version, and
// gives each entry to add in the order one run would have made them.
func mergePartials(paths []string, want partialHeader, add func(line []byte) error) (*mergedRun, error) {
	var parts []*partialReader
	defer func() {
		for _, p := range parts {
			p.f.Close()
		}
	}()
	for _, path := range paths {
		p, err := openPartial(path)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil, errors.New("no partials to merge")
	}
	first := parts[0]
	sm := shardMerge{shards: map[int]string{}, owner: map[int]*partialReader{}}
	res := &mergedRun{Paths: first.h.Paths}
	var skipped []placedSkip
	for _, p := range parts {
		if err := sameRun(p, first, want); err != nil {
			return nil, err
		}
		if err := sm.add(p); err != nil {
			return nil, err
		}
		res.Read += p.h.Read
		skipped = append(skipped, p.h.Skipped...)
	}
	if err := sm.complete(first.h.Inputs); err != nil {
		return nil, err
	}
	for place := range first.h.Inputs {
		p := sm.owner[place]
		for p.next == place {
			if err := add(p.nextLine); err != nil {
				return nil, fmt.Errorf("%s: %w", p.path, err)
			}
			if err := p.advance(); err != nil {
				return nil, err
			}
		}
	}
	for _, p := range parts {
		if p.next >= 0 {
			return nil, fmt.Errorf("%s: an entry of the input %d, which is not the partial's", p.path, p.next)
		}
	}
	slices.SortStableFunc(skipped, func(a, b placedSkip) int { return cmp.Compare(a.Input, b.Input) })
	for _, s := range skipped {
		res.Skipped = append(res.Skipped, s.SkippedFile)
	}
	return res, nil
}

// sameRun checks that p is a partial of the run first is of: want's
// command, flags and rows, this version, the same paths and walk.
func sameRun(p, first *partialReader, want partialHeader) error {
	h := p.h
	_, err := suite.ParseShard(h.Shard)
	switch {
	case h.Command != want.Command:
		return fmt.Errorf("%s: a partial of ctxbench %s, not of %s", p.path, h.Command, want.Command)
	case h.Ctxbench != version:
		return fmt.Errorf("%s: written by ctxbench %s, this is %s: run every shard with the same version", p.path, h.Ctxbench, version)
	case !h.Rows && want.Rows:
		return fmt.Errorf("%s: a partial without the rows --parquet and --jsonl write: give the shards --parquet or --jsonl too", p.path)
	case h.Config != want.Config:
		return withHint(fmt.Errorf("%s: a partial of other flags (digest %.12s, these flags %.12s)", p.path, h.Config, want.Config),
			"give the merge the flags every shard was given, but --shard, --partial and the paths")
	case !slices.Equal(h.Paths, first.h.Paths):
		return fmt.Errorf("%s: a partial of %q, %s of %q", p.path, h.Paths, first.path, first.h.Paths)
	case err != nil:
		return fmt.Errorf("%s: %w", p.path, err)
	case h.Inputs != first.h.Inputs:
		return fmt.Errorf("%s: its walk listed %d files, %s's %d: the shards read different folders", p.path, h.Inputs, first.path, first.h.Inputs)
	}
	return nil
}

// A shardMerge tells which partial holds each shard (its path) and each
// input of the walk.
type shardMerge struct {
	n      int // shards in the split
	shards map[int]string
	owner  map[int]*partialReader
}

// add takes p's shard and inputs: one split, each shard and input once.
func (sm *shardMerge) add(p *partialReader) error {
	h := p.h
	sh, _ := suite.ParseShard(h.Shard) // checked by sameRun
	if sm.n == 0 {
		sm.n = sh.N
	}
	if sh.N != sm.n {
		return fmt.Errorf("%s: shard %s of a split into %d, the others into %d", p.path, sh, sh.N, sm.n)
	}
	if other, dup := sm.shards[sh.K]; dup {
		return fmt.Errorf("%s: shard %s given twice (also %s)", p.path, sh, other)
	}
	sm.shards[sh.K] = p.path
	for _, f := range h.Files {
		if !sh.Holds(f.Path) || f.Input < 0 || f.Input >= h.Inputs {
			return fmt.Errorf("%s: the input %s is not shard %s's", p.path, f.Path, sh)
		}
		if other, dup := sm.owner[f.Input]; dup {
			return fmt.Errorf("%s: the input %s is in %s too", p.path, f.Path, other.path)
		}
		sm.owner[f.Input] = p
	}
	return nil
}

// complete checks that every shard, and every one of the walk's inputs,
// was given.
func (sm *shardMerge) complete(inputs int) error {
	for k := 1; k <= sm.n; k++ {
		if _, ok := sm.shards[k]; !ok {
			return fmt.Errorf("shard %d/%d is missing", k, sm.n)
		}
	}
	if len(sm.owner) != inputs {
		return fmt.Errorf("the partials hold %d files of the walk's %d", len(sm.owner), inputs)
	}
	return nil
}
