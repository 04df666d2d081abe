package limit

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLimits(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 2048), 0o600); err != nil {
		t.Fatal(err)
	}
	var tl *TooLargeError
	if _, err := ReadFile(big, 1024); !errors.As(err, &tl) || err.Error() != big+": larger than 1 KiB, the most ctxbench reads of it" {
		t.Errorf("a large file: %v", err)
	}
	if b, err := ReadFile(big, 2048); err != nil || len(b) != 2048 {
		t.Errorf("a file at the limit: %d bytes, %v", len(b), err)
	}
	if _, err := ReadAll(strings.NewReader(strings.Repeat("x", 11)), "<stdin>", 10); !errors.As(err, &tl) {
		t.Errorf("a long stream: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadFile("/dev/zero", 1<<20); !errors.As(err, &tl) {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	if got := Bytes(1500); got != "1500 bytes" {
		t.Errorf("Bytes(1500) = %q", got)
	}
}

// TestReadAllSizes: inputs across the blocks of an unknown size, and
// inputs larger and smaller than the size given, read whole; one byte
// more than the most is refused.
func TestReadAllSizes(t *testing.T) {
	data := make([]byte, 3<<20+123)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, c := range []struct {
		n, size int64
	}{{0, 0}, {1, 0}, {511, 0}, {512, 0}, {513, 0}, {int64(len(data)), 0}, {int64(len(data)), 1000}, {1000, int64(len(data))}, {int64(len(data)), int64(len(data))}} {
		got, err := ReadAllSized(struct{ io.Reader }{bytes.NewReader(data[:c.n])}, "x", 1<<30, c.size)
		if err != nil || !bytes.Equal(got, data[:c.n]) {
			t.Errorf("%d bytes, size %d: %d read, %v", c.n, c.size, len(got), err)
		}
	}
	for _, size := range []int64{0, 100} {
		var tl *TooLargeError
		if _, err := ReadAllSized(struct{ io.Reader }{bytes.NewReader(data[:101])}, "x", 100, size); !errors.As(err, &tl) {
			t.Errorf("101 bytes of at most 100 (size %d): %v", size, err)
		}
	}
}

// TestReadAllInto: an array that holds the input is read into, whatever it
// held before; one too small is left for a new one; the limit holds either
// way.
func TestReadAllInto(t *testing.T) {
	in := []byte(strings.Repeat("abcdefgh", 100))
	buf := bytes.Repeat([]byte{'z'}, 1000)
	got, err := ReadAllInto(bytes.NewReader(in), "in", 1<<20, int64(len(in)), buf)
	if err != nil || !bytes.Equal(got, in) || &got[0] != &buf[0] {
		t.Fatalf("into a large array: %v, equal %v, same array %v", err, bytes.Equal(got, in), err == nil && &got[0] == &buf[0])
	}
	small := make([]byte, 0, len(in)) // must hold more than size
	got, err = ReadAllInto(bytes.NewReader(in), "in", 1<<20, int64(len(in)), small)
	if err != nil || !bytes.Equal(got, in) || cap(got) == cap(small) {
		t.Fatalf("into a small array: %v, equal %v, cap %d", err, bytes.Equal(got, in), cap(got))
	}
	var tl *TooLargeError
	if _, err := ReadAllInto(bytes.NewReader(in), "in", 100, int64(len(in)), buf); !errors.As(err, &tl) {
		t.Fatalf("over the limit into an array: %v", err)
	}
}
