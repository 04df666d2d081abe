package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// checkOutputs runs check on the failing suite with every output and
// returns them by name: the text table, the GitHub annotations, the
// JUnit XML and the Markdown summary.
func checkOutputs(t *testing.T, args ...string) map[string]string {
	t.Helper()
	// Annotations name files relative to the repository's root, as on
	// GitHub, whatever folder the test runs in.
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_WORKSPACE", root)
	dir := t.TempDir()
	out := map[string]string{}
	text, stderr, code := ctxbench("", append([]string{"check"}, args...)...)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, text, stderr)
	}
	out["text"] = text
	gh, _, _ := ctxbench("", append([]string{"check", "--format", "github", "--junit", filepath.Join(dir, "junit.xml"), "--summary", filepath.Join(dir, "summary.md")}, args...)...)
	out["github"] = gh
	for _, f := range []string{"junit.xml", "summary.md"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = string(b)
	}
	return out
}

// TestCheckOutputsGolden: the check outputs on a suite with a regression,
// an improvement, a budget exceeded, a parameter changed and violations
// its baseline records (testdata/check-fail).
func TestCheckOutputsGolden(t *testing.T) {
	outs := checkOutputs(t, "--config", "testdata/check-fail/ctxbench.yaml")
	for _, name := range []string{"text", "github", "junit.xml", "summary.md"} {
		golden(t, "check-fail-"+name, outs[name])
	}
	for _, want := range []string{"↓ worse", "↑ better", "✗ over budget", "6 → 5", "1 with the violations the baseline records"} {
		if !strings.Contains(outs["text"], want) {
			t.Errorf("the table lacks %q:\n%s", want, outs["text"])
		}
	}
}

// TestCheckShards: a suite run whole, and as 3 shards merged, gives the
// same bytes in every output and the same baseline on --update; a partial
// of another suite or version is refused.
func TestCheckShards(t *testing.T) {
	dir := t.TempDir()
	cfg := "testdata/check-fail/ctxbench.yaml"
	whole := checkOutputs(t, "--config", cfg)
	var parts []string
	for k := 1; k <= 3; k++ {
		p := filepath.Join(dir, "part"+string(rune('0'+k))+".json")
		if out, stderr, code := ctxbench("", "check", "--config", cfg, "--shard", string(rune('0'+k))+"/3", "--partial", p); code != 0 {
			t.Fatalf("shard %d: exit %d\n%s%s", k, code, out, stderr)
		}
		parts = append(parts, "--merge", p)
	}
	merged := checkOutputs(t, append([]string{"--config", cfg}, parts...)...)
	// --merge FILE..., as the usage says: the partials after the first.
	listed := checkOutputs(t, "--config", cfg, "--merge", parts[1], parts[3], parts[5])
	for name, w := range whole {
		if merged[name] != w {
			t.Errorf("%s: merged shards differ from the whole run:\n%s\nwhole:\n%s", name, merged[name], w)
		}
		if listed[name] != w {
			t.Errorf("%s: shards merged as a list differ from the whole run:\n%s\nwhole:\n%s", name, listed[name], w)
		}
	}
	if _, stderr, code := ctxbench("", "check", "--config", cfg, parts[1]); code != 2 || !strings.Contains(stderr, "--merge "+parts[1]) {
		t.Errorf("a partial without --merge: exit %d, %s", code, stderr)
	}
	// The baseline an update writes is the same.
	baseline := func(args ...string) string {
		t.Helper()
		b := filepath.Join(t.TempDir(), "b.json")
		if out, stderr, code := ctxbench("", append([]string{"check", "--config", cfg, "--baseline", b, "--update", "--accept"}, args...)...); code != 0 {
			t.Fatalf("update: exit %d\n%s%s", code, out, stderr)
		}
		got, _ := os.ReadFile(b)
		return string(got)
	}
	if w, m := baseline(), baseline(parts...); w != m {
		t.Errorf("the baselines differ:\n%s\n%s", w, m)
	}
	// Missing, repeated, foreign parts are refused.
	other := filepath.Join(dir, "other.yaml")
	body, _ := os.ReadFile(cfg)
	os.WriteFile(other, append(body, []byte("\n# another suite\n")...), 0o644)
	copy1 := filepath.Join(dir, "copy1.json")
	b1, _ := os.ReadFile(parts[1])
	os.WriteFile(copy1, b1, 0o644)
	oldVersion := filepath.Join(dir, "old.json")
	b, _ := os.ReadFile(parts[1])
	os.WriteFile(oldVersion, []byte(strings.Replace(string(b), `"ctxbench": "`+version+`"`, `"ctxbench": "v0.0.1"`, 1)), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", cfg, "--merge", parts[1], "--merge", parts[3]}, "shard 3/3 is missing"},
		{[]string{"--config", cfg, "--merge", parts[1], "--merge", copy1, "--merge", parts[3], "--merge", parts[5]}, "given twice"},
		{[]string{"--config", other, "--merge", parts[1], "--merge", parts[3], "--merge", parts[5]}, "a partial of another suite"},
		{[]string{"--config", cfg, "--merge", oldVersion, "--merge", parts[3], "--merge", parts[5]}, "written by ctxbench v0.0.1"},
		{[]string{"--config", cfg, "--shard", "1/3"}, "--shard needs --partial FILE"},
		{[]string{"--config", cfg, "--shard", "4/3", "--partial", filepath.Join(dir, "x.json")}, "want K/N with 1 ≤ K ≤ N"},
	} {
		if out, stderr, code := ctxbench("", append([]string{"check"}, c.args...)...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s%s", c.args, code, c.want, out, stderr)
		}
	}
}

