package tempfile

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestUnlinked: the file has no name in the temporary directory, and
// reads back what was written to it.
func TestUnlinked(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	f, err := Unlinked("spool-*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if names, _ := filepath.Glob(filepath.Join(os.TempDir(), "spool-*")); len(names) != 0 {
		t.Errorf("named files left: %v", names)
	}
	if _, err := f.WriteString("line\n"); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 5))
	if err != nil || string(b) != "line\n" {
		t.Errorf("read back %q, %v", b, err)
	}
}
