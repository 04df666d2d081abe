//go:build hostile

// make hostile: the fault matrix of the hardening pass, run against a
// fake provider on 127.0.0.1 and with inputs too large to read, each
// case's figures printed and held to a bound. It is not part of make
// test: it builds the command and runs it on hundreds of megabytes.

package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestHostileProvider replays a session whose policy summarizes at many
// calls against a server failing in each way, and prints the requests,
// the time and the exit status: no failure mode may cost more than a few
// requests, or more than a call's time, and none may exit 0 unnoticed.
func TestHostileProvider(t *testing.T) {
	session := filepath.Join(t.TempDir(), "s.jsonl")
	if _, stderr, code := ctxbench("", "gen", "--calls", "200", "-o", session); code != 0 {
		t.Fatal(stderr)
	}
	const key = "sk-hostile-KEY-0123456789"
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("x-api-key"), key) {
			t.Error("the key reached another origin")
		}
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
		}, 1000, 0},
		{"key echoed in the summary", status(200, ok("the key is "+key)), 1000, 0},
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
			start := time.Now()
			stdout, stderr, code := ctxbench("", "replay", "--provider", "anthropic", "--base-url", api.URL, "--cache-dir", t.TempDir(),
				"--provider-timeout", "1s", "--provider-retries", "1", "--policy", "aidf:max_messages=10,preserve_last_n=4,summarize_on_trim=true,summarize_every=1", session)
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
			if strings.Contains(stdout+stderr, key) {
				t.Error("the key was printed")
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
	bin := filepath.Join(dir, "ctxbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
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
	for _, tc := range []struct {
		name string
		args []string
		exit int
		says string
	}{
		{"tokens of 16 MiB of one letter", []string{"tokens", x16}, 0, "2097152"},
		{"replay of a 16 MB result of =", []string{"replay", "--policy", "none", eq}, 0, "none"},
		{"tokens /dev/zero", []string{"tokens", "/dev/zero"}, 2, "larger than 1 GiB"},
		{"check --baseline /dev/zero", []string{"check", "--config", "testdata/check/ctxbench.yaml", "--baseline", "/dev/zero"}, 2, "larger than 256 MiB"},
		{"aidf:config=/dev/zero", []string{"replay", "--policy", "aidf:config=/dev/zero", eq}, 2, "larger than 1 MiB"},
		{"inspect /dev/zero", []string{"inspect", "/dev/zero"}, 2, "binary content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			err := cmd.Run()
			took := time.Since(start)
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
			first, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
			fmt.Printf("%-32s %6.2fs %6d MB exit %d  %.90s\n", tc.name, took.Seconds(), rss>>10, code, first)
			if code != tc.exit || !strings.Contains(out.String(), tc.says) {
				t.Errorf("exit %d (want %d), output %.300q (want %q)", code, tc.exit, out.String(), tc.says)
			}
			if rss > 3<<20 {
				t.Errorf("peak memory %d MB", rss>>10)
			}
		})
	}
}
