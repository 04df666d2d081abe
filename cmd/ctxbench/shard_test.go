package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ctxbench/ctxbench/internal/batch"
)

// runShards runs command with args over paths in n shards, then merges
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
	list := func(root string) []string {
		var names []string
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				names = append(names, rel)
			}
			return nil
		})
		return names
	}
	names := list(a)
	if len(names) == 0 {
		t.Fatalf("no file under %s", a)
	}
	if other := list(b); !slices.Equal(names, other) {
		t.Errorf("the files under %s are %q, the whole run's %q", b, other, names)
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
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var h batch.Header
		if err := json.Unmarshal(bytes.SplitAfter(b, []byte("\n"))[0], &h); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range h.Files {
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
	var h batch.Header
	json.Unmarshal(lines[0], &h)
	h.Files = h.Files[1:]
	head, _ := json.Marshal(h)
	lost := write("lost.jsonl", append(append(head, '\n'), bytes.Join(lines[1:], nil)...))
	// edited is part 2 with its header changed by edit.
	edited := func(name string, edit func(h *batch.Header)) string {
		var h batch.Header
		json.Unmarshal(lines[0], &h)
		edit(&h)
		head, _ := json.Marshal(h)
		return write(name, append(append(head, '\n'), bytes.Join(lines[1:], nil)...))
	}
	var h0 batch.Header
	b0, _ := os.ReadFile(parts[0])
	json.Unmarshal(bytes.SplitAfter(b0, []byte("\n"))[0], &h0)
	ofReplay := edited("replay.jsonl", func(h *batch.Header) { h.Command = "replay" })
	otherSplit := edited("split.jsonl", func(h *batch.Header) { h.Shard = "2/4" })
	otherWalk := edited("walk.jsonl", func(h *batch.Header) { h.Inputs++ })
	notItsShard := edited("notits.jsonl", func(h *batch.Header) { h.Files = append(h.Files, h0.Files[0]) })
	inTwo := edited("intwo.jsonl", func(h *batch.Header) {
		h.Files = append(h.Files, batch.File{Path: h.Files[0].Path, Input: h0.Files[0].Input})
	})
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
		{[]string{"--merge", parts[0], ofReplay, parts[2]}, "a partial of ctxbench replay, not of cost"},
		{[]string{"--merge", parts[0], otherSplit, parts[2]}, "shard 2/4 of a split into 4, the others into 3"},
		{[]string{"--merge", parts[0], otherWalk, parts[2]}, "the shards read different folders"},
		{[]string{"--merge", parts[0], notItsShard, parts[2]}, "is not shard 2/3's"},
		{[]string{"--merge", parts[0], inTwo, parts[2]}, " is in " + parts[0] + " too"},
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

// TestReportShards: report over the corpus split 3 ways and merged
// writes the folder, the rows and the summary one run writes.
func TestReportShards(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	whole, stderr, code := ctxbench("", "report", "--out", at("whole"), "--parquet", at("pq"), "--sessions", "5", corpus)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	shardArgs := []string{"--out", at("unused"), "--parquet", at("unused-pq"), "--sessions", "5"}
	merged, _ := runShards(t, dir, "report", 3, shardArgs, []string{"--out", at("merged"), "--parquet", at("pq-merged"), "--sessions", "5"}, []string{corpus})
	sameFiles(t, at("whole"), at("merged"))
	sameFiles(t, at("pq"), at("pq-merged"))
	for _, d := range []string{"unused", "unused-pq"} {
		if _, err := os.Stat(at(d)); err == nil {
			t.Errorf("a shard wrote %s", d)
		}
	}
	if w, m := strings.ReplaceAll(whole, at("whole"), "OUT"), strings.ReplaceAll(merged, at("merged"), "OUT"); w != m {
		t.Errorf("the merge's summary differs from the whole run's:\n%s\nwhole:\n%s", m, w)
	}
}

// fencedBlocks returns the fenced code blocks of the README section
// headed title, each its language and its text.
func fencedBlocks(t *testing.T, title string) [][2]string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n"+title+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", title)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var blocks [][2]string
	for {
		_, rest, ok := strings.Cut(sec, "```")
		if !ok {
			return blocks
		}
		lang, rest, _ := strings.Cut(rest, "\n")
		body, after, _ := strings.Cut(rest, "```")
		blocks = append(blocks, [2]string{lang, body})
		sec = after
	}
}

// fleetRun runs a documented fleet: shards[k] the shards' command lines,
// merge the merge's (its stdout to the file after " > ", if any), then
// the shards' command unsharded (--shard, --partial left out, the
// folders it writes renamed NAME-whole), and checks that the merge
// wrote what the whole run did.
func fleetRun(t *testing.T, name string, shards []string, merge string) {
	t.Helper()
	words := func(line string) []string {
		w, ok := shellWords(strings.Join(strings.Fields(line), " "))
		if !ok || len(w) < 2 || w[0] != "ctxbench" {
			t.Fatalf("%s: the test cannot run %q", name, line)
		}
		return w[1:]
	}
	for _, line := range shards {
		if out, stderr, code := ctxbench("", words(line)...); code != 0 {
			t.Fatalf("%s: %s: exit %d\n%s%s", name, line, code, out, stderr)
		}
	}
	merge, redirect, _ := strings.Cut(merge, " > ")
	mergeOut, stderr, code := ctxbench("", words(merge)...)
	if code != 0 {
		t.Fatalf("%s: %s: exit %d\n%s", name, merge, code, stderr)
	}
	if redirect != "" {
		os.WriteFile(strings.TrimSpace(redirect), []byte(mergeOut), 0o644)
	}
	var whole []string
	renamed := map[string]string{}
	w := words(shards[0])
	for i := 0; i < len(w); i++ {
		switch w[i] {
		case "--shard", "--partial":
			i++
			continue
		case "--parquet", "--jsonl", "--out":
			renamed[w[i+1]] = w[i+1] + "-whole"
			whole = append(whole, w[i], w[i+1]+"-whole")
			i++
			continue
		}
		whole = append(whole, w[i])
	}
	mw := words(merge)
	if slices.Contains(mw, "report") && !slices.Contains(whole, "--out") {
		out := mw[slices.Index(mw, "--out")+1]
		renamed[out] = out + "-whole"
		whole = append(whole, "--out", out+"-whole")
	}
	wholeOut, stderr, code := ctxbench("", whole...)
	if code != 0 {
		t.Fatalf("%s: ctxbench %s: exit %d\n%s", name, strings.Join(whole, " "), code, stderr)
	}
	for from, to := range renamed {
		sameFiles(t, to, from)
		wholeOut = strings.ReplaceAll(wholeOut, to, from)
	}
	if wholeOut != mergeOut {
		t.Errorf("%s: the merge printed\n%s\nthe whole run\n%s", name, mergeOut, wholeOut)
	}
}

