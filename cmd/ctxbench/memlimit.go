package main

import (
	"os"
	"runtime/debug"

	"github.com/ctxbench/ctxbench/transcript"
)

// limitMemory tells the collector to keep the process under 2.5 times
// the size of its largest input plus 64 MB, so that it stays under the
// bound ctxbench holds itself to, 3 times the largest input plus 100 MB
// whatever the number of sessions (docs/performance.md): the rest is the
// program's own code and data (about 30 MB of its resident memory, which
// the limit does not count) and what a collection running concurrently
// lets the heap grow by. Inputs are read a line at a time, so what a
// command holds is the transcript and its replays, not the file as well.
// GOGC or GOMEMLIMIT, when set, say otherwise; extra is what else a
// command reads whole (a baseline), counted as if part of that input.
//
// Under the limit, a run whose largest input is at most gcPercentUpTo
// collects when the heap has grown gcPercent past what the last
// collection left live, any other as usual (GOGC=100); near the limit,
// more often. It is a soft limit: a run whose live data is larger goes
// over it rather than stop.
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
		debug.SetMemoryLimit(largest*5/2 + 64<<20)
		percent := 100
		if largest <= gcPercentUpTo {
			percent = gcPercent
		}
		debug.SetGCPercent(percent)
	}
}

// gcPercent is the collector's GOGC under the memory limit when the
// inputs are small. Reading a folder of many sessions holds little (a
// session at a time) and allocates much (each line's strings), so at
// GOGC=100 the collector ran every few MB read: `GOGC=N ctxbench cost
// --json --policy recorded` over 181 MB of Claude Code sessions (none
// over 3 MB; GOGC set, no limit is set, and none is reached), fastest of
// 5 alternated runs, took 212 ms at 100, 189 ms at 200 and 180 ms at
// 400 (peak RSS 36, 41 and 50 MB).
const gcPercent = 400

// gcPercentUpTo is the largest input collected at gcPercent. A replay
// holds about 1.6 times its input live (138 MB for the 84 MB
// 20,000-call session of make perf's figure 2, by GODEBUG=gctrace=1);
// five times that is within the limit up to about 8 MB. Past it the
// limit decides when to collect, and GOGC=400 only made that dearer:
// that session's replay under figure 2's 8 policies, with GOGC=N and
// GOMEMLIMIT=276157879 (the limit limitMemory sets for it), four runs
// each alternated, took 7.85–8.50 s at 100 and 8.35–8.77 s at 400
// (user CPU 10.9–11.6 s and 11.8–12.3 s).
const gcPercentUpTo = 8 << 20
