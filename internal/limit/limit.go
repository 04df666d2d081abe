// Package limit reads an input whole under a size limit: a file that is
// larger, or a stream (a device, a pipe) that goes on past it, is an
// error that names it and the limit, never a silently shortened read
// nor an exhausted memory.
package limit

import (
	"fmt"
	"io"
	"os"
)

// Sizes the inputs read whole are held to.
const (
	Config   = 1 << 20   // ctxbench.yaml, AIDF's config.yml, a prompt template
	Prices   = 64 << 20  // a price file (LiteLLM's is about 1.5 MB)
	Baseline = 256 << 20 // a check baseline or partial
)

// A TooLargeError is an input over its limit.
type TooLargeError struct {
	Name string
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than %s, the most ctxbench reads of it", e.Name, Bytes(e.Max))
}

// ReadFile reads the file at path, at most max bytes: a regular file
// larger than max fails before it is read.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > max {
		return nil, &TooLargeError{Name: path, Max: max}
	}
	return ReadAll(f, path, max)
}

// ReadAll reads r to its end, named name in the error when it holds more
// than max bytes.
func ReadAll(r io.Reader, name string, max int64) ([]byte, error) {
	return ReadAllSized(r, name, max, 0)
}

// ReadAllSized is [ReadAll] of an input of about size bytes (a file's, from
// its Stat; 0: unknown): the buffer is made that large at once instead of
// doubling up to it, which takes about twice the input in allocations and
// up to one and a half times it at once.
func ReadAllSized(r io.Reader, name string, max, size int64) ([]byte, error) {
	return ReadAllInto(r, name, max, size, nil)
}

// ReadAllInto is [ReadAllSized] into buf's array when it holds the input
// (its capacity is more than size): what a caller that reads many inputs
// one after another, done with each before the next, reuses.
func ReadAllInto(r io.Reader, name string, max, size int64, buf []byte) ([]byte, error) {
	lr := io.LimitReader(r, max+1)
	var err error
	if size > 0 {
		if int64(cap(buf)) <= min(size, max) {
			buf = make([]byte, 0, min(size, max)+1)
		}
		buf, err = readGrowing(lr, buf[:0])
	} else {
		buf, err = readBlocks(lr)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(buf)) > max {
		return nil, &TooLargeError{Name: name, Max: max}
	}
	return buf, nil
}

// readGrowing reads r to its end into buf, which holds the input when
// its size was right; past it, it grows as io.ReadAll's does.
func readGrowing(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readBlocks reads r, of unknown size, to its end into blocks twice as
// large each time, up to 64 MiB, joined once at the end: it holds the
// input twice at most, where a buffer grown in place holds its old and
// new arrays, and the garbage of the ones before, at once.
func readBlocks(r io.Reader) ([]byte, error) {
	var blocks [][]byte
	total, size := 0, 512
	for {
		b := make([]byte, size)
		n, err := io.ReadFull(r, b)
		blocks, total = append(blocks, b[:n]), total+n
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(2*size, 64<<20)
	}
	if len(blocks) == 1 {
		return blocks[0], nil
	}
	out := make([]byte, 0, total)
	for i, b := range blocks {
		out = append(out, b...)
		blocks[i] = nil
	}
	return out, nil
}

// Bytes writes a size in the largest binary unit it is a whole number
// of: 1 GiB, 64 MiB, 1500 bytes.
func Bytes(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
