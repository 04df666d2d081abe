package summarize

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/transcript"
)

// testKey is a distinctive fake API key: TestKeyNeverWritten looks for it
// in everything the tests write.
const testKey = "sk-ctxbench-TEST-KEY-5f2c9a71e0"

// step is one scripted response.
type step struct {
	status  int
	headers map[string]string
	body    string
	hang    bool // never answer (until the request is cancelled)
}

// received is what the server saw of one request.
type received struct {
	Path   string
	Header http.Header
	Body   map[string]any
}

// fakeAPI answers requests with the scripted steps, in order (the last one
// repeats), and records them.
type fakeAPI struct {
	*httptest.Server
	mu    sync.Mutex
	steps []step
	got   []received
}

func newFakeAPI(t *testing.T, steps ...step) *fakeAPI {
	f := &fakeAPI{steps: steps}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		f.mu.Lock()
		f.got = append(f.got, received{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		s := f.steps[min(len(f.got)-1, len(f.steps)-1)]
		f.mu.Unlock()
		if s.hang {
			<-r.Context().Done()
			return
		}
		for k, v := range s.headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(s.status)
		io.WriteString(w, s.body)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) requests() []received {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]received(nil), f.got...)
}

// The APIs' own bodies.
const (
	anthropicOK = `{"id":"msg_01","type":"message","role":"assistant","model":"claude-haiku-4-5-20251001",
		"content":[{"type":"text","text":"The agent fixed "},{"type":"text","text":"the build."}],
		"stop_reason":"end_turn","usage":{"input_tokens":812,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"output_tokens":9}}`
	anthropic401      = `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`
	anthropic429      = `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`
	anthropicSpend    = `{"type":"error","error":{"type":"rate_limit_error","message":"You have reached your specified API usage limits (enforced spend limit reached)."}}`
	anthropic529      = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	anthropic500      = `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`
	openaiOK          = `{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":"The agent fixed the build."},"finish_reason":"stop"}],"usage":{"prompt_tokens":800,"completion_tokens":7,"total_tokens":807,"prompt_tokens_details":{"cached_tokens":512}}}`
	openai401         = `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	openai429         = `{"error":{"message":"Rate limit reached for gpt-4o-mini","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
	openaiQuota       = `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`
	openai503         = `{"error":{"message":"The server is overloaded","type":"server_error","param":null,"code":null}}`
	openai500         = `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`
	conversationText  = "please fix the build in /repo/main.go"
	conversationReply = "done: ran go build ./..."
)

var messages = []transcript.Message{
	{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: conversationText}}},
	{Role: transcript.RoleAssistant, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: conversationReply}}},
}

// sleeps records the waits a client asked for, without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func testClient(s *sleeps) Client {
	return Client{Sleep: s.sleep, Rand: func() float64 { return 0 }, Timeout: 5 * time.Second}
}

type providerCase struct {
	name string
	make func(base string, c Client) Summarizer
	ok   string
	// the wire format's errors
	unauthorized, rateLimited, spendLimit, overloaded, serverError string
	overloadStatus                                                 int
	wantUnauthorized                                               string
}

var providerCases = []providerCase{
	{
		name: "anthropic",
		make: func(base string, c Client) Summarizer {
			return &Anthropic{Client: c, BaseURL: base, APIKey: testKey}
		},
		ok: anthropicOK, unauthorized: anthropic401, rateLimited: anthropic429, spendLimit: anthropicSpend,
		overloaded: anthropic529, overloadStatus: 529, serverError: anthropic500,
		wantUnauthorized: "anthropic: 401 authentication_error: invalid x-api-key (set ANTHROPIC_API_KEY)",
	},
	{
		name: "openai",
		make: func(base string, c Client) Summarizer {
			return &OpenAI{Client: c, BaseURL: base + "/v1", APIKey: testKey}
		},
		ok: openaiOK, unauthorized: openai401, rateLimited: openai429, spendLimit: openaiQuota,
		overloaded: openai503, overloadStatus: 503, serverError: openai500,
		wantUnauthorized: "openai: 401 invalid_api_key: Incorrect API key provided. (set OPENAI_API_KEY)",
	},
}

