//go:build hostile

// make hostile, the report's part: the built command's report over
// sessions whose values no plot scale takes as they are, over names
// that are markup or spreadsheet formulas, and killed mid-report.

package main

import (
	"encoding/csv"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHostileReportShapes runs the built command's report over folders
// of tiny sessions — one call of one-token messages (issue 64's), empty
// messages, calls alike, no usage, all of them together — and prints
// each run's exit status and figures: each exits 0, with no panic, and
// every figure report.md shows is on disk.
func TestHostileReportShapes(t *testing.T) {
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	call := func(q, a, usage string) string {
		return fmt.Sprintf(`{"role":"user","content":%q}`+"\n"+`{"role":"assistant","content":%q%s}`+"\n", q, a, usage)
	}
	const usage = `,"model":"gpt-4o","usage":{"prompt_tokens":10,"completion_tokens":1}`
	shapes := []struct{ name, body string }{
		{"one call of one token", call("q", "a", usage)},
		{"one empty call", call("", "", usage)},
		{"empty calls", call("", "", `,"model":"gpt-4o","usage":{"prompt_tokens":0,"completion_tokens":0}`) + call("", "", `,"model":"gpt-4o","usage":{"prompt_tokens":0,"completion_tokens":0}`)},
		{"two calls alike", call("q", "a", usage) + call("q", "a", usage)},
		{"no usage", call("q", "a", "") + call("q", "a", "")},
		{"a model past any price", call("q", "a", `,"model":"gpt-4o","usage":{"prompt_tokens":1000000000000,"completion_tokens":1}`) + call("q", "a", usage)},
	}
	all := filepath.Join(dir, "all")
	for i, s := range shapes {
		for _, d := range []string{filepath.Join(dir, fmt.Sprint("shape-", i)), all} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("s%d.jsonl", i)), []byte(s.body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	figure := regexp.MustCompile(`(?m)^!\[[^\n]*\]\(([^()\s]+)\)$`)
	for i := range len(shapes) + 1 {
		name, in := "all of them", all
		if i < len(shapes) {
			name, in = shapes[i].name, filepath.Join(dir, fmt.Sprint("shape-", i))
		}
		out := filepath.Join(dir, fmt.Sprint("report-", i))
		b, err := exec.Command(bin, "report", "--out", out, in).CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		md, _ := os.ReadFile(filepath.Join(out, "report.md"))
		figs := figure.FindAllStringSubmatch(string(md), -1)
		fmt.Printf("%-24s exit %d, %d figures\n", name, code, len(figs))
		if code != 0 || strings.Contains(string(b), "panic") || len(figs) == 0 {
			t.Errorf("%s: exit %d, %d figures: %.600s", name, code, len(figs), b)
		}
		for _, f := range figs {
			if fi, err := os.Stat(filepath.Join(out, f[1])); err != nil || fi.Size() == 0 {
				t.Errorf("%s: figure %s: %v", name, f[1], err)
			}
		}
	}
}

// TestHostileReportNames runs the built command's report over sessions
// whose file and model names are markup and spreadsheet formulas
// (issue 64's =cmd|calc!A1.jsonl, <script>…</script><img src=x
// onerror=…>), and prints what reached each file raw: report.md holds
// no "<", index.html none of the markup, and no CSV cell starts a
// formula.
func TestHostileReportNames(t *testing.T) {
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	const script = "<script>alert(1)</script><img src=x onerror=alert(2)>"
	for _, s := range []struct{ file, model string }{
		{"=cmd|calc!A1.jsonl", script}, {"<img src=x onerror=alert(3)>.jsonl", "gpt-4o"}, {"+1+1.jsonl", "@SUM(A1)"}, {"-2+3.jsonl", "=1+1"},
	} {
		var body strings.Builder
		for range 2 {
			fmt.Fprintf(&body, `{"role":"user","content":"q"}`+"\n"+`{"role":"assistant","content":"a","model":%q,"usage":{"prompt_tokens":10,"completion_tokens":1}}`+"\n", s.model)
		}
		if err := os.WriteFile(filepath.Join(in, s.file), []byte(body.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Run in the folder, the files named by their names alone: the
	// CSVs' first cells are the names as they were given.
	out := filepath.Join(dir, "report")
	cmd := exec.Command(bin, "report", "--out", out, ".")
	cmd.Dir = in
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	raw := map[string]int{"report.md": strings.Count(read("report.md"), "<")}
	for _, m := range []string{"<script>alert", "<img src=x onerror"} {
		raw["index.html"] += strings.Count(read("index.html"), m)
	}
	for _, name := range []string{"summary.csv", "steps.csv", "sweep.csv"} {
		rows, err := csv.NewReader(strings.NewReader(read(name))).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, row := range rows {
			for _, cell := range row {
				if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
					if _, err := strconv.ParseFloat(cell, 64); err != nil {
						raw[name]++
					}
				}
			}
		}
	}
	for _, name := range []string{"report.md", "index.html", "summary.csv", "steps.csv", "sweep.csv"} {
		fmt.Printf("%-12s %d raw\n", name, raw[name])
		if raw[name] > 0 {
			t.Errorf("%s: %d markup or formulas raw", name, raw[name])
		}
	}
	if md := read("report.md"); !strings.Contains(md, "'=cmd") && !strings.Contains(md, "=cmd\\|calc!A1.jsonl") {
		t.Errorf("report.md does not name =cmd|calc!A1.jsonl")
	}
}

// TestHostileReportKill kills the built command's report, writing its
// folder and its rows (--parquet), with SIGKILL at points through its
// run, and prints the temporary folders each kill left beside them.
// Those folders made 11 minutes old, the next report removes them all;
// the folders of a kill just before it, which another run may still be
// writing for all it knows, it leaves.
func TestHostileReportKill(t *testing.T) {
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	session := filepath.Join(dir, "s.jsonl")
	if out, err := exec.Command(bin, "gen", "--calls", "400", "-o", session).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	report := func() *exec.Cmd {
		return exec.Command(bin, "report", "--out", filepath.Join(dir, "rep"), "--parquet", filepath.Join(dir, "pq"), session)
	}
	left := func() []string {
		var out []string
		for _, base := range []string{"rep", "pq"} {
			m, _ := filepath.Glob(filepath.Join(dir, "."+base+".tmp*"))
			out = append(out, m...)
		}
		return out
	}
	start := time.Now()
	if out, err := report().CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	took := time.Since(start)
	kill := func(at int) {
		cmd := report()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(took * time.Duration(at) / 100)
		cmd.Process.Kill()
		cmd.Wait()
	}
	for i := range 10 {
		at := 20 + 8*i // through the reading and the report's writing
		before := len(left())
		kill(at)
		fmt.Printf("kill %2d at %3d%% of %.1fs: %d folders left by it, %d in all\n", i+1, at, took.Seconds(), len(left())-before, len(left()))
	}
	stale := left()
	if len(stale) == 0 {
		t.Fatal("no kill left a folder: none stopped a run mid-write")
	}
	old := time.Now().Add(-11 * time.Minute)
	for _, d := range stale {
		filepath.WalkDir(d, func(p string, _ fs.DirEntry, err error) error {
			if err == nil {
				err = os.Chtimes(p, old, old)
			}
			return err
		})
	}
	kill(70)
	fresh := map[string]bool{}
	for _, d := range left() {
		if !slices.Contains(stale, d) {
			fresh[d] = true
		}
	}
	if out, err := report().CombinedOutput(); err != nil {
		t.Fatalf("the run after the kills: %v\n%s", err, out)
	}
	var wrong []string
	for _, d := range left() {
		if !fresh[d] {
			wrong = append(wrong, filepath.Base(d))
		}
	}
	for d := range fresh {
		if _, err := os.Stat(d); err != nil {
			wrong = append(wrong, "removed fresh "+filepath.Base(d))
		}
	}
	fmt.Printf("next run: %d stale folders removed, %d fresh kept, %d wrong\n", len(stale), len(fresh), len(wrong))
	if len(wrong) > 0 {
		t.Errorf("after the next run: %v", wrong)
	}
}
