package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
)

// limitMemory tells the collector to keep the process under 3 times the
// size of its inputs plus 100 MB — for one session, the bound ctxbench
// holds itself to (docs/performance.md) — unless GOGC or GOMEMLIMIT says
// otherwise. It is a soft limit: below it the collector runs as usual
// (GOGC=100, the fastest on small inputs); near it, more often. The
// inputs' total, not the largest's size, so that a command that keeps
// something of every session (a report, a bill) is not held to one
// session's share; extra is what else a command reads whole (a
// baseline). A run whose live data is larger goes over it rather than
// stop.
func limitMemory(paths []string, extra ...string) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if total := inputSize(append(paths, extra...)); total > 0 {
		// The limit counts what the runtime manages, not the program's
		// own code and data (about 30 MB of its resident memory).
		debug.SetMemoryLimit(3*total + 64<<20)
	}
}

// inputSize returns the size of the regular files the paths name or
// hold (directories walked as transcript.Walk walks them, at most
// 100,000 files looked at).
func inputSize(paths []string) int64 {
	var total int64
	seen := 0
	for _, p := range paths {
		filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil || seen > 100_000 {
				return filepath.SkipAll
			}
			if d.IsDir() {
				if d.Name() == ".git" {
					return filepath.SkipDir
				}
				return nil
			}
			seen++
			if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
				total += info.Size()
			}
			return nil
		})
	}
	return total
}