func TestProviderRequests(t *testing.T) {
	for _, pc := range providerCases {
		t.Run(pc.name, func(t *testing.T) {
			api := newFakeAPI(t, step{status: 200, body: pc.ok})
			var s sleeps
			res, err := pc.make(api.URL, testClient(&s)).Summarize(context.Background(), Request{Messages: messages, Template: AIDF})
			if err != nil {
				t.Fatal(err)
			}
			reqs := api.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			prompt := ""
			switch pc.name {
			case "anthropic":
				if r.Path != "/v1/messages" || r.Header.Get("x-api-key") != testKey || r.Header.Get("anthropic-version") != "2023-06-01" {
					t.Errorf("request: path %s, x-api-key set %v, version %q", r.Path, r.Header.Get("x-api-key") == testKey, r.Header.Get("anthropic-version"))
				}
				if r.Body["model"] != anthropicModel || r.Body["max_tokens"] != float64(1024) {
					t.Errorf("body: model %v, max_tokens %v", r.Body["model"], r.Body["max_tokens"])
				}
				msgs := r.Body["messages"].([]any)
				prompt = msgs[0].(map[string]any)["content"].(string)
				want := Result{Text: "The agent fixed the build.", Model: "claude-haiku-4-5-20251001", Usage: transcript.Usage{Input: 812, Output: 9}}
				if diff := cmp.Diff(want, res); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
			case "openai":
				if r.Path != "/v1/chat/completions" || r.Header.Get("authorization") != "Bearer "+testKey {
					t.Errorf("request: path %s, bearer set %v", r.Path, r.Header.Get("authorization") == "Bearer "+testKey)
				}
				if r.Body["model"] != openAIModel || r.Body["max_completion_tokens"] != float64(1024) || r.Body["max_tokens"] != nil {
					t.Errorf("body: model %v, max_completion_tokens %v, max_tokens %v", r.Body["model"], r.Body["max_completion_tokens"], r.Body["max_tokens"])
				}
				msgs := r.Body["messages"].([]any)
				prompt = msgs[len(msgs)-1].(map[string]any)["content"].(string)
				want := Result{Text: "The agent fixed the build.", Model: "gpt-4o-mini-2024-07-18", Usage: transcript.Usage{Input: 288, CacheRead: 512, Output: 7}}
				if diff := cmp.Diff(want, res); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
			}
			if r.Header.Get("content-type") != "application/json" {
				t.Errorf("content-type %q", r.Header.Get("content-type"))
			}
			for _, want := range []string{"Summarize the following conversation history concisely", "[User] " + conversationText, "[Assistant] " + conversationReply} {
				if !strings.Contains(prompt, want) {
					t.Errorf("the prompt lacks %q:\n%s", want, prompt)
				}
			}
		})
	}
}

func TestOpenAILegacyMaxTokensAndNoKey(t *testing.T) {
	api := newFakeAPI(t, step{status: 200, body: openaiOK})
	o := &OpenAI{BaseURL: api.URL + "/v1", Model: "qwen2.5", LegacyMaxTokens: true}
	if _, err := o.Summarize(context.Background(), Request{Messages: messages, Template: CrossTurn}); err != nil {
		t.Fatal(err)
	}
	r := api.requests()[0]
	if r.Header.Get("authorization") != "" || r.Body["max_tokens"] != float64(500) || r.Body["max_completion_tokens"] != nil || r.Body["model"] != "qwen2.5" {
		t.Errorf("local server request: authorization %q, body %v", r.Header.Get("authorization"), r.Body)
	}
}

