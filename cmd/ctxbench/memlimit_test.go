package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// gcSettings returns the collector's memory limit and GOGC.
func gcSettings() (limit int64, percent int) {
	percent = debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	return debug.SetMemoryLimit(-1), percent
}

// TestLimitMemory: the limit is 2.5 times the largest input plus 64 MB
// and GOGC is gcPercent, unless GOGC or GOMEMLIMIT is set.
func TestLimitMemory(t *testing.T) {
	limit0, percent0 := gcSettings()
	t.Cleanup(func() {
		debug.SetMemoryLimit(limit0)
		debug.SetGCPercent(percent0)
	})
	dir := t.TempDir()
	for name, size := range map[string]int{"a.jsonl": 1 << 20, "b.jsonl": 4 << 20} {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, env := range []string{"", "GOGC", "GOMEMLIMIT"} {
		t.Setenv("GOGC", "")
		t.Setenv("GOMEMLIMIT", "")
		if env != "" {
			t.Setenv(env, "50")
		}
		debug.SetMemoryLimit(1 << 40)
		debug.SetGCPercent(100)
		limitMemory([]string{dir})
		limit, percent := gcSettings()
		wantLimit, wantPercent := int64(4<<20*5/2+64<<20), gcPercent
		if env != "" {
			wantLimit, wantPercent = 1<<40, 100
		}
		if limit != wantLimit || percent != wantPercent {
			t.Errorf("%s set: limit %d, GOGC %d; want %d and %d", env, limit, percent, wantLimit, wantPercent)
		}
	}
}
