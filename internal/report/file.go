package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// WriteFile writes the file name atomically: write fills a temporary file
// in the same directory, which replaces name only once write and the flush
// to disk have succeeded. On any error the temporary file is removed and
// name is left as it was, so no half-written output is ever seen.
//
// Atomic replacement is for regular files. A symbolic link is followed:
// its target is replaced, the link kept. A device, a named pipe or a
// socket (/dev/null, a FIFO), and any name under /dev/ (/dev/stdout,
// even when a shell redirected it to a file), is written through, as a
// shell redirection would. Temporary files of earlier runs killed before
// they could remove them (".NAME.tmp…" beside the target, untouched for
// 10 minutes: [removeStale]) are removed first.
func WriteFile(name string, write func(w *bufio.Writer) error) (err error) {
	if strings.HasPrefix(filepath.Clean(name), "/dev/") {
		// /dev/stdout, /dev/fd/N: the stream the name stands for, even
		// when it is a file a shell redirected to.
		return writeThrough(name, name, write)
	}
	target, err := resolve(name)
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if fi, err := os.Stat(target); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return fmt.Errorf("writing %s: a directory", name)
		}
		return writeThrough(name, target, write)
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	removeStale(dir, base)
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := os.Rename(f.Name(), target); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

// resolve follows name's symbolic links to the file they name, which
// need not exist yet.
func resolve(name string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return name, nil
		}
		link, err := os.Readlink(name)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(name), link)
		}
		name = link
	}
	return "", errors.New("too many symbolic links")
}

// writeThrough writes to a file that is not a regular one, in place,
// after what it holds (a file behind /dev/stdout keeps what the command
// printed before).
func writeThrough(name, target string, write func(w *bufio.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil && !strings.HasPrefix(err.Error(), "writing ") {
		err = fmt.Errorf("writing %s: %w", name, err)
	}
	return err
}

// staleAfter is how long a temporary file goes untouched before a later
// run takes it for one a killed run left.
const staleAfter = 10 * time.Minute

// removeStale removes what runs killed before they could remove it left
// for base in dir, once it has gone untouched for staleAfter: WriteFile's
// temporary files (".base.tmp…"), and the folders WriteReport and a
// RowsWriter build (".base.tmpN", and ".base.tmpN.old", the folder a
// swap replaced), untouched when nothing in them is touched either. A
// folder another run is writing is touched as it writes (a RowsWriter at
// least once a minute), and is left.
func removeStale(dir, base string) {
	matches, _ := filepath.Glob(filepath.Join(dir, "."+escapeGlob(base)+".tmp*"))
	for _, m := range matches {
		fi, err := os.Lstat(m)
		switch {
		case err != nil:
		case fi.Mode().IsRegular():
			if time.Since(fi.ModTime()) > staleAfter {
				os.Remove(m)
			}
		case fi.IsDir() && isTempDir(filepath.Base(m), base) && untouched(m, staleAfter):
			os.RemoveAll(m)
		}
	}
}

// isTempDir reports whether name is that of a folder os.MkdirTemp made
// for base (".base.tmp" and digits), or that folder renamed by swapDir
// (".old" after).
func isTempDir(name, base string) bool {
	n := strings.TrimSuffix(strings.TrimPrefix(name, "."+base+".tmp"), ".old")
	return n != "" && strings.Trim(n, "0123456789") == ""
}

// untouched reports whether neither the folder dir nor a folder or file
// in it was modified in the last d (links are neither followed nor
// counted: the folders of ctxbench's runs hold none).
func untouched(dir string, d time.Duration) bool {
	cutoff := time.Now().Add(-d)
	fresh := errors.New("fresh")
	err := filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && !e.Type().IsRegular() {
			return nil
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		if fi.ModTime().After(cutoff) {
			return fresh
		}
		return nil
	})
	return err == nil
}

func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// WriteTo is WriteFile, except that "-" writes to stdout.
func WriteTo(name string, stdout io.Writer, write func(w *bufio.Writer) error) error {
	if name != "-" {
		return WriteFile(name, write)
	}
	bw := bufio.NewWriterSize(stdout, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	return bw.Flush()
}
