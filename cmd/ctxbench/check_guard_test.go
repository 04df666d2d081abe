package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckOutputOverInput: --summary, --junit and --partial refuse a
// file check reads — the config (named as the user types it, from its
// folder), the baseline, the --prices file, a partial it merges, a
// transcript — saying so, and the file is left as it was.
func TestCheckOutputOverInput(t *testing.T) {
	cfg := checkSuite(t, "transcripts: [TRANSCRIPT]\npolicies: [none]\n")
	dir := filepath.Dir(cfg)
	base := filepath.Join(dir, "ctxbench.baseline.json")
	prices := filepath.Join(dir, "prices.json")
	partial := filepath.Join(dir, "shard1.json")
	table, err := os.ReadFile("../../pricing/prices.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prices, table, 0o644); err != nil {
		t.Fatal(err)
	}
	transcript, _ := filepath.Abs(corpus + "spotter/tool_heavy.jsonl")
	t.Chdir(dir)
	// Files that read well: without the refusal, the run would go on
	// and write over them.
	for _, args := range [][]string{{"--update"}, {"--shard", "1/1", "--partial", partial}} {
		if _, stderr, code := ctxbench("", append([]string{"check", "--config", "ctxbench.yaml", "--prices", prices}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		file string
		want string
	}{
		{[]string{"--summary", "ctxbench.yaml"}, cfg, "--summary ctxbench.yaml is the config: ctxbench never writes over what it reads"},
		{[]string{"--junit", "./ctxbench.yaml"}, cfg, "--junit ./ctxbench.yaml is the config: ctxbench never writes over what it reads"},
		{[]string{"--summary", "ctxbench.baseline.json"}, base, "--summary ctxbench.baseline.json is the baseline: ctxbench never writes over what it reads"},
		{[]string{"--summary", prices, "--prices", "prices.json"}, prices, "is the --prices file: ctxbench never writes over what it reads"},
		{[]string{"--summary", "shard1.json", "--merge", partial}, partial, "--summary shard1.json is a partial --merge reads: ctxbench never writes over what it reads"},
		{[]string{"--summary", transcript}, transcript, "is an input: ctxbench never writes over what it reads"},
	} {
		before, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		_, stderr, code := ctxbench("", append([]string{"check", "--config", "ctxbench.yaml"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "only with --update") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
		if after, _ := os.ReadFile(tc.file); !bytes.Equal(before, after) {
			t.Errorf("%v wrote over %s", tc.args, tc.file)
		}
	}
}

// TestCheckMissingBaselineHint: with no baseline, the hint names the
// command that records it: --update when every case passes, --update
// --accept when a case is over a budget (--update alone refuses it),
// and the command it names does record it.
func TestCheckMissingBaselineHint(t *testing.T) {
	for _, tc := range []struct {
		name, config, hint string
	}{
		{"passing", "transcripts: [TRANSCRIPT]\npolicies: [none]\n", "run 'ctxbench check --update' once to record it, and commit it"},
		{"over a budget", "transcripts: [TRANSCRIPT]\npolicies: [none]\nbudgets: {max_messages: 1}\n", "run 'ctxbench check --update --accept' once to record it, and commit it: 1 case fails, which --update alone refuses to record"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := checkSuite(t, tc.config)
			_, stderr, code := ctxbench("", "check", "--config", cfg)
			if code != 2 || !strings.Contains(stderr, "ctxbench: hint: "+tc.hint) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and the hint %q", code, stderr, tc.hint)
			}
			if accept := strings.Contains(tc.hint, "--accept"); !accept {
				if strings.Contains(stderr, "--accept") {
					t.Errorf("the hint names --accept for a suite that passes: %q", stderr)
				}
			} else if _, _, code := ctxbench("", "check", "--config", cfg, "--update"); code != 1 {
				t.Errorf("--update alone: exit %d, want 1 (refused)", code)
			}
			args := strings.Fields(strings.Trim(strings.SplitN(tc.hint, "'", 3)[1], "'"))[1:]
			if _, stderr, code := ctxbench("", append(args, "--config", cfg)...); code != 0 {
				t.Errorf("%v: exit %d: %s", args, code, stderr)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(cfg), "ctxbench.baseline.json")); err != nil {
				t.Errorf("%v recorded no baseline: %v", args, err)
			}
		})
	}
}

// TestCheckBaselineAtOddsWithItsKey: a recorded baseline edited so that
// an entry's policy is not its key's, or a violation names no
// invariant, is refused when read, naming the file, the entry and the
// line; the baseline as recorded passes.
func TestCheckBaselineAtOddsWithItsKey(t *testing.T) {
	cfg := checkSuite(t, "transcripts: [TRANSCRIPT]\npolicies: [none, prune]\n")
	base := filepath.Join(filepath.Dir(cfg), "ctxbench.baseline.json")
	if _, stderr, code := ctxbench("", "check", "--config", cfg, "--update"); code != 0 {
		t.Fatal(stderr)
	}
	recorded, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := ctxbench("", "check", "--config", cfg); code != 0 {
		t.Fatalf("the baseline as recorded: exit %d: %s", code, stderr)
	}
	lineOf := func(b []byte, s string) int {
		i := bytes.Index(b, []byte(s))
		if i < 0 {
			t.Fatalf("no %q in the baseline:\n%s", s, b)
		}
		return 1 + bytes.Count(b[:i], []byte("\n"))
	}
	for _, tc := range []struct{ old, new, want string }{
		{`"policy": "none"`, `"policy": "prune"`, `tool_heavy.jsonl | none": policy "prune" is not the policy its key names, "none"`},
		{`"violations": {}`, `"violations": {"tool_paring": 1}`, `violations: unknown invariant "tool_paring"`},
	} {
		edited := bytes.Replace(recorded, []byte(tc.old), []byte(tc.new), 1)
		if bytes.Equal(edited, recorded) {
			t.Fatalf("no %s in the baseline:\n%s", tc.old, recorded)
		}
		if err := os.WriteFile(base, edited, 0o644); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("%s:%d: ", base, lineOf(edited, tc.new))
		_, stderr, code := ctxbench("", "check", "--config", cfg)
		if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2, %q and %q", tc.new, code, stderr, want, tc.want)
		}
	}
}
