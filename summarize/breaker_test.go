package summarize

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBreaker: an error no retry mends (401, 400, a spend limit) stops
// the run at once, and the calls after it make no request; retryable
// failures stop it after MaxFailedCalls calls.
func TestBreaker(t *testing.T) {
	for _, pc := range providerCases {
		for _, tc := range []struct {
			name      string
			steps     []step
			maxFailed int
			// stopAt is the call (1-based) whose error wraps ErrStopped;
			// requests, what the server saw over 5 calls.
			stopAt, requests int
		}{
			{"401", []step{{status: 401, body: pc.unauthorized}}, 0, 1, 1},
			{"400", []step{{status: 400, body: pc.serverError}}, 0, 1, 1},
			{"spend limit", []step{{status: 429, body: pc.spendLimit}}, 0, 1, 1},
			{"500 for good: three calls", []step{{status: 500, body: pc.serverError}}, 0, 3, 3 * 2},
			{"500 for good: never stopped", []step{{status: 500, body: pc.serverError}}, -1, 0, 5 * 2},
		} {
			t.Run(pc.name+"/"+tc.name, func(t *testing.T) {
				api := newFakeAPI(t, tc.steps...)
				var s sleeps
				c := testClient(&s)
				c.MaxRetries = 1
				c.Run = &Run{MaxFailedCalls: tc.maxFailed}
				sum := pc.make(api.URL, c)
				stopped := 0
				for call := 1; call <= 5; call++ {
					_, err := sum.Summarize(context.Background(), Request{Messages: messages})
					if err == nil {
						t.Fatalf("call %d succeeded", call)
					}
					if errors.Is(err, ErrStopped) && stopped == 0 {
						stopped = call
					}
				}
				if stopped != tc.stopAt {
					t.Errorf("stopped at call %d, want %d", stopped, tc.stopAt)
				}
				if n := len(api.requests()); n != tc.requests {
					t.Errorf("%d requests, want %d", n, tc.requests)
				}
				if n, first := c.Run.Failed(); n == 0 || first == nil {
					t.Errorf("failed %d, first %v", n, first)
				}
			})
		}
	}
}

// TestEmptyOrBadSummary: one rule for both providers — no text, no
// usage or negative usage is an error, and nothing is cached.
func TestEmptyOrBadSummary(t *testing.T) {
	bodies := map[string][]string{
		"anthropic": {
			`{"model":"m","content":[],"usage":{"input_tokens":5,"output_tokens":0}}`,
			`{"model":"m","content":[{"type":"text","text":""}],"usage":{"input_tokens":5,"output_tokens":0}}`,
			`{"model":"m","content":[{"type":"text","text":null}],"usage":{"input_tokens":5,"output_tokens":0}}`,
			`{"model":"m","content":[{"type":"text","text":"  \n"}],"usage":{"input_tokens":5,"output_tokens":1}}`,
			`{"model":"m","content":[{"type":"text","text":"ok"}]}`,
			`{"model":"m","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":-228000000000,"output_tokens":1}}`,
		},
		"openai": {
			`{"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":0}}`,
			`{"model":"m","choices":[{"message":{"content":""}}],"usage":{"prompt_tokens":5,"completion_tokens":0}}`,
			`{"model":"m","choices":[{"message":{"content":null}}],"usage":{"prompt_tokens":5,"completion_tokens":0}}`,
			`{"model":"m","choices":[{"message":{"content":" "}}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`,
			`{"model":"m","choices":[{"message":{"content":"ok"}}]}`,
			`{"model":"m","choices":[{"message":{"content":"ok"}}],"usage":{"prompt_tokens":5,"completion_tokens":-3}}`,
		},
	}
	for _, pc := range providerCases {
		for i, body := range bodies[pc.name] {
			dir := t.TempDir()
			api := newFakeAPI(t, step{status: 200, body: body})
			var s sleeps
			c := testClient(&s)
			c.CacheDir = dir
			_, err := pc.make(api.URL, c).Summarize(context.Background(), Request{Messages: messages})
			if err == nil {
				t.Errorf("%s %d: %s accepted", pc.name, i, body)
			}
			if files := countFiles(dir); files != 0 {
				t.Errorf("%s %d: %d files cached", pc.name, i, files)
			}
		}
	}
}

