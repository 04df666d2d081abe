package transcript

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
	"github.com/ctxbench/ctxbench/transcript/internal/opencode"
)

// A SkippedFile is a file a directory walk passed over, and why.
type SkippedFile struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// stdinPath is the path that names standard input.
const stdinPath = "-"

// Walk reads the transcripts of every path in order and calls fn with each,
// one at a time. A path is a file, a directory or "-", standard input. A
// directory is walked in lexical order (skipping .git); its files that hold no
// transcript ([NotTranscriptError]) are returned as skipped, while a file
// named explicitly that holds none is an error. A directory's file whose
// malformed record ([SyntaxError]) stops a strict read is skipped too
// when not one message of it reads ([foreign]): it is another program's
// JSON, not a damaged transcript. Walk stops at the first error,
// including one fn returns.
//
// Files are read ahead of fn on several goroutines (up to one per CPU,
// within a budget of bytes ([readBudget]), a larger file alone), while fn
// sees them in order: what Walk gives, and when it stops, is what reading
// them one at a time would.
func Walk(paths []string, opt Options, stdin io.Reader, fn func(*Transcript) error) ([]SkippedFile, error) {
	return WalkPrepared(paths, opt, stdin, nil, func(t *Transcript, _ struct{}) error { return fn(t) })
}

// WalkPrepared is [Walk], with prepare (when not nil) called on each
// transcript by the goroutine that read it, and what it returns given to
// fn with the transcript: work on a transcript that needs no other
// (counting it, filling its caches) runs ahead of fn, on the CPUs the
// reading uses, while fn is busy with the transcripts before it. prepare
// must be safe for concurrent use; it is not called on the transcripts
// of a file that fails to read. Without prepare, fn gets P's zero value.
func WalkPrepared[P any](paths []string, opt Options, stdin io.Reader, prepare func(*Transcript) P, fn func(*Transcript, P) error) ([]SkippedFile, error) {
	jobs := listInputs(paths)
	if opt.Select != nil {
		for i := range jobs {
			if j := &jobs[i]; j.err == nil && j.skip == "" {
				j.passed = !opt.Select(j.path)
			}
		}
	}
	var skipped []SkippedFile
	r := newReadAhead(jobs, opt, stdin, prepare)
	defer r.stop()
	for i, j := range jobs {
		switch {
		case j.err != nil:
			return skipped, j.err
		case j.skip != "":
			skipped = append(skipped, SkippedFile{j.path, j.skip})
			continue
		case j.passed:
			continue
		}
		res := r.result(i)
		var nt *NotTranscriptError
		if !j.explicit && errors.As(res.err, &nt) {
			skipped = append(skipped, SkippedFile{j.path, nt.Reason})
			r.done(i)
			continue
		}
		if reason, ok := foreign(j, res.err, opt); ok {
			skipped = append(skipped, SkippedFile{j.path, reason})
			r.done(i)
			continue
		}
		if res.err != nil {
			return skipped, res.err
		}
		for k, t := range res.ts {
			var p P
			if res.preps != nil {
				p = res.preps[k]
			}
			if err := fn(t, p); err != nil {
				return skipped, err
			}
		}
		r.done(i)
	}
	return skipped, nil
}

// foreign reports whether a strict read of j, a file a directory walk
// found, stopped at a malformed record (err) in a file that holds no
// transcript: one a lenient read finds no message in, or stops in too.
// It returns why
// the file is skipped, naming the record. A file with a message before
// or after the malformed record is a transcript, and err stands.
func foreign(j input, err error, opt Options) (string, bool) {
	var se *SyntaxError
	if j.explicit || j.stdin || opt.Lenient || !errors.As(err, &se) {
		return "", false
	}
	opt.Lenient = true
	var nt *NotTranscriptError
	if _, err := ReadFile(j.path, opt); !errors.As(err, &nt) && !errors.As(err, &se) {
		return "", false
	}
	return fmt.Sprintf("no message in it reads (line %d: %s)", se.Line, se.Msg), true
}

