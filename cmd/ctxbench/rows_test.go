package main

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"

	"github.com/ctxbench/ctxbench/internal/metric"
	"github.com/ctxbench/ctxbench/internal/projection"
	"github.com/ctxbench/ctxbench/internal/report"
)

// rowsFiles are sessions with a bill (Claude Code, Bedrock), one with one
// call and one whose model has no price.
var rowsFiles = []string{corpus + "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl", corpus + "spotter/short.jsonl",
	corpus + "codemie-code/tests/integration/session/fixtures/session-196820da.jsonl",
	corpus + "codemie-code/tests/integration/metrics/fixtures/gemini/session-2025-12-01T21-45-5b959dae.json"}

// readJSONL decodes a JSON Lines file of T.
func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// TestCostRows: the Parquet rows a cost run writes, read back, add up to
// what cost --json prices: each policy's total over the transcripts, each
// run's calls; the JSON Lines hold the same rows; a transcript not
// priced has none; a folder ctxbench did not write is refused before
// anything runs, and one it wrote is replaced.
func TestCostRows(t *testing.T) {
	dir := t.TempDir()
	pq, jl := filepath.Join(dir, "pq"), filepath.Join(dir, "jl")
	args := append([]string{"cost", "--json", "--policy", "none", "--policy", "aidf:max_messages=30", "--parquet", pq, "--jsonl", jl}, rowsFiles...)
	stdout, stderr, code := ctxbench("", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Totals      []projection.Spread `json:"policy_totals"`
		Transcripts []struct {
			ID       string
			Policies []struct {
				Label   string
				Total   int64   `json:"total_pusd"`
				PerStep []int64 `json:"per_step_pusd"`
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	runs, err := parquet.ReadFile[report.RunRow](filepath.Join(pq, "runs.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	calls, err := parquet.ReadFile[report.CallRow](filepath.Join(pq, "calls.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(runs, readJSONL[report.RunRow](t, filepath.Join(jl, "runs.jsonl"))); d != "" {
		t.Errorf("runs.jsonl differs from runs.parquet:\n%s", d)
	}
	if d := cmp.Diff(calls, readJSONL[report.CallRow](t, filepath.Join(jl, "calls.jsonl"))); d != "" {
		t.Errorf("calls.jsonl differs from calls.parquet:\n%s", d)
	}
	if len(doc.Transcripts) != 3 || len(runs) != 6 {
		t.Fatalf("%d transcripts priced, %d runs rows; want 3 and 6 (the gemini session is not priced)", len(doc.Transcripts), len(runs))
	}
	byPolicy := map[string]int64{}
	callsOf := map[[2]string][]report.CallRow{}
	for _, c := range calls {
		k := [2]string{c.Transcript, c.Policy}
		callsOf[k] = append(callsOf[k], c)
	}
	i := 0
	for _, tr := range doc.Transcripts {
		for _, p := range tr.Policies {
			r := runs[i]
			i++
			if r.Transcript != tr.ID || r.Policy != p.Label || r.TotalPUSD != p.Total || r.Calls != int64(len(p.PerStep)) {
				t.Errorf("%s %s: row %+v; cost --json: total %d, %d calls", tr.ID, p.Label, r, p.Total, len(p.PerStep))
			}
			replayedRow(t, r)
			byPolicy[p.Label] += r.TotalPUSD
			callRowsMatch(t, r, callsOf[[2]string{tr.ID, p.Label}], p.PerStep)
		}
	}
	for _, tot := range doc.Totals {
		if math.Abs(float64(byPolicy[tot.Label])/1e12-tot.TotalUSD) > 1e-9 {
			t.Errorf("%s: rows sum to %d pico-dollars, cost --json's total is $%v", tot.Label, byPolicy[tot.Label], tot.TotalUSD)
		}
	}
	// Written again, the folders are replaced, byte for byte the same; a
	// folder of something else is refused before the work.
	rewritesSame(t, args, filepath.Join(pq, "runs.parquet"), filepath.Join(pq, "calls.parquet"), filepath.Join(jl, "calls.jsonl"))
	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o755)
	_, stderr, code = ctxbench("", append([]string{"cost", "--policy", "none", "--parquet", other}, rowsFiles...)...)
	if code != 2 || !strings.Contains(stderr, "not replacing "+other) {
		t.Errorf("a folder of something else: exit %d, %s", code, stderr)
	}
	if _, stderr, code := ctxbench("", "cost", "--parquet", filepath.Join(dir, "x"), rowsFiles[0]); code != 2 || !strings.Contains(stderr, "give --policy") {
		t.Errorf("no policy: exit %d, %s", code, stderr)
	}
}

// rewritesSame runs ctxbench with args again and requires files to be
// the same bytes as before.
func rewritesSame(t *testing.T, args []string, files ...string) {
	t.Helper()
	var before [][]byte
	for _, f := range files {
		b, _ := os.ReadFile(f)
		before = append(before, b)
	}
	if _, stderr, code := ctxbench("", args...); code != 0 {
		t.Errorf("again: exit %d: %s", code, stderr)
	}
	for i, f := range files {
		if b, _ := os.ReadFile(f); len(b) == 0 || string(b) != string(before[i]) {
			t.Errorf("%s: not the same bytes when written again", f)
		}
	}
}

// replayedRow: a replayed run's row has the tokens sent, the retention,
// and every metric of the registry by name, the worst call's retention
// at most the mean.
func replayedRow(t *testing.T, r report.RunRow) {
	t.Helper()
	if r.TokensSent == nil || r.Retention == nil || *r.TokensSent <= 0 {
		t.Errorf("%s %s: no tokens sent or retention: %v %v", r.Transcript, r.Policy, r.TokensSent, r.Retention)
		return
	}
	for _, m := range metric.Shown() {
		if _, ok := r.Metrics[m.Name]; !ok {
			t.Errorf("%s %s: no %s in the row's metrics %v", r.Transcript, r.Policy, m.Name, r.Metrics)
		}
	}
	if w := r.Metrics["worst_retention"]; w > *r.Retention || w < 0 {
		t.Errorf("%s %s: worst retention %v, mean %v", r.Transcript, r.Policy, w, *r.Retention)
	}
}

// callRowsMatch: a run's calls rows are its calls, in order, each at the
// cost cost --json gives it (perStep).
func callRowsMatch(t *testing.T, r report.RunRow, cs []report.CallRow, perStep []int64) {
	t.Helper()
	for k, c := range cs[:min(len(cs), len(perStep))] {
		if c.Call != int64(k) || c.CostPUSD != perStep[k] {
			t.Errorf("%s %s call %d: %+v, cost --json %d", r.Transcript, r.Policy, k, c, perStep[k])
		}
	}
	if len(cs) != len(perStep) {
		t.Errorf("%s %s: %d calls rows, %d calls", r.Transcript, r.Policy, len(cs), len(perStep))
	}
}

// TestDuckDBQuery runs the README's query over the Parquet rows with the
// duckdb command, where it is installed, and compares it with cost's
// policy totals.
func TestDuckDBQuery(t *testing.T) {
	duckdb, err := exec.LookPath("duckdb")
	if err != nil {
		t.Skip("duckdb is not installed: the README's query is not run")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sql\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("the README has no sql block")
	}
	dir := t.TempDir()
	stdout, stderr, code := ctxbench("", append([]string{"cost", "--json", "--policy", "none", "--policy", "aidf:max_messages=30", "--parquet", filepath.Join(dir, "rows")}, rowsFiles...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Totals []projection.Spread `json:"policy_totals"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(duckdb, "-csv", "-noheader", "-c", string(m[1]))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, ",")
		got[f[0]] = strings.Join(f[1:], ",")
	}
	for _, tot := range doc.Totals {
		want := strconv.Itoa(tot.Sessions) + "," + strconv.FormatFloat(math.Round(tot.TotalUSD*1e4)/1e4, 'f', -1, 64)
		if got[tot.Label] != want {
			t.Errorf("%s: duckdb %q, cost %q", tot.Label, got[tot.Label], want)
		}
	}
}

// TestRecordedRows: the recorded policy alone is priced from the bill,
// nothing replayed: its rows have each call's billed usage and cost, and
// no tokens sent or retention.
func TestRecordedRows(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rows")
	if _, stderr, code := ctxbench("", append([]string{"cost", "--policy", "recorded", "--parquet", dir}, rowsFiles...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	runs, err := parquet.ReadFile[report.RunRow](filepath.Join(dir, "runs.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	calls, err := parquet.ReadFile[report.CallRow](filepath.Join(dir, "calls.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 {
		t.Fatalf("%d runs rows, want the 3 priced transcripts'", len(runs))
	}
	for _, r := range runs {
		var cost, read int64
		n := 0
		for _, c := range calls {
			if c.Transcript == r.Transcript {
				cost += c.CostPUSD
				read += c.CacheReadTokens
				n++
				if c.TokensSent != nil || c.Retention != nil {
					t.Errorf("%s call %d: tokens sent or retention of a run not replayed", r.Transcript, c.Call)
				}
			}
		}
		if r.TokensSent != nil || r.Retention != nil || len(r.Metrics) > 0 || int64(n) != r.Calls || read != r.CacheReadTokens ||
			cost != r.InputPUSD+r.CacheReadPUSD+r.CacheWritePUSD+r.OutputPUSD {
			t.Errorf("%s: run %+v; its %d calls cost %d and read %d", r.Transcript, r, n, cost, read)
		}
	}
}

// TestReportRows: report --parquet and replay --parquet write the rows
// cost --parquet writes for the same transcripts and policies.
func TestReportRows(t *testing.T) {
	dir := t.TempDir()
	pols := []string{"--policy", "none", "--policy", "aidf:max_messages=30"}
	if _, stderr, code := ctxbench("", append(append([]string{"cost", "--parquet", filepath.Join(dir, "cost")}, pols...), rowsFiles...)...); code != 0 {
		t.Fatalf("cost: exit %d: %s", code, stderr)
	}
	if _, stderr, code := ctxbench("", append(append([]string{"report", "--out", filepath.Join(dir, "report"), "--parquet", filepath.Join(dir, "rows")}, pols...), rowsFiles...)...); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	// replay exits 1 where a policy breaks an invariant (aidf's window
	// cuts tool pairs): its rows are written all the same.
	if _, stderr, code := ctxbench("", append(append([]string{"replay", "--parquet", filepath.Join(dir, "replay")}, pols...), rowsFiles...)...); code != 0 && code != 1 {
		t.Fatalf("replay: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"runs.parquet", "calls.parquet"} {
		a, errA := os.ReadFile(filepath.Join(dir, "cost", f))
		for _, other := range []string{"rows", "replay"} {
			b, errB := os.ReadFile(filepath.Join(dir, other, f))
			if errA != nil || errB != nil || len(a) == 0 || string(a) != string(b) {
				t.Errorf("%s: %s's rows are not cost's (%v, %v)", f, other, errA, errB)
			}
		}
	}
	if _, stderr, code := ctxbench("", "report", "--out", filepath.Join(dir, "same"), "--parquet", filepath.Join(dir, "same"), rowsFiles[1]); code != 2 || !strings.Contains(stderr, "a folder of their own") {
		t.Errorf("--out and --parquet alike: exit %d, %s", code, stderr)
	}
}
