package summarize

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxbench/ctxbench/internal/dollars"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/transcript"
)

// Client holds what the HTTP providers share: the transport, the retry
// policy, the response cache and the spend cap.
type Client struct {
	// HTTP is the client used for requests (default http.DefaultClient);
	// a redirect to another origin is refused whatever its CheckRedirect
	// says.
	HTTP *http.Client
	// Timeout bounds each attempt (default 2 minutes).
	Timeout time.Duration
	// MaxRetries is how many times a retryable failure is retried
	// (default 4; negative means none).
	MaxRetries int
	// MaxCallTime bounds a call's attempts and waits together (default 5
	// minutes): no attempt starts past it, and the last one gets what
	// is left of it. A run's failed calls share it too: once they have
	// taken that long together, the run stops, so a server that never
	// answers, or asks to wait again and again, holds it about one
	// call's time, not one per failed call.
	MaxCallTime time.Duration
	// Run, when set, is the state the calls of one run share: the
	// circuit breaker that stops them all after an error no retry can
	// mend, or after too many failed calls, and the spend cap.
	Run *Run
	// CacheDir, when set, is the folder of the response cache, which
	// serves identical requests from disk and stores new responses: keyed
	// by a hash of the provider, model, base URL and request body, written
	// atomically with mode 0600 in 0700 folders (prompts can hold user
	// data), and never holding an API key.
	CacheDir string
	// Offline serves only from the cache: a miss is an error wrapping
	// ErrOffline and no request is made.
	Offline bool
	// Sleep waits between attempts (default: a timer that stops when ctx
	// is done). Tests replace it to observe the waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand gives the backoff's jitter in [0,1) (default math/rand/v2).
	Rand func() float64
}

const (
	defaultTimeout    = 2 * time.Minute
	defaultMaxRetries = 4
	defaultCallTime   = 5 * time.Minute
	defaultMaxFailed  = 3
	backoffBase       = 500 * time.Millisecond
	backoffMax        = 8 * time.Second
	maxRetryAfter     = 60 * time.Second
	maxResponseBytes  = 32 << 20
)

// apiError is a provider's error response.
type apiError struct {
	Provider string
	Status   int
	// Type is the API's error type (rate_limit_error, invalid_request_error…)
	// or code (insufficient_quota…).
	Type    string
	Message string
	// Hint says what the user can do, if anything obvious.
	Hint string
}

