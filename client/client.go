package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Default paths of the three areas under a server's root URL, as `rampway serve` and
// `rampway dev` mount them unless configured otherwise.
const (
	DefaultMintPath    = "/mint"
	DefaultNFTRampPath = "/nft-ramp"
	DefaultDepositPath = "/deposit"
)

// DefaultServerURL is the root URL a [Client] made without [WithServerURL] or [WithBaseURLs]
// talks to: `rampway dev`'s default address.
const DefaultServerURL = "http://127.0.0.1:8080"

// DefaultTimeout bounds each attempt of a call made through the [http.Client] a [Client] makes
// for itself (one given with [WithHTTPClient] keeps its own timeout).
const DefaultTimeout = 30 * time.Second

// maxResponseBytes bounds the answer read from the server.
const maxResponseBytes = 16 << 20

// userAgent is sent with every request.
const userAgent = "rampway-go-client/1"

// BaseURLs are the base URLs of the merchant API's three areas, {mint_base_url},
// {nft_ramp_base_url} and {deposit_base_url} in the merchant API's terms: each an absolute URL
// without a trailing slash, such as "https://pay.example.com/mint". The JSON names are those
// of the "api" object of `rampway dev`'s dev.json, so that object decodes into a BaseURLs.
type BaseURLs struct {
	// Mint is area A's: NFT minting paid in crypto.
	Mint string `json:"mint_base_url"`
	// NFTRamp is area B's: NFT checkout paid in fiat.
	NFTRamp string `json:"nft_ramp_base_url"`
	// Deposit is area C's: on-ramp to the merchant's deposit address.
	Deposit string `json:"deposit_base_url"`
}

// Client calls the merchant API of a rampway server with one merchant API key. Make it with
// [New]; it is safe for concurrent use, and meant to be made once and shared.
//
// Every call takes a [context.Context] first, which bounds the call with all its retries.
// Every error a call returns is an [*Error].
type Client struct {
	apiKey     string
	merchantID string
	base       BaseURLs
	http       *http.Client
	retry      RetryPolicy
	userAgent  string
}

// Option configures a [Client] made by [New].
type Option func(*Client)

// WithServerURL sets the three areas' base URLs to a server root and the default paths:
// root+"/mint", root+"/nft-ramp" and root+"/deposit".
func WithServerURL(root string) Option {
	return func(c *Client) {
		root = strings.TrimRight(root, "/")
		c.base = BaseURLs{Mint: root + DefaultMintPath, NFTRamp: root + DefaultNFTRampPath, Deposit: root + DefaultDepositPath}
	}
}

// WithBaseURLs sets each area's base URL, for a deployment that puts the areas on their own
// host names or paths. An empty one keeps its current value.
func WithBaseURLs(b BaseURLs) Option {
	return func(c *Client) {
		for _, f := range []struct {
			dst *string
			v   string
		}{{&c.base.Mint, b.Mint}, {&c.base.NFTRamp, b.NFTRamp}, {&c.base.Deposit, b.Deposit}} {
			if f.v != "" {
				*f.dst = strings.TrimRight(f.v, "/")
			}
		}
	}
}

// WithHTTPClient makes the Client send its requests with hc: its transport, timeout, proxy
// and TLS settings. A nil hc is ignored. Without it the Client uses an http.Client of its own
// with [DefaultTimeout] per attempt.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.http = hc
		}
	}
}

// WithRetryPolicy sets how calls are retried; see [RetryPolicy]. RetryPolicy{MaxAttempts: 1}
// turns retries off.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) { c.retry = p }
}

// WithMerchantID sets the merchant id the Client puts in the bodies that carry one
// (merchant_id), when a request leaves it empty. It must be the API key's merchant.
func WithMerchantID(id string) Option {
	return func(c *Client) { c.merchantID = id }
}

// WithUserAgent sets the User-Agent header of the Client's requests, for the server's logs.
func WithUserAgent(ua string) Option {
	return func(c *Client) {
		if ua != "" {
			c.userAgent = ua
		}
	}
}

// New returns a Client that authenticates with the merchant API key apiKey (sent as
// X-API-KEY): an rw_live_ key for live orders, an rw_test_ key for test orders (the key
// decides the mode of everything the Client does; see [Client.Livemode]). Without options
// it talks to [DefaultServerURL] and retries as [RetryPolicy]'s defaults say.
func New(apiKey string, opts ...Option) *Client {
	c := &Client{apiKey: apiKey, userAgent: userAgent}
	WithServerURL(DefaultServerURL)(c)
	for _, o := range opts {
		o(c)
	}
	if c.http == nil {
		c.http = &http.Client{Timeout: DefaultTimeout}
	}
	return c
}

// BaseURLs returns the base URLs the Client calls.
func (c *Client) BaseURLs() BaseURLs { return c.base }

// Livemode reports whether the Client's API key is a live key (it starts with rw_live_): its
// orders, lookups, lists and webhook events are then live ones (real money); a test key
// (rw_test_) sees test orders only. It reads the key's text and asks the server nothing.
func (c *Client) Livemode() bool { return strings.HasPrefix(c.apiKey, "rw_live_") }

// CallOption configures one call.
type CallOption func(*callConfig)

type callConfig struct {
	idempotencyKey string
	info           *ResponseInfo
}

// WithIdempotencyKey makes a POST call send key as its Idempotency-Key, instead of a random
// one made for the call: 1 to 255 printable ASCII characters without spaces. Use a key of your
// own (your order's id, say) to make a call idempotent across restarts of your process: the
// server answers a second call with the same key and body with the first one's answer and
// creates nothing. It is ignored by GET calls.
func WithIdempotencyKey(key string) CallOption {
	return func(c *callConfig) { c.idempotencyKey = key }
}

