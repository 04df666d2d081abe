package main

import (
	"os"
	"runtime/debug"

	"github.com/ctxbench/ctxbench/transcript"
)

// limitMemory tells the collector to keep the process under 3 times the
// size of its largest input plus 100 MB — the bound ctxbench holds
// itself to, whatever the number of sessions (docs/performance.md) —
// unless GOGC or GOMEMLIMIT says otherwise; extra is what else a command
// reads whole (a baseline), counted as if part of that input. It is a
// soft limit: below it the collector runs as usual (GOGC=100, the
// fastest on small inputs); near it, more often. A run whose live data
// is larger goes over it rather than stop.
func limitMemory(paths []string, extra ...string) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if largest := transcript.Largest(paths); largest > 0 {
		for _, p := range extra {
			if info, err := os.Stat(p); err == nil && !info.IsDir() {
				largest += info.Size()
			}
		}
		// The limit counts what the runtime manages, not the program's
		// own code and data (about 30 MB of its resident memory).
		debug.SetMemoryLimit(3*largest + 64<<20)
	}
}