func (e *apiError) Error() string {
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
func (e *apiError) spendLimit() bool {
	s := strings.ToLower(e.Type + " " + e.Message)
	return strings.Contains(s, "spend") || strings.Contains(s, "insufficient_quota") || strings.Contains(s, "quota") && strings.Contains(s, "exceeded")
}

// retryable reports whether a response with this status (and headers) may
// succeed when tried again.
func retryable(status int, h http.Header, apiErr *apiError) bool {
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
	parseError func(status int, body []byte) *apiError
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
	if err := c.Run.stoppedErr(); err != nil {
		return Result{}, err
	}
	if u, err := url.Parse(p.baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Result{}, c.Run.fail(fmt.Errorf("%s: base URL %q: want http:// or https:// and a host", p.name, p.baseURL), true)
	}
	var key string
	var cache *diskCache
	if c.CacheDir != "" {
		cache = &diskCache{Dir: c.CacheDir}
		key = cache.Key(p.name, p.model, p.baseURL, body)
		if r, ok, err := cache.Get(key); err != nil {
			return Result{}, err
		} else if ok && checkResult(p.name, r) == nil { // else an empty summary an older version cached: asked again
			r.Cached, r.CostUSD = true, 0
			return r, nil
		}
	}
	if err := c.refuseCall(p, prompt); err != nil {
		return Result{}, err
	}
	if res, err = c.call(ctx, p, body, prompt); err != nil {
		return Result{}, err
	}
	if cache != nil {
		if err := cache.Put(key, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// refuseCall refuses a call not in the cache that must not be made:
// offline, with a key no request can carry, or over the budget (else
// reserved in it).
func (c *Client) refuseCall(p *provider, prompt Prompt) error {
	if c.Offline {
		return c.Run.fail(fmt.Errorf("%s: %w (model %s)", p.name, ErrOffline, p.model), false)
	}
	if i := strings.IndexFunc(p.key, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }); i >= 0 {
		return c.Run.fail(fmt.Errorf("%s: the API key holds a control character (%q at byte %d); check how %s was set", p.name, p.key[i], i, p.keyEnv), true)
	}
	if c.Run.capped() {
		if err := c.Run.reserve(p.model, prompt); err != nil {
			return c.Run.fail(fmt.Errorf("%s: %w", p.name, err), false)
		}
	}
	return nil
}

// call makes the call, within the time the run's failed calls left it,
// settles it with the budget and checks its summary.
func (c *Client) call(ctx context.Context, p *provider, body []byte, prompt Prompt) (Result, error) {
	callTime := c.MaxCallTime
	if callTime <= 0 {
		callTime = defaultCallTime
	}
	left := c.Run.timeLeft(callTime)
	if left <= 0 { // the failed calls made at once took it all
		return Result{}, c.Run.fail(fmt.Errorf("%s: the run's failed calls took %s together", p.name, callTime), false)
	}
	start := time.Now()
	res, fatal, err := c.attempts(ctx, p, body, start.Add(left))
	if c.Run.capped() {
		// A call answered is billed, whatever its summary holds.
		res.CostUSD = c.Run.settle(p.model, prompt, res, err)
	}
	if err == nil {
		err = checkResult(p.name, res)
	}
	if max := maxSummaryBytes(prompt.MaxTokens); err == nil && max > 0 && len(res.Text) > max {
		// A server that answers past what was asked is broken: the run
		// stops before its answers fill the cache.
		err, fatal = fmt.Errorf("%s: the summary is %d bytes, more than max_tokens %d allows (%d)", p.name, len(res.Text), prompt.MaxTokens, max), true
	}
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, err
		}
		return Result{}, c.Run.failAfter(err, fatal, time.Since(start), callTime)
	}
	return res, nil
}

// attempts makes the call's attempts; fatal says that its error is one
// no retry, and no later call, can mend (a 4xx other than a rate limit
// or a timeout: a bad key, a bad request, a spend limit; a redirect to
// another origin).
func (c *Client) attempts(ctx context.Context, p *provider, body []byte, deadline time.Time) (res Result, fatal bool, err error) {
	retries := c.MaxRetries
	if retries == 0 {
		retries = defaultMaxRetries
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	hc := sameOriginOnly(c.HTTP)
	for n := 0; ; n++ {
		status, h, respBody, err := c.once(ctx, hc, p, body, min(timeout, time.Until(deadline)))
		if err == nil && status == http.StatusOK {
			res, perr := p.parse(respBody)
			if perr != nil {
				return Result{}, false, fmt.Errorf("%s: reading the response: %w", p.name, perr)
			}
			// A server that echoes the key (in the model's name, say) must
			// not put it in the cache, the trace or the output.
			res.Model, res.Text = scrubKey(res.Model, p.key), scrubKey(res.Text, p.key)
			return res, false, nil
		}
		if redirect := (*crossOriginError)(nil); errors.As(err, &redirect) {
			return Result{}, true, fmt.Errorf("%s: %w", p.name, redirect)
		}
		if err == nil {
			// Before the body is read for its message and cut short: a cut
			// must not leave a prefix of the key.
			respBody = []byte(scrubKey(string(respBody), p.key))
		}
		if ctx.Err() != nil {
			return Result{}, false, fmt.Errorf("%s: %w", p.name, ctx.Err())
		}
		var apiErr *apiError
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
			fatal = !retry && status >= 400 && status < 500
		}
		wait := c.backoff(n, h)
		if !retry || retries < 0 || n >= retries || time.Now().Add(wait).After(deadline) {
			if n > 0 {
				err = fmt.Errorf("%w (after %d attempts)", err, n+1)
			}
			return Result{}, fatal, err
		}
		if err := c.sleep(ctx, wait); err != nil {
			return Result{}, false, fmt.Errorf("%s: %w", p.name, err)
		}
	}
}

// maxSummaryBytes is the most text a summary of maxTokens output tokens
// can hold: 32 bytes a token (a token is a few characters, a long run of
// one character a few more) and 4 KiB; 0 (no bound) when no maximum was
// asked.
func maxSummaryBytes(maxTokens int) int {
	if maxTokens <= 0 {
		return 0
	}
	return 32*maxTokens + 4<<10
}

// checkResult holds both providers' answers to one rule: a summary has
// text, and usage that could be true (0 to transcript.MaxUsage a field).
func checkResult(name string, r Result) error {
	if strings.TrimSpace(r.Text) == "" {
		return fmt.Errorf("%s: the response holds no summary text", name)
	}
	if err := r.Usage.Check(transcript.MaxUsage); err != nil {
		return fmt.Errorf("%s: the response reports usage of %w", name, err)
	}
	return nil
}

// sameOriginOnly returns hc (or the default client) made to refuse a
// redirect to another origin (scheme, host and port): a 307 or 308
// would send it the request's body, the conversation, and any answer
// from it would be taken for a summary the API made. A redirect within
// the origin is followed as hc follows it.
func sameOriginOnly(hc *http.Client) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if from, to := origin(via[0].URL), origin(req.URL); from != to {
			status := 0
			if req.Response != nil {
				status = req.Response.StatusCode
			}
			return &crossOriginError{status: status, from: from, to: to}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// A crossOriginError is a redirect refused because it leads to another
// origin. No retry mends it: the server sends it again.
type crossOriginError struct {
	status   int
	from, to string
}

func (e *crossOriginError) Error() string {
	return fmt.Sprintf("refused a redirect (%d) from %s to another origin, %s: the request holds the conversation; if that server is the API, make it the base URL", e.status, e.from, e.to)
}

// origin is a URL's scheme, host and port.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// Run is what the calls of one run share: how many failed, the error
// that stopped them, and what they spent. Its zero value stops after 3
// failed calls and has no spend cap.
type Run struct {
	// MaxFailedCalls is how many calls may fail (after their retries)
	// before the run stops (0: 3; negative: never).
	MaxFailedCalls int
	// MaxUSD, when not 0, caps the spending of the run's calls. Each
	// call is priced before it is made, at its worst case (the prompt at
	// 3 bytes per token, which over-counts most text, all of it uncached,
	// and the whole output limit), and refused if that would take the
	// spending past MaxUSD; after the call the reservation is replaced by
	// the real cost of the usage the API reported (nothing for a failed
	// call). A model the price table does not know is refused: the cap
	// could not be kept. A cap that is not a finite amount, 0 or more,
	// refuses every call.
	MaxUSD float64
	// Prices is the price table of the cap (nil: [pricing.Default]).
	Prices pricing.Prices

	mu      sync.Mutex
	failed  int
	took    time.Duration // by the failed calls together
	first   error
	stopped error

	spendMu sync.Mutex
	spent   float64
}

// Failed returns how many calls failed, and the first one's error.
func (r *Run) Failed() (int, error) {
	if r == nil {
		return 0, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed, r.first
}

func (r *Run) stoppedErr() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}

// timeLeft is what a call may take of callTime: what the failed calls
// have not taken of it.
func (r *Run) timeLeft(callTime time.Duration) time.Duration {
	if r == nil || r.MaxFailedCalls < 0 {
		return callTime
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return callTime - r.took
}

// fail counts a failed call that took no time.
func (r *Run) fail(err error, fatal bool) error { return r.failAfter(err, fatal, 0, 0) }

// failAfter counts a failed call that took took, and returns its error,
// wrapped in ErrStopped once the breaker is open: at once when the error
// is fatal, else at the limit of failed calls, or once the failed calls
// have taken callTime together.
func (r *Run) failAfter(err error, fatal bool, took, callTime time.Duration) error {
	if r == nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed++
	r.took += took
	if r.first == nil {
		r.first = err
	}
	limit := r.MaxFailedCalls
	if limit == 0 {
		limit = defaultMaxFailed
	}
	switch {
	case r.stopped != nil && fatal:
		return r.stopped
	case r.stopped != nil:
		return err
	case fatal:
		r.stopped = fmt.Errorf("%w: %w", ErrStopped, err)
	case limit > 0 && r.failed >= limit:
		r.stopped = fmt.Errorf("%w after %d failed calls; the last: %w", ErrStopped, r.failed, err)
	case limit > 0 && callTime > 0 && r.took >= callTime:
		r.stopped = fmt.Errorf("%w: %d failed calls took %s together; the last: %w", ErrStopped, r.failed, r.took.Round(time.Second), err)
	default:
		return err
	}
	return r.stopped
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
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err == nil && len(b) > maxResponseBytes {
		return 0, nil, nil, fmt.Errorf("%s: the response is over %d MiB", p.name, maxResponseBytes>>20)
	}
	if err != nil {
		if actx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			return 0, nil, nil, fmt.Errorf("%s: no complete response within %s", p.name, timeout)
		}
		return 0, nil, nil, fmt.Errorf("%s: reading the response: %w", p.name, err)
	}
	return resp.StatusCode, resp.Header, b, nil
}

// scrubKey returns s without the API key in it: as written, or as an
// HTML page or a JSON string escapes it (then s is returned decoded,
// the key replaced).
func scrubKey(s, key string) string {
	if key == "" {
		return s
	}
	if strings.Contains(s, key) {
		return strings.ReplaceAll(s, key, "[redacted]")
	}
	forms := []string{html.UnescapeString(s)}
	if strings.Contains(s, `\u`) {
		u := unicodeEscape.ReplaceAllStringFunc(s, func(e string) string {
			n, _ := strconv.ParseUint(e[2:], 16, 32)
			return string(rune(n))
		})
		forms = append(forms, u, html.UnescapeString(u))
	}
	for _, f := range forms {
		if strings.Contains(f, key) {
			return strings.ReplaceAll(f, key, "[redacted]")
		}
	}
	return s
}

// unicodeEscape is a JSON string's escape of a character.
var unicodeEscape = regexp.MustCompile(`\\u[0-9a-fA-F]{4}`)

// redact removes the API key from an error's text.
func redact(err error, key string) error {
	msg := scrubKey(err.Error(), key)
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
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

// Spent returns what the run's calls so far cost, when it has a spend
// cap (Run.MaxUSD).
func (b *Run) Spent() float64 {
	if b == nil {
		return 0
	}
	b.spendMu.Lock()
	defer b.spendMu.Unlock()
	return b.spent
}

// capped reports whether the run has a spend cap.
func (b *Run) capped() bool { return b != nil && b.MaxUSD != 0 }

func (b *Run) price(model string) (pricing.Price, error) {
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
	return costUSD(pr, transcript.Usage{Input: in, Output: int64(p.MaxTokens)})
}

// costUSD is what usage u costs at price pr, in dollars: near enough
// past what one call can cost (pricing.MaxCall), and +Inf at a price
// that is none.
func costUSD(pr pricing.Price, u transcript.Usage) float64 {
	c, err := pr.CallCost(u)
	var a *pricing.AmountError
	switch {
	case errors.As(err, &a):
		return a.USD
	case err != nil:
		return math.Inf(1)
	}
	return c.Total().USD()
}

func (b *Run) reserve(model string, p Prompt) error {
	if !(b.MaxUSD >= 0) || math.IsInf(b.MaxUSD, 0) {
		return fmt.Errorf("%w: the cap is %v; want a finite amount of dollars, 0 or more", ErrSpendCap, b.MaxUSD)
	}
	pr, err := b.price(model)
	if err != nil {
		return fmt.Errorf("%w: %w, so the cap cannot be enforced", ErrSpendCap, err)
	}
	w := worst(pr, p)
	b.spendMu.Lock()
	defer b.spendMu.Unlock()
	if b.spent+w > b.MaxUSD {
		return fmt.Errorf("%w: this call may cost up to %s and %s of the %s cap is spent", ErrSpendCap, dollars.Format(w), dollars.Format(b.spent), dollars.Format(b.MaxUSD))
	}
	b.spent += w
	return nil
}

func (b *Run) settle(model string, p Prompt, r Result, err error) float64 {
	pr, _ := b.price(model)
	cost := 0.0
	if u := r.Usage; err == nil {
		cost = costUSD(pr, u)
		if u.Check(transcript.MaxUsage) != nil {
			cost = worst(pr, p) // usage that cannot be true: the reservation stands
		}
	}
	b.spendMu.Lock()
	b.spent += cost - worst(pr, p)
	b.spendMu.Unlock()
	return cost
}

// usageOf is a helper for providers' parse functions.
func usageOf(input, cacheRead, cacheWrite, output int64) transcript.Usage {
	return transcript.Usage{Input: input, CacheRead: cacheRead, CacheWrite: cacheWrite, Output: output}
}