// An input is one thing Walk meets, in order: a file to read (named
// explicitly, or found in a directory), standard input, a file passed
// over, or an error that stops the walk there.
type input struct {
	path     string
	stdin    bool
	explicit bool
	size     int64
	skip     string // why the file is passed over
	passed   bool   // not selected ([Options] Select): neither read nor skipped
	err      error
}

// Largest returns the bytes of the largest file Walk would read of
// paths, listed as it lists them (directories walked, .git passed over,
// the listing stopped at the first path it cannot stat), without reading
// them; standard input counts 0.
func Largest(paths []string) int64 {
	var largest int64
	for _, in := range listInputs(paths) {
		if in.skip == "" {
			largest = max(largest, in.size)
		}
	}
	return largest
}

// listInputs lists what Walk meets, in order; it stops at the first error.
func listInputs(paths []string) []input {
	var out []input
	for _, p := range paths {
		if p == stdinPath {
			out = append(out, input{path: "<stdin>", stdin: true, explicit: true})
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = fmt.Errorf("%s: %w", p, pe.Err)
			}
			return append(out, input{path: p, err: err})
		}
		if !info.IsDir() {
			out = append(out, input{path: p, explicit: true, size: info.Size()})
			continue
		}
		root := p
		if l, err := os.Lstat(p); err == nil && l.Mode()&fs.ModeSymlink != 0 {
			// A link to a directory named on the command line is walked:
			// with a final separator the root resolves to the directory.
			root = strings.TrimRight(p, string(filepath.Separator)) + string(filepath.Separator)
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				switch {
				case d.Name() == ".git":
					return filepath.SkipDir
				case opencode.IsStorage(path):
					// Read whole, as one input; beside a database
					// opencode 1.2 copied it into, passed over unless
					// named.
					in := input{path: path, size: opencode.TreeSize(path), explicit: path == root}
					if db := opencode.DBBeside(path); db != "" && path != root {
						in.skip = "opencode's storage directory, whose sessions " + filepath.Base(db) + " beside it holds (name the directory to read it)"
					}
					out = append(out, in)
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				out = append(out, input{path: path, skip: "not a regular file"})
				return nil
			}
			var size int64
			if info, err := d.Info(); err == nil {
				size = info.Size()
			}
			out = append(out, input{path: path, size: size})
			return nil
		})
		if err != nil {
			return append(out, input{path: p, err: err})
		}
	}
	return out
}

// readBudget bounds the bytes of the files read ahead of fn at once
// (their transcripts are held until fn is done with them), for a walk on
// workers goroutines whose largest file is largest: room for a file per
// worker, and at least 16 MiB so that many small files are read while
// fn is busy or a larger one is read; at most 64 MiB. A file larger than
// the budget is read alone.
func readBudget(workers int, largest int64) int64 {
	return min(64<<20, max(16<<20, int64(workers)*largest))
}

// A readAhead reads a walk's files on several goroutines, within a budget
// of bytes that a file's transcripts hold until fn is done with them.
type readAhead[P any] struct {
	jobs    []input
	results []chan readResult[P]
	mu      sync.Mutex
	cond    *sync.Cond
	bytes   int64 // of the files started and not done
	held    int   // files started and not done
	parsing int   // files being read
	stopped bool
	wg      sync.WaitGroup
}

// A readResult is a file's transcripts, and what prepare made of each.
type readResult[P any] struct {
	ts    []*Transcript
	preps []P
	err   error
}

