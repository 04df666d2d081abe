package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctxbench/ctxbench/internal/projection"
	"github.com/ctxbench/ctxbench/internal/rework"
	"github.com/ctxbench/ctxbench/internal/tracefmt"
	"github.com/ctxbench/ctxbench/replay"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

const corpus = "../../fixtures/corpus/"

// ctxbench runs the command in-process with stdin as its standard input.
func ctxbench(stdin string, args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	code = runEnv(args, &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: testGetenv})
	return out.String(), errOut.String(), code
}

// testGetenv is the environment, but for where Claude Code keeps its
// sessions: a test with no PATH finds none, whatever the machine holds
// (--samples reads the embedded samples).
func testGetenv(k string) string {
	if k == "HOME" || k == "CLAUDE_CONFIG_DIR" {
		return ""
	}
	return os.Getenv(k)
}

// TestGolden runs commands and compares their output with
// testdata/golden/NAME.stdout and NAME.stderr. Run go test -update to
// rewrite them after an intended change, then review the diff.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"inspect-samples", []string{"inspect", "--samples"}, 0},
		{"inspect-short", []string{"inspect", corpus + "spotter/short.jsonl"}, 0},
		{"inspect-stream-json", []string{"inspect", corpus + "ai-workflow-agent/issue-113/04_implementation/execute/agent_log_raw.txt"}, 0},
		{"inspect-json-gemini", []string{"--indent", "inspect", "--json", corpus + "codemie-code/tests/integration/metrics/fixtures/gemini/session-2025-12-01T21-45-5b959dae.json"}, 0},
		{"inspect-json-traj", []string{"--indent", "inspect", "--json", corpus + "mini-swe-agent/output/deepseek_reasoner_dev/sqlfluff__sqlfluff-1517/sqlfluff__sqlfluff-1517.traj.json"}, 0},
		{"inspect-dir", []string{"inspect", "testdata/mixed"}, 0},
		{"inspect-bad", []string{"inspect", "testdata/bad.jsonl"}, 2},
		{"inspect-bad-lenient", []string{"inspect", "--lenient", "--json", "--indent", "testdata/bad.jsonl"}, 0},
		{"inspect-wrong-format", []string{"inspect", "--format", "codex", corpus + "spotter/short.jsonl"}, 2},
		{"inspect-bad-format", []string{"inspect", "--format", "claude", "testdata/bad.jsonl"}, 2},
		{"inspect-missing", []string{"inspect", "testdata/no-such-file.jsonl"}, 2},
		{"inspect-not-transcript", []string{"inspect", "testdata/mixed/README.md"}, 2},
		{"convert-anthropic", []string{"convert", "--to", "anthropic", corpus + "spotter/short.jsonl"}, 0},
		{"convert-openai", []string{"convert", "--to", "openai-chat", "testdata/mixed"}, 0},
		{"inspect-otel", []string{"inspect", "../../transcript/testdata/otel/copilot-spans.jsonl"}, 0},
		{"inspect-atif", []string{"inspect", "../../transcript/testdata/atif/claude-code.trajectory.json"}, 0},
		{"inspect-langfuse", []string{"inspect", "../../transcript/testdata/langfuse/observations.jsonl"}, 0},
		{"inspect-opencode", []string{"inspect", "../../transcript/testdata/opencode/export.json"}, 0},
		{"inspect-copilot", []string{"inspect", "../../transcript/testdata/copilot/session-state/6f1d2c3b-8a9e-4f70-b1c2-d3e4f5a6b7c8/events.jsonl"}, 0},
		{"probes-claude-code", []string{"probes", corpus + "spotter/tool_heavy.jsonl"}, 0},
		{"probes-gemini-cli", []string{"probes", corpus + "codemie-code/tests/integration/metrics/fixtures/gemini/session-2025-12-01T21-45-5b959dae.json"}, 0},
		{"probes-openhands", []string{"probes", corpus + "OpenHands/tests/runtime/trajs/wrong_initial_state.json"}, 0},
		{"probes-policy", []string{"probes", "--policy", "aidf:max_messages=6", corpus + "spotter/subagent.jsonl"}, 0},
		{"probes-policy-json", []string{"probes", "--json", "--policy", "aidf:max_messages=6", corpus + "spotter/subagent.jsonl"}, 0},
		{"convert-no-to", []string{"convert", "testdata/mixed"}, 2},
		{"gen-claude", []string{"gen", "--calls", "3", "--seed", "5"}, 0},
		{"gen-openai", []string{"gen", "--calls", "3", "--seed", "5", "--to", "openai-chat", "--non-ascii", "0.5"}, 0},
		{"gen-bad-ratio", []string{"gen", "--tool-ratio", "2"}, 2},
		{"unknown-command", []string{"frobnicate"}, 2},
		{"version", []string{"--version"}, 0},
		{"tokens-one", []string{"tokens", corpus + "spotter/short.jsonl"}, 0},
		{"tokens-table", []string{"tokens", "-e", "chars4", "-e", "gemini", "-e", "o200k_base", "testdata/bad.jsonl", corpus + "spotter/LICENSE"}, 0},
		{"tokens-bad-estimator", []string{"tokens", "-e", "chars3", "x"}, 2},
		{"estimate-gemini", []string{"estimate", corpus + "codemie-code/tests/integration/metrics/fixtures/gemini/session-2025-12-01T21-45-5b959dae.json"}, 0},
		{"estimate-json-short", []string{"--indent", "estimate", "--json", corpus + "spotter/short.jsonl"}, 0},
		{"estimate-thinking", []string{"estimate", corpus + "codemie-code/tests/integration/session/fixtures/session-3fe1b6bc.jsonl"}, 0},
		{"summarize-mock", []string{"summarize", "--template", "aidf", corpus + "spotter/tool_heavy.jsonl"}, 0},
		{"summarize-heuristic-json", []string{"--indent", "summarize", "--summarizer", "heuristic", "--json", corpus + "spotter/tool_heavy.jsonl"}, 0},
		{"policies", []string{"policies"}, 0},
		{"replay-short", []string{"replay", "--policy", "none", "--policy", "prune", "--policy", "aidf:max_messages=10,preserve_last_n=4,pair_safe=true", "-e", "cl100k_base", "-e", "chars4", corpus + "spotter/tool_heavy.jsonl"}, 0},
		{"replay-violations", []string{"replay", "--policy", "aidf:max_messages=12,preserve_last_n=6", corpus + "mini-swe-agent/output/deepseek_chat_dev/pvlib__pvlib-python-1072/pvlib__pvlib-python-1072.traj.json"}, 1},
		{"replay-bad-spec", []string{"replay", "--policy", "aidf:max_messages=-3", corpus + "spotter/short.jsonl"}, 2},
		{"sweep-aidf", []string{"sweep", "--policy", "aidf:pair_safe=true", "--grid", "max_messages=10:30:10", "--grid", "summarize_on_trim=false,true", corpus + "spotter/tool_heavy.jsonl", corpus + "spotter/subagent.jsonl"}, 0},
		{"cost-claude", []string{"cost", "--policy", "none", "--policy", "recorded", "--policy", "aidf:max_messages=10,preserve_last_n=4,pair_safe=true", corpus + "spotter/subagent.jsonl"}, 0},
		{"cost-projection", []string{"cost", "--sessions-per-day", "250", "--policy", "none", "--policy", "aidf:max_messages=30,preserve_last_n=8", corpus + "mini-swe-agent/output/deepseek_chat_dev/pvlib__pvlib-python-1072/pvlib__pvlib-python-1072.traj.json"}, 0},
		{"cost-model-override", []string{"cost", "--pricing-model", "gpt-4.1", "--cache-sim", "none", "--policy", "none", corpus + "codemie-code/src/agents/plugins/codex/__tests__/fixtures/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"}, 0},
		{"cost-unknown-model", []string{"cost", "--pricing-model", "gpt-9", corpus + "spotter/short.jsonl"}, 2},
		{"cost-summarizer-model", []string{"cost", "--model", "gpt-4.1", corpus + "spotter/short.jsonl"}, 2},
		{"cost-unpriced", []string{"cost", corpus + "codemie-code/tests/integration/metrics/fixtures/gemini/session-2025-12-01T21-45-5b959dae.json"}, 0},
		{"cost-list-models", []string{"cost", "--list-models"}, 0},
		{"cost-recorded-bill", []string{"cost", "--policy", "recorded", corpus + "codemie-code/tests/integration/session/fixtures/session-196820da.jsonl"}, 0},
		{"cost-recorded-bill-json", []string{"cost", "--json", "--policy", "recorded", corpus + "codemie-code/tests/integration/session/fixtures/session-196820da.jsonl"}, 0},
		{"cost-unbilled-call", []string{"cost", "--policy", "recorded", "--fit-calls", "6", "../../cost/testdata/codex-last-turn-unbilled.jsonl"}, 0},
		{"cost-short-output", []string{"cost", "--policy", "none", "../../cost/testdata/claude-code-stream-start-output.jsonl"}, 0},
		{"cost-litellm", []string{"cost", "--prices", "../../pricing/testdata/litellm-sample.json", "--policy", "none", corpus + "codemie-code/tests/integration/session/fixtures/session-9eda1058.jsonl"}, 0},
		{"check-no-baseline", []string{"check", "--config", "testdata/check/ctxbench.yaml", "--baseline", "testdata/check/missing.json"}, 2},
		{"sweep-tail-over-cap", []string{"sweep", "--policy", "aidf", "--grid", "max_messages=10", "--grid", "preserve_last_n=8,20", "--grid", "pair_safe=false,true", corpus + "spotter/tool_heavy.jsonl"}, 0},
		{"sweep-projection-error", []string{"sweep", "--policy", "aidf:pair_safe=true", "--grid", "max_messages=40,80", corpus + "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"}, 0},
		{"sweep-bad-grid", []string{"sweep", "--policy", "aidf", "--grid", "max_messages=30:10:10", corpus + "spotter/short.jsonl"}, 2},
		{"check-no-config", []string{"check", "--config", "testdata/no-such-suite.yaml"}, 2},
		{"sweep-grid-no-step", []string{"sweep", "--policy", "aidf", "--grid", "max_messages=10:100", corpus + "spotter/short.jsonl"}, 2},
		{"sweep-grid-not-a-number", []string{"sweep", "--policy", "aidf", "--grid", "max_messages=30,abc", corpus + "spotter/short.jsonl"}, 2},
		{"policies-json", []string{"--indent", "policies", "--json"}, 0},
		{"summarize-bad-template", []string{"summarize", "--template", "short", corpus + "spotter/tool_heavy.jsonl"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := ctxbench("", tc.args...)
			if code != tc.code {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			golden(t, tc.name+".stdout", stdout)
			golden(t, tc.name+".stderr", stderr)
		})
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if got == "" {
			os.Remove(path)
			return
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if string(want) != got {
		gotPath := path + ".got"
		os.WriteFile(gotPath, []byte(got), 0o644)
		t.Errorf("%s differs from the golden file; compare with diff -u %s %s, or run go test -update if intended", name, path, gotPath)
	}
}

// TestInspectJSONContract checks the documented shape of inspect --json,
// which scripts depend on.
func TestInspectJSONContract(t *testing.T) {
	stdout, stderr, code := ctxbench("", "inspect", "--json", corpus+"spotter")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Transcripts []map[string]json.RawMessage `json:"transcripts"`
		Skipped     []struct {
			File, Reason string
		} `json:"skipped_files"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Transcripts) != 6 || len(doc.Skipped) != 2 {
		t.Fatalf("%d transcripts and %d skipped files, want 6 and 2 (LICENSE, README.md)", len(doc.Transcripts), len(doc.Skipped))
	}
	for _, tr := range doc.Transcripts {
		for key, kind := range map[string]string{
			"file": "string", "id": "string", "format": "string", "messages": "number", "roles": "object",
			"calls": "number", "tool_uses": "number", "tool_results": "number", "usage": "object",
			"compactions": "number", "skipped": "object",
		} {
			raw, ok := tr[key]
			if !ok {
				t.Fatalf("transcript lacks %q", key)
			}
			if got := jsonKind(raw); got != kind {
				t.Errorf("%q is a JSON %s, want %s", key, got, kind)
			}
		}
		var u map[string]int64
		if err := json.Unmarshal(tr["usage"], &u); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"input", "cache_read", "cache_write", "output"} {
			if _, ok := u[k]; !ok {
				t.Errorf("usage lacks %q", k)
			}
		}
	}
}

func jsonKind(raw json.RawMessage) string {
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	default:
		return "number"
	}
}

// TestConvertThenInspect pipes convert's output into inspect through
// standard input: the recorded calls and usage survive.
func TestConvertThenInspect(t *testing.T) {
	src := corpus + "codemie-code/tests/integration/session/fixtures/session-9eda1058.jsonl"
	before, _, code := ctxbench("", "inspect", "--json", src)
	if code != 0 {
		t.Fatal("inspect failed")
	}
	for _, to := range []string{"anthropic", "openai-chat", "otel"} {
		converted, stderr, code := ctxbench("", "convert", "--to", to, src)
		if code != 0 {
			t.Fatalf("convert: %s", stderr)
		}
		after, stderr, code := ctxbench(converted, "inspect", "--json", "-")
		if code != 0 {
			t.Fatalf("inspect -: %s", stderr)
		}
		pick := func(s string) any {
			var doc struct {
				Transcripts []struct {
					ID    string
					Calls int
					Usage struct{ Input, CacheRead, CacheWrite, Output int64 }
				}
			}
			if err := json.Unmarshal([]byte(s), &doc); err != nil {
				t.Fatal(err)
			}
			return doc.Transcripts
		}
		if diff := cmp.Diff(pick(before), pick(after)); diff != "" {
			t.Errorf("%s: (-before +after convert):\n%s", to, diff)
		}
	}
}

// TestOutputFiles checks -o: written whole on success, not at all on
// failure, and an existing file left untouched when a run fails.
func TestOutputFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "gen.jsonl")
	if _, stderr, code := ctxbench("", "gen", "--calls", "20", "-o", out); code != 0 {
		t.Fatal(stderr)
	}
	want, _, _ := ctxbench("", "gen", "--calls", "20")
	if got, _ := os.ReadFile(out); string(got) != want {
		t.Errorf("gen -o wrote %d bytes, stdout has %d", len(got), len(want))
	}

	conv := filepath.Join(dir, "conv.jsonl")
	if err := os.WriteFile(conv, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The first input converts, the second is malformed: nothing is written.
	_, stderr, code := ctxbench("", "convert", "--to", "openai-chat", "-o", conv, corpus+"spotter/short.jsonl", "testdata/bad.jsonl")
	if code != 2 || !strings.Contains(stderr, "testdata/bad.jsonl:3:") {
		t.Errorf("convert of a bad file: exit %d, stderr %q", code, stderr)
	}
	if got, _ := os.ReadFile(conv); string(got) != "keep me\n" {
		t.Errorf("a failed convert changed the existing output: %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("temporary files left behind: %v", names)
	}
	if _, _, code := ctxbench("", "gen", "-o", filepath.Join(dir, "missing", "x.jsonl")); code != 2 {
		t.Errorf("gen into a missing directory: exit %d, want 2", code)
	}
}

func TestHelp(t *testing.T) {
	stdout, _, code := ctxbench("", "--help")
	if code != 0 || !strings.Contains(stdout, "inspect") || !strings.Contains(stdout, "convert") {
		t.Errorf("--help: exit %d, output:\n%s", code, stdout)
	}
}

func TestTokensStdin(t *testing.T) {
	stdout, stderr, code := ctxbench("日本語のテキスト and some English", "tokens", "-e", "o200k_base")
	if code != 0 || stdout != "9\n" {
		t.Errorf("tokens of stdin: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestEstimatePlots(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := ctxbench("", "estimate", "--plot", dir, corpus+"spotter/tool_heavy.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, name := range []string{"estimate-scatter.png", "estimate-scatter.svg", "estimate-error.png", "estimate-error.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".png") && !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s is not a PNG", name)
		}
		if strings.HasSuffix(name, ".svg") && (!bytes.Contains(b, []byte("<svg")) || bytes.Contains(b, []byte("@font-face")) ||
			!bytes.Contains(b, []byte("Arial,Helvetica,sans-serif")) || len(b) > 200<<10) {
			t.Errorf("%s is not an SVG naming its fonts, under 200 KB (%d bytes)", name, len(b))
		}
	}
}

// TestSummarizeEndToEnd runs the anthropic provider against a fake
// Messages API: the key comes from the environment, a second run is served
// from the cache, and --offline works from it alone.
func TestSummarizeEndToEnd(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("x-api-key"))
		mu.Unlock()
		if r.URL.Path != "/v1/messages" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("content-type", "application/json")
		io.WriteString(w, `{"model":"claude-haiku-4-5-20251001","content":[{"type":"text","text":"A short summary."}],"usage":{"input_tokens":900,"output_tokens":5}}`)
	}))
	defer api.Close()
	t.Setenv("ANTHROPIC_API_KEY", "sk-test-e2e")
	cache := t.TempDir()
	args := []string{"summarize", "--summarizer", "anthropic:base_url=" + api.URL + ",cache_dir=" + cache + ",max_usd=0.5", corpus + "spotter/short.jsonl"}
	for i, wantCached := range []bool{false, true} {
		stdout, stderr, code := ctxbench("", args...)
		if code != 0 || stdout != "A short summary.\n" {
			t.Fatalf("run %d: exit %d, stdout %q, stderr %q", i, code, stdout, stderr)
		}
		if got := strings.Contains(stderr, "from the cache"); got != wantCached {
			t.Errorf("run %d: cached %v, want %v; stderr %q", i, got, wantCached, stderr)
		}
		if strings.Contains(stdout+stderr, "sk-test-e2e") {
			t.Errorf("the key was printed")
		}
	}
	if len(keys) != 1 || keys[0] != "sk-test-e2e" {
		t.Errorf("requests with keys %q, want one with the environment's key", keys)
	}
	t.Setenv("ANTHROPIC_API_KEY", "")
	offline := []string{"summarize", "--summarizer", "anthropic:offline=true,base_url=" + api.URL + ",cache_dir=" + cache, corpus + "spotter/short.jsonl"}
	if stdout, stderr, code := ctxbench("", offline...); code != 0 || stdout != "A short summary.\n" {
		t.Errorf("offline: exit %d, %q, %q", code, stdout, stderr)
	}
	_, stderr, code := ctxbench("", "summarize", "--summarizer", "anthropic:offline=true,cache_dir="+cache, corpus+"spotter/tool_heavy.jsonl")
	if code != 2 || !strings.Contains(stderr, "not in the response cache (offline)") {
		t.Errorf("offline miss: exit %d, stderr %q", code, stderr)
	}
}

// TestReplayAIDFCriterion runs the success criterion of AIDF's v0.8.0
// plan (Message History Management) through the command line: 60 tool
// calls, aidf:max_messages=30, never more than 30 plus one turn; and two
// runs write byte-identical traces and JSON.
func TestReplayAIDFCriterion(t *testing.T) {
	dir := t.TempDir()
	session := filepath.Join(dir, "s.jsonl")
	if _, stderr, code := ctxbench("", "gen", "--calls", "60", "--tool-ratio", "1", "-o", session); code != 0 {
		t.Fatal(stderr)
	}
	var outs, traces []string
	for i := range 2 {
		trace := filepath.Join(dir, fmt.Sprintf("trace%d.jsonl", i))
		stdout, stderr, code := ctxbench("", "replay", "--json", "--policy", "aidf:max_messages=30", "--trace", trace, session)
		if code != 0 && code != 1 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, _ := os.ReadFile(trace)
		outs, traces = append(outs, stdout), append(traces, string(b))
	}
	if outs[0] != outs[1] || traces[0] != traces[1] || traces[0] == "" {
		t.Error("two replays differ")
	}
	// Without --json the runs keep no steps and the trace is written as
	// they are made: the same bytes.
	streamed := filepath.Join(dir, "streamed.jsonl")
	if _, stderr, code := ctxbench("", "replay", "--policy", "aidf:max_messages=30", "--trace", streamed, session); code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(streamed); string(b) != traces[0] {
		t.Error("the trace written as the steps are made differs from the one of the kept steps")
	}
	lines := traceWithinCap(t, traces[0])
	traceCostsAsCost(t, session, lines)
	// A replay that lists recorded prices with that run: the same lines.
	withRec := filepath.Join(dir, "trace-recorded.jsonl")
	if _, stderr, code := ctxbench("", "replay", "--policy", "recorded", "--policy", "aidf:max_messages=30", "--trace", withRec, session); code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(withRec)
	all := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(all) != 120 || strings.Join(all[60:], "\n") != strings.Join(lines, "\n") {
		t.Errorf("with recorded listed, the aidf lines differ (%d lines)", len(all))
	}
}

// traceWithinCap: the trace of aidf:max_messages=30 over 60 calls has a
// line per call, each sending at most 30 messages plus its turn, and
// every field. It returns the lines.
func traceWithinCap(t *testing.T, trace string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(trace), "\n")
	if len(lines) != 60 {
		t.Fatalf("%d trace lines for 60 calls", len(lines))
	}
	read := 0
	err := tracefmt.ReadTrace(strings.NewReader(trace), func(l *tracefmt.TraceLine) error {
		read++
		if l.Messages != len(l.Context) || l.Messages > 30+len(l.Appended) || l.Tokens["cl100k_base"] == 0 {
			t.Errorf("step %d: %d messages sent for a turn of %d", l.Step.Step, l.Messages, len(l.Appended))
		}
		return nil
	})
	if err != nil || read != 60 {
		t.Fatalf("%d lines read: %v", read, err)
	}
	for _, key := range []string{`"transcript":`, `"policy":"aidf"`, `"params":{`, `"appended":`, `"context":["m0",`, `"evicted":`, `"truncated":`, `"messages":`, `"tokens":{"cl100k_base":`, `"recorded":{"input":`, `"violations":[`, `"retention":`, `"cost_usd":`} {
		if !strings.Contains(lines[59], key) {
			t.Errorf("the trace line lacks %s: %.300s", key, lines[59])
		}
	}
	return lines
}

// traceCostsAsCost: each traced call's cost_usd is the price ctxbench
// cost gives that call, and its cache_break the break cost finds there:
// where, how many tokens re-billed, at what cost.
func traceCostsAsCost(t *testing.T, session string, lines []string) {
	t.Helper()
	stdout, stderr, code := ctxbench("", "cost", "--json", "--policy", "aidf:max_messages=30", session)
	if code != 0 {
		t.Fatalf("cost: exit %d: %s", code, stderr)
	}
	var cost struct {
		Transcripts []struct {
			Policies []struct {
				PerStep []int64 `json:"per_step_pusd"`
				Breaks  []struct {
					Step     int   `json:"step"`
					Index    int   `json:"index"`
					Rebilled int64 `json:"rebilled_tokens"`
					Cost     int64 `json:"cost_pusd"`
				} `json:"cache_breaks"`
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &cost); err != nil || len(cost.Transcripts) != 1 || len(cost.Transcripts[0].Policies) != 1 {
		t.Fatalf("cost --json: %v\n%.300s", err, stdout)
	}
	perStep := cost.Transcripts[0].Policies[0].PerStep
	if len(perStep) != len(lines) {
		t.Fatalf("%d calls priced by cost, %d traced", len(perStep), len(lines))
	}
	breaks := map[int]string{}
	for _, b := range cost.Transcripts[0].Policies[0].Breaks {
		breaks[b.Step] = fmt.Sprintf("at %d, %d tokens, %v", b.Index, b.Rebilled, float64(b.Cost)/1e12)
	}
	if len(breaks) == 0 {
		t.Error("aidf:max_messages=30 broke the cache at no call of a 60-call session")
	}
	for i, l := range lines {
		var step struct {
			CostUSD      *float64 `json:"cost_usd"`
			CacheBreak   *int     `json:"cache_break"`
			Rebilled     int64    `json:"cache_rebilled_tokens"`
			BreakCostUSD float64  `json:"cache_break_cost_usd"`
		}
		if err := json.Unmarshal([]byte(l), &step); err != nil {
			t.Fatal(err)
		}
		if want := float64(perStep[i]) / 1e12; step.CostUSD == nil || *step.CostUSD != want || want == 0 {
			t.Errorf("step %d: cost_usd %v, cost prices it %v", i, step.CostUSD, want)
		}
		got := ""
		if step.CacheBreak != nil {
			got = fmt.Sprintf("at %d, %d tokens, %v", *step.CacheBreak, step.Rebilled, step.BreakCostUSD)
		}
		if got != breaks[i] {
			t.Errorf("step %d: the trace's cache break is %q, cost's %q", i, got, breaks[i])
		}
	}
}

// TestTraceUnpriced: a transcript whose model has no price gets a trace
// without cost_usd, and one warning that says why.
func TestTraceUnpriced(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	_, stderr, code := ctxbench("", "replay", "--policy", "aidf:max_messages=30", "--trace", trace, corpus+"codemie-code/tests/integration/metrics/fixtures/gemini/session-2025-12-01T21-45-5b959dae.json")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(trace)
	if err != nil || len(b) == 0 {
		t.Fatalf("no trace: %v", err)
	}
	if strings.Contains(string(b), "cost_usd") {
		t.Errorf("an unpriced trace has cost_usd: %.300s", b)
	}
	if strings.Count(stderr, "the trace has no cost_usd: no price for model") != 1 {
		t.Errorf("want one warning naming the unpriced model, got:\n%s", stderr)
	}
}

func TestReplayConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "ctxbench.yaml")
	abs, _ := filepath.Abs(corpus + "spotter/tool_heavy.jsonl")
	os.WriteFile(cfg, []byte("transcripts: [\""+abs+"\"]\npolicies:\n  - none\n  - name: aidf\n    label: tight\n    params: {max_messages: 6, preserve_last_n: 2}\nestimators: [chars4]\n"), 0o644)
	stdout, stderr, code := ctxbench("", "replay", "--config", cfg)
	if code != 1 && code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "| tight ") || !strings.Contains(stdout, "tokens are chars4 counts") {
		t.Errorf("config not applied:\n%s", stdout)
	}
}

// TestCostJSON checks that the money adds up: per policy, the components
// sum to the total, exactly, in pico-dollars.
func TestCostJSON(t *testing.T) {
	stdout, stderr, code := ctxbench("", "cost", "--json", "--policy", "none", "--policy", "aidf:max_messages=20,summarize_on_trim=true", corpus+"spotter/subagent.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Transcripts []struct {
			Policies []struct {
				Label string
				Calls struct {
					Input      int64 `json:"input_pusd"`
					CacheRead  int64 `json:"cache_read_pusd"`
					CacheWrite int64 `json:"cache_write_pusd"`
					Output     int64 `json:"output_pusd"`
				}
				Summaries struct {
					Input  int64 `json:"input_pusd"`
					Output int64 `json:"output_pusd"`
				}
				Total   int64   `json:"total_pusd"`
				PerStep []int64 `json:"per_step_pusd"`
			}
			Billed struct {
				TotalUSD float64 `json:"total_usd"`
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range doc.Transcripts[0].Policies {
		c := p.Calls
		steps := int64(0)
		for _, s := range p.PerStep {
			steps += s
		}
		if c.Input+c.CacheRead+c.CacheWrite+c.Output+p.Summaries.Input+p.Summaries.Output != p.Total || steps != c.Input+c.CacheRead+c.CacheWrite+c.Output {
			t.Errorf("%s: components do not add up to the total", p.Label)
		}
	}
	if doc.Transcripts[0].Billed.TotalUSD <= 0 {
		t.Error("no billed cost for a session with usage")
	}
}

// TestReportSessions: --sessions N shows N sessions one by one, and says
// so; ranking by saving needs the none policy, and says which flags.
func TestReportSessions(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report")
	_, stderr, code := ctxbench("", "report", "--samples", "--out", out, "--sessions", "2", "--sessions-by", "saving", "--policy", "none", "--policy", "aidf:max_messages=10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`2 of \d+ sessions are shown one by one: those that save the most`).Match(md) {
		t.Errorf("report.md does not say which sessions it shows:\n%s", md)
	}
	_, stderr, code = ctxbench("", "report", "--samples", "--out", out, "--sessions-by", "saving", "--policy", "prune")
	if code != exitError || !strings.Contains(stderr, "--sessions, --sessions-by: ranking by saving: no none policy") {
		t.Errorf("saving without none: exit %d, %s", code, stderr)
	}
}

// TestReportEndToEnd runs the default report, on the embedded samples.
func TestReportEndToEnd(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report")
	stdout, stderr, code := ctxbench("", "report", "--samples", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "report: "+filepath.Join(out, "index.html")) || !strings.Contains(stdout, "| agent ") {
		t.Errorf("summary:\n%s", stdout)
	}
	// The terminal ends with the page's recommendation.
	page, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rec, _ := strings.Cut(string(page), "\n**")
	rec, _, _ = strings.Cut(rec, "**\n")
	if rec == "" || !strings.HasSuffix(stdout, "\n"+rec+"\n") {
		t.Errorf("the output does not end with the recommendation %q:\n%s", rec, stdout)
	}
	reportFolderComplete(t, out)
	doc := reportResults(t, out)
	testBrowser(t, filepath.Join(out, "index.html"), func(dom string) { pageSummaryAsResults(t, dom, doc) })
}

// reportFolderComplete: the report's folder holds every file, none
// empty; SVGs name their font instead of embedding it, so the whole
// default report stays under 3 MB.
func reportFolderComplete(t *testing.T, out string) {
	t.Helper()
	for _, f := range []string{"index.html", "report.md", "results.json", "summary.csv", "steps.csv", "sweep.csv", "pareto.png",
		"sweep-heatmap.png", "estimate-scatter.png", "growth-tokens-6.png", "cost-1.png"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	var total int64
	entries, _ := os.ReadDir(out)
	for _, d := range entries {
		if fi, err := d.Info(); err == nil {
			total += fi.Size()
		}
	}
	if total > 3<<20 || len(entries) < 20 {
		t.Errorf("the report is %d bytes in %d files, want under 3 MB", total, len(entries))
	}
}

// reportDoc is what TestReportEndToEnd reads of results.json.
type reportDoc struct {
	Policies    []string
	Transcripts []struct {
		Runs []struct {
			Label   string
			Cost    []float64 `json:"cost_per_call_usd"`
			CostUSD *float64  `json:"cost_usd"`
			Summary struct {
				InputTokens map[string]int64 `json:"input_tokens"`
			}
		}
	}
}

// reportResults reads the default report's results.json: every policy
// and sample, no call costing less than nothing.
func reportResults(t *testing.T, out string) reportDoc {
	t.Helper()
	var doc reportDoc
	b, _ := os.ReadFile(filepath.Join(out, "results.json"))
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Policies) != len(defaultPolicies) || len(doc.Transcripts) != len(sampleFiles) {
		t.Errorf("results.json: %v, %d policies, %d transcripts", err, len(doc.Policies), len(doc.Transcripts))
	}
	for _, tr := range doc.Transcripts {
		for _, r := range tr.Runs {
			for i, c := range r.Cost {
				if c < 0 {
					t.Errorf("%s: call %d costs %v", r.Label, i+1, c)
				}
			}
		}
	}
	return doc
}

// pageSummaryAsResults: the page's summary gives each policy the tokens
// and the cost of results.json, summed over the sessions, says which
// are not priced, and has a recommendation.
func pageSummaryAsResults(t *testing.T, dom string, doc reportDoc) {
	t.Helper()
	for k, label := range doc.Policies {
		sum, all, tokens := 0.0, true, int64(0)
		for _, tr := range doc.Transcripts {
			tokens += tr.Runs[k].Summary.InputTokens["cl100k_base"]
			if c := tr.Runs[k].CostUSD; c != nil {
				sum += *c
			} else {
				all = false
			}
		}
		m := regexp.MustCompile(`<tr[^>]*data-policy="` + regexp.QuoteMeta(html.EscapeString(label)) + `"><td[^>]*>.*?</td>(?:<td[^>]*>.*?</td>){2}<td class="n" data-v="(\d+)">[^<]*</td><td[^>]*>[^<]*</td><td class="n w" data-v="([^"]*)">([^<]*)<`).FindStringSubmatch(dom)
		if m == nil {
			t.Errorf("the summary has no cost for %s", label)
			continue
		}
		if m[1] != strconv.FormatInt(tokens, 10) || tokens == 0 {
			t.Errorf("%s: the summary's tokens sent %s, results.json's %d", label, m[1], tokens)
		}
		// The priced sessions' cost; the page says which are not.
		if got, err := strconv.ParseFloat(m[2], 64); err != nil || math.Abs(got-sum) > 1e-9 {
			t.Errorf("%s: the summary's cost %q, results.json's %v", label, m[2], sum)
		}
		if !all && !strings.Contains(m[3], " sessions priced)") && m[3] != "not priced" {
			t.Errorf("%s: a session is not priced, and the summary says %q", label, m[3])
		}
	}
	if !strings.Contains(dom, "Not priced (no cost is counted for them, never $0): model ") {
		t.Error("the page does not name the model of the sessions not priced")
	}
	if !strings.Contains(dom, `id="recommendation"`) {
		t.Error("the page has no recommendation")
	}
}

// browserCheck is the script testBrowser adds to a copy of the page: on
// load it says whether every image loaded, which section is open, then
// opens every section and lists what is wider than the window or scrolls
// sideways in its box, the words of table cells broken across lines
// elsewhere than at a space, a hyphen or a <wbr> (a policy's name letter
// by letter), whether the recommendation ends above the first table,
// and each policy's key colour in the summary.
const browserCheck = `<script>window.addEventListener('load',function(){
var b=document.body,vw=document.documentElement.clientWidth,wide=[],keys=[];
b.setAttribute('data-images',Array.prototype.every.call(document.images,function(i){return i.complete&&i.naturalWidth>0})?'loaded':'broken');
var open=document.querySelectorAll('details[open]');b.setAttribute('data-open',open.length==1?open[0].id:String(open.length));
document.querySelectorAll('details').forEach(function(d){d.open=true});
document.querySelectorAll('body *').forEach(function(el){var r=el.getBoundingClientRect();if(r.width>0&&r.right>vw+1)wide.push(el.tagName+(el.id?'#'+el.id:''))});
document.querySelectorAll('.box').forEach(function(x){if(x.scrollWidth>x.clientWidth+1)wide.push('box:'+(x.firstElementChild.id||x.closest('details').id))});
b.setAttribute('data-wide',wide.length?wide.length+' '+wide.slice(0,10).join(' '):'none');
var broken=[];document.querySelectorAll('td').forEach(function(td){var w=document.createTreeWalker(td,NodeFilter.SHOW_TEXT),n;while((n=w.nextNode())){var re=/[^ \n-]+-?/g,m;while((m=re.exec(n.data))){var r=document.createRange(),ys={};r.setStart(n,m.index);r.setEnd(n,m.index+m[0].length);
Array.prototype.forEach.call(r.getClientRects(),function(q){if(q.width>0)ys[Math.round(q.top)]=1});if(Object.keys(ys).length>1)broken.push(m[0])}}});
b.setAttribute('data-broken',broken.length?broken.length+' '+broken.slice(0,10).join(' '):'none');
b.setAttribute('data-page-width',String(document.documentElement.scrollWidth));
var rec=document.getElementById('recommendation'),t=document.querySelector('table');
b.setAttribute('data-answer',rec&&t&&rec.getBoundingClientRect().bottom<=t.getBoundingClientRect().top?'first':'later');
document.querySelectorAll('tr[data-policy] .key').forEach(function(k){keys.push(k.closest('tr').getAttribute('data-policy')+'='+getComputedStyle(k).borderTopColor)});
b.setAttribute('data-keys',keys.join('|'));})</script>`

// testBrowser loads the report in headless Chromium at 1280 px: the page
// must render its title and summary table with the recommendation above
// it, every image must load with a size, one section is open, and with
// every section open no element may be wider than the window, no
// table scroll sideways, nor a cell break a word; every link and image must name a file beside
// the page, and each policy has one colour, its key's in the summary and
// its line's in every plot. check, if not nil, looks at the rendered
// page. Without Chromium it is skipped, except in CI, where .ci/run
// installs it.
func testBrowser(t *testing.T, index string, check func(dom string)) {
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("Chromium is not installed; .ci/run installs Debian's chromium package")
		}
		t.Skip("Chromium is not installed: the browser test is skipped (apt-get install chromium runs it)")
	}
	abs, _ := filepath.Abs(index)
	page, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	checked := filepath.Join(filepath.Dir(abs), ".browser-check.html")
	if err := os.WriteFile(checked, bytes.Replace(page, []byte("</body>"), []byte(browserCheck+"</body>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(checked)
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir=" + t.TempDir(), "--virtual-time-budget=10000"}
	out, err := exec.Command(bin, append(args, "--window-size=1280,1600", "--dump-dom", "file://"+checked)...).Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	dom := string(out)
	for _, want := range []string{"<title>ctxbench report</title>", `<table id="summary">`, `data-images="loaded"`, `data-wide="none"`, `data-broken="none"`, `data-answer="first"`} {
		if !strings.Contains(dom, want) {
			got := regexp.MustCompile(`data-(?:wide|broken|answer|images)="[^"]*"`).FindAllString(dom, -1)
			t.Errorf("the rendered page lacks %s (it has %v)", want, got)
		}
	}
	if m := regexp.MustCompile(`data-open="session-\d+"`).FindString(dom); m == "" {
		t.Error("the page does not open one session")
	}
	if m := regexp.MustCompile(`data-page-width="(\d+)"`).FindStringSubmatch(dom); m == nil {
		t.Error("the page did not measure its width")
	} else if w, _ := strconv.Atoi(m[1]); w > 1280 {
		t.Errorf("the page is %d px wide at a 1280 px window", w)
	}
	links := 0
	for _, m := range regexp.MustCompile(`(?:href|src)="([^"#]+)"`).FindAllStringSubmatch(dom, -1) {
		links++
		if _, err := os.Stat(filepath.Join(filepath.Dir(abs), html.UnescapeString(m[1]))); err != nil {
			t.Errorf("a link does not resolve: %s", m[1])
		}
	}
	if links < 10 {
		t.Errorf("%d links and images on the page", links)
	}
	onePolicyColour(t, filepath.Dir(abs), dom)
	if check != nil {
		check(dom)
	}
	shot := filepath.Join(t.TempDir(), "shot.png")
	if err := exec.Command(bin, append(args, "--window-size=1280,1600", "--screenshot="+shot, "file://"+abs)...).Run(); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 10_000 {
		t.Errorf("screenshot: %v", err)
	}
}

// svgLegend matches a legend entry of an SVG plot: its line's colour,
// then its text.
var svgLegend = regexp.MustCompile(`stroke:#([0-9A-F]{2})([0-9A-F]{2})([0-9A-F]{2})[^>]*/>\s*<text[^>]*>([^<]+)</text>`)

// onePolicyColour: the rendered summary gives each policy a key of a
// colour of its own, and every plot in dir draws the policy (the first
// of a legend's "a = b") in its key's colour.
func onePolicyColour(t *testing.T, dir, dom string) {
	t.Helper()
	m := regexp.MustCompile(`data-keys="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil || m[1] == "" {
		t.Fatal("the page has no policy keys")
	}
	keys, colours := map[string]string{}, map[string]string{}
	for _, kv := range strings.Split(html.UnescapeString(m[1]), "|") {
		label, c, _ := strings.Cut(kv, "=rgb")
		if other, ok := colours[c]; ok {
			t.Errorf("%s and %s have one colour, %s", other, label, c)
		}
		keys[label], colours[c] = c, label
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.svg"))
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range svgLegend.FindAllStringSubmatch(string(b), -1) {
			first, _, _ := strings.Cut(html.UnescapeString(e[4]), " = ")
			want, ok := keys[first]
			if !ok {
				continue
			}
			seen++
			var rgb [3]int64
			for i := range rgb {
				rgb[i], _ = strconv.ParseInt(e[i+1], 16, 64)
			}
			if got := fmt.Sprintf("(%d, %d, %d)", rgb[0], rgb[1], rgb[2]); got != want {
				t.Errorf("%s: %s is rgb%s, its key rgb%s", filepath.Base(f), e[4], got, want)
			}
		}
	}
	if len(keys) < 2 || seen < 2*len(keys) {
		t.Errorf("%d policy keys, %d legend entries of policies in the plots", len(keys), seen)
	}
}

// TestSelfCheck is ctxbench's own regression suite: every policy's
// behaviour on real transcripts, against the committed baseline.
func TestSelfCheck(t *testing.T) {
	stdout, stderr, code := ctxbench("", "check", "--config", "testdata/check/ctxbench.yaml")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s\nif the change is intended: go run ./cmd/ctxbench check --config cmd/ctxbench/testdata/check/ctxbench.yaml --update", code, stdout, stderr)
	}
}

// checkSuite copies a suite into a temporary folder, with absolute
// transcript paths, and returns the config's path.
func checkSuite(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	abs, _ := filepath.Abs(corpus + "spotter/tool_heavy.jsonl")
	cfg := filepath.Join(dir, "ctxbench.yaml")
	if err := os.WriteFile(cfg, []byte(strings.ReplaceAll(body, "TRANSCRIPT", abs)), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestCheckFailures(t *testing.T) {
	cfg := checkSuite(t, "transcripts: [TRANSCRIPT]\npolicies: [none]\ntolerance: {input_tokens: {relative: 0.01}}\n")
	base := filepath.Join(filepath.Dir(cfg), "ctxbench.baseline.json")
	// Without --update nothing is written: a missing baseline is exit 2.
	if _, stderr, code := ctxbench("", "check", "--config", cfg); code != 2 || !strings.Contains(stderr, "--update") {
		t.Fatalf("missing baseline: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(base); err == nil {
		t.Fatal("check wrote a baseline without --update")
	}
	if _, stderr, code := ctxbench("", "check", "--config", cfg, "--update"); code != 0 {
		t.Fatal(stderr)
	}
	if _, _, code := ctxbench("", "check", "--config", cfg); code != 0 {
		t.Fatal("an unchanged baseline fails")
	}
	// The tolerance boundary: input_tokens is 1,469; 1% of the baseline.
	setInput := func(v int) {
		b, _ := os.ReadFile(base)
		var doc map[string]any
		json.Unmarshal(b, &doc)
		for _, e := range doc["entries"].(map[string]any) {
			e.(map[string]any)["input_tokens"] = v
		}
		b, _ = json.MarshalIndent(doc, "", "  ")
		os.WriteFile(base, b, 0o644)
	}
	setInput(1455) // 1,469 is 0.96% above: inside
	if stdout, _, code := ctxbench("", "check", "--config", cfg); code != 0 {
		t.Errorf("just inside the tolerance fails:\n%s", stdout)
	}
	setInput(1454) // 1.03% above: outside, worse
	stdout, _, code := ctxbench("", "check", "--config", cfg)
	if code != 1 || !regexp.MustCompile(`input_tokens \|\s+1,454 \|\s+1,469 \|\s+\+1\.0% \| ↓ worse`).MatchString(stdout) {
		t.Errorf("just outside the tolerance: exit %d\n%s", code, stdout)
	}
	before, _ := os.ReadFile(base)
	ctxbench("", "check", "--config", cfg)
	if after, _ := os.ReadFile(base); string(after) != string(before) {
		t.Error("a failing check rewrote the baseline")
	}
	// Fewer tokens is better: an improvement passes, and fails under
	// --strict.
	setInput(1500)
	if stdout, _, code := ctxbench("", "check", "--config", cfg); code != 0 || !strings.Contains(stdout, "↑ better") || !strings.Contains(stdout, "1 improved") {
		t.Errorf("an improvement: exit %d\n%s", code, stdout)
	}
	if _, _, code := ctxbench("", "check", "--config", cfg, "--strict"); code != 1 {
		t.Errorf("an improvement under --strict: exit %d, want 1", code)
	}
	// An unknown budget is a config error.
	if _, stderr, code := ctxbench("", "check", "--config", checkSuite(t, "transcripts: [TRANSCRIPT]\npolicies: [none]\nbudgets: {max_cost: 1}\n"), "--update"); code != 2 || !strings.Contains(stderr, "unknown budget") {
		t.Errorf("unknown budget: exit %d, %s", code, stderr)
	}
}

// TestCheckAccept: budgets and invariants a check fails on. --update
// refuses to record them without --accept, and leaves nothing on disk;
// --accept records them; the next check fails again on a budget, passes
// on known violations and fails on more of them, and says so in JUnit.
func TestCheckAccept(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"transcripts: [TRANSCRIPT]\npolicies: [none]\nbudgets: {max_context_tokens: 500}\n", "1,090 is over the budget 500 (max_context_tokens)"},
		{"transcripts: [TRANSCRIPT]\npolicies: [\"aidf:max_messages=4,preserve_first_n=0,preserve_last_n=2,pair_safe=true\"]\nbudgets: {min_retention: 0.9}\n", "is under the minimum 0.9 (min_retention)"},
		{"transcripts: [TRANSCRIPT]\npolicies: [\"aidf:max_messages=4,preserve_first_n=0,preserve_last_n=2,pair_safe=true\"]\nbudgets: {min_probe_score: 0.9}\n", "probe score 0.5714 is under the minimum 0.9 (min_probe_score)"},
		{"transcripts: [TRANSCRIPT]\npolicies: [\"aidf:max_messages=3,preserve_last_n=1\"]\n", "violations.tool_pairing"},
	} {
		checkAccepted(t, tc.body, tc.want)
	}
}

// checkAccepted runs TestCheckAccept's steps on the suite body, whose
// check fails saying want.
func checkAccepted(t *testing.T, body, want string) {
	t.Helper()
	cfg := checkSuite(t, body)
	base := filepath.Join(filepath.Dir(cfg), "ctxbench.baseline.json")
	junit := filepath.Join(filepath.Dir(cfg), "junit.xml")
	stdout, stderr, code := ctxbench("", "check", "--config", cfg, "--update")
	if _, err := os.Stat(base); code != 1 || err == nil || !strings.Contains(stdout, want) || !strings.Contains(stderr, "--accept") {
		t.Errorf("%q: --update without --accept: exit %d, baseline written: %v\n%s%s", body, code, err == nil, stdout, stderr)
	}
	stdout, stderr, code = ctxbench("", "check", "--config", cfg, "--update", "--accept")
	if code != 0 || !strings.Contains(stdout, "accepted 1 failing case:") || !strings.Contains(stdout, want) {
		t.Fatalf("--accept: exit %d\n%s%s", code, stdout, stderr)
	}
	// A budget is the config's: accepting says the next check fails
	// again, as it does below; violations become known, and pass.
	violations := strings.Contains(want, "violations")
	if again := strings.Contains(stdout, "the next check fails on it again"); again == violations {
		t.Errorf("%q: --accept says the next check fails again: %v\n%s", body, again, stdout)
	}
	stdout, stderr, code = ctxbench("", "check", "--config", cfg, "--junit", junit)
	if violations {
		// Known violations pass; more of them fail.
		if code != 0 {
			t.Errorf("known violations: exit %d\n%s%s", code, stdout, stderr)
		}
		lowerKnownViolations(t, base)
		stdout, stderr, code = ctxbench("", "check", "--config", cfg, "--junit", junit)
	}
	if code != 1 || !strings.Contains(stdout+stderr, want) {
		t.Errorf("%q: exit %d, want 1 and %q:\n%s%s", body, code, want, stdout, stderr)
	}
	junitOneFailure(t, junit)
}

// lowerKnownViolations makes the baseline know one tool_pairing
// violation fewer.
func lowerKnownViolations(t *testing.T, base string) {
	t.Helper()
	b, _ := os.ReadFile(base)
	lower := regexp.MustCompile(`"tool_pairing": (\d+)`).ReplaceAllStringFunc(string(b), func(m string) string {
		n, _ := strconv.Atoi(m[len(`"tool_pairing": `):])
		return `"tool_pairing": ` + strconv.Itoa(n-1)
	})
	if lower == string(b) {
		t.Fatal("no tool_pairing count in the baseline")
	}
	os.WriteFile(base, []byte(lower), 0o644)
}

// junitOneFailure: the JUnit file holds one suite of one failing case.
func junitOneFailure(t *testing.T, junit string) {
	t.Helper()
	var suites struct {
		XMLName xml.Name `xml:"testsuites"`
		Suites  []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	b, _ := os.ReadFile(junit)
	if err := xml.Unmarshal(b, &suites); err != nil || len(suites.Suites) != 1 || len(suites.Suites[0].Cases) != 1 || suites.Suites[0].Cases[0].Failure == nil {
		t.Errorf("junit: %v\n%s", err, b)
	}
}

// TestReplaySelfCheck: on a session Claude Code compacted, replay says
// whether claude-code compacted where Claude Code did, with both counts.
func TestReplaySelfCheck(t *testing.T) {
	stdout, stderr, code := ctxbench("", "replay", "--policy", "claude-code", "../../fixtures/corpus/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "self-check: Claude Code (2.1.39) compacted before call 71 (auto, 167,731 tokens); claude-code compacted at call 71, counting 167,731: agrees\n"
	if !strings.Contains(stdout, want) {
		t.Errorf("no self-check line %q in:\n%s", want, stdout)
	}
	// estimate says the same, as Claude Code's count against ctxbench's.
	stdout, _, _ = ctxbench("", "estimate", "../../fixtures/corpus/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	if !strings.Contains(stdout, "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl: "+want) {
		t.Errorf("estimate has no self-check line %q in:\n%s", want, stdout)
	}
	// Modelled as another version, it disagrees, and says so.
	stdout, _, _ = ctxbench("", "replay", "--policy", "claude-code:version=2.0.21", "../../fixtures/corpus/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	if !strings.Contains(stdout, ": differs\n") {
		t.Errorf("2.0.21's threshold on a 2.1.39 session agrees:\n%s", stdout)
	}
}

// TestProviderFailuresStopTheRun: a bad key stops a replay at its first
// summary (one request, exit 2, the error and its hint); a server that
// keeps failing fails the command after 3 calls unless
// --allow-summary-failures, which replays to the end and says how many
// failed.
func TestProviderFailuresStopTheRun(t *testing.T) {
	var mu sync.Mutex
	requests := 0
	status := 401
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		s := status
		mu.Unlock()
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(s)
		io.WriteString(w, `{"type":"error","error":{"type":"some_error","message":"no"}}`)
	}))
	defer api.Close()
	t.Setenv("ANTHROPIC_API_KEY", "sk-test-fail")
	session := filepath.Join(t.TempDir(), "s.jsonl")
	if _, stderr, code := ctxbench("", "gen", "--calls", "30", "-o", session); code != 0 {
		t.Fatal(stderr)
	}
	cache := t.TempDir()
	args := func(extra ...string) []string {
		return []string{"replay", "--summarizer", "anthropic:base_url=" + api.URL + ",cache_dir=" + cache + ",retries=0" + strings.Join(extra, ""),
			"--policy", "aidf:max_messages=10,preserve_last_n=4,summarize_on_trim=true,summarize_every=1", session}
	}
	_, stderr, code := ctxbench("", args()...)
	if code != 2 || requests != 1 || !strings.Contains(stderr, "summary calls stopped") || !strings.Contains(stderr, "set ANTHROPIC_API_KEY") {
		t.Errorf("401: exit %d, %d requests, stderr %q", code, requests, stderr)
	}
	mu.Lock()
	status, requests = 500, 0
	mu.Unlock()
	_, stderr, code = ctxbench("", args()...)
	if code != 2 || requests != 3 || !strings.Contains(stderr, "after 3 failed calls") {
		t.Errorf("500: exit %d, %d requests, stderr %q", code, requests, stderr)
	}
	mu.Lock()
	requests = 0
	mu.Unlock()
	stdout, stderr, code := ctxbench("", args(",allow_failures=true")...)
	if code == 2 || requests < 4 || !strings.Contains(stderr, fmt.Sprintf("%d summarization calls failed (allowed)", requests)) || !strings.Contains(stdout, "failed") {
		t.Errorf("allowed: exit %d, %d requests, stderr %q", code, requests, stderr)
	}
	for _, bad := range [][2]string{{",max_usd=-1", "max_usd=-1"}, {",max_usd=NaN", "max_usd=NaN"}, {",timeout=0s", "timeout=0s"},
		{",retries=-1", "retries=-1"}, {",base_url=x", "base_url given twice"}, {",colour=red", `no key "colour"`}} {
		if _, stderr, code := ctxbench("", args(bad[0])...); code != 2 || !strings.Contains(stderr, bad[1]) {
			t.Errorf("%v: exit %d, stderr %q", bad, code, stderr)
		}
	}
	if _, stderr, code := ctxbench("", "replay", "--summarizer", "anthropic:base_url=ftp://example.com", session); code != 2 || !strings.Contains(stderr, `base URL "ftp://example.com"`) {
		t.Errorf("ftp base URL: exit %d, stderr %q", code, stderr)
	}
}

// TestOutputsNeverReplaceInputs: --junit, --summary or --partial naming
// the baseline or the config is refused before anything runs, the
// baseline untouched; a symbolic link to a directory of transcripts is
// walked.
func TestOutputsNeverReplaceInputs(t *testing.T) {
	base := "testdata/check/ctxbench.baseline.json"
	before, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--junit", base}, {"--summary", "testdata/check/ctxbench.yaml"}, {"--junit", "./testdata/check/../check/ctxbench.baseline.json"}} {
		_, stderr, code := ctxbench("", append([]string{"check", "--config", "testdata/check/ctxbench.yaml"}, args...)...)
		if code != 2 || !strings.Contains(stderr, "ctxbench never writes over what it reads") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	if after, _ := os.ReadFile(base); !bytes.Equal(before, after) {
		t.Fatal("the baseline changed")
	}
	link := filepath.Join(t.TempDir(), "sessions")
	abs, _ := filepath.Abs(corpus + "spotter")
	if err := os.Symlink(abs, link); err != nil {
		t.Skip(err)
	}
	stdout, stderr, code := ctxbench("", "inspect", link)
	if code != 0 || strings.Contains(stderr, "not a regular file") || !strings.Contains(stdout, "tool_heavy.jsonl") {
		t.Errorf("a linked directory: exit %d, stderr %q", code, stderr)
	}
}

// TestTraceOrder: runs replayed at once write their lines to the trace
// as they go, yet the trace lists each transcript's runs whole, in the
// policies' order, the same bytes on every run.
func TestTraceOrder(t *testing.T) {
	dir := t.TempDir()
	args := []string{"replay", "--policy", "none", "--policy", "aidf:max_messages=10", "--policy", "codex", "--policy", "prune", corpus + "spotter"}
	var traces []string
	for i := range 2 {
		trace := filepath.Join(dir, fmt.Sprintf("t%d.jsonl", i))
		if _, stderr, code := ctxbench("", append([]string{"replay", "--trace", trace}, args[1:]...)...); code != 0 && code != 1 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, _ := os.ReadFile(trace)
		traces = append(traces, string(b))
	}
	if traces[0] != traces[1] {
		t.Fatal("two traces differ")
	}
	var order []string
	err := tracefmt.ReadTrace(strings.NewReader(traces[0]), func(l *tracefmt.TraceLine) error {
		key := l.Transcript + " " + l.Policy
		if len(order) == 0 || order[len(order)-1] != key {
			order = append(order, key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(order)%4 != 0 || len(order) < 8 {
		t.Fatalf("%d runs in the trace: %v", len(order), order)
	}
	for i, key := range order {
		if want := []string{"none", "aidf", "codex", "prune"}[i%4]; !strings.HasSuffix(key, " "+want) {
			t.Errorf("run %d of the trace is %s, want policy %s", i, key, want)
		}
	}
}

// TestReplayJSONSteps: --json writes every run's steps as they are made
// (spooled, the runs keeping none): compact and indented say the same,
// each run has a step per call, and each step's context is the one its
// trace line gives.
func TestReplayJSONSteps(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	args := []string{"replay", "--json", "--trace", trace, "--policy", "none", "--policy", "aidf:max_messages=10", "--policy", "codex:context_window=24000", corpus + "spotter"}
	compact, stderr, code := ctxbench("", args...)
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	indented, _, _ := ctxbench("", append([]string{"--indent"}, args...)...)
	type doc struct {
		Transcripts []struct {
			Runs []struct {
				Transcript string
				Policy     string
				Steps      []replay.Step
				Summary    struct{ Calls int }
			}
		}
	}
	var a, b doc
	if err := json.Unmarshal([]byte(compact), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(indented), &b); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b, cmpopts.IgnoreUnexported(replay.Step{})); diff != "" || strings.Count(compact, "\n") != 1 || !strings.Contains(indented, "\n              \"step\": 0,") {
		t.Fatalf("compact and indented differ, or are not so: %s", diff)
	}
	contexts := map[string][]string{}
	tb, _ := os.ReadFile(trace)
	if err := tracefmt.ReadTrace(bytes.NewReader(tb), func(l *tracefmt.TraceLine) error {
		contexts[fmt.Sprintf("%s %s %d", l.Transcript, l.Policy, l.Step.Step)] = l.Context
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	steps, prefixed := 0, 0
	for _, tr := range a.Transcripts {
		for _, r := range tr.Runs {
			if len(r.Steps) != r.Summary.Calls {
				t.Errorf("%s %s: %d steps for %d calls", r.Transcript, r.Policy, len(r.Steps), r.Summary.Calls)
			}
			for _, s := range r.Steps {
				if len(s.Context) > 0 && strings.HasPrefix(s.Context[0], "^") {
					prefixed++
				}
			}
			if err := tracefmt.ExpandSteps(r.Steps); err != nil {
				t.Fatal(err)
			}
			for _, s := range r.Steps {
				steps++
				want := contexts[fmt.Sprintf("%s %s %d", r.Transcript, r.Policy, s.Step)]
				if !slices.Equal(s.Context, want) {
					t.Fatalf("%s %s step %d: context %v, the trace's %v", r.Transcript, r.Policy, s.Step, s.Context, want)
				}
			}
		}
	}
	if prefixed == 0 {
		t.Error(`no step's context starts "^N"`)
	}
	if steps != len(contexts) || steps < 100 {
		t.Errorf("%d steps in --json, %d trace lines", steps, len(contexts))
	}
}

// failingWriter fails every write, as a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestOutputNotWritten: output that cannot be written (a full disk:
// `> /dev/full`) fails the command, exit 2 with the reason, where it was
// lost with exit 0 — --version and a check that passes alike.
func TestOutputNotWritten(t *testing.T) {
	for _, args := range [][]string{
		{"--version"},
		{"check", "--config", "testdata/check/ctxbench.yaml"},
		{"inspect", "../../fixtures/corpus/spotter/short.jsonl"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, failingWriter{}, &stderr); code != exitError || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("%v: exit %d, stderr %q; want %d and the reason", args, code, stderr.String(), exitError)
		}
	}
}

// TestEverythingSkipped: a folder whose every file is skipped (no
// transcript in it) is an error, exit 2, for every command that reads
// one — never an all-zero result with exit 0.
func TestEverythingSkipped(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"README.md": "# notes\n", "empty.jsonl": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "r")
	for _, args := range [][]string{
		{"inspect", dir}, {"replay", "--policy", "none", dir}, {"cost", dir}, {"cost", "--policy", "none", dir},
		{"report", "--out", out, dir}, {"estimate", dir},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != exitError || !strings.Contains(stderr.String(), "no transcript read") {
			t.Errorf("%v: exit %d, stderr %q; want %d, no transcript read", args, code, stderr.String(), exitError)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("report wrote %s: %v", out, err)
	}
}

// TestEmptyFolder: a folder named on the command line that holds no
// file (an empty folder, or one of empty folders) is an error, exit 2,
// "no transcript found in DIR", for every command that reads one.
func TestEmptyFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r")
	for _, args := range [][]string{
		{"inspect", dir}, {"replay", dir}, {"cost", dir}, {"cost", "--policy", "none", dir},
		{"report", "--out", out, dir}, {"estimate", dir}, {"probes", dir},
		{"sweep", "--policy", "aidf", "--grid", "max_messages=10,20", dir},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != exitError || !strings.Contains(stderr.String(), "no transcript found in "+dir) {
			t.Errorf("%v: exit %d, stderr %q; want %d, no transcript found in %s", args, code, stderr.String(), exitError, dir)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("report wrote %s: %v", out, err)
	}
}

// TestOutputIsAnInput: an output flag naming one of the command's own
// inputs — the file, or a file in an input folder — is refused, exit 2,
// and the input is left as it was: replay --trace, convert -o and
// check --junit each wrote over it before.
func TestOutputIsAnInput(t *testing.T) {
	dir := t.TempDir()
	session := filepath.Join(dir, "a.jsonl")
	body, err := os.ReadFile(corpus + "spotter/short.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(session, body, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "ctxbench.yaml")
	if err := os.WriteFile(cfg, []byte("transcripts: [a.jsonl]\npolicies: [none]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"replay", "--policy", "none", "--trace", session, session},
		{"replay", "--policy", "none", "--trace", session, dir},
		{"convert", "--to", "openai-chat", "-o", session, session},
		{"check", "--config", cfg, "--junit", session},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != exitError || !strings.Contains(stderr.String(), "never writes over what it reads") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
		if now, _ := os.ReadFile(session); !bytes.Equal(now, body) {
			t.Fatalf("%v wrote over its input", args)
		}
	}
}

// TestOutFolderHoldsAnInput: a folder the command replaces whole
// (report --out, --parquet, --jsonl) that holds one of its inputs —
// named, the folder itself, a folder inside it, a link to a file in it,
// or found by the walk of a folder above it — is refused, exit 2, the
// error naming the input, and every file is left as it was: report
// --out deleted the session before. A report folder inside the folder
// read that holds only a report is written as before.
func TestOutFolderHoldsAnInput(t *testing.T) {
	dir := t.TempDir()
	at := func(p string) string { return filepath.Join(dir, p) }
	body, err := os.ReadFile(corpus + "spotter/short.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(at("a.jsonl"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"report", "--out", at("rep"), "--policy", "none", at("a.jsonl")},
		{"cost", "--policy", "none", "--parquet", at("pq"), "--jsonl", at("jl"), at("a.jsonl")},
	} {
		if _, stderr, code := ctxbench("", args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	// The report and rows folders of a run of the walk above them.
	if _, stderr, code := ctxbench("", "report", "--out", at("rep"), "--policy", "none", dir); code != 0 {
		t.Fatalf("a report folder in the folder read: exit %d: %s", code, stderr)
	}
	inputs := []string{at("rep/mysession.jsonl"), at("rep/sub/deep.jsonl"), at("pq/x.jsonl"), at("jl/y.jsonl")}
	for _, p := range inputs {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(at("rep/mysession.jsonl"), at("link.jsonl")); err != nil {
		t.Fatal(err)
	}
	before := map[string][]byte{}
	for _, d := range []string{"rep", "pq", "jl"} {
		filepath.WalkDir(at(d), func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				before[p], _ = os.ReadFile(p)
			}
			return nil
		})
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"report", "--out", at("rep"), at("rep/mysession.jsonl")}, "--out " + at("rep") + " holds the input " + at("rep/mysession.jsonl")},
		{[]string{"report", "--out", at("rep"), at("rep")}, "--out " + at("rep") + " is an input"},
		{[]string{"report", "--out", at("rep"), at("rep/sub")}, "holds the input " + at("rep/sub")},
		{[]string{"report", "--out", at("rep"), at("link.jsonl")}, "holds the input " + at("link.jsonl")},
		{[]string{"report", "--out", at("rep"), dir}, "holds the input " + at("rep/mysession.jsonl")},
		{[]string{"report", "--out", at("other"), "--parquet", at("pq"), at("pq/x.jsonl")}, "--parquet " + at("pq") + " holds the input " + at("pq/x.jsonl")},
		{[]string{"cost", "--policy", "none", "--parquet", at("pq"), dir}, "holds the input " + at("pq/x.jsonl")},
		{[]string{"replay", "--policy", "none", "--jsonl", at("jl"), at("jl/y.jsonl")}, "--jsonl " + at("jl") + " holds the input " + at("jl/y.jsonl")},
	} {
		if _, stderr, code := ctxbench("", c.args...); code != exitError || !strings.Contains(stderr, c.says) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.args, code, stderr, exitError, c.says)
		}
		for p, b := range before {
			if now, err := os.ReadFile(p); err != nil || !bytes.Equal(now, b) {
				t.Fatalf("%v: %s changed: %v", c.args, p, err)
			}
		}
	}
	if _, err := os.Stat(at("other")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused report wrote its folder: %v", err)
	}
}

// TestNamesPrintedSafely: a model name with a newline and a CI command
// in it, and a file name with a terminal escape, reach neither standard
// error nor the tables raw: no line of either starts "::error::", and
// no escape character is printed.
func TestNamesPrintedSafely(t *testing.T) {
	body, err := os.ReadFile(corpus + "spotter/short.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	hostile := bytes.ReplaceAll(body, []byte(`"model":"claude-opus-4-6"`), []byte(`"model":"claude\n::error::pwned\u001b[31m"`))
	if bytes.Equal(hostile, body) {
		t.Fatal("no model to replace")
	}
	file := filepath.Join(t.TempDir(), "s\x1b[2Jsession.jsonl")
	if err := os.WriteFile(file, hostile, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"inspect", file}, {"cost", "--policy", "none", file}, {"cost", file}} {
		var stdout, stderr bytes.Buffer
		run(context.Background(), args, &stdout, &stderr)
		for _, out := range []string{stdout.String(), stderr.String()} {
			if strings.Contains(out, "\x1b") || strings.Contains(out, "\n::error::") {
				t.Errorf("%v printed a raw name:\n%s", args[0], out)
			}
		}
	}
}

// TestBaselineOfAnotherEstimator: a baseline recorded with one estimator
// is not compared with a suite that counts with another (every token
// metric would differ): exit 2, naming both, unless --update records it
// again.
func TestBaselineOfAnotherEstimator(t *testing.T) {
	b, err := os.ReadFile("testdata/check/ctxbench.baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "base.json")
	if err := os.WriteFile(other, bytes.Replace(b, []byte(`"estimator": "cl100k_base"`), []byte(`"estimator": "o200k_base"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := ctxbench("", "check", "--config", "testdata/check/ctxbench.yaml", "--baseline", other)
	if code != 2 || !strings.Contains(stderr, "recorded with the estimator o200k_base; the suite counts with cl100k_base") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestTooManyFlags: more than maxFlags flags is a clear error before the
// parser sees them (10,000 took it to 4.4 GB); a "--" ends the flags.
func TestTooManyFlags(t *testing.T) {
	args := []string{"replay"}
	for range maxFlags + 1 {
		args = append(args, "--policy", "none")
	}
	_, stderr, code := ctxbench("", args...)
	if code != exitError || !strings.Contains(stderr, fmt.Sprintf("%d flags", maxFlags+1)) {
		t.Errorf("exit %d, %q; want exit 2 naming the flags", code, stderr)
	}
	if n := countFlags([]string{"-p", "x", "--json", "--", "-a", "--b"}); n != 2 {
		t.Errorf("countFlags: %d, want 2", n)
	}
}

// TestReportRefusesOutFirst: a --out folder ctxbench did not make is
// refused before any transcript is read (the input here does not exist:
// the folder is what the error names), and left as it was.
func TestReportRefusesOutFirst(t *testing.T) {
	out := t.TempDir()
	mine := filepath.Join(out, "notes.txt")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := ctxbench("", "report", "--out", out, filepath.Join(out, "no-such-session.jsonl"))
	if code != 2 || !strings.Contains(stderr, "not replacing "+out) || !strings.Contains(stderr, "hint: choose another --out") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "mine" {
		t.Errorf("the folder's file: %q, %v", b, err)
	}
}

// TestHelpShowsDefaults: a flag's help gives its default where the
// placeholder hides it, and no flag shows an empty default.
func TestHelpShowsDefaults(t *testing.T) {
	for cmd, wants := range map[string][]string{
		"report": {"(default: ctxbench-report)"},
		"check":  {"(default: ctxbench.yaml)"},
		"sweep":  {"(default: 100000)", "timeout (per attempt, 2m), retries (4)", "--summarizer=SPEC"},
		"tokens": {"(default: cl100k_base)"},
		"cost":   {"--cache-sim=SIM"},
	} {
		stdout, stderr, code := ctxbench("", cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d\n%s", cmd, code, stderr)
		}
		flat := strings.Join(strings.Fields(stdout), " ")
		for _, w := range wants {
			if w = strings.Join(strings.Fields(w), " "); !strings.Contains(flat, w) {
				t.Errorf("%s --help lacks %q:\n%s", cmd, w, stdout)
			}
		}
		if strings.Contains(stdout, `=""`) {
			t.Errorf("%s --help shows an empty default:\n%s", cmd, stdout)
		}
	}
}

// TestHelpExamplesAndGroups: every command's --help shows its two
// examples (TestDocExamples runs them), and lists the job's flags first,
// the input flags and then the summarizer's last, each group titled.
func TestHelpExamplesAndGroups(t *testing.T) {
	ct := reflect.TypeFor[cli]()
	n := 0
	for i := range ct.NumField() {
		f := ct.Field(i)
		if _, ok := f.Tag.Lookup("cmd"); !ok {
			continue
		}
		n++
		cmd := strings.ToLower(f.Name)
		stdout, stderr, code := ctxbench("", cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d\n%s", cmd, code, stderr)
		}
		ex, ok := commandExamples[cmd]
		if !ok {
			t.Errorf("%s has no examples", cmd)
			continue
		}
		at := strings.Index(stdout, "Examples:")
		for _, e := range ex {
			if !strings.HasPrefix(e, "ctxbench "+cmd+" ") && e != "ctxbench "+cmd {
				t.Errorf("%s's example %q runs another command", cmd, e)
			}
			if k := strings.Index(stdout, "$ "+e+"\n"); at < 0 || k < at || k > strings.Index(stdout, "Flags:") {
				t.Errorf("%s --help lacks the example %q before its flags:\n%s", cmd, e, stdout)
			}
		}
		job := strings.Index(stdout, "Flags:")
		input := strings.Index(stdout, "Reading transcripts:")
		sum := strings.Index(stdout, "Summarizer (for the policies that summarize):")
		if input >= 0 && input < job || sum >= 0 && (sum < job || sum < input) {
			t.Errorf("%s --help: the groups are out of order:\n%s", cmd, stdout)
		}
		if p := strings.Index(stdout, "--summarizer=SPEC"); p >= 0 && cmd != "summarize" && p < sum {
			t.Errorf("%s --help lists --summarizer outside the summarizer's group:\n%s", cmd, stdout)
		}
		for _, flag := range []string{"--policy=SPEC", "--grid="} {
			if k := strings.Index(stdout, flag); k >= 0 && (k > job+len("Flags:")+400 || sum >= 0 && k > sum) {
				t.Errorf("%s --help lists %s far from the top of its flags:\n%s", cmd, flag, stdout)
			}
		}
	}
	if n != len(commandExamples) {
		t.Errorf("%d commands, %d with examples", n, len(commandExamples))
	}
}

// TestSummarizerFlagsOneName: every command that summarizes takes the
// summarizer as one --summarizer SPEC, and its help shows none of the
// ten flags it replaces; --model is no price anywhere (that is
// --pricing-model).
func TestSummarizerFlagsOneName(t *testing.T) {
	for _, cmd := range []string{"replay", "cost", "report", "sweep", "check", "summarize", "probes"} {
		stdout, stderr, code := ctxbench("", cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d\n%s", cmd, code, stderr)
		}
		if !strings.Contains(stdout, "--summarizer=SPEC") {
			t.Errorf("%s --help lacks --summarizer=SPEC", cmd)
		}
		old := regexp.MustCompile(`--(provider|model|base-url|cache-dir|offline|max-summary-usd|legacy-max-tokens|provider-timeout|provider-retries|allow-summary-failures|summary-)\b`)
		if m := old.FindString(stdout); m != "" {
			t.Errorf("%s --help shows %s:\n%s", cmd, m, stdout)
		}
	}
}

// TestSummarizerOldFlags: the ten flags --summarizer replaces still
// work, one release, each with a warning naming its key, and give what
// the spec gives; one given beside the spec's own key is refused.
func TestSummarizerOldFlags(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "application/json")
		io.WriteString(w, `{"model":"claude-haiku-4-5-20251001","content":[{"type":"text","text":"A short summary."}],"usage":{"input_tokens":900,"output_tokens":5}}`)
	}))
	defer api.Close()
	t.Setenv("ANTHROPIC_API_KEY", "sk-test-old")
	session := corpus + "spotter/short.jsonl"
	spec, _, code := ctxbench("", "summarize", "--json", "--summarizer", "anthropic:model=claude-haiku-4-5,base_url="+api.URL+",cache_dir="+t.TempDir()+",timeout=30s,retries=2,max_usd=1", session)
	if code != 0 {
		t.Fatalf("--summarizer: exit %d", code)
	}
	old, stderr, code := ctxbench("", "summarize", "--json", "--provider", "anthropic", "--model", "claude-haiku-4-5", "--base-url", api.URL,
		"--cache-dir", t.TempDir(), "--provider-timeout", "30s", "--provider-retries", "2", "--max-summary-usd", "1", session)
	if code != 0 || old != spec {
		t.Fatalf("old flags: exit %d, %q against %q: %s", code, old, spec, stderr)
	}
	if w := "ctxbench: --provider, --model, --base-url, --cache-dir, --max-summary-usd, --provider-timeout, --provider-retries: old spelling, which goes in the next release; the same is --summarizer anthropic:model=claude-haiku-4-5,base_url=" + api.URL; !strings.Contains(stderr, w) {
		t.Errorf("old flags: no warning %q in %s", w, stderr)
	}
	if w := "max_usd=1,timeout=30s,retries=2\n"; !strings.Contains(stderr, w) {
		t.Errorf("old flags: the warning's spec does not end in %q: %s", w, stderr)
	}
	for _, bad := range [][]string{
		{"--summarizer", "anthropic:retries=1", "--provider-retries", "2", "both given"},
		{"--summarizer", "openai", "--provider", "anthropic", "both given"},
		{"--summarizer", "anthropic:max_usd=1", "--summarizer", "heuristic", "given 2 times"},
		{"--summarizer", "openai:base_url=http://h/v1?a=1,b", "a value holds no ','"},
		{"--summarizer", "openai:retries=1,", "an empty setting"},
	} {
		args, want := bad[:len(bad)-1], bad[len(bad)-1]
		if _, stderr, code := ctxbench("", append([]string{"summarize"}, append(args, session)...)...); code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, want %q: %s", args, code, want, stderr)
		}
	}
	// A switch named alone is on.
	offline, stderr, code := ctxbench("", "summarize", "--json", "--summarizer", "anthropic:offline,model=claude-haiku-4-5,cache_dir="+t.TempDir(), session)
	if code != 2 || !strings.Contains(stderr, "not in the response cache (offline)") {
		t.Errorf("offline named alone: exit %d, %s %s", code, offline, stderr)
	}
	if _, stderr, code := ctxbench("", "summarize", "--summarizer", "gemini", session); code != 2 || !strings.Contains(stderr, `no summarizer "gemini"`) {
		t.Errorf("an unknown summarizer: exit %d, %s", code, stderr)
	}
}

// TestJSONMoneyInDollars: cost --json gives every amount in dollars
// beside its pico-dollars (the per-call list apart), equal to them.
func TestJSONMoneyInDollars(t *testing.T) {
	stdout, stderr, code := ctxbench("", "cost", "--json", "--policy", "none", "--policy", "aidf:max_messages=10", corpus+"spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	amounts := 0
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if pusd, ok := x.(float64); ok && strings.HasSuffix(k, "_pusd") {
					amounts++
					usd, ok := v[strings.TrimSuffix(k, "_pusd")+"_usd"].(float64)
					if !ok || math.Abs(usd-pusd/1e12) > 1e-15 {
						t.Errorf("%s.%s = %v pico-dollars, in dollars %v", path, k, pusd, v[strings.TrimSuffix(k, "_pusd")+"_usd"])
					}
				}
				walk(path+"."+k, x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), x)
			}
		}
	}
	walk("", doc)
	if amounts < 20 {
		t.Errorf("%d amounts in pico-dollars; want the bill's, each policy's and their cache breaks'", amounts)
	}
}

// TestSweepCostIsCost: each sweep point costs what cost prices the same
// policy at, over the transcripts priced; a transcript whose model has
// no price is counted out, never as $0; and the projection error the
// sweep states is cost's on the same transcripts.
func TestSweepCostIsCost(t *testing.T) {
	files := []string{corpus + "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl", corpus + "spotter/short.jsonl",
		corpus + "codemie-code/tests/integration/metrics/fixtures/gemini/session-2025-12-01T21-45-5b959dae.json"}
	stdout, stderr, code := ctxbench("", append([]string{"sweep", "--json", "--policy", "aidf", "--grid", "max_messages=10,30", "--grid", "summarize_on_trim=false,true"}, files...)...)
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	var res replay.SweepResult
	var swept struct {
		ProjectionError *projection.ProjectionError `json:"projection_error"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(stdout), &swept); err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 4 {
		t.Fatalf("%d points", len(res.Points))
	}
	for k, p := range res.Points {
		spec := fmt.Sprintf("aidf:max_messages=%s,summarize_on_trim=%s", p.Params["max_messages"], p.Params["summarize_on_trim"])
		stdout, stderr, code := ctxbench("", append([]string{"cost", "--json", "--policy", spec}, files...)...)
		if code != 0 {
			t.Fatalf("cost: exit %d: %s", code, stderr)
		}
		var doc struct {
			Totals          []projection.Spread         `json:"policy_totals"`
			ProjectionError *projection.ProjectionError `json:"projection_error"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Totals) != 1 {
			t.Fatalf("cost --json: %v", err)
		}
		if k == 0 && (swept.ProjectionError == nil || swept.ProjectionError.Sessions != 1 || !cmp.Equal(swept.ProjectionError, doc.ProjectionError)) {
			t.Errorf("sweep's projection error %+v, cost's %+v; want one session measured, the same", swept.ProjectionError, doc.ProjectionError)
		}
		if p.Priced != 2 || p.Transcripts != 3 || math.Abs(p.CostUSD-doc.Totals[0].TotalUSD) > 1e-9 || p.CostUSD != float64(p.Cost)/1e12 {
			t.Errorf("%s: sweep %v over %d of %d transcripts priced, cost %v", spec, p.CostUSD, p.Priced, p.Transcripts, doc.Totals[0].TotalUSD)
		}
	}
}

// TestCostTotalsBySession: cost totals each policy over the sessions
// priced, a subagent's transcript in its session as the bill counts them
// (spotter: 6 transcripts, 4 sessions), and the projection's mean is
// that total over those sessions.
func TestCostTotalsBySession(t *testing.T) {
	stdout, stderr, code := ctxbench("", "cost", "--json", "--policy", "none", "--sessions-per-day", "10", corpus+"spotter")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Transcripts []struct {
			Policies []struct {
				Label    string  `json:"label"`
				TotalUSD float64 `json:"total_usd"`
			} `json:"policies"`
		} `json:"transcripts"`
		Sessions   []json.RawMessage `json:"sessions"`
		Projection []struct {
			SessionUSD float64 `json:"per_session_usd"`
		} `json:"projection"`
		Totals []struct {
			Label      string  `json:"label"`
			Sessions   int     `json:"sessions"`
			TotalUSD   float64 `json:"total_usd"`
			SessionUSD float64 `json:"per_session_usd"`
		} `json:"policy_totals"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, tr := range doc.Transcripts {
		for _, p := range tr.Policies {
			if p.Label == "none" {
				sum += p.TotalUSD
			}
		}
	}
	if len(doc.Transcripts) != 6 || len(doc.Sessions) != 4 || len(doc.Totals) != 1 || len(doc.Projection) != 1 {
		t.Fatalf("%d transcripts, %d sessions, totals %+v, projection %+v", len(doc.Transcripts), len(doc.Sessions), doc.Totals, doc.Projection)
	}
	tot := doc.Totals[0]
	if tot.Label != "none" || tot.Sessions != 4 || math.Abs(tot.TotalUSD-sum) > 1e-6 || math.Abs(tot.SessionUSD-sum/4) > 1e-6 || math.Abs(doc.Projection[0].SessionUSD-sum/4) > 1e-6 {
		t.Errorf("totals %+v and projection %+v; want %.6f over 4 sessions", tot, doc.Projection[0], sum)
	}
	text, _, _ := ctxbench("", "cost", "--policy", "none", corpus+"spotter")
	if !strings.Contains(text, "Policies over the 4 sessions priced") {
		t.Errorf("no totals table:\n%s", text)
	}
}

// TestEstimateRework: estimate gives, for the compaction the spotter
// session recorded, the work done again after it against before it,
// in --json and in the text.
func TestEstimateRework(t *testing.T) {
	file := corpus + "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
	stdout, stderr, code := ctxbench("", "estimate", "--json", file)
	if code != 0 {
		t.Fatal(stderr)
	}
	var doc struct {
		Rework []struct {
			File    string        `json:"file"`
			Trigger string        `json:"trigger"`
			After   rework.Window `json:"after"`
			Before  rework.Window `json:"before"`
		} `json:"rework"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rework) != 1 {
		t.Fatalf("%d compactions' re-work, want the session's one", len(doc.Rework))
	}
	r := doc.Rework[0]
	if r.Trigger != "auto" || r.After.Calls != 20 || r.Before.Calls != 20 || r.After.ToolCalls == 0 || r.After.Reread > r.After.Reads || r.After.Repeated > r.After.ToolCalls {
		t.Errorf("re-work %+v", r)
	}
	text, _, _ := ctxbench("", "estimate", file)
	if !strings.Contains(text, "Work done again after each recorded compaction") || !strings.Contains(text, "auto compaction 1 (before message") {
		t.Errorf("the text says nothing of the re-work:\n%s", text)
	}
}

// TestCheckRefusals: before anything runs, check refuses an output
// naming one of the suite's transcripts, arguments without --merge, and
// a baseline recorded with another estimator.
func TestCheckRefusals(t *testing.T) {
	cfg := checkSuite(t, "transcripts: [TRANSCRIPT]\npolicies: [none]\n")
	abs, _ := filepath.Abs(corpus + "spotter/tool_heavy.jsonl")
	before, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--junit", abs}, "is an input: ctxbench never writes over what it reads"},
		{[]string{"extra.json"}, "unexpected argument extra.json: check reads the transcripts its config names"},
	} {
		_, stderr, code := ctxbench("", append([]string{"check", "--config", cfg}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, stderr)
		}
	}
	if after, _ := os.ReadFile(abs); !bytes.Equal(before, after) {
		t.Fatal("the transcript changed")
	}
	if _, stderr, code := ctxbench("", "check", "--config", cfg, "--update"); code != 0 {
		t.Fatal(stderr)
	}
	base := filepath.Join(filepath.Dir(cfg), "ctxbench.baseline.json")
	b, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	other := bytes.Replace(b, []byte(`"estimator": "cl100k_base"`), []byte(`"estimator": "o200k_base"`), 1)
	if bytes.Equal(b, other) {
		t.Fatalf("no estimator in the baseline:\n%.300s", b)
	}
	if err := os.WriteFile(base, other, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := ctxbench("", "check", "--config", cfg); code != 2 || !strings.Contains(stderr, "was recorded with the estimator o200k_base; the suite counts with cl100k_base") {
		t.Errorf("another estimator's baseline: exit %d, stderr %q", code, stderr)
	}
}

// TestCostRecordedOnceAsWithDays: `cost --policy recorded` prices each
// call once, the recorded run read back from the ledger's entry
// (cost.LedgerEntry.Recorded); with --since, whose entries hold the days' calls
// alone, the run is priced apart (cost.Recorded). With days that hold
// every call the two must print the same bytes, unpriced models
// included.
func TestCostRecordedOnceAsWithDays(t *testing.T) {
	prices := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(prices, []byte(`{"claude-sonnet-4-5": {"input_cost_per_token": 3e-6, "output_cost_per_token": 1.5e-5, "cache_read_input_token_cost": 3e-7, "cache_creation_input_token_cost": 3.75e-6, "litellm_provider": "anthropic", "mode": "chat"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--prices", prices}} {
		args := append([]string{"cost", "--json", "--policy", "recorded"}, extra...)
		once, stderr1, code1 := ctxbench("", append(args, corpus)...)
		apart, stderr2, code2 := ctxbench("", append(args, "--since", "2000-01-01", corpus)...)
		if code1 != 0 || code2 != 0 || once != apart || stderr1 != stderr2 {
			t.Errorf("%v: exit %d and %d; the bill priced once and apart differ:\n%s", extra, code1, code2, cmp.Diff(once+stderr1, apart+stderr2))
		}
		if len(extra) > 0 && !strings.Contains(stderr1, "not priced") {
			t.Errorf("%v: no transcript left unpriced: %s", extra, stderr1)
		}
	}
}
