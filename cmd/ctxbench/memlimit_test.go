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
// and GOGC is gcPercent while that input is at most gcPercentUpTo, else
// 100, whatever an earlier call set; GOGC or GOMEMLIMIT set leave both
// as they were.
func TestLimitMemory(t *testing.T) {
	limit0, percent0 := gcSettings()
	t.Cleanup(func() {
		debug.SetMemoryLimit(limit0)
		debug.SetGCPercent(percent0)
	})
	for _, largest := range []int64{4 << 20, gcPercentUpTo, gcPercentUpTo + 1} {
		dir := t.TempDir()
		for name, size := range map[string]int64{"a.jsonl": 1 << 20, "b.jsonl": largest} {
			// Sparse files: their size is what counts.
			f, err := os.Create(filepath.Join(dir, name))
			if err == nil {
				err = f.Truncate(size)
			}
			if err == nil {
				err = f.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		for _, env := range []string{"", "GOGC", "GOMEMLIMIT"} {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			if env != "" {
				t.Setenv(env, "50")
			}
			// What an earlier call (an earlier command run in this
			// process) left.
			debug.SetMemoryLimit(1 << 40)
			debug.SetGCPercent(gcPercent)
			limitMemory([]string{dir})
			limit, percent := gcSettings()
			wantLimit, wantPercent := largest*5/2+64<<20, gcPercent
			switch {
			case env != "":
				wantLimit, wantPercent = 1<<40, gcPercent
			case largest > gcPercentUpTo:
				wantPercent = 100
			}
			if limit != wantLimit || percent != wantPercent {
				t.Errorf("largest %d bytes, %q set: limit %d, GOGC %d; want %d and %d", largest, env, limit, percent, wantLimit, wantPercent)
			}
		}
	}
}
