package suitecheck

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGlobRecursive: ** matches any number of folders, none included, in
// lexical order, passing over .git; a pattern without ** is
// filepath.Glob's; a malformed one is an error.
func TestGlobRecursive(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.jsonl", "notes.txt", "p/b.jsonl", "p/subagents/agent-1.jsonl", "q/r/s/c.jsonl", ".git/x.jsonl", "p/.git/y.jsonl"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			r, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"**/*.jsonl", []string{"a.jsonl", "p/b.jsonl", "p/subagents/agent-1.jsonl", "q/r/s/c.jsonl"}},
		{"p/**/*.jsonl", []string{"p/b.jsonl", "p/subagents/agent-1.jsonl"}},
		{"**/subagents/*.jsonl", []string{"p/subagents/agent-1.jsonl"}},
		{"q/**/s/*", []string{"q/r/s/c.jsonl"}},
		{"*/*.jsonl", []string{".git/x.jsonl", "p/b.jsonl"}}, // no **: filepath.Glob, one folder
		{"**/none.jsonl", nil},
	} {
		got, err := glob(filepath.Join(dir, tc.pattern))
		if err != nil {
			t.Errorf("%s: %v", tc.pattern, err)
			continue
		}
		if diff := cmp.Diff(tc.want, rel(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.pattern, diff)
		}
	}
	if _, err := glob(filepath.Join(dir, "**", "[.jsonl")); err == nil {
		t.Error("a malformed pattern: no error")
	}
}

// TestConfigHome: ~ in transcripts and baseline is the home folder, and
// ** finds a subagent's file two folders down.
func TestConfigHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	sub := filepath.Join(home, ".claude", "projects", "p", "s1", "subagents", "agent-a.jsonl")
	os.MkdirAll(filepath.Dir(sub), 0o755)
	os.WriteFile(sub, nil, 0o644)
	main := filepath.Join(home, ".claude", "projects", "p", "s1.jsonl")
	os.WriteFile(main, nil, 0o644)
	cfgPath := filepath.Join(t.TempDir(), "ctxbench.yaml")
	os.WriteFile(cfgPath, []byte("transcripts: [\"~/.claude/projects/**/*.jsonl\"]\npolicies: [none]\nbaseline: ~/ctxbench.baseline.json\n"), 0o644)
	cfg, err := LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "ctxbench.baseline.json"); cfg.Baseline != want {
		t.Errorf("baseline %s, want %s", cfg.Baseline, want)
	}
	paths, err := cfg.Paths()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{sub, main}, paths); diff != "" { // the walk's order: p/s1/ before p/s1.jsonl
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}
