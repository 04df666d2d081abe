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

	"github.com/ctxbench/ctxbench/pricing"
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
// API reported (nothing for a failed call). A model the price table does
// not know is refused: the cap could not be kept.
type Budget struct {
	MaxUSD float64
	// Prices is the price table (nil: [pricing.Default]).
	Prices pricing.Prices

	mu    sync.Mutex
	spent float64
}

// Spent returns what the calls so far cost.
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

func (b *Budget) price(model string) (pricing.Price, error) {
	prices := b.Prices
	if prices == nil {
		prices = pricing.Default()
	}
	p, _, err := prices.Lookup(model)
	return p, err
}

// worst is the most a call of prompt p can cost at price pr.
func worst(pr pricing.Price, p Prompt) float64 {
	in := int64(float64(len(p.System)+len(p.User)) / 3)
	return pr.CallCost(transcript.Usage{Input: in, Output: int64(p.MaxTokens)}).Total().USD()
}

func (b *Budget) reserve(model string, p Prompt) error {
	pr, err := b.price(model)
	if err != nil {
		return fmt.Errorf("%w: %w, so the cap cannot be enforced", ErrSpendCap, err)
	}
	w := worst(pr, p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent+w > b.MaxUSD {
		return fmt.Errorf("%w: this call may cost up to $%.4f and $%.4f of the $%.2f cap is spent", ErrSpendCap, w, b.spent, b.MaxUSD)
	}
	b.spent += w
	return nil
}

func (b *Budget) settle(model string, p Prompt, r Result, err error) float64 {
	pr, _ := b.price(model)
	cost := 0.0
	if err == nil {
		cost = pr.CallCost(r.Usage).Total().USD()
	}
	b.mu.Lock()
	b.spent += cost - worst(pr, p)
	b.mu.Unlock()
	return cost
}

// usageOf is a helper for providers' parse functions.
func usageOf(input, cacheRead, cacheWrite, output int64) transcript.Usage {
	return transcript.Usage{Input: input, CacheRead: cacheRead, CacheWrite: cacheWrite, Output: output}
}
