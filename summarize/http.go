package summarize

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxbench/ctxbench/transcript"
)

// Client holds what the HTTP providers share: the transport, the retry
// policy, the response cache and the spend cap.
type Client struct {
	// HTTP is the client used for requests (default http.DefaultClient).
	HTTP *http.Client
	// Timeout bounds each attempt (default 2 minutes).
	Timeout time.Duration
	// MaxRetries is how many times a retryable failure is retried
	// (default 4; negative means none).
	MaxRetries int
	// Cache, when set, serves identical requests from disk and stores new
	// responses.
	Cache *Cache
	// Offline serves only from Cache: a miss is an error wrapping
	// ErrOffline and no request is made.
	Offline bool
	// Budget, when set, refuses calls that would exceed its cap.
	Budget *Budget
	// Sleep waits between attempts (default: a timer that stops when ctx
	// is done). Tests replace it to observe the waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand gives the backoff's jitter in [0,1) (default math/rand/v2).
	Rand func() float64
}

const (
	defaultTimeout    = 2 * time.Minute
	defaultMaxRetries = 4
	backoffBase       = 500 * time.Millisecond
	backoffMax        = 8 * time.Second
	maxRetryAfter     = 60 * time.Second
	maxResponseBytes  = 32 << 20
)

// APIError is a provider's error response.
type APIError struct {
	Provider string
	Status   int
	// Type is the API's error type (rate_limit_error, invalid_request_error…)
	// or code (insufficient_quota…).
	Type    string
	Message string
	// Hint says what the user can do, if anything obvious.
	Hint string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("%s: %d", e.Provider, e.Status)
	if e.Type != "" {
		s += " " + e.Type
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// spendLimit reports whether a 429 is a spend or quota limit, which waiting
// does not lift.
func (e *APIError) spendLimit() bool {
	s := strings.ToLower(e.Type + " " + e.Message)
	return strings.Contains(s, "spend") || strings.Contains(s, "insufficient_quota") || strings.Contains(s, "quota") && strings.Contains(s, "exceeded")
}

// retryable reports whether a response with this status (and headers) may
// succeed when tried again.
func retryable(status int, h http.Header, apiErr *APIError) bool {
	switch h.Get("x-should-retry") {
	case "true":
		return true
	case "false":
		return false
	}
	if status == http.StatusTooManyRequests && apiErr != nil && apiErr.spendLimit() {
		return false
	}
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// retryAfter reads retry-after-ms, then retry-after (seconds or an HTTP
// date); 0 when neither says.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	if v := h.Get("retry-after"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
			return time.Duration(s * float64(time.Second))
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(0, t.Sub(now))
		}
	}
	return 0
}

