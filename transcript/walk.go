package transcript

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A SkippedFile is a file a directory walk passed over, and why.
type SkippedFile struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// Stdin is the path that names standard input.
const Stdin = "-"

// Walk reads the transcripts of every path in order and calls fn with each,
// one at a time. A path is a file, a directory or [Stdin]. A directory is
// walked in lexical order (skipping .git); its files that hold no
// transcript ([NotTranscriptError]) are returned as skipped, while a file
// named explicitly that holds none is an error. Walk stops at the first
// error, including one fn returns.
func Walk(paths []string, opt Options, stdin io.Reader, fn func(*Transcript) error) ([]SkippedFile, error) {
	var skipped []SkippedFile
	emit := func(ts []*Transcript) error {
		for _, t := range ts {
			if err := fn(t); err != nil {
				return err
			}
		}
		return nil
	}
	for _, p := range paths {
		if p == Stdin {
			ts, err := Read(stdin, "<stdin>", opt)
			if err != nil {
				return skipped, err
			}
			if err := emit(ts); err != nil {
				return skipped, err
			}
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = fmt.Errorf("%s: %w", p, pe.Err)
			}
			return skipped, err
		}
		if !info.IsDir() {
			ts, err := ReadFile(p, opt)
			if err != nil {
				return skipped, err
			}
			if err := emit(ts); err != nil {
				return skipped, err
			}
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
				if d.Name() == ".git" {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				skipped = append(skipped, SkippedFile{path, "not a regular file"})
				return nil
			}
			ts, err := ReadFile(path, opt)
			var nt *NotTranscriptError
			if errors.As(err, &nt) {
				skipped = append(skipped, SkippedFile{path, nt.Reason})
				return nil
			}
			if err != nil {
				return err
			}
			return emit(ts)
		})
		if err != nil {
			return skipped, err
		}
	}
	return skipped, nil
}

// ReadFile reads every transcript in the named file.
func ReadFile(name string, opt Options) ([]*Transcript, error) {
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

// ReadFS reads every transcript in the named file of fsys, as ReadFile does.
func ReadFS(fsys fs.FS, name string, opt Options) ([]*Transcript, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", name, err)
	}
	defer f.Close()
	return Read(f, name, opt)
}
