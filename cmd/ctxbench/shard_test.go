package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// shardRun runs command with args over paths in n shards, then merges
// them with mergeArgs (the shards' flags by default), and returns the
// merge's stdout; dir holds the partials.
func runShards(t *testing.T, dir, command string, n int, args, mergeArgs, paths []string) (string, []string) {
	t.Helper()
	var parts []string
	for k := 1; k <= n; k++ {
		p := filepath.Join(dir, fmt.Sprintf("%s-part%d.jsonl", command, k))
		a := append(append(slices.Clone(args), "--shard", fmt.Sprintf("%d/%d", k, n), "--partial", p), paths...)
		if out, stderr, code := ctxbench("", append([]string{command}, a...)...); code != 0 {
			t.Fatalf("%s shard %d/%d: exit %d\n%s%s", command, k, n, code, out, stderr)
		}
		parts = append(parts, p)
	}
	if mergeArgs == nil {
		mergeArgs = args
	}
	out, stderr, code := ctxbench("", append(append([]string{command}, mergeArgs...), append([]string{"--merge"}, parts...)...)...)
	if code != 0 {
		t.Fatalf("%s --merge: exit %d\n%s", command, code, stderr)
	}
	return out, parts
}

// sameFiles reports how the files under a differ from those under b.
func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	var names []string
	filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(a, p)
			names = append(names, rel)
		}
		return nil
	})
	if len(names) == 0 {
		t.Fatalf("no file under %s", a)
	}
	for _, n := range names {
		x, _ := os.ReadFile(filepath.Join(a, n))
		y, err := os.ReadFile(filepath.Join(b, n))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s: the merged shards' (%s) differs from the whole run's", n, b)
		}
	}
}

// TestCostShards: cost over the corpus split 3 ways and merged writes
// what one run writes, byte for byte: the --json document, the text,
// the bill alone, and the rows of --parquet and --jsonl.
func TestCostShards(t *testing.T) {
	dir := t.TempDir()
	pols := []string{"--policy", "none", "--policy", "aidf:max_messages=30", "--policy", "recorded"}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"json and rows", append(slices.Clone(pols), "--json", "--parquet", filepath.Join(dir, "pq"), "--jsonl", filepath.Join(dir, "jl"))},
		{"text", append(slices.Clone(pols), "--sessions-per-day", "40")},
		{"the bill", nil},
		{"the bill, --json", []string{"--json", "--since", "2026-01-05"}},
		{"recorded alone", []string{"--policy", "recorded", "--json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			whole, stderr, code := ctxbench("", append(append([]string{"cost"}, c.args...), corpus)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var merged string
			if slices.Contains(c.args, "--parquet") {
				// The shards say they hold rows; the merge writes them.
				shardArgs := slices.Clone(c.args)
				mergeArgs := slices.Clone(c.args)
				for i, a := range mergeArgs {
					if a == "--parquet" || a == "--jsonl" {
						mergeArgs[i+1] += "-merged"
					}
				}
				merged, _ = runShards(t, dir, "cost", 3, shardArgs, mergeArgs, []string{corpus})
				for _, d := range []string{"pq", "jl"} {
					sameFiles(t, filepath.Join(dir, d), filepath.Join(dir, d+"-merged"))
				}
			} else {
				merged, _ = runShards(t, dir, "cost", 3, c.args, nil, []string{corpus})
			}
			if merged != whole {
				t.Errorf("the merged shards' output differs from the whole run's:\n%s\nwhole:\n%s", merged, whole)
			}
		})
	}
}