// backoff returns the wait before retry n (0-based): what the server asked
// for, capped at a minute, or 0.5 s × 2ⁿ, capped at 8 s, less up to a
// quarter of jitter.
func (c *Client) backoff(n int, h http.Header) time.Duration {
	if d := retryAfter(h, time.Now()); d > 0 {
		return min(d, maxRetryAfter)
	}
	d := min(backoffBase<<n, backoffMax)
	r := rand.Float64
	if c.Rand != nil {
		r = c.Rand
	}
	return d - time.Duration(float64(d)/4*r())
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// provider is what an HTTP provider supplies to Client.do.
type provider struct {
	name    string
	baseURL string
	model   string
	key     string // never printed
	keyEnv  string // the variable the key comes from, for hints
	// request builds the HTTP request for body.
	request func(ctx context.Context, body []byte) (*http.Request, error)
	// parseError reads an error body.
	parseError func(status int, body []byte) *APIError
	// parse reads a success body.
	parse func(body []byte) (Result, error)
}

// do sends body with retries, through the cache and the budget.
func (c *Client) do(ctx context.Context, p *provider, body []byte, prompt Prompt) (res Result, err error) {
	defer func() {
		if err != nil && p.key != "" {
			err = redact(err, p.key)
		}
	}()
	var key string
	if c.Cache != nil {
		key = c.Cache.Key(p.name, p.model, p.baseURL, body)
		if r, ok, err := c.Cache.Get(key); err != nil {
			return Result{}, err
		} else if ok {
			r.Cached, r.CostUSD = true, 0
			return r, nil
		}
	}
	if c.Offline {
		return Result{}, fmt.Errorf("%s: %w (model %s)", p.name, ErrOffline, p.model)
	}
	if c.Budget != nil {
		if err := c.Budget.reserve(p.model, prompt); err != nil {
			return Result{}, fmt.Errorf("%s: %w", p.name, err)
		}
	}
	res, err = c.attempts(ctx, p, body)
	if c.Budget != nil {
		res.CostUSD = c.Budget.settle(p.model, prompt, res, err)
	}
	if err != nil {
		return Result{}, err
	}
	if c.Cache != nil {
		if err := c.Cache.Put(key, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

func (c *Client) attempts(ctx context.Context, p *provider, body []byte) (Result, error) {
	retries := c.MaxRetries
	if retries == 0 {
		retries = defaultMaxRetries
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	for n := 0; ; n++ {
		status, h, respBody, err := c.once(ctx, hc, p, body, timeout)
		if err == nil && status == http.StatusOK {
			res, perr := p.parse(respBody)
			if perr != nil {
				return Result{}, fmt.Errorf("%s: reading the response: %w", p.name, perr)
			}
			return res, nil
		}
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("%s: %w", p.name, ctx.Err())
		}
		var apiErr *APIError
		if err == nil {
			apiErr = p.parseError(status, respBody)
			if status == http.StatusUnauthorized || status == http.StatusForbidden {
				apiErr.Hint = "set " + p.keyEnv
			}
			err = apiErr
		}
		retry := err != nil && apiErr == nil // a transport error or timeout
		if apiErr != nil {
			retry = retryable(status, h, apiErr)
		}
		if !retry || retries < 0 || n >= retries {
			if n > 0 {
				return Result{}, fmt.Errorf("%w (after %d attempts)", err, n+1)
			}
			return Result{}, err
		}
		if err := c.sleep(ctx, c.backoff(n, h)); err != nil {
			return Result{}, fmt.Errorf("%s: %w", p.name, err)
		}
	}
}

// once makes one attempt: the status, headers and body, or a transport
// error (a timeout included).
func (c *Client) once(ctx context.Context, hc *http.Client, p *provider, body []byte, timeout time.Duration) (int, http.Header, []byte, error) {
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := p.request(actx, body)
	if err != nil {
		return 0, nil, nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		if actx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			return 0, nil, nil, fmt.Errorf("%s: no response within %s", p.name, timeout)
		}
		return 0, nil, nil, fmt.Errorf("%s: %w", p.name, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		if actx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			return 0, nil, nil, fmt.Errorf("%s: no complete response within %s", p.name, timeout)
		}
		return 0, nil, nil, fmt.Errorf("%s: reading the response: %w", p.name, err)
	}
	return resp.StatusCode, resp.Header, b, nil
}

// redact removes the API key from an error's text.
func redact(err error, key string) error {
	if !strings.Contains(err.Error(), key) {
		return err
	}
	return &redactedError{msg: strings.ReplaceAll(err.Error(), key, "[redacted]"), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }

// Unwrap keeps errors.Is working (ErrSpendCap, context errors).
func (e *redactedError) Unwrap() error { return e.err }

// jsonRequest builds a POST of a JSON body to url with headers.
func jsonRequest(ctx context.Context, url string, body []byte, headers map[string]string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("content-type", "application/json")
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	return req, nil
}

// Budget is a spend cap on summarization calls. Each call is priced
// before it is made, at its worst case (the prompt at 3 bytes per token,
// which over-counts most text, all of it uncached, and the whole output
// limit), and refused if that would take the spending past MaxUSD; after
// the call the reservation is replaced by the real cost of the usage the
// API reported (nothing for a failed call).
type Budget struct {
	MaxUSD float64
	// Prices gives a model's prices; nil means [DefaultPrice].
	Prices func(model string) (Price, bool)

	mu    sync.Mutex
	spent float64
}

// Price is a model's price in USD per million tokens.
type Price struct{ Input, Output, CacheRead, CacheWrite float64 }

// Spent returns what the calls so far cost.
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

func (b *Budget) price(model string) (Price, bool) {
	if b.Prices != nil {
		return b.Prices(model)
	}
	return DefaultPrice(model)
}

func (b *Budget) reserve(model string, p Prompt) error {
	pr, ok := b.price(model)
	if !ok {
		return fmt.Errorf("%w: no price known for model %q, so the cap cannot be enforced", ErrSpendCap, model)
	}
	worst := (float64(len(p.System)+len(p.User))/3*pr.Input + float64(p.MaxTokens)*pr.Output) / 1e6
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent+worst > b.MaxUSD {
		return fmt.Errorf("%w: this call may cost up to $%.4f and $%.4f of the $%.2f cap is spent", ErrSpendCap, worst, b.spent, b.MaxUSD)
	}
	b.spent += worst
	return nil
}

func (b *Budget) settle(model string, p Prompt, r Result, err error) float64 {
	pr, _ := b.price(model)
	worst := (float64(len(p.System)+len(p.User))/3*pr.Input + float64(p.MaxTokens)*pr.Output) / 1e6
	cost := 0.0
	if err == nil {
		u := r.Usage
		cost = (float64(u.Input)*pr.Input + float64(u.CacheRead)*pr.CacheRead + float64(u.CacheWrite)*pr.CacheWrite + float64(u.Output)*pr.Output) / 1e6
	}
	b.mu.Lock()
	b.spent += cost - worst
	b.mu.Unlock()
	return cost
}

// DefaultPrice is a small fallback price table for summarization models,
// in USD per million tokens (input, output, cache read, 5-minute cache
// write): the providers' list prices as the author knew them, not checked
// against a source in this project. The command line prices summaries
// with the cost model's table (replay.DefaultPrices, sourced and dated)
// first and falls back to this one. Models are matched by prefix, so dated
// names match too.
func DefaultPrice(model string) (Price, bool) {
	m := strings.ToLower(model)
	m = m[strings.LastIndex(m, "/")+1:]
	for _, e := range defaultPrices {
		if strings.HasPrefix(m, e.prefix) {
			return e.price, true
		}
	}
	return Price{}, false
}

var defaultPrices = []struct {
	prefix string
	price  Price
}{
	{"claude-haiku-4", Price{1, 5, 0.1, 1.25}},
	{"claude-3-5-haiku", Price{0.8, 4, 0.08, 1}},
	{"claude-sonnet-4", Price{3, 15, 0.3, 3.75}},
	{"claude-3-7-sonnet", Price{3, 15, 0.3, 3.75}},
	{"claude-opus-4-1", Price{15, 75, 1.5, 18.75}},
	{"claude-opus-4-0", Price{15, 75, 1.5, 18.75}},
	{"claude-opus-4-2", Price{15, 75, 1.5, 18.75}}, // claude-opus-4-20250514 (Opus 4)
	{"claude-opus-4", Price{5, 25, 0.5, 6.25}},     // Opus 4.5 and later
	{"gpt-4o-mini", Price{0.15, 0.6, 0.075, 0}},
	{"gpt-4o", Price{2.5, 10, 1.25, 0}},
	{"gpt-4.1-nano", Price{0.1, 0.4, 0.025, 0}},
	{"gpt-4.1-mini", Price{0.4, 1.6, 0.1, 0}},
	{"gpt-4.1", Price{2, 8, 0.5, 0}},
	{"gpt-5-nano", Price{0.05, 0.4, 0.005, 0}},
	{"gpt-5-mini", Price{0.25, 2, 0.025, 0}},
	{"gpt-5", Price{1.25, 10, 0.125, 0}},
}

// usageOf is a helper for providers' parse functions.
func usageOf(input, cacheRead, cacheWrite, output int64) transcript.Usage {
	return transcript.Usage{Input: input, CacheRead: cacheRead, CacheWrite: cacheWrite, Output: output}
}
