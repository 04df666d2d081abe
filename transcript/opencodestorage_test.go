package transcript

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeOpencodeStorage writes the sessions of exports as opencode before
// 1.2 kept them, in dir: storage/session/<project>/<id>.json,
// storage/message/<session>/<id>.json, storage/part/<message>/<id>.json.
func writeOpencodeStorage(t *testing.T, dir string, exports ...string) {
	t.Helper()
	write := func(path string, v any) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range exports {
		exp := readExport(t, f)
		sid := str(exp.Info["id"])
		write(filepath.Join(dir, "session", "project", sid+".json"), exp.Info)
		for _, m := range exp.Messages {
			mid := str(m.Info["id"])
			write(filepath.Join(dir, "message", sid, mid+".json"), m.Info)
			for _, p := range m.Parts {
				write(filepath.Join(dir, "part", mid, str(p["id"])+".json"), p)
			}
		}
	}
}

// TestOpencodeStorage: opencode's storage directory (before 1.2) written
// from the exports reads as the exports do, in order of the sessions'
// creation; walked beside an opencode.db, which holds the same sessions
// since 1.2, it is passed over, named; a file that is not JSON is bad
// input at its path.
func TestOpencodeStorage(t *testing.T) {
	exports := []string{filepath.Join("testdata", "opencode", "export.json"), filepath.Join("testdata", "opencode", "export-1.0.json")}
	root := t.TempDir()
	dir := filepath.Join(root, "storage")
	writeOpencodeStorage(t, dir, exports...)
	os.WriteFile(filepath.Join(dir, "message", "README"), []byte("not opencode's"), 0o644)
	got, err := ReadFile(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := readExports(t, exports...)
	if diff := cmp.Diff(want, got, noPos); diff != "" {
		t.Errorf("storage (-exports +storage):\n%s", diff)
	}
	if len(got) == 0 || got[0].Format != FormatOpencode || got[0].File != dir {
		t.Fatalf("read %d sessions", len(got))
	}
	// Walked, it is one input, read whole.
	var walked []*Transcript
	skipped, err := Walk([]string{root}, Options{}, nil, func(tr *Transcript) error { walked = append(walked, tr); return nil })
	if err != nil || len(skipped) != 0 || len(walked) != len(want) {
		t.Fatalf("walk: %d sessions, skipped %v, %v", len(walked), skipped, err)
	}
	// Beside a database, passed over and named; named itself, read.
	os.WriteFile(filepath.Join(root, "opencode.db"), nil, 0o644)
	walked = nil
	skipped, err = Walk([]string{root}, Options{Lenient: true}, nil, func(tr *Transcript) error { walked = append(walked, tr); return nil })
	if err != nil || len(walked) != 0 || !slices.ContainsFunc(skipped, func(s SkippedFile) bool {
		return s.File == dir && strings.Contains(s.Reason, "opencode.db beside it")
	}) {
		t.Errorf("beside opencode.db: %d sessions, skipped %v, %v", len(walked), skipped, err)
	}
	walked = nil
	if _, err := Walk([]string{dir}, Options{}, nil, func(tr *Transcript) error { walked = append(walked, tr); return nil }); err != nil || len(walked) != len(want) {
		t.Errorf("named: %d sessions, %v", len(walked), err)
	}
	// A part that is not JSON: an error naming it, or, lenient, counted.
	parts, _ := filepath.Glob(filepath.Join(dir, "part", "*", "*.json"))
	os.WriteFile(parts[0], []byte("{not json"), 0o644)
	if _, err := ReadFile(dir, Options{}); err == nil || !strings.Contains(err.Error(), parts[0]) {
		t.Errorf("a broken part: %v", err)
	}
	got, err = ReadFile(dir, Options{Lenient: true})
	bad := 0
	for _, tr := range got {
		bad += len(tr.Bad)
	}
	if err != nil || bad != 1 {
		t.Errorf("lenient: %d bad, %v", bad, err)
	}
	if _, err := ReadFile(dir, Options{Format: FormatClaudeCode}); err == nil || !strings.Contains(err.Error(), "read as opencode only") {
		t.Errorf("read as claude-code: %v", err)
	}
	if _, err := ReadFile(root, Options{}); err == nil || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("another directory: %v", err)
	}
}