// TestRedirectToAnotherOrigin: a redirect to another origin (another
// port, or the same server under another host name) is refused with an
// error naming both origins, and not retried: the other origin gets no
// request, nothing is cached, and the run stops. A redirect within the
// origin is followed, with the key.
func TestRedirectToAnotherOrigin(t *testing.T) {
	for _, pc := range providerCases {
		other := newFakeAPI(t, step{status: 200, body: pc.ok})
		for _, status := range []int{301, 302, 303, 307, 308} {
			for _, tc := range []struct {
				name   string
				target func(self string) string
				// permissive makes the client's own CheckRedirect follow
				// anything.
				permissive bool
			}{
				{"another port", func(string) string { return other.URL }, false},
				{"another host name", func(self string) string { return strings.Replace(self, "127.0.0.1", "localhost", 1) }, false},
				{"another port, a client that follows anything", func(string) string { return other.URL }, true},
			} {
				name := fmt.Sprintf("%s/%d/%s", pc.name, status, tc.name)
				var mu sync.Mutex
				var self string
				reqs := 0
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					reqs++
					mu.Unlock()
					if strings.HasSuffix(r.URL.Path, "/again") { // the other host name
						w.Header().Set("content-type", "application/json")
						io.WriteString(w, pc.ok)
						return
					}
					http.Redirect(w, r, tc.target(self)+r.URL.Path+"/again", status)
				}))
				self = srv.URL
				to := tc.target(self)
				before := len(other.requests())
				dir := t.TempDir()
				var s sleeps
				c := testClient(&s)
				c.CacheDir, c.Run = dir, &Run{}
				if tc.permissive {
					c.HTTP = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}
				}
				_, err := pc.make(srv.URL, c).Summarize(context.Background(), Request{Messages: messages})
				want := fmt.Sprintf("%s: refused a redirect (%d) from %s to another origin, %s:", pc.name, status, self, to)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: error %v, want %q", name, err, want)
				}
				if !errors.Is(err, ErrStopped) {
					t.Errorf("%s: the run goes on: %v", name, err)
				}
				if n := len(other.requests()) - before; n != 0 {
					t.Errorf("%s: %d requests at the other origin", name, n)
				}
				mu.Lock()
				if reqs != 1 {
					t.Errorf("%s: %d requests at the base URL's origin, want 1", name, reqs)
				}
				mu.Unlock()
				if n := countFiles(dir); n != 0 {
					t.Errorf("%s: %d files cached", name, n)
				}
				srv.Close()
			}
		}
		t.Run(pc.name+"/the same origin", func(t *testing.T) {
			var gotKey string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/again") {
					gotKey = r.Header.Get("x-api-key") + r.Header.Get("authorization")
					w.Header().Set("content-type", "application/json")
					io.WriteString(w, pc.ok)
					return
				}
				http.Redirect(w, r, r.URL.Path+"/again", http.StatusTemporaryRedirect)
			}))
			defer srv.Close()
			dir := t.TempDir()
			var s sleeps
			c := testClient(&s)
			c.CacheDir = dir
			if _, err := pc.make(srv.URL, c).Summarize(context.Background(), Request{Messages: messages}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(gotKey, testKey) {
				t.Errorf("key sent %q", gotKey)
			}
			if n := countFiles(dir); n != 1 {
				t.Errorf("%d files cached, want 1", n)
			}
		})
	}
}