func TestProviderFailures(t *testing.T) {
	sec := time.Second
	for _, pc := range providerCases {
		for _, tc := range []struct {
			name      string
			steps     []step
			requests  int
			sleeps    []time.Duration
			err       string // substring of the error; "" for success
			retryHint bool
		}{
			{name: "429 retry-after then success", steps: []step{{status: 429, headers: map[string]string{"retry-after": "1"}, body: pc.rateLimited}, {status: 200, body: pc.ok}},
				requests: 2, sleeps: []time.Duration{sec}},
			{name: "overloaded then success", steps: []step{{status: pc.overloadStatus, body: pc.overloaded}, {status: 200, body: pc.ok}},
				requests: 2, sleeps: []time.Duration{500 * time.Millisecond}},
			{name: "500 three times then success", steps: []step{{status: 500, body: pc.serverError}, {status: 500, body: pc.serverError}, {status: 500, body: pc.serverError}, {status: 200, body: pc.ok}},
				requests: 4, sleeps: []time.Duration{500 * time.Millisecond, sec, 2 * sec}},
			{name: "500 for good", steps: []step{{status: 500, body: pc.serverError}},
				requests: 5, sleeps: []time.Duration{500 * time.Millisecond, sec, 2 * sec, 4 * sec}, err: "500"},
			{name: "401", steps: []step{{status: 401, body: pc.unauthorized}}, requests: 1, err: pc.wantUnauthorized},
			{name: "spend limit", steps: []step{{status: 429, headers: map[string]string{"retry-after": "1"}, body: pc.spendLimit}}, requests: 1, err: "429"},
			{name: "400 not retried", steps: []step{{status: 400, body: pc.serverError}}, requests: 1, err: "400"},
			{name: "retry-after-ms", steps: []step{{status: 429, headers: map[string]string{"retry-after-ms": "250", "retry-after": "9"}, body: pc.rateLimited}, {status: 200, body: pc.ok}},
				requests: 2, sleeps: []time.Duration{250 * time.Millisecond}},
			{name: "x-should-retry false", steps: []step{{status: 500, headers: map[string]string{"x-should-retry": "false"}, body: pc.serverError}}, requests: 1, err: "500"},
			{name: "x-should-retry true on 400", steps: []step{{status: 400, headers: map[string]string{"x-should-retry": "true"}, body: pc.serverError}, {status: 200, body: pc.ok}},
				requests: 2, sleeps: []time.Duration{500 * time.Millisecond}},
			{name: "malformed body", steps: []step{{status: 200, body: `{"content": [`}}, requests: 1, err: "reading the response"},
			{name: "HTML error page", steps: []step{{status: 502, body: "<html>Bad Gateway</html>"}, {status: 200, body: pc.ok}},
				requests: 2, sleeps: []time.Duration{500 * time.Millisecond}},
		} {
			t.Run(pc.name+"/"+tc.name, func(t *testing.T) {
				api := newFakeAPI(t, tc.steps...)
				var s sleeps
				res, err := pc.make(api.URL, testClient(&s)).Summarize(context.Background(), Request{Messages: messages})
				if got := len(api.requests()); got != tc.requests {
					t.Errorf("%d requests, want %d", got, tc.requests)
				}
				if diff := cmp.Diff(tc.sleeps, s.d); diff != "" {
					t.Errorf("waits (-want +got):\n%s", diff)
				}
				switch {
				case tc.err == "" && err != nil:
					t.Errorf("error %v", err)
				case tc.err == "" && res.Text != "The agent fixed the build.":
					t.Errorf("text %q", res.Text)
				case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
					t.Errorf("error %v, want it to say %q", err, tc.err)
				case tc.err != "" && !strings.HasPrefix(err.Error(), pc.name+": "):
					t.Errorf("error %q does not name the provider", err)
				}
			})
		}
	}
}

func TestRetryAfterDate(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	h := http.Header{}
	h.Set("retry-after", now.Add(3*time.Second).Format(http.TimeFormat))
	if d := retryAfter(h, now); d != 3*time.Second {
		t.Errorf("retry-after as a date: %v, want 3s", d)
	}
	h.Set("retry-after", "soon")
	if d := retryAfter(h, now); d != 0 {
		t.Errorf("unreadable retry-after: %v, want 0", d)
	}
}

func TestTimeout(t *testing.T) {
	api := newFakeAPI(t, step{hang: true})
	a := &Anthropic{Client: Client{Timeout: 50 * time.Millisecond, MaxRetries: -1}, BaseURL: api.URL, APIKey: testKey}
	_, err := a.Summarize(context.Background(), Request{Messages: messages})
	if err == nil || !strings.Contains(err.Error(), "anthropic: no response within 50ms") {
		t.Errorf("error %v, want a timeout", err)
	}
}

func TestCancelStopsAtOnce(t *testing.T) {
	api := newFakeAPI(t, step{status: 529, headers: map[string]string{"retry-after": "30"}, body: anthropic529})
	a := &Anthropic{BaseURL: api.URL, APIKey: testKey} // real sleep: 30 s if not cancelled
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(api.requests()) == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	done := make(chan error)
	go func() {
		_, err := a.Summarize(ctx, Request{Messages: messages})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancellation did not stop the wait")
	}
}

