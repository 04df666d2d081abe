package reports

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
// 10 minutes) are removed first.
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

// removeStale removes the temporary files WriteFile left for base in dir
// when its run was killed.
func removeStale(dir, base string) {
	matches, _ := filepath.Glob(filepath.Join(dir, "."+escapeGlob(base)+".tmp*"))
	for _, m := range matches {
		if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleAfter {
			os.Remove(m)
		}
	}
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