func newReadAhead[P any](jobs []input, opt Options, stdin io.Reader, prepare func(*Transcript) P) *readAhead[P] {
	r := &readAhead[P]{jobs: jobs, results: make([]chan readResult[P], len(jobs))}
	names := inputNames(jobs)
	r.cond = sync.NewCond(&r.mu)
	for i := range jobs {
		r.results[i] = make(chan readResult[P], 1)
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	var largest int64
	for _, j := range jobs {
		largest = max(largest, j.size)
	}
	budget := readBudget(workers, largest)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for i, j := range jobs {
			if j.err != nil {
				return // the walk stops there
			}
			if j.skip != "" || j.passed {
				continue
			}
			r.mu.Lock()
			// Start a file when fewer than workers are being read and
			// the budget holds it (or nothing else is held): files read
			// ahead wait for fn while the next ones are read.
			for !r.stopped && r.held > 0 && (r.parsing >= workers || r.bytes+j.size > budget) {
				r.cond.Wait()
			}
			if r.stopped {
				r.mu.Unlock()
				return
			}
			r.held++
			r.parsing++
			r.bytes += j.size
			r.mu.Unlock()
			r.wg.Add(1)
			opt := decode.Named(opt, names[i])
			go func() {
				defer r.wg.Done()
				var res readResult[P]
				if j.stdin {
					res.ts, res.err = Read(stdin, j.path, opt)
				} else {
					res.ts, res.err = ReadFile(j.path, opt)
				}
				if prepare != nil && res.err == nil {
					res.preps = make([]P, len(res.ts))
					for k, t := range res.ts {
						res.preps[k] = prepare(t)
					}
				}
				r.mu.Lock()
				r.parsing--
				r.cond.Broadcast()
				r.mu.Unlock()
				r.results[i] <- res
			}()
		}
	}()
	return r
}

// inputNames returns, for each input, what a transcript read from it is
// called when its format records no id ([Options] name): "" (its base
// name without extensions) unless other inputs share that base name, and
// then the base name after as many of its folders as tell it from them
// ("a/trajectory", "b/trajectory"), or its whole path where no folder
// does (a/t.json, a/t.jsonl). Two files are never read as one session.
func inputNames(jobs []input) []string {
	byBase := map[string][]int{}
	for i, j := range jobs {
		if j.err == nil && j.skip == "" && !j.stdin {
			b := decode.BaseID(j.path)
			byBase[b] = append(byBase[b], i)
		}
	}
	names := make([]string, len(jobs))
	for base, group := range byBase {
		if len(group) < 2 {
			continue
		}
		dirs := make(map[int][]string, len(group))
		deepest := 0
		for _, i := range group {
			dirs[i] = strings.Split(filepath.ToSlash(filepath.Dir(filepath.Clean(jobs[i].path))), "/")
			deepest = max(deepest, len(dirs[i]))
		}
		left := group
		for depth := 1; depth <= deepest && len(left) > 0; depth++ {
			count := map[string]int{}
			for _, i := range left {
				names[i] = strings.Join(dirs[i][max(0, len(dirs[i])-depth):], "/") + "/" + base
				count[names[i]]++
			}
			var next []int
			for _, i := range left {
				if count[names[i]] > 1 {
					next = append(next, i)
				}
			}
			left = next
		}
		for _, i := range left {
			names[i] = filepath.ToSlash(jobs[i].path)
		}
	}
	return names
}

// result waits for file i's transcripts.
func (r *readAhead[P]) result(i int) readResult[P] { return <-r.results[i] }

// done says that fn is done with file i: its bytes leave the budget.
func (r *readAhead[P]) done(i int) {
	r.mu.Lock()
	r.held--
	r.bytes -= r.jobs[i].size
	r.cond.Broadcast()
	r.mu.Unlock()
}

// stop starts no more files and waits for those started.
func (r *readAhead[P]) stop() {
	r.mu.Lock()
	r.stopped = true
	r.cond.Broadcast()
	r.mu.Unlock()
	r.wg.Wait()
}

// ReadFile reads every transcript in the named file, or in opencode's
// storage directory.
func ReadFile(name string, opt Options) ([]*Transcript, error) {
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		if !opencode.IsStorage(name) {
			return nil, &NotTranscriptError{File: name, Reason: "a directory"}
		}
		return parse(&decode.Source{File: name, Opt: opt, Storage: name}, opt)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ts, err := Read(f, name, opt)
	if err != nil {
		return nil, err
	}
	return ts, nil
}
