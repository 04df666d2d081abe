package batch

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/internal/tempfile"
	"github.com/ctxbench/ctxbench/transcript"
)

// A Shard is part K of N of a run's work (K from 1); the zero Shard is
// the whole. A key (an input's path, a check case's key) belongs to the
// shard it hashes to, so a key stays in its shard as others are added.
type Shard struct {
	K, N int
}

// ParseShard reads K/N.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(k)
	b, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 1 || a > b {
		return Shard{}, fmt.Errorf("shard %q: want K/N with 1 ≤ K ≤ N", s)
	}
	return Shard{a, b}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// Holds reports whether key is in the shard.
func (s Shard) Holds(key string) bool {
	if s.N <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64()%uint64(s.N)) == s.K-1
}

// A split is the shards of one split into N that a merge was given, by
// the file that holds each.
type split struct {
	n      int
	shards map[int]string
}

// add takes the shard written as sh in the partial at path: one split,
// each shard once.
func (sp *split) add(path, shard string) (Shard, error) {
	sh, err := ParseShard(shard)
	if err != nil {
		return Shard{}, fmt.Errorf("%s: %w", path, err)
	}
	if sp.shards == nil {
		sp.n, sp.shards = sh.N, map[int]string{}
	}
	if sh.N != sp.n {
		return Shard{}, fmt.Errorf("%s: shard %s of a split into %d, the others into %d", path, sh, sh.N, sp.n)
	}
	if other, dup := sp.shards[sh.K]; dup {
		return Shard{}, fmt.Errorf("%s: shard %s given twice (also %s)", path, sh, other)
	}
	sp.shards[sh.K] = path
	return sh, nil
}

// complete checks that every shard of the split was given.
func (sp *split) complete() error {
	for k := 1; k <= sp.n; k++ {
		if _, ok := sp.shards[k]; !ok {
			return fmt.Errorf("shard %d/%d is missing", k, sp.n)
		}
	}
	return nil
}

// A Header heads a partial: one shard's part of a sharded cost or
// report run (--shard K/N --partial FILE), which [Merge] combines into
// what one run over every input makes. A partial is JSON Lines: the
// header, then one line per transcript of the shard, in the order the
// walk read them, each the input's place in the walk, a space, and the
// transcript's entry (what the command adds of it to its totals and
// outputs).
//
// The inputs are the files the walk lists, each given to the shard its
// path hashes to ([Shard.Holds]): a file keeps its shard as others are
// added. The merge reads no transcript: it adds the entries in the
// walk's order, each from the partial that holds its input.
type Header struct {
	Command  string `json:"command"`
	Ctxbench string `json:"ctxbench"`
	// Config is the digest of the flags that shape the results: every
	// shard and the merge must be given the same ([Digest]), but for the
	// rows, which a merge may leave out.
	Config string `json:"config"`
	// Rows says the entries hold their rows (--parquet, --jsonl).
	Rows  bool     `json:"rows"`
	Paths []string `json:"paths"`
	Shard string   `json:"shard"`
	// Inputs counts the files the walk lists; Files are the shard's.
	Inputs int    `json:"inputs"`
	Files  []File `json:"files"`
	// Read counts the transcripts read, Entries the lines that follow.
	Read    int          `json:"read"`
	Entries int          `json:"entries"`
	Skipped []placedSkip `json:"skipped"`
}

// A File is one of a shard's inputs and its place in the walk.
type File struct {
	Input int    `json:"input"`
	Path  string `json:"path"`
}

// placedSkip is a file the walk passed over and its place (-1: listed
// as no file to read, by the first shard alone).
type placedSkip struct {
	Input int `json:"input"`
	transcript.SkippedFile
}

// Digest is the digest of a command's flags, v with the shard's own
// (which it zeroes beforehand), as JSON.
func Digest(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// A Writer writes one shard's partial: it picks the shard's inputs
// ([Writer.Select], the walk's [transcript.Options] Select) and keeps
// the entries in a temporary file until the header, which counts them,
// is known.
type Writer struct {
	shard  Shard
	inputs int
	files  []File
	places map[string]int
	dup    string // a path listed twice, which would be given one place

	spool *os.File
	w     *bufio.Writer
	enc   *json.Encoder
	n     int
}

// NewWriter starts the partial of shard sh.
func NewWriter(sh Shard) (*Writer, error) {
	f, err := tempfile.Unlinked("ctxbench-partial-*.jsonl")
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &Writer{shard: sh, places: map[string]int{}, spool: f, w: w, enc: enc}, nil
}

// Shard returns the shard the partial is of.
func (s *Writer) Shard() Shard { return s.shard }

// Select is the walk's Select: it gives path its place and reports
// whether the shard holds it.
func (s *Writer) Select(path string) bool {
	if _, dup := s.places[path]; dup && s.dup == "" {
		s.dup = path
	}
	s.places[path] = s.inputs
	s.inputs++
	if !s.shard.Holds(path) {
		return false
	}
	s.files = append(s.files, File{s.places[path], path})
	return true
}

// Add appends the entry of a transcript read from path: an input listed
// twice, or one read but not listed, is an error.
func (s *Writer) Add(path string, entry any) error {
	if s.dup != "" {
		return fmt.Errorf("%s is listed twice: name each input once", s.dup)
	}
	place, ok := s.places[path]
	if !ok {
		return fmt.Errorf("%s was read but not listed", path)
	}
	s.n++
	s.w.WriteString(strconv.Itoa(place))
	s.w.WriteByte(' ')
	return s.enc.Encode(entry)
}

// WriteTo writes the partial to w: h, completed with the shard's inputs
// and skipped files, then the entries.
func (s *Writer) WriteTo(w io.Writer, h Header, skipped []transcript.SkippedFile) error {
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
		h.Files = []File{}
	}
	head, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if _, err := w.Write(append(head, '\n')); err != nil {
		return err
	}
	_, err = io.Copy(w, io.NewSectionReader(s.spool, 0, 1<<62))
	return err
}