// WithResponseInfo makes the call fill info with what it knows of the HTTP exchange, when it
// returns (with or without an error).
func WithResponseInfo(info *ResponseInfo) CallOption {
	return func(c *callConfig) { c.info = info }
}

// ResponseInfo is what a call knows of its HTTP exchange, filled for [WithResponseInfo].
type ResponseInfo struct {
	// StatusCode is the last attempt's HTTP status; 0 when no answer came.
	StatusCode int
	// RequestID is the last answer's X-Request-Id, the id of the server's log lines.
	RequestID string
	// IdempotencyKey is the Idempotency-Key every attempt of a POST sent ("" for a GET).
	IdempotencyKey string
	// Replayed is true when the answer is the server's replay of an earlier request with the
	// same Idempotency-Key (Idempotent-Replayed: true): nothing was created again.
	Replayed bool
	// Attempts is how many requests the call sent.
	Attempts int
}

// newIdempotencyKey returns a random Idempotency-Key: 128 bits, hex.
func newIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics rather)
	return "idk_" + hex.EncodeToString(b[:])
}

// request is one API call.
type request struct {
	method string
	base   string // an area's base URL
	path   string // under base, its ids escaped
	query  url.Values
	body   any // JSON-encoded; nil for none
}

// call sends r, retrying as the Client's policy says, and decodes a 2xx answer into out
// (unless nil).
func (c *Client) call(ctx context.Context, r request, out any, opts []CallOption) error {
	var cfg callConfig
	for _, o := range opts {
		o(&cfg)
	}
	info := cfg.info
	if info == nil {
		info = new(ResponseInfo)
	}
	*info = ResponseInfo{}
	fail := func(err error) error {
		return &Error{Method: r.method, Path: r.path, Err: err}
	}
	u, err := url.Parse(r.base + r.path)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return fail(fmt.Errorf("bad base URL %q", r.base))
	}
	if len(r.query) > 0 {
		u.RawQuery = r.query.Encode()
	}
	var payload []byte
	if r.body != nil {
		if payload, err = json.Marshal(r.body); err != nil {
			return fail(fmt.Errorf("encode request body: %w", err))
		}
	}
	if r.method == http.MethodPost {
		info.IdempotencyKey = cfg.idempotencyKey
		if info.IdempotencyKey == "" {
			info.IdempotencyKey = newIdempotencyKey()
		}
	}
	policy := c.retry.withDefaults()
	for attempt := 1; ; attempt++ {
		info.Attempts = attempt
		e := c.attempt(ctx, r.method, u, payload, info, out)
		if e == nil {
			return nil
		}
		e.Method, e.Attempts = r.method, attempt
		if e.Path == "" {
			e.Path = u.Path
		}
		if ctx.Err() != nil {
			return ended(ctx, r.method, u.Path, attempt, e)
		}
		if !e.Retryable() || attempt >= policy.MaxAttempts {
			return e
		}
		if e.RetryAfter > policy.MaxRetryAfter {
			return e // the server asks for a longer wait than the policy allows
		}
		wait := policy.delay(attempt, e.RetryAfter, jitter)
		if d, ok := ctx.Deadline(); ok && time.Until(d) < wait {
			return e // the call would end in the wait: its last answer says more than the deadline
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ended(ctx, r.method, u.Path, attempt, e)
		case <-t.C:
		}
	}
}

// ended is the error of a call its context ended, after attempts: the context's error, with the
// last answer when there was one.
func ended(ctx context.Context, method, path string, attempts int, last *Error) *Error {
	e := &Error{Method: method, Path: path, Attempts: attempts, Err: ctx.Err()}
	if last.StatusCode != 0 && last.Err == nil {
		e.last = last
	}
	return e
}

// attempt sends one request and decodes its answer.
func (c *Client) attempt(ctx context.Context, method string, u *url.URL, payload []byte, info *ResponseInfo, out any) *Error {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return &Error{Err: err}
	}
	req.Header.Set("X-API-KEY", c.apiKey)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if info.IdempotencyKey != "" {
		req.Header.Set("Idempotency-Key", info.IdempotencyKey)
	}
	info.StatusCode, info.RequestID, info.Replayed = 0, "", false
	res, err := c.http.Do(req)
	if err != nil {
		return &Error{Err: err, network: true}
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes))
	res.Body.Close()
	info.StatusCode, info.RequestID = res.StatusCode, res.Header.Get("X-Request-Id")
	info.Replayed = res.Header.Get("Idempotent-Replayed") == "true"
	if err != nil {
		// The answer was cut short: the request may or may not have been done. A retry is safe:
		// a POST carries its Idempotency-Key.
		return &Error{StatusCode: res.StatusCode, RequestID: info.RequestID, Err: fmt.Errorf("read answer: %w", err), network: true}
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return decodeError(res, data)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &Error{StatusCode: res.StatusCode, RequestID: info.RequestID, Err: fmt.Errorf("decode answer: %w", err)}
	}
	return nil
}

// pathf joins path segments, escaping each argument: pathf("/order/%s", id).
func pathf(format string, ids ...string) (string, error) {
	args := make([]any, len(ids))
	for i, id := range ids {
		if id == "" {
			return "", errors.New("an id in the path is empty")
		}
		args[i] = url.PathEscape(id)
	}
	return fmt.Sprintf(format, args...), nil
}