// TestShardsStayPut: a file's shard is its path's: files added to the
// folder leave every other file in its shard.
func TestShardsStayPut(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, "sessions")
	os.MkdirAll(sessions, 0o755)
	src := corpus + "spotter/"
	names := []string{"short.jsonl", "subagent.jsonl", "tool_heavy.jsonl"}
	files := func(k int) []string {
		t.Helper()
		p := filepath.Join(dir, "p.jsonl")
		if _, stderr, code := ctxbench("", "cost", "--shard", fmt.Sprintf("%d/2", k), "--partial", p, sessions); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		r, err := openPartial(p)
		if err != nil {
			t.Fatal(err)
		}
		defer r.f.Close()
		var got []string
		for _, f := range r.h.Files {
			got = append(got, filepath.Base(f.Path))
		}
		return got
	}
	copyIn := func(name, as string) {
		b, err := os.ReadFile(src + name)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(sessions, as), b, 0o644)
	}
	for _, n := range names {
		copyIn(n, n)
	}
	before := [][]string{files(1), files(2)}
	if len(before[0])+len(before[1]) != len(names) {
		t.Fatalf("shards hold %v, want the %d files once", before, len(names))
	}
	for i := range 6 {
		copyIn(names[i%len(names)], fmt.Sprintf("added-%d.jsonl", i))
	}
	for k, was := range before {
		now := files(k + 1)
		for _, f := range was {
			if !slices.Contains(now, f) {
				t.Errorf("%s left shard %d/2 when files were added: now %v", f, k+1, now)
			}
		}
	}
}

// TestMergeRefuses: a merge takes every shard of one run, once, by the
// same version, with the same flags, each partial whole.
func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--policy", "none", "--policy", "aidf", "--json"}
	_, parts := runShards(t, dir, "cost", 3, args, nil, []string{corpus})
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	b1, _ := os.ReadFile(parts[1])
	copy1 := write("copy1.jsonl", b1)
	oldVersion := write("old.jsonl", bytes.Replace(b1, []byte(`"ctxbench":"`+version+`"`), []byte(`"ctxbench":"v0.0.1"`), 1))
	lines := bytes.SplitAfter(b1, []byte("\n"))
	cut := write("cut.jsonl", bytes.Join(lines[:len(lines)-2], nil))
	var h partialHeader
	json.Unmarshal(lines[0], &h)
	h.Files = h.Files[1:]
	head, _ := json.Marshal(h)
	lost := write("lost.jsonl", append(append(head, '\n'), bytes.Join(lines[1:], nil)...))
	other := filepath.Join(dir, "other.jsonl")
	if _, stderr, code := ctxbench("", "cost", "--policy", "none", "--json", "--shard", "2/3", "--partial", other, corpus); code != 0 {
		t.Fatal(stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--merge", parts[0], parts[1]}, "shard 3/3 is missing"},
		{[]string{"--merge", parts[0], parts[1], copy1, parts[2]}, "given twice"},
		{[]string{"--merge", parts[0], oldVersion, parts[2]}, "written by ctxbench v0.0.1"},
		{[]string{"--merge", parts[0], cut, parts[2]}, "a partial cut short"},
		{[]string{"--merge", parts[0], lost, parts[2]}, "files of the walk's"},
		{[]string{"--merge", parts[0], other, parts[2]}, "a partial of other flags"},
		{[]string{"--parquet", filepath.Join(dir, "pq"), "--merge", parts[0], parts[1], parts[2]}, "give the shards --parquet or --jsonl too"},
		{[]string{"--merge", parts[0], parts[1], corpus + "spotter/short.jsonl"}, "not a ctxbench partial"},
		{[]string{"--shard", "1/3", corpus}, "--shard needs --partial FILE"},
		{[]string{"--partial", filepath.Join(dir, "x.jsonl"), corpus}, "give --shard K/N"},
		{[]string{"--shard", "4/3", "--partial", filepath.Join(dir, "x.jsonl"), corpus}, "want K/N with 1 ≤ K ≤ N"},
		{[]string{"--shard", "1/3", "--partial", filepath.Join(dir, "x.jsonl"), "-"}, "standard input cannot be split"},
		{[]string{"--shard", "1/3", "--partial", filepath.Join(dir, "x.jsonl"), "--merge", parts[0]}, "--merge and --shard"},
	} {
		a := c.args
		if !slices.Contains(a, "--policy") {
			a = append(slices.Clone(args), a...)
		}
		if out, stderr, code := ctxbench("", append([]string{"cost"}, a...)...); code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("cost %s: exit %d, %s%s; want an error saying %q", strings.Join(c.args, " "), code, out, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.jsonl")); err == nil {
		t.Errorf("a refused shard wrote its partial")
	}
}