// countFiles returns how many files are under dir.
func countFiles(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, _ error) error {
		if d != nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// TestKeyInSummaryRedacted: a server that echoes the key in a summary
// does not get it into the result or the cache.
func TestKeyInSummaryRedacted(t *testing.T) {
	dir := t.TempDir()
	bodies := map[string]string{
		"anthropic": fmt.Sprintf(`{"model":"m","content":[{"type":"text","text":"key %s here"}],"usage":{"input_tokens":5,"output_tokens":3}}`, testKey),
		"openai":    fmt.Sprintf(`{"model":"m","choices":[{"message":{"content":"key %s here"}}],"usage":{"prompt_tokens":5,"completion_tokens":3}}`, testKey),
	}
	for _, pc := range providerCases {
		api := newFakeAPI(t, step{status: 200, body: bodies[pc.name]})
		var s sleeps
		c := testClient(&s)
		c.CacheDir = dir
		res, err := pc.make(api.URL, c).Summarize(context.Background(), Request{Messages: messages})
		if err != nil || res.Text != "key [redacted] here" {
			t.Errorf("%s: %q, %v", pc.name, res.Text, err)
		}
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, _ error) error {
		if d != nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), testKey) {
				t.Errorf("the key is in %s", p)
			}
		}
		return nil
	})
}

// TestBadBaseURLAndCap: a base URL that is not http(s) fails at once,
// with no retry; a cap that is not a finite amount refuses every call.
func TestBadBaseURLAndCap(t *testing.T) {
	var s sleeps
	c := testClient(&s)
	c.Run = &Run{}
	a := &Anthropic{Client: c, BaseURL: "ftp://example.com", APIKey: testKey}
	if _, err := a.Summarize(context.Background(), Request{Messages: messages}); !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "want http") || len(s.d) != 0 {
		t.Errorf("ftp:// base URL: %v, waits %v", err, s.d)
	}
	api := newFakeAPI(t, step{status: 200, body: anthropicOK})
	for _, capUSD := range []float64{-1, nanValue()} {
		c := testClient(&s)
		c.Run = &Run{MaxUSD: capUSD}
		a := &Anthropic{Client: c, BaseURL: api.URL, APIKey: testKey}
		if _, err := a.Summarize(context.Background(), Request{Messages: messages}); !errors.Is(err, ErrSpendCap) {
			t.Errorf("cap %v: %v", capUSD, err)
		}
	}
	if n := len(api.requests()); n != 0 {
		t.Errorf("%d requests under a bad cap", n)
	}
}

func nanValue() float64 {
	var zero float64
	return zero / zero
}

// TestCallTimeBound: a server that never answers costs at most the
// call's time, whatever the retries.
func TestCallTimeBound(t *testing.T) {
	api := newFakeAPI(t, step{hang: true})
	a := &Anthropic{Client: Client{Timeout: 50 * time.Millisecond, MaxCallTime: 200 * time.Millisecond, MaxRetries: 100,
		Rand: func() float64 { return 0 }, Sleep: func(context.Context, time.Duration) error { return nil }}, BaseURL: api.URL, APIKey: testKey}
	start := time.Now()
	_, err := a.Summarize(context.Background(), Request{Messages: messages})
	if err == nil || time.Since(start) > 2*time.Second {
		t.Errorf("error %v after %v", err, time.Since(start))
	}
	if n := len(api.requests()); n > 5 {
		t.Errorf("%d attempts in 200ms of 50ms each", n)
	}
}

// TestOversizedResponse: a response over the limit is named as such.
func TestOversizedResponse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "application/json")
		io.WriteString(w, `{"content":[{"type":"text","text":"`)
		chunk := strings.Repeat("a", 1<<20)
		for range 33 {
			io.WriteString(w, chunk)
		}
		io.WriteString(w, `"}]}`)
	}))
	defer srv.Close()
	var s sleeps
	_, err := (&Anthropic{Client: testClient(&s), BaseURL: srv.URL, APIKey: testKey}).Summarize(context.Background(), Request{Messages: messages})
	if err == nil || !strings.Contains(err.Error(), "over 32 MiB") {
		t.Errorf("error %v", err)
	}
}