// TestFleetExamples runs the README's fleet: the xargs loop, the CI
// matrix and the Kubernetes Indexed Job, on a folder of sessions, and
// checks that each merge writes what one run writes.
func TestFleetExamples(t *testing.T) {
	blocks := fencedBlocks(t, "## A fleet across machines")
	if len(blocks) != 4 || blocks[0][0] != "sh" || blocks[1][0] != "yaml" || blocks[2][0] != "yaml" || blocks[3][0] != "sql" {
		t.Fatalf("the fleet section's blocks are %d, want sh, yaml (the matrix), yaml (the Indexed Job), sql (TestDuckDBQuery runs it)", len(blocks))
	}
	dir := t.TempDir()
	for _, f := range []string{"spotter/short.jsonl", "spotter/subagent.jsonl", "spotter/tool_heavy.jsonl", "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
		"mini-swe-agent/output/deepseek_chat_dev/pvlib__pvlib-python-1072/pvlib__pvlib-python-1072.traj.json"} {
		copyFile(t, corpus+f, filepath.Join(dir, "sessions", filepath.Base(f)))
	}
	t.Chdir(dir)

	t.Run("xargs", func(t *testing.T) {
		lines := strings.Split(strings.TrimSpace(blocks[0][1]), "\n")
		var n int
		loop, ok := strings.CutPrefix(lines[0], "seq 1 ")
		count, cmd, _ := strings.Cut(loop, " | xargs -P ")
		_, cmd, _ = strings.Cut(cmd, " -I K ")
		if _, err := fmt.Sscan(count, &n); !ok || err != nil || n < 2 || len(lines) != 2 {
			t.Fatalf("the loop is %q", blocks[0][1])
		}
		var shards []string
		for k := 1; k <= n; k++ {
			shards = append(shards, strings.NewReplacer("K/", fmt.Sprint(k)+"/", "-K.", fmt.Sprintf("-%d.", k)).Replace(cmd))
		}
		fleetRun(t, "the xargs loop", shards, lines[1])
	})

	t.Run("matrix", func(t *testing.T) {
		var wf struct {
			Jobs map[string]struct {
				Strategy struct{ Matrix map[string][]int }
				Steps    []struct{ Run string }
			}
		}
		if err := yaml.Unmarshal([]byte(blocks[1][1]), &wf); err != nil {
			t.Fatal(err)
		}
		runs := func(job string) []string {
			var out []string
			for _, s := range wf.Jobs[job].Steps {
				if strings.HasPrefix(s.Run, "ctxbench ") {
					out = append(out, s.Run)
				}
			}
			if len(out) != 1 {
				t.Fatalf("job %s runs %q, want one ctxbench command", job, out)
			}
			return out
		}
		var shards []string
		for _, k := range wf.Jobs["shard"].Strategy.Matrix["shard"] {
			shards = append(shards, strings.ReplaceAll(runs("shard")[0], "${{ matrix.shard }}", fmt.Sprint(k)))
		}
		fleetRun(t, "the CI matrix", shards, runs("merge")[0])
	})

	t.Run("indexed job", func(t *testing.T) {
		type job struct {
			Spec struct {
				Completions int
				Template    struct {
					Spec struct {
						Containers []struct{ Args []string }
					}
				}
			}
		}
		docs := strings.Split(blocks[2][1], "\n---\n")
		if len(docs) != 2 {
			t.Fatalf("%d YAML documents, want the shards' Job and the merge's", len(docs))
		}
		var jobs [2]job
		for i, d := range docs {
			if err := yaml.Unmarshal([]byte(d), &jobs[i]); err != nil {
				t.Fatal(err)
			}
		}
		line := func(j job, index int) string {
			c := j.Spec.Template.Spec.Containers
			if len(c) != 1 || len(c[0].Args) != 1 {
				t.Fatalf("a Job of %d containers, want one with one script", len(c))
			}
			script := regexp.MustCompile(`^go run github\.com/ctxbench/ctxbench/cmd/ctxbench@v\d+\.\d+\.\d+ `).ReplaceAllString(c[0].Args[0], "ctxbench ")
			return strings.NewReplacer("$((JOB_COMPLETION_INDEX + 1))", fmt.Sprint(index+1), "/results/", "results/", "/sessions", "sessions/").Replace(script)
		}
		os.MkdirAll("results", 0o755)
		var shards []string
		for i := range jobs[0].Spec.Completions {
			shards = append(shards, line(jobs[0], i))
		}
		fleetRun(t, "the Indexed Job", shards, line(jobs[1], 0))
	})
}
