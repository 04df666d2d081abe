package report

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func text(s string) func(w *bufio.Writer) error {
	return func(w *bufio.Writer) error { _, err := w.WriteString(s); return err }
}

// TestWriteFileTargets: a regular file is replaced; a symbolic link's
// target is replaced and the link kept; a named pipe and a device are
// written through, never replaced; "-" is standard output.
func TestWriteFileTargets(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	link := filepath.Join(dir, "link.json")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target.json", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, text("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("the target holds %q", b)
	}
	// A dangling link: the file it names is created.
	dangling := filepath.Join(dir, "dangling.json")
	if err := os.Symlink("made.json", dangling); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dangling, text("made")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "made.json")); string(b) != "made" {
		t.Errorf("made.json holds %q", b)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes:", err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := WriteFile(fifo, text("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("the pipe read %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v", fi.Mode())
	}
	if err := WriteFile(os.DevNull, text("nothing")); err != nil {
		t.Errorf("%s: %v", os.DevNull, err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Errorf("%s is no longer a device: %v", os.DevNull, fi.Mode())
	}
	var out bytes.Buffer
	if err := WriteTo("-", &out, text("to stdout")); err != nil || out.String() != "to stdout" {
		t.Errorf("-: %q, %v", out.String(), err)
	}
}

// TestStaleTempFiles: the temporary files a killed run left beside the
// target are removed by the next write; a recent one (another run's,
// being written) is left.
func TestStaleTempFiles(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, ".out.jsonl.tmp123")
	fresh := filepath.Join(dir, ".out.jsonl.tmp456")
	other := filepath.Join(dir, ".other.jsonl.tmp789")
	for _, p := range []string{stale, fresh, other} {
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{stale, other} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteFile(filepath.Join(dir, "out.jsonl"), text("done")); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{stale: false, fresh: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

// staleFolders makes, beside dir/base, the folders killed runs leave
// (".base.tmpN" and ".base.tmpN.old", each holding a file, one a link
// out), untouched for an hour, and those a next run must leave: one
// whose file is being written, a fresh one, a user's folder named like
// them, and another target's. It returns each with whether it must be
// left.
func staleFolders(t *testing.T, dir, base string) map[string]bool {
	t.Helper()
	outside := filepath.Join(t.TempDir(), "kept.txt")
	if err := os.WriteFile(outside, []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	folders := map[string]bool{
		"." + base + ".tmp123":     false,
		"." + base + ".tmp45.old":  false,
		"." + base + ".tmp678":     false, // its link is removed, not what it names
		"." + base + ".tmp9":       true,  // its file is written now
		"." + base + ".tmp10":      true,  // made now
		"." + base + ".tmpl":       true,  // not a name MkdirTemp makes
		".other" + base + ".tmp11": true,
	}
	old := time.Now().Add(-time.Hour)
	for name := range folders {
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(d, "sub", "part.png")
		if err := os.WriteFile(f, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if name == "."+base+".tmp678" {
			if err := os.Symlink(outside, filepath.Join(d, "link")); err != nil {
				t.Fatal(err)
			}
		}
		if name == "."+base+".tmp10" {
			continue
		}
		for _, p := range []string{f, filepath.Join(d, "sub"), d} {
			if p == f && name == "."+base+".tmp9" {
				continue
			}
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Cleanup(func() {
		if b, err := os.ReadFile(outside); err != nil || string(b) != "kept" {
			t.Errorf("the file a stale folder's link names: %q, %v", b, err)
		}
	})
	return folders
}

// checkFolders checks which of the folders staleFolders made beside
// dir/base are left.
func checkFolders(t *testing.T, dir string, folders map[string]bool) {
	t.Helper()
	for name, want := range folders {
		if _, err := os.Lstat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", name, err == nil, want)
		}
	}
}

// TestStaleFolders: the folders of report and rows runs killed while
// they wrote (".DIR.tmpN") are removed by the next run writing the same
// folder, once nothing in them has been touched for 10 minutes; a folder
// another run is writing is left.
func TestStaleFolders(t *testing.T) {
	dir := t.TempDir()
	folders := staleFolders(t, dir, "report")
	if _, err := WriteReport(filepath.Join(dir, "report"), fixtureReport()); err != nil {
		t.Fatal(err)
	}
	checkFolders(t, dir, folders)

	folders = staleFolders(t, dir, "rows")
	w, err := NewRowsWriter(filepath.Join(dir, "rows"), RowsJSONL)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	checkFolders(t, dir, folders)
}

// TestRowsWriterKeepsItsFolderFresh: a RowsWriter whose rows have waited
// in its buffers for 10 minutes touches its folder as the next rows
// come, and another run writing the same folder leaves it.
func TestRowsWriterKeepsItsFolderFresh(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rows")
	w, err := NewRowsWriter(dir, RowsParquet)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(w.tmp, func(p string, _ fs.DirEntry, err error) error {
		if err == nil {
			err = os.Chtimes(p, old, old)
		}
		return err
	})
	if err := w.Add([]RunRow{{}}, nil); err != nil {
		t.Fatal(err)
	}
	other, err := NewRowsWriter(dir, RowsJSONL)
	if err != nil {
		t.Fatal(err)
	}
	other.Abort()
	if err := w.Close(); err != nil {
		t.Fatalf("the first writer, its folder removed by the second: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs.parquet")); err != nil {
		t.Error(err)
	}
}