// TestCheckHintedConfigRuns: the suite the missing-config hint quotes is
// one check runs.
func TestCheckHintedConfigRuns(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := ctxbench("", "check", "--config", filepath.Join(dir, "ctxbench.yaml"))
	quoted := regexp.MustCompile(`"([a-z]+: \[[^"]*\])"`).FindAllStringSubmatch(stderr, -1)
	if code != 2 || len(quoted) != 2 {
		t.Fatalf("exit %d, %d lines quoted:\n%s", code, len(quoted), stderr)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	session, err := os.ReadFile(corpus + "spotter/short.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "sessions", "s.jsonl"), session, 0o644)
	os.WriteFile(filepath.Join(dir, "ctxbench.yaml"), []byte(quoted[0][1]+"\n"+quoted[1][1]+"\n"), 0o644)
	if out, stderr, code := ctxbench("", "check", "--config", filepath.Join(dir, "ctxbench.yaml"), "--update"); code != 0 || !strings.Contains(out+stderr, "2 entries") {
		t.Errorf("the hinted suite: exit %d\n%s%s", code, out, stderr)
	}
}

// TestAnnotationPath: an annotation names a case's file, which the suite
// names relative to the config's folder, relative to $GITHUB_WORKSPACE,
// else to the working directory; a file outside it by its absolute path.
func TestAnnotationPath(t *testing.T) {
	ws := t.TempDir()
	at := annotationPath(filepath.Join(ws, "ci", "suite"), ws)
	for file, want := range map[string]string{
		"sessions/a.jsonl":   "ci/suite/sessions/a.jsonl",
		"../../data/b.jsonl": "data/b.jsonl",
		"../../../c.jsonl":   filepath.ToSlash(filepath.Join(filepath.Dir(ws), "c.jsonl")),
	} {
		if got := at(file); got != want {
			t.Errorf("%s: %s, want %s", file, got, want)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if got := annotationPath(filepath.Join(wd, "testdata", "check-fail"), "")("../../x.jsonl"); got != "x.jsonl" {
		t.Errorf("without a workspace: %s, want x.jsonl, relative to the working directory", got)
	}
}
