package main

import (
	"os"
	"runtime/debug"
	"slices"

	"github.com/ctxbench/ctxbench/transcript"
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
	if total := transcript.Size(slices.Concat(paths, extra)); total > 0 {
		// The limit counts what the runtime manages, not the program's
		// own code and data (about 30 MB of its resident memory).
		debug.SetMemoryLimit(3*total + 64<<20)
	}
}
