package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ctxbench/ctxbench/internal/tracefmt"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// openFiles counts the process's open file descriptors.
func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	return len(fds)
}

// TestSpoolManyRuns spools 5,000 runs written at once, each past its share
// of memory: two files open whatever the number of runs, none left in the
// temporary directory, and each run's lines back in the policies' order.
func TestSpoolManyRuns(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	const runs, lines = 5000, 150
	made := 0 // runs made: the line names its run
	line := func(w io.Writer, _ *transcript.Transcript, _ window.Policy) stepWriter {
		run := made
		made++
		return func(s *replay.Step, _ *tracefmt.PricedCall) error {
			_, err := fmt.Fprintf(w, "run %05d step %03d %s\n", run, s.Step, strings.Repeat("x", 20))
			return err
		}
	}
	before := openFiles(t)
	sp, err := newRunSpool(line)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	none, err := window.Parse("none")
	if err != nil {
		t.Fatal(err)
	}
	ps := make([]window.Policy, runs)
	for i := range ps {
		ps[i] = none
	}
	for round := range 2 { // two transcripts: the scratch file is reused
		if err := sp.start(&transcript.Transcript{}, ps); err != nil {
			t.Fatal(err)
		}
		if got := openFiles(t) - before; got > 2 {
			t.Fatalf("round %d: %d files open for %d runs, want 2", round, got, runs)
		}
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for k := runs - 1 - w; k >= 0; k -= 8 { // out of order
					for c := range lines {
						if err := sp.observe(k, &replay.Step{Step: c}, nil); err != nil {
							t.Error(err)
							return
						}
					}
				}
			})
		}
		wg.Wait()
		if err := sp.finish(); err != nil {
			t.Fatal(err)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("%d files left in the temporary directory while the spool is open, want none", len(left))
	}
	for _, i := range []int{0, 1, runs - 1, runs + 17, 2*runs - 1} {
		n := 0
		err := sp.eachLine(i, func(b []byte) error {
			if want := fmt.Sprintf("run %05d step %03d %s", i, n, strings.Repeat("x", 20)); string(b) != want {
				return fmt.Errorf("line %d of run %d is %q, want %q", n, i, b, want)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != lines {
			t.Errorf("run %d: %d lines, want %d", i, n, lines)
		}
	}
	var all strings.Builder
	if err := sp.writeTo(&all); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(all.String(), "\n"), 2*runs*lines; got != want {
		t.Errorf("spool holds %d lines, want %d", got, want)
	}
}

// TestCostJSONSpooled: cost --json writes its transcripts from the spool
// each was written to as it was priced, one per transcript, in the order
// the text names them, and the document is laid out as encoding/json
// lays out the whole.
func TestCostJSONSpooled(t *testing.T) {
	args := []string{"cost", "--policy", "none", "--policy", "aidf:max_messages=30", corpus + "spotter", corpus + "mini-swe-agent"}
	text, stderr, code := ctxbench("", args...)
	if code != 0 {
		t.Fatalf("cost: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := ctxbench("", append([]string{args[0], "--json"}, args[1:]...)...)
	if code != 0 {
		t.Fatalf("cost --json: exit %d: %s", code, stderr)
	}
	var doc struct {
		Transcripts []struct {
			File     string            `json:"file"`
			Policies []json.RawMessage `json:"policies"`
		} `json:"transcripts"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, tr := range doc.Transcripts {
		if len(tr.Policies) != 2 {
			t.Errorf("%s: %d policies", tr.File, len(tr.Policies))
		}
		files = append(files, tr.File)
	}
	if len(files) < 6 {
		t.Fatalf("%d transcripts: %v", len(files), files)
	}
	last := -1
	for _, f := range files {
		at := strings.Index(text, f)
		if at <= last {
			t.Errorf("%s: not after the one before in the text (at %d, %d)", f, at, last)
		}
		last = at
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(stdout)); err != nil {
		t.Fatal(err)
	}
	if compact.String()+"\n" != stdout {
		t.Errorf("cost --json is not laid out as encoding/json would:\n%.600s", stdout)
	}
}
