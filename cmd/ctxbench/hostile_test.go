//go:build hostile

// make hostile: the fault matrix of the hardening pass, run against a
// fake provider on 127.0.0.1 and with inputs too large to read, each
// case's figures printed and held to a bound. It is not part of make
// test: it builds the command and runs it on hundreds of megabytes.

package main

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestHostileProvider replays a session whose policy summarizes at many
// calls against a server failing in each way, and prints the requests,
// the time and the exit status: no failure mode may cost more than a few
// requests, or more than a call's time, and none may exit 0 unnoticed;
// no request reaches another origin, and a run whose calls all fail
// caches nothing.
func TestHostileProvider(t *testing.T) {
	session := filepath.Join(t.TempDir(), "s.jsonl")
	if _, stderr, code := ctxbench("", "gen", "--calls", "200", "-o", session); code != 0 {
		t.Fatal(stderr)
	}
	const key = "sk-hostile-KEY-0123456789"
	// other is another origin, which no request reaches: a redirect to
	// it is refused.
	var otherReqs atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherReqs.Add(1)
		w.Header().Set("content-type", "application/json")
		io.WriteString(w, `{"model":"m","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":5,"output_tokens":1}}`)
	}))
	defer other.Close()
	ok := func(text string) string {
		return fmt.Sprintf(`{"model":"claude-haiku-4-5","content":[{"type":"text","text":%q}],"usage":{"input_tokens":900,"output_tokens":5}}`, text)
	}
	for _, tc := range []struct {
		name    string
		handle  func(w http.ResponseWriter, r *http.Request)
		maxReqs int
		exit    int
	}{
		{"401", status(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`), 1, 2},
		{"403", status(403, `{"type":"error","error":{"type":"permission_error","message":"no"}}`), 1, 2},
		{"400", status(400, `{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}`), 1, 2},
		{"429 for good", status(429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`), 3 * 2, 2},
		{"429 spend limit", status(429, `{"type":"error","error":{"type":"rate_limit_error","message":"spend limit reached"}}`), 1, 2},
		{"500 for good", status(500, `{"type":"error","error":{"type":"api_error","message":"oops"}}`), 3 * 2, 2},
		{"529 for good", status(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), 3 * 2, 2},
		{"never answers", func(w http.ResponseWriter, r *http.Request) {
			select { // past the client's 1s: it has given up
			case <-r.Context().Done():
			case <-time.After(3 * time.Second):
			}
		}, 3 * 2, 2},
		{"empty content", status(200, `{"model":"m","content":[],"usage":{"input_tokens":5,"output_tokens":0}}`), 3, 2},
		{"text null", status(200, `{"model":"m","content":[{"type":"text","text":null}],"usage":{"input_tokens":5,"output_tokens":0}}`), 3, 2},
		{"negative usage", status(200, `{"model":"m","content":[{"type":"text","text":"s"}],"usage":{"input_tokens":-228000000000,"output_tokens":1}}`), 3, 2},
		{"no usage", status(200, `{"model":"m","content":[{"type":"text","text":"s"}]}`), 3, 2},
		{"truncated JSON", status(200, `{"model":"m","content":[{"type":"te`), 3, 2},
		{"33 MiB body", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(200)
			chunk := strings.Repeat("a", 1<<20)
			for range 33 {
				io.WriteString(w, chunk)
			}
		}, 3 * 2, 2},
		{"307 to another origin", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		}, 1, 2},
		{"302 to another origin", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
		}, 1, 2},
		{"key echoed in the summary", status(200, ok("the key is "+key)), 1000, 0},
		{"key echoed as the model", status(200, `{"model":"`+key+`","content":[{"type":"text","text":"s"}],"usage":{"input_tokens":5,"output_tokens":1}}`), 1000, 0},
		{"key past 200 characters of an error", status(400, `{"type":"error","error":{"type":"invalid_request_error","message":"`+strings.Repeat("x", 190)+` key `+key+`"}}`), 1, 2},
		{"key escaped in the summary", status(200, ok("the key is "+strings.ReplaceAll(key, "-", "&#45;")+" or "+strings.ReplaceAll(key, "-", "&#x2d;"))), 1000, 0},
		{"key \\u-escaped in the summary", status(200, strings.Replace(ok("the key is KEY"), "KEY", `\u0073\u006b-hostile-KEY-0123456789`, 1)), 1000, 0},
		{"a 30 MiB summary", status(200, ok(strings.Repeat("long ", 6<<20))), 3, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			reqs := 0
			api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				reqs++
				mu.Unlock()
				tc.handle(w, r)
			}))
			defer api.Close()
			t.Setenv("ANTHROPIC_API_KEY", key)
			cache, trace := t.TempDir(), filepath.Join(t.TempDir(), "trace.jsonl")
			otherBefore := otherReqs.Load()
			start := time.Now()
			stdout, stderr, code := ctxbench("", "replay", "--summarizer", "anthropic:base_url="+api.URL+",cache_dir="+cache+",timeout=1s,retries=1", "--trace", trace,
				"--policy", "aidf:max_messages=10,preserve_last_n=4,summarize_on_trim=true,summarize_every=1", session)
			took := time.Since(start)
			mu.Lock()
			n := reqs
			mu.Unlock()
			first, _, _ := strings.Cut(stderr, "\n")
			fmt.Printf("%-26s %4d requests %6.2fs exit %d  %.110s\n", tc.name, n, took.Seconds(), code, first)
			if n > tc.maxReqs || code != tc.exit && !(tc.exit == 0 && code == 1) {
				t.Errorf("%d requests (at most %d), exit %d (want %d): %s", n, tc.maxReqs, code, tc.exit, stderr)
			}
			if took > 30*time.Second {
				t.Errorf("took %v", took)
			}
			if n := otherReqs.Load() - otherBefore; n != 0 {
				t.Errorf("%d requests reached another origin", n)
			}
			crossOrigin := strings.HasSuffix(tc.name, "to another origin")
			if crossOrigin && !strings.Contains(stderr, "refused a redirect") {
				t.Errorf("stderr does not say the redirect was refused: %s", stderr)
			}
			// No output, trace or cache entry holds the key, a part of
			// it, or an escaped form of it.
			written := map[string]string{"stdout": stdout, "stderr": stderr}
			filepath.WalkDir(filepath.Dir(trace), func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := os.ReadFile(p)
					written[p] = string(b)
				}
				return nil
			})
			cached := 0
			filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := os.ReadFile(p)
					written[p] = string(b)
					cached++
				}
				return nil
			})
			if (code == 2 || crossOrigin) && cached > 0 { // no call succeeded: nothing to cache
				t.Errorf("%d files cached", cached)
			}
			for name, text := range written {
				for _, part := range []string{key, key[:12], "hostile-KEY", "KEY-0123", "u006b"} {
					if strings.Contains(text, part) {
						t.Errorf("%s holds %q", name, part)
					}
				}
			}
		})
	}
}