func TestCache(t *testing.T) {
	for _, pc := range providerCases {
		t.Run(pc.name, func(t *testing.T) {
			api := newFakeAPI(t, step{status: 200, body: pc.ok})
			dir := filepath.Join(t.TempDir(), "cache")
			var s sleeps
			c := testClient(&s)
			c.CacheDir = dir
			sum := pc.make(api.URL, c)
			first, err := sum.Summarize(context.Background(), Request{Messages: messages})
			if err != nil || first.Cached {
				t.Fatalf("first call: %+v, %v", first, err)
			}
			second, err := sum.Summarize(context.Background(), Request{Messages: messages})
			if err != nil || !second.Cached || second.Text != first.Text || second.Usage != first.Usage {
				t.Fatalf("second call: %+v, %v", second, err)
			}
			if n := len(api.requests()); n != 1 {
				t.Errorf("%d requests for two identical calls, want 1", n)
			}
			// Another template is another request.
			if _, err := sum.Summarize(context.Background(), Request{Messages: messages, Template: TwoTier}); err != nil {
				t.Fatal(err)
			}
			if n := len(api.requests()); n != 2 {
				t.Errorf("%d requests after a different request, want 2", n)
			}
			// Offline: a hit is served, a miss fails without a request.
			c.Offline = true
			off := pc.make(api.URL, c)
			if r, err := off.Summarize(context.Background(), Request{Messages: messages}); err != nil || !r.Cached {
				t.Errorf("offline hit: %+v, %v", r, err)
			}
			_, err = off.Summarize(context.Background(), Request{Messages: messages[:1]})
			if !errors.Is(err, ErrOffline) {
				t.Errorf("offline miss: %v, want ErrOffline", err)
			}
			if n := len(api.requests()); n != 2 {
				t.Errorf("offline calls made requests: %d", n)
			}
			err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				info, _ := d.Info()
				want := fs.FileMode(0o600)
				if d.IsDir() {
					if p == dir {
						return nil
					}
					want = fs.ModeDir | 0o700
				}
				if info.Mode() != want {
					t.Errorf("%s: mode %v, want %v", p, info.Mode(), want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestConcurrentCalls(t *testing.T) {
	for _, pc := range providerCases {
		api := newFakeAPI(t, step{status: 200, body: pc.ok})
		var s sleeps
		c := testClient(&s)
		c.CacheDir = t.TempDir()
		// The table prices both providers' default models.
		c.Run = &Run{MaxUSD: 10, Prices: pricing.Prices{
			"claude-haiku-4-5": {Provider: "anthropic", Input: 1, Output: 5}, "gpt-4o-mini": {Provider: "openai", Input: 0.15, Output: 0.6}}}
		sum := pc.make(api.URL, c)
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req := Request{Messages: []transcript.Message{{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: fmt.Sprint("message ", i%4)}}}}}
				if _, err := sum.Summarize(context.Background(), req); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("%s: %v", pc.name, err)
		}
		if n := len(api.requests()); n < 4 || n > 16 {
			t.Errorf("%s: %d requests for 4 distinct prompts", pc.name, n)
		}
	}
}

func TestBudget(t *testing.T) {
	api := newFakeAPI(t, step{status: 200, body: anthropicOK})
	var s sleeps
	c := testClient(&s)
	c.Run = &Run{MaxUSD: 0.01}
	a := &Anthropic{Client: c, BaseURL: api.URL, APIKey: testKey}
	res, err := a.Summarize(context.Background(), Request{Messages: messages})
	if err != nil {
		t.Fatal(err)
	}
	// claude-haiku-4-5: $1 per million input tokens, $5 per million output.
	want := (812*1.0 + 9*5.0) / 1e6
	if d := res.CostUSD - want; d > 1e-12 || d < -1e-12 {
		t.Errorf("cost %v, want %v", res.CostUSD, want)
	}
	if d := c.Run.Spent() - want; d > 1e-12 || d < -1e-12 {
		t.Errorf("spent %v, want %v", c.Run.Spent(), want)
	}
	// A call whose worst case passes the cap is refused before any request.
	c.Run.MaxUSD = c.Run.Spent() + 0.001
	a2 := &Anthropic{Client: c, BaseURL: api.URL, APIKey: testKey}
	_, err = a2.Summarize(context.Background(), Request{Messages: messages, Template: TwoTier})
	if !errors.Is(err, ErrSpendCap) {
		t.Errorf("error %v, want ErrSpendCap", err)
	}
	if n := len(api.requests()); n != 1 {
		t.Errorf("%d requests, want the refused call to make none", n)
	}
	// A model with no price cannot be capped.
	a3 := &Anthropic{Client: c, BaseURL: api.URL, APIKey: testKey, Model: "my-finetune"}
	if _, err := a3.Summarize(context.Background(), Request{Messages: messages}); !errors.Is(err, ErrSpendCap) || !strings.Contains(err.Error(), "no price for model") {
		t.Errorf("unpriced model: %v", err)
	}
}

// TestKeyNeverWritten runs calls that succeed, fail and echo the key, with
// a cache, and looks for the key in every error, result and file written.
func TestKeyNeverWritten(t *testing.T) {
	echo := fmt.Sprintf(`{"error":{"message":"Incorrect API key provided: %s.","type":"invalid_request_error","code":"invalid_api_key"}}`, testKey)
	// Pages that are not the API's JSON: the key where the excerpt's
	// 200 characters end, as HTML entities, as a JSON string's escapes.
	var entities, escapes strings.Builder
	for _, r := range testKey {
		fmt.Fprintf(&entities, "&#%d;", r)
		fmt.Fprintf(&escapes, `\u%04x`, r)
	}
	pages := []string{
		"<html><body>" + strings.Repeat("x ", 85) + "key " + testKey + " refused</body></html>",
		"<html><body>bad key " + entities.String() + "</body></html>",
		`bad gateway: upstream said \"key ` + escapes.String() + `\"`,
	}
	dir := t.TempDir()
	var written []string
	for _, pc := range providerCases {
		// The model's name echoing the key, in a response that succeeds.
		echoOK := regexp.MustCompile(`"model":"[^"]*"`).ReplaceAllString(pc.ok, `"model":"`+testKey+`"`)
		runs := [][]step{{{status: 200, body: pc.ok}}, {{status: 200, body: echoOK}}, {{status: 401, body: echo}}, {{status: 500, body: echo}}}
		for _, page := range pages {
			runs = append(runs, []step{{status: 403, body: page}})
		}
		for _, steps := range runs {
			api := newFakeAPI(t, steps...)
			var s sleeps
			c := testClient(&s)
			c.CacheDir = dir
			res, err := pc.make(api.URL, c).Summarize(context.Background(), Request{Messages: messages})
			written = append(written, fmt.Sprintf("%+v", res))
			if err != nil {
				written = append(written, err.Error(), fmt.Sprintf("%+v", err))
			}
			if got := api.requests()[0]; !strings.Contains(got.Header.Get("x-api-key")+got.Header.Get("authorization"), testKey) {
				t.Errorf("%s: the key was not sent", pc.name)
			}
		}
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			written = append(written, string(b))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	escaped := regexp.MustCompile(`\\u([0-9a-fA-F]{4})`)
	for _, w := range written {
		// The key, or the start of it that a cut excerpt would leave, as
		// written or once its HTML entities or JSON escapes are read.
		decoded := escaped.ReplaceAllStringFunc(w, func(e string) string {
			n, _ := strconv.ParseUint(e[2:], 16, 32)
			return string(rune(n))
		})
		for _, form := range []string{w, html.UnescapeString(w), decoded} {
			if strings.Contains(form, testKey[:12]) {
				t.Errorf("the API key was written: %.300s", w)
				break
			}
		}
	}
	if len(written) < 20 {
		t.Errorf("only %d outputs checked", len(written))
	}
}

// TestSummaryBoundedByMaxTokens: a summary far longer than the
// max_tokens asked allows (a broken or hostile server's) is an error that
// stops the run, and nothing is cached: 131 such answers of 30 MB filled
// 3.7 GB of cache before.
func TestSummaryBoundedByMaxTokens(t *testing.T) {
	for _, pc := range providerCases {
		huge := strings.Replace(strings.Replace(pc.ok, "The agent fixed the build.", "The agent fixed ", 1), "The agent fixed ", strings.Repeat("x", 1<<20), 1)
		if huge == pc.ok {
			t.Fatalf("%s: no summary text to replace", pc.name)
		}
		api := newFakeAPI(t, step{status: 200, body: huge})
		var s sleeps
		c := testClient(&s)
		dir := t.TempDir()
		c.CacheDir = dir
		_, err := pc.make(api.URL, c).Summarize(context.Background(), Request{Messages: messages})
		if err == nil || !strings.Contains(err.Error(), "more than max_tokens 1024 allows") {
			t.Errorf("%s: %v", pc.name, err)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) > 0 {
			t.Errorf("%s: %d cache entries after an oversized answer", pc.name, len(entries))
		}
	}
}