// TestBudgetOfBadAnswers: a call answered with an empty summary is still
// billed against the cap; one reporting negative usage keeps its
// reservation, so it cannot lower what is spent.
func TestBudgetOfBadAnswers(t *testing.T) {
	for _, tc := range []struct {
		body string
		want func(spent float64) bool
	}{
		{`{"model":"m","content":[],"usage":{"input_tokens":1000000,"output_tokens":0}}`, func(s float64) bool { return s > 0.99 && s < 1.01 }},
		{`{"model":"m","content":[{"type":"text","text":"s"}],"usage":{"input_tokens":-228000000000,"output_tokens":1}}`, func(s float64) bool { return s > 0 }},
	} {
		api := newFakeAPI(t, step{status: 200, body: tc.body})
		var s sleeps
		c := testClient(&s)
		c.Run = &Run{MaxUSD: 10}
		if _, err := (&Anthropic{Client: c, BaseURL: api.URL, APIKey: testKey}).Summarize(context.Background(), Request{Messages: messages}); err == nil {
			t.Errorf("%s accepted", tc.body)
		}
		if spent := c.Run.Spent(); !tc.want(spent) {
			t.Errorf("%s: spent $%v", tc.body, spent)
		}
	}
}

// TestBreakerTime: a run's failed calls share one call's time. A server
// that never answers stops the run within one call's time (three calls'
// before), and one that asks to wait again and again within about one
// call's time, not one per failed call.
func TestBreakerTime(t *testing.T) {
	const callTime = time.Second
	for _, pc := range providerCases {
		for _, tc := range []struct {
			name  string
			steps []step
			// stopAt is the call (1-based) whose error wraps ErrStopped.
			stopAt int
		}{
			{"never answers", []step{{hang: true}}, 1},
			{"asks to wait", []step{{status: 429, body: pc.rateLimited, headers: map[string]string{"retry-after-ms": "200"}}}, 3},
		} {
			t.Run(pc.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				api := newFakeAPI(t, tc.steps...)
				c := Client{Timeout: 250 * time.Millisecond, MaxCallTime: callTime, MaxRetries: 4, Rand: func() float64 { return 0 }, Run: &Run{}}
				sum := pc.make(api.URL, c)
				start := time.Now()
				stopped := 0
				for call := 1; call <= 3 && stopped == 0; call++ {
					_, err := sum.Summarize(context.Background(), Request{Messages: messages})
					if err == nil {
						t.Fatalf("call %d succeeded", call)
					}
					if errors.Is(err, ErrStopped) {
						stopped = call
					}
				}
				took := time.Since(start)
				if stopped != tc.stopAt {
					t.Errorf("stopped at call %d, want %d", stopped, tc.stopAt)
				}
				// Three calls of their full time take 3 s.
				if took > callTime+600*time.Millisecond {
					t.Errorf("the run took %v to stop, want about %v", took, callTime)
				}
			})
		}
	}
}

// TestKeyWithControlCharacter: a key no request can carry (a line break
// copied with it, say) stops the run at its first call with no request
// made, and the error names the variable, not the key.
func TestKeyWithControlCharacter(t *testing.T) {
	for _, key := range []string{"sk-secret-0123\n", "sk-secret\r\n0123", "sk-\x00secret-0123"} {
		for _, pc := range providerCases {
			api := newFakeAPI(t, step{status: 200, body: pc.ok})
			var s sleeps
			c := testClient(&s)
			c.Run = &Run{}
			var sum Summarizer
			switch pc.name {
			case "anthropic":
				sum = &Anthropic{Client: c, BaseURL: api.URL, APIKey: key}
			case "openai":
				sum = &OpenAI{Client: c, BaseURL: api.URL + "/v1", APIKey: key}
			}
			_, err := sum.Summarize(context.Background(), Request{Messages: messages})
			if !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "_API_KEY") {
				t.Errorf("%s, key %q: %v, want the run stopped naming the variable", pc.name, key, err)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("%s: the error shows the key: %v", pc.name, err)
			}
			if n := len(api.requests()); n != 0 {
				t.Errorf("%s, key %q: %d requests, want none", pc.name, key, n)
			}
		}
	}
}