func status(code int, body string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

// TestHostileInputs runs the built command on inputs too large or
// endless, and prints the time and peak memory: each must end with a
// clear error (or its count), within 3 GB.
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	x16 := filepath.Join(dir, "x16")
	if err := os.WriteFile(x16, []byte(strings.Repeat("x", 16<<20)), 0o600); err != nil {
		t.Fatal(err)
	}
	eq := filepath.Join(dir, "eq.jsonl")
	line := fmt.Sprintf(`{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":%q}]}}`, strings.Repeat("=", 16<<20))
	if err := os.WriteFile(eq, []byte(`{"type":"assistant","sessionId":"s","message":{"id":"a","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}],"usage":{"input_tokens":1,"output_tokens":1}}}`+"\n"+line+"\n"+
		`{"type":"assistant","sessionId":"s","message":{"id":"b","role":"assistant","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":1,"output_tokens":1}}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tools4k := filepath.Join(dir, "tools4k.jsonl") // the API edits' blow-up
	if out, err := exec.Command(bin, "gen", "--calls", "4000", "--tool-ratio", "1", "-o", tools4k).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wide := wideTurn(t, dir, 10000)
	dupYAML := filepath.Join(dir, "dup.yaml") // 85 KB of one key repeated
	if err := os.WriteFile(dupYAML, []byte("transcripts: [a.jsonl]\npolicies: [none]\n"+strings.Repeat("policies: [none]\n", 5000)), 0o600); err != nil {
		t.Fatal(err)
	}
	rangeTmpl := filepath.Join(dir, "range.tmpl")
	if err := os.WriteFile(rangeTmpl, []byte("{{range 100000000000}}x{{end}}{{.Conversation}}"), 0o600); err != nil {
		t.Fatal(err)
	}
	tiny := filepath.Join(dir, "tiny.jsonl") // a session, then 65 MB of small records
	head, err := os.ReadFile(eq)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tiny, append(head, bytes.Repeat([]byte(`{"type":"progress"}`+"\n"), 65<<20/20)...), 0o600); err != nil {
		t.Fatal(err)
	}
	var manyPolicies, manyFlags []string
	for i := range 1500 {
		manyPolicies = append(manyPolicies, "--policy", fmt.Sprintf("aidf:max_messages=%d", i+4))
	}
	for range 10000 {
		manyFlags = append(manyFlags, "--policy", "none")
	}
	const gb = 1 << 20 // KiB
	for _, tc := range []struct {
		name string
		args []string
		exit int
		says string
		// maxKiB bounds the peak RSS (0: 3 GB), maxTime the time (0: none).
		maxKiB  int64
		maxTime time.Duration
	}{
		{"tokens of 16 MiB of one letter", []string{"tokens", x16}, 0, "2097152", 0, 0},
		{"replay of a 16 MB result of =", []string{"replay", "--policy", "none", eq}, 0, "none", 0, 0},
		{"tokens /dev/zero", []string{"tokens", "/dev/zero"}, 2, "larger than 1 GiB", 0, 0},
		{"check --baseline /dev/zero", []string{"check", "--config", "testdata/check/ctxbench.yaml", "--baseline", "/dev/zero"}, 2, "larger than 256 MiB", 0, 0},
		{"aidf:config=/dev/zero", []string{"replay", "--policy", "aidf:config=/dev/zero", eq}, 2, "larger than 1 MiB", 0, 0},
		{"inspect /dev/zero", []string{"inspect", "/dev/zero"}, 2, "binary content", 0, 0},
		// Blow-ups: memory or time past linear in the input.
		{"clear-tool-uses, 4,000 tool calls", []string{"replay", "--policy", "anthropic-clear-tool-uses", tools4k}, 0, "anthropic-clear-tool-uses", gb / 2, time.Minute},
		{"clear-thinking, 4,000 tool calls", []string{"replay", "--policy", "anthropic-clear-thinking", tools4k}, 0, "anthropic-clear-thinking", gb / 2, time.Minute},
		{"langchain-clear, 10,000-call turn", []string{"replay", "--policy", "langchain-clear-tool-uses:trigger_tokens=100,clear_tool_inputs=true", wide}, 0, "langchain-clear-tool-uses", gb / 2, time.Minute},
		{"clear-tool-uses, 10,000-call turn", []string{"replay", "--policy", "anthropic-clear-tool-uses:trigger=100", wide}, 0, "anthropic-clear-tool-uses", gb / 2, time.Minute},
		{"claude-code, 10,000-call turn", []string{"replay", "--policy", "claude-code:context_window=20000", wide}, 0, "claude-code", gb / 2, time.Minute},
		{"a key repeated 5,000 times", []string{"check", "--config", dupYAML}, 2, "policies", gb / 4, 10 * time.Second},
		{"{{range 100000000000}}", []string{"summarize", "--summarizer", "mock", "--template-file", rangeTmpl, eq}, 2, "range", gb / 4, 10 * time.Second},
		{"sweep --workers 1000000", []string{"sweep", "--samples", "--policy", "aidf", "--grid", "max_messages=10,20", "--workers", "1000000"}, 0, "max_messages", gb / 4, 30 * time.Second},
		{"10,000 flags", append([]string{"replay"}, manyFlags...), 2, "10000 flags", gb / 4, 10 * time.Second},
		{"--trace of 1,500 policies", append(append([]string{"replay", "--trace", filepath.Join(dir, "trace.jsonl")}, manyPolicies...), eq), 0, "aidf", 2 * gb, 2 * time.Minute},
		{"inspect, 65 MB of small records", []string{"inspect", tiny}, 0, "calls", gb / 2, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			code, took, rss := launch(t, &out, bin, tc.args...)
			first, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
			fmt.Printf("%-32s %6.2fs %6d MB exit %d  %.90s\n", tc.name, took.Seconds(), rss>>10, code, first)
			if code != tc.exit && !(tc.exit == 0 && code == 1) || !strings.Contains(out.String(), tc.says) {
				t.Errorf("exit %d (want %d), output %.300q (want %q)", code, tc.exit, out.String(), tc.says)
			}
			if maxKiB := cmp.Or(tc.maxKiB, 3*gb); rss > maxKiB {
				t.Errorf("peak memory %d MB, want at most %d MB", rss>>10, maxKiB>>10)
			}
			if tc.maxTime > 0 && took > tc.maxTime {
				t.Errorf("took %v, want at most %v", took, tc.maxTime)
			}
		})
	}
}

// wideTurn writes a Claude Code session of one turn of n tool calls, their
// results, and a reply.
func wideTurn(t *testing.T, dir string, n int) string {
	t.Helper()
	var uses, results []string
	for i := range n {
		uses = append(uses, fmt.Sprintf(`{"type":"tool_use","id":"t%d","name":"Read","input":{"file_path":"/src/f%d.go"}}`, i, i))
		results = append(results, fmt.Sprintf(`{"type":"tool_result","tool_use_id":"t%d","content":"package f%d // %s"}`, i, i, strings.Repeat("x", 200)))
	}
	lines := []string{
		`{"type":"user","sessionId":"s","message":{"role":"user","content":"read them all"}}`,
		`{"type":"assistant","sessionId":"s","message":{"id":"a","role":"assistant","model":"claude-sonnet-4-5","content":[` + strings.Join(uses, ",") + `],"usage":{"input_tokens":10,"output_tokens":1}}}`,
		`{"type":"user","sessionId":"s","message":{"role":"user","content":[` + strings.Join(results, ",") + `]}}`,
		`{"type":"assistant","sessionId":"s","message":{"id":"b","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":10,"output_tokens":1}}}`,
	}
	path := filepath.Join(dir, fmt.Sprintf("wide%d.jsonl", n))
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHostileKill kills a replay writing its trace (SIGKILL, SIGHUP) and
// looks in its temporary directory: its spool files are gone with it.
func TestHostileKill(t *testing.T) {
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	session := filepath.Join(dir, "s.jsonl")
	if out, err := exec.Command(bin, "gen", "--calls", "20000", "-o", session).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGHUP} {
		tmp := t.TempDir()
		cmd := exec.Command(bin, "replay", "--policy", "none", "--policy", "aidf", "--json", "--trace", filepath.Join(dir, "trace.jsonl"), session)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond) // replaying, its spools open
		cmd.Process.Signal(sig)
		cmd.Wait()
		left, _ := os.ReadDir(tmp)
		fmt.Printf("%-8v %d files left in TMPDIR\n", sig, len(left))
		if len(left) > 0 {
			t.Errorf("%v: %d files left in TMPDIR, the first %s", sig, len(left), left[0].Name())
		}
	}
}

// launch runs bin with args through this test binary started afresh
// (TestHostileLaunch), and returns its exit status, wall time and peak
// RSS in KiB. Started from this process, a command's peak RSS would count
// this process's peak: Linux records the shared memory's high water mark
// at exec, and Go starts children with vfork.
func launch(t *testing.T, out io.Writer, bin string, args ...string) (int, time.Duration, int64) {
	t.Helper()
	measured := filepath.Join(t.TempDir(), "measured")
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHostileLaunch$", "--", bin}, args...)...)
	cmd.Env = append(os.Environ(), "CTXBENCH_LAUNCH="+measured)
	cmd.Stdout, cmd.Stderr = out, out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var ns, kib int64
	b, err := os.ReadFile(measured)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscan(string(b), &ns, &kib); err != nil {
		t.Fatalf("the launcher's measure %q: %v", b, err)
	}
	return code, time.Duration(ns), kib
}

// TestHostileLaunch is the launcher of launch when CTXBENCH_LAUNCH names
// the file for its measure: it runs the command after "--", writes its
// wall time (ns) and peak RSS (KiB) there, and exits with its status.
func TestHostileLaunch(t *testing.T) {
	measured := os.Getenv("CTXBENCH_LAUNCH")
	if measured == "" {
		t.Skip("the launcher of the other tests")
	}
	args := flag.Args()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var kib int64
	if cmd.ProcessState != nil {
		kib = cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	}
	if werr := os.WriteFile(measured, fmt.Appendf(nil, "%d %d\n", took.Nanoseconds(), kib), 0o600); werr != nil {
		fmt.Fprintln(os.Stderr, werr)
		os.Exit(125)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(125)
	}
	os.Exit(0)
}

// buildCommand builds the command into dir and returns its path.
func buildCommand(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "ctxbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return bin
}
