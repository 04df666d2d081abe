package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
)

// limitMemory tells the collector to keep the process under 3 times the
// largest input file plus 100 MB, the bound ctxbench holds itself to
// (docs/performance.md), unless GOGC or GOMEMLIMIT says otherwise. It is
// a soft limit: below it the collector runs as usual (GOGC=100, the
// fastest on small inputs); near it, more often; a run whose live data is
// larger goes over it rather than stop.
func limitMemory(paths []string) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if largest := largestFile(paths); largest > 0 {
		// The limit counts what the runtime manages, not the program's
		// own code and data (about 30 MB of its resident memory).
		debug.SetMemoryLimit(3*largest + 64<<20)
	}
}

// largestFile returns the size of the largest regular file the paths
// name or hold (directories walked as transcript.Walk walks them, at
// most 100,000 files looked at).
func largestFile(paths []string) int64 {
	var largest int64
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
				largest = max(largest, info.Size())
			}
			return nil
		})
	}
	return largest
}