// Close lets the spooled entries go.
func (s *Writer) Close() error { return s.spool.Close() }

// A reader reads a partial's entries in order.
type reader struct {
	path string
	h    Header
	f    *os.File
	r    *bufio.Reader
	// next is the next entry's place and bytes (place -1: none left).
	next     int
	nextLine []byte
	read     int
}

func openPartial(path string) (*reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	p := &reader{path: path, f: f, r: bufio.NewReaderSize(f, 64<<10)}
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
func (p *reader) advance() error {
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

// Merged is what merging partials found besides the entries: the paths
// the shards were given, the transcripts they read and the files they
// passed over, in the walk's order.
type Merged struct {
	Paths   []string
	Read    int
	Skipped []transcript.SkippedFile
}

// ErrOtherFlags is the error of a partial made with flags other than the
// merge's.
var ErrOtherFlags = errors.New("a partial of other flags")

// A NoRowsError is the error of a partial without the rows the merge
// writes.
type NoRowsError struct{ Path string }

func (e *NoRowsError) Error() string { return e.Path + ": a partial without the rows" }

// Merge checks that the partials at paths are every shard of one run
// of want's command, config and rows, by ctxbench version, and gives
// each entry to add in the order one run would have made them.
func Merge(paths []string, want Header, version string, add func(line []byte) error) (*Merged, error) {
	var parts []*reader
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
	var sp split
	owner := map[int]*reader{} // of each input of the walk
	res := &Merged{Paths: first.h.Paths}
	var skipped []placedSkip
	for _, p := range parts {
		if err := sameRun(p, first, want, version); err != nil {
			return nil, err
		}
		sh, err := sp.add(p.path, p.h.Shard)
		if err != nil {
			return nil, err
		}
		for _, f := range p.h.Files {
			if !sh.Holds(f.Path) || f.Input < 0 || f.Input >= p.h.Inputs {
				return nil, fmt.Errorf("%s: the input %s is not shard %s's", p.path, f.Path, sh)
			}
			if other, dup := owner[f.Input]; dup {
				return nil, fmt.Errorf("%s: the input %s is in %s too", p.path, f.Path, other.path)
			}
			owner[f.Input] = p
		}
		res.Read += p.h.Read
		skipped = append(skipped, p.h.Skipped...)
	}
	if err := sp.complete(); err != nil {
		return nil, err
	}
	if len(owner) != first.h.Inputs {
		return nil, fmt.Errorf("the partials hold %d files of the walk's %d", len(owner), first.h.Inputs)
	}
	for place := range first.h.Inputs {
		p := owner[place]
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
func sameRun(p, first *reader, want Header, version string) error {
	h := p.h
	_, err := ParseShard(h.Shard)
	switch {
	case h.Command != want.Command:
		return fmt.Errorf("%s: a partial of ctxbench %s, not of %s", p.path, h.Command, want.Command)
	case h.Ctxbench != version:
		return fmt.Errorf("%s: written by ctxbench %s, this is %s: run every shard with the same version", p.path, h.Ctxbench, version)
	case !h.Rows && want.Rows:
		return &NoRowsError{p.path}
	case h.Config != want.Config:
		return fmt.Errorf("%s: %w (digest %.12s, these flags %.12s)", p.path, ErrOtherFlags, h.Config, want.Config)
	case !slices.Equal(h.Paths, first.h.Paths):
		return fmt.Errorf("%s: a partial of %q, %s of %q", p.path, h.Paths, first.path, first.h.Paths)
	case err != nil:
		return fmt.Errorf("%s: %w", p.path, err)
	case h.Inputs != first.h.Inputs:
		return fmt.Errorf("%s: its walk listed %d files, %s's %d: the shards read different folders", p.path, h.Inputs, first.path, first.h.Inputs)
	}
	return nil
}
