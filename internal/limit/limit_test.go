package limit

import (
	"errors"
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
