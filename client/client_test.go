package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rampway/rampway/client"
)

// fast retries for tests: the waits are a few milliseconds.
var fast = client.RetryPolicy{MaxAttempts: 3, BaseDelay: 2 * time.Millisecond, MaxDelay: 10 * time.Millisecond}

// seen is a request as a fake server received it.
type seen struct {
	Method, Path, Query string
	Header              http.Header
	Body                string
}

// fake is a fake rampway server: answer answers the n-th request (from 1) and it records
// every request.
type fake struct {
	t      *testing.T
	answer func(n int, w http.ResponseWriter, r *http.Request)
	srv    *httptest.Server

	mu   sync.Mutex
	reqs []seen
}

func newFake(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *fake {
	t.Helper()
	f := &fake{t: t, answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, seen{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Clone(), string(body)})
		n := len(f.reqs)
		f.mu.Unlock()
		f.answer(n, w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.reqs...)
}

// client is a Client of the fake server with the fast retries.
func (f *fake) client(opts ...client.Option) *client.Client {
	return client.New("rw_test_key", append([]client.Option{client.WithServerURL(f.srv.URL), client.WithRetryPolicy(fast),
		client.WithMerchantID("mch_1")}, opts...)...)
}

// envelope answers an error in rampway's envelope.
func envelope(w http.ResponseWriter, r *http.Request, status, bodyStatus int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Request-Id", "req_test")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"statusCode":%d,"timestamp":"2026-11-25T06:30:53.495Z","message":%q,"path":%q,"status":false}`+"\n", bodyStatus, msg, r.URL.Path)
}

func answerJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

const mintOrderAnswer = `{"order_id":"ord_06h12sktf7t9fn4apnn9raevh8","crypto_symbol":"ETH","crypto_contract_address":null,` +
	`"crypto_network":"devnet","crypto_amount":"0.010263","hash":"278f","gateway_url":"http://127.0.0.1:1/checkout?order_id=ord_06h12sktf7t9fn4apnn9raevh8&hash=278f"}`

func mintRequest() *client.MintOrderRequest {
	return &client.MintOrderRequest{CryptoSymbol: "ETH", CryptoNetwork: "devnet",
		ContractExecution: client.ContractExecution{SmartContractFunctionID: "scf_1",
			FunctionArgs:  map[string]any{"to": "0x8C6e4566760f8c3Cd0036188A7022fD50dD67DD6", "quantity": "1"},
			Payment:       &client.ContractExecutionPayment{PayableCryptoSymbol: "ETH", TotalValue: "0.01"},
			NetworkParams: client.NetworkParams{NetworkName: "devnet"}},
		MerchantUserID: "user-1", MerchantRedirectURL: "https://shop.example/done"}
}

func TestCreateMintOrderRequest(t *testing.T) {
	f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) { answerJSON(w, 201, mintOrderAnswer) })
	o, err := f.client().CreateMintOrder(t.Context(), mintRequest())
	if err != nil {
		t.Fatal(err)
	}
	if o.OrderID != "ord_06h12sktf7t9fn4apnn9raevh8" || o.CryptoContractAddress != "" || o.CryptoAmount != "0.010263" {
		t.Fatalf("answer %+v", o)
	}
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/mint/merchant/hosted/nftCheckout/order" || r.Header.Get("X-API-KEY") != "rw_test_key" ||
		r.Header.Get("Content-Type") != "application/json" || !strings.HasPrefix(r.Header.Get("User-Agent"), "rampway-go-client/") {
		t.Fatalf("request %s %s %v", r.Method, r.Path, r.Header)
	}
	// The merchant id is the Client's; optional fields left empty are left out.
	want := `{"merchant_id":"mch_1","crypto_symbol":"ETH","crypto_network":"devnet","contractExecution":{"smartContractFunctionId":"scf_1",` +
		`"function_args":{"quantity":"1","to":"0x8C6e4566760f8c3Cd0036188A7022fD50dD67DD6"},"payment":{"payableCryptoSymbol":"ETH","totalValue":"0.01"},` +
		`"network_params":{"networkName":"devnet"}},"merchant_user_id":"user-1","merchant_redirect_url":"https://shop.example/done"}`
	if r.Body != want {
		t.Fatalf("body\n%s\nwant\n%s", r.Body, want)
	}
	if !regexp.MustCompile(`^idk_[0-9a-f]{32}$`).MatchString(r.Header.Get("Idempotency-Key")) {
		t.Fatalf("Idempotency-Key %q", r.Header.Get("Idempotency-Key"))
	}
}

// Each call has its own key; a GET has none; the caller's own key is sent as given.
func TestIdempotencyKeyPerCall(t *testing.T) {
	f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if r.Method == "GET" {
			answerJSON(w, 200, `{"data":[],"has_more":false}`)
			return
		}
		answerJSON(w, 201, mintOrderAnswer)
	})
	c := f.client()
	var info client.ResponseInfo
	for range 2 {
		if _, err := c.CreateMintOrder(t.Context(), mintRequest(), client.WithResponseInfo(&info)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CreateMintOrder(t.Context(), mintRequest(), client.WithIdempotencyKey("order-1042")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListMintOrdersPage(t.Context(), nil, client.WithIdempotencyKey("ignored")); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	k1, k2, k3 := reqs[0].Header.Get("Idempotency-Key"), reqs[1].Header.Get("Idempotency-Key"), reqs[2].Header.Get("Idempotency-Key")
	if k1 == "" || k1 == k2 || k3 != "order-1042" || info.IdempotencyKey != k2 {
		t.Fatalf("keys %q %q %q, info %+v", k1, k2, k3, info)
	}
	if _, ok := reqs[3].Header["Idempotency-Key"]; ok {
		t.Fatalf("a GET sent Idempotency-Key %q", reqs[3].Header.Get("Idempotency-Key"))
	}
}

// Which answers are retried: network failures, 409 with Retry-After (a key in use), 429 and
// 5xx, up to MaxAttempts; never another 4xx, nor a 409 without Retry-After (a state conflict).
func TestRetriedStatuses(t *testing.T) {
	for _, tc := range []struct {
		status     int
		retryAfter bool
		attempts   int
	}{
		{400, false, 1}, {401, false, 1}, {403, false, 1}, {404, false, 1}, {405, false, 1}, {413, false, 1}, {415, false, 1}, {422, false, 1},
		{409, false, 1}, {409, true, 3}, {429, false, 3}, {500, false, 3}, {502, false, 3}, {503, false, 3}, {504, false, 3},
	} {
		t.Run(fmt.Sprintf("%d/retry-after=%v", tc.status, tc.retryAfter), func(t *testing.T) {
			f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
				if tc.retryAfter {
					w.Header().Set("Retry-After", "1")
				}
				envelope(w, r, tc.status, tc.status, "no")
			})
			var info client.ResponseInfo
			_, err := f.client().CreateMintOrder(t.Context(), mintRequest(), client.WithResponseInfo(&info))
			var e *client.Error
			if !errors.As(err, &e) || e.StatusCode != tc.status || e.Attempts != tc.attempts {
				t.Fatalf("err = %#v", err)
			}
			reqs := f.requests()
			if len(reqs) != tc.attempts || info.Attempts != tc.attempts || info.StatusCode != tc.status {
				t.Fatalf("%d requests, info %+v; want %d", len(reqs), info, tc.attempts)
			}
			for _, r := range reqs {
				if k := r.Header.Get("Idempotency-Key"); k != info.IdempotencyKey || k == "" {
					t.Fatalf("attempt's key %q, the call's %q", k, info.IdempotencyKey)
				}
				if r.Body != reqs[0].Body {
					t.Fatal("a retry sent another body")
				}
			}
		})
	}
}

// A call retried to success: one key for all its attempts, the same body, the answer of the
// last. So for every POST that creates something: an order, a merchant refund of each area.
func TestRetryThenSuccess(t *testing.T) {
	const refundAnswer = `{"refund_id":"rfd_1","origin":"merchant","amount":"10.00","currency":"EUR","status":"pending","created_at":"2026-11-25T06:31:00.000Z","updated_at":"2026-11-25T06:31:00.000Z"}`
	for _, tc := range []struct {
		name   string
		answer string
		call   func(ctx context.Context, c *client.Client, opts ...client.CallOption) (string, error)
	}{
		{"CreateMintOrder", mintOrderAnswer, func(ctx context.Context, c *client.Client, opts ...client.CallOption) (string, error) {
			o, err := c.CreateMintOrder(ctx, mintRequest(), opts...)
			if err != nil {
				return "", err
			}
			return o.OrderID, nil
		}},
		{"CreateMintOrderRefund", refundAnswer, func(ctx context.Context, c *client.Client, opts ...client.CallOption) (string, error) {
			r, err := c.CreateMintOrderRefund(ctx, "ord_1", &client.RefundRequest{Amount: "0.004"}, opts...)
			if err != nil {
				return "", err
			}
			return r.RefundID, nil
		}},
		{"CreateFiatOrderRefund", refundAnswer, func(ctx context.Context, c *client.Client, opts ...client.CallOption) (string, error) {
			r, err := c.CreateFiatOrderRefund(ctx, "ord_1", &client.RefundRequest{Amount: "10.00", Reason: "returned"}, opts...)
			if err != nil {
				return "", err
			}
			return r.RefundID, nil
		}},
		{"CreateDepositOrderRefund", refundAnswer, func(ctx context.Context, c *client.Client, opts ...client.CallOption) (string, error) {
			r, err := c.CreateDepositOrderRefund(ctx, "ord_1", &client.RefundRequest{}, opts...)
			if err != nil {
				return "", err
			}
			return r.RefundID, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
				switch n {
				case 1:
					envelope(w, r, 503, 503, "Price feed unavailable")
				case 2:
					w.Header().Set("Retry-After", "1")
					envelope(w, r, 409, 409, `A request with Idempotency-Key "x" is still in progress`)
				default:
					w.Header().Set("Idempotent-Replayed", "true")
					answerJSON(w, 200, tc.answer)
				}
			})
			var info client.ResponseInfo
			id, err := tc.call(t.Context(), f.client(), client.WithResponseInfo(&info))
			if err != nil || id == "" {
				t.Fatal(id, err)
			}
			reqs := f.requests()
			if len(reqs) != 3 || info.Attempts != 3 || !info.Replayed || info.StatusCode != 200 || info.IdempotencyKey == "" {
				t.Fatalf("%d requests, info %+v", len(reqs), info)
			}
			for _, r := range reqs {
				if r.Method != "POST" || r.Header.Get("Idempotency-Key") != info.IdempotencyKey {
					t.Fatalf("keys differ across attempts: %s %q, %q", r.Method, r.Header.Get("Idempotency-Key"), info.IdempotencyKey)
				}
				if r.Body != reqs[0].Body || r.Path != reqs[0].Path {
					t.Fatalf("a retry sent another request: %s %s, first %s %s", r.Path, r.Body, reqs[0].Path, reqs[0].Body)
				}
			}
			// The caller's own key, across the retries just the same.
			f2 := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					envelope(w, r, 502, 502, "Bad gateway")
					return
				}
				answerJSON(w, 200, tc.answer)
			})
			if _, err := tc.call(t.Context(), f2.client(), client.WithIdempotencyKey("refund-1042")); err != nil {
				t.Fatal(err)
			}
			for _, r := range f2.requests() {
				if r.Header.Get("Idempotency-Key") != "refund-1042" {
					t.Fatalf("attempt's key %q, want the caller's", r.Header.Get("Idempotency-Key"))
				}
			}
		})
	}
}

// A merchant refund the server refuses: a state conflict (409 without Retry-After: the order
// is not SUCCESS, or nothing is left) and a refused amount (400) are errors at once, never
// retried, their messages the server's.
func TestRefundRefusals(t *testing.T) {
	for _, tc := range []struct {
		status int
		msg    string
	}{
		{409, "Order ord_1 is CREATED: only a SUCCESS order can be refunded"},
		{400, "amount: 12.00 EUR is more than is left: 3.00 EUR is left to refund"},
		{404, "Order not found"},
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) { envelope(w, r, tc.status, tc.status, tc.msg) })
			_, err := f.client().CreateFiatOrderRefund(t.Context(), "ord_1", &client.RefundRequest{Amount: "12.00"})
			e, ok := errors.AsType[*client.Error](err)
			if !ok || e.StatusCode != tc.status || e.Message != tc.msg || e.Retryable() || e.Attempts != 1 ||
				e.Path != "/nft-ramp/merchant/hosted/nftCheckout/order/ord_1/refunds" || len(f.requests()) != 1 {
				t.Fatalf("err = %#v, %d requests", err, len(f.requests()))
			}
		})
	}
}

// roundTripFunc is an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A network failure is retried with the same key: here the first attempt reached the server,
// which answered, and the answer was lost on the way back.
func TestNetworkFailureRetried(t *testing.T) {
	f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) { answerJSON(w, 201, mintOrderAnswer) })
	var mu sync.Mutex
	lost := 0
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		res, err := http.DefaultTransport.RoundTrip(r)
		mu.Lock()
		defer mu.Unlock()
		if err == nil && lost == 0 {
			lost++
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			return nil, errors.New("connection reset by peer")
		}
		return res, err
	})}
	var info client.ResponseInfo
	if _, err := f.client(client.WithHTTPClient(hc)).CreateMintOrder(t.Context(), mintRequest(), client.WithResponseInfo(&info)); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(reqs) != 2 || info.Attempts != 2 || reqs[0].Header.Get("Idempotency-Key") != reqs[1].Header.Get("Idempotency-Key") {
		t.Fatalf("%d requests, info %+v", len(reqs), info)
	}
}

// A server that closes the connection: retried, then the network error, Retryable, wrapping
// the cause.
func TestNetworkFailureExhausted(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	accepted := 0
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepted++
			mu.Unlock()
			conn.Close()
		}
	}()
	c := client.New("k", client.WithServerURL("http://"+ln.Addr().String()), client.WithRetryPolicy(fast))
	_, err = c.GetMintOrder(t.Context(), "ord_1")
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != 0 || e.Err == nil || !e.Retryable() || e.Attempts != 3 {
		t.Fatalf("err = %#v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if accepted < 3 {
		t.Fatalf("%d connections, want 3 attempts", accepted)
	}
}

// Retry-After is honoured: the retry waits at least that long.
func TestRetryAfterHonoured(t *testing.T) {
	f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			envelope(w, r, 429, 429, "Too many requests")
			return
		}
		answerJSON(w, 200, `{"currencies":[]}`)
	})
	start := time.Now()
	if _, err := f.client().ListFiatCurrencies(t.Context()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second {
		t.Fatalf("retried after %s, Retry-After was 1s", d)
	}
	if n := len(f.requests()); n != 2 {
		t.Fatalf("%d requests", n)
	}
}

// A Retry-After longer than the policy's MaxRetryAfter ends the call at once, the error still
// Retryable and saying how long to wait.
func TestRetryAfterTooLong(t *testing.T) {
	f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "120")
		envelope(w, r, 503, 503, "Hot wallet short of DUSD")
	})
	start := time.Now()
	_, err := f.client().ListFiatCurrencies(t.Context())
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != 503 || e.RetryAfter != 2*time.Minute || !e.Retryable() || e.Attempts != 1 {
		t.Fatalf("err = %#v", err)
	}
	if d := time.Since(start); d > time.Minute { // the wait asked for is two
		t.Fatalf("returned after %s: waited", d)
	}
}

// A retry that would outlast the context's deadline is not waited for: the last answer is the
// error.
func TestRetryBeyondDeadline(t *testing.T) {
	f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "600")
		envelope(w, r, 503, 503, "Price feed unavailable")
	})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err := f.client(client.WithRetryPolicy(patient)).ListFiatCurrencies(ctx)
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != 503 || e.Message != "Price feed unavailable" {
		t.Fatalf("err = %#v", err)
	}
	// Returned with the context still live: it did not wait for the deadline.
	if ctx.Err() != nil || len(f.requests()) != 1 {
		t.Fatalf("returned at %v, %d requests", ctx.Err(), len(f.requests()))
	}
}

// patient is fast with no bound on Retry-After: the server's wait is always taken.
var patient = client.RetryPolicy{MaxAttempts: 3, BaseDelay: 2 * time.Millisecond, MaxDelay: 10 * time.Millisecond, MaxRetryAfter: time.Hour}

// onClose is a transport that calls fn once the body of an answer is closed: after the client
// has read the answer.
type onClose struct{ fn func() }

func (o onClose) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		res.Body = closeHook{res.Body, o.fn}
	}
	return res, err
}

type closeHook struct {
	io.ReadCloser
	fn func()
}

func (c closeHook) Close() error {
	err := c.ReadCloser.Close()
	c.fn()
	return err
}

// Cancelling the context ends the call, in a wait between attempts or in a request.
func TestContextCancellation(t *testing.T) {
	t.Run("in a wait", func(t *testing.T) {
		f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "600")
			envelope(w, r, 429, 429, "Too many requests")
		})
		ctx, cancel := context.WithCancel(t.Context())
		// Cancelled once the client has read the answer: in the wait (or, on a slow machine,
		// before it; the call ends with the answer either way).
		hc := &http.Client{Transport: onClose{func() { time.AfterFunc(20*time.Millisecond, cancel) }}}
		start := time.Now()
		_, err := f.client(client.WithRetryPolicy(patient), client.WithHTTPClient(hc)).CreateMintOrder(ctx, mintRequest())
		var e *client.Error
		if !errors.Is(err, context.Canceled) || !errors.As(err, &e) || e.Retryable() || !strings.Contains(err.Error(), "429") {
			t.Fatalf("err = %v", err)
		}
		if d := time.Since(start); d > 5*time.Minute { // the wait asked for is ten
			t.Fatalf("returned after %s", d)
		}
	})
	t.Run("in a request", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		ctx, cancel := context.WithCancel(t.Context())
		f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
			cancel() // the request is being served
			select {
			case <-r.Context().Done():
			case <-release:
			}
		})
		_, err := f.client().GetMintOrder(ctx, "ord_1")
		var e *client.Error
		if !errors.Is(err, context.Canceled) || !errors.As(err, &e) || e.Retryable() || e.Attempts != 1 {
			t.Fatalf("err = %#v", err)
		}
		if n := len(f.requests()); n != 1 {
			t.Fatalf("%d requests after a cancel", n)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		_, err := f.client().GetMintOrder(ctx, "ord_1")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestErrorDecoding(t *testing.T) {
	t.Run("envelope", func(t *testing.T) {
		f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
			envelope(w, r, 400, 403, "Function arguments are not valid: quantity must be uint256")
		})
		_, err := f.client().CreateFiatOrder(t.Context(), &client.FiatOrderRequest{OrderFiatSymbol: "EUR"})
		wrapped := fmt.Errorf("checkout: %w", err)
		e, ok := errors.AsType[*client.Error](wrapped)
		if !ok {
			t.Fatalf("%T is no *client.Error", err)
		}
		want := &client.Error{StatusCode: 400, Code: 403, Message: "Function arguments are not valid: quantity must be uint256",
			Method: "POST", Path: "/nft-ramp/merchant/hosted/nftCheckout/order", RequestID: "req_test", Attempts: 1,
			Timestamp: time.Date(2026, 11, 25, 6, 30, 53, 495e6, time.UTC)}
		if fmt.Sprintf("%+v", e) != fmt.Sprintf("%+v", want) {
			t.Fatalf("error\n%+v\nwant\n%+v", e, want)
		}
		if e.Retryable() {
			t.Fatal("a 400 is retryable")
		}
		if s := err.Error(); s != "rampway: POST /nft-ramp/merchant/hosted/nftCheckout/order: 400 Bad Request: Function arguments are not valid: quantity must be uint256" {
			t.Fatalf("Error() = %q", s)
		}
	})
	t.Run("not an envelope", func(t *testing.T) {
		f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(502)
			io.WriteString(w, "<html>Bad gateway "+strings.Repeat("é", 300)+"</html>")
		})
		_, err := f.client().GetDepositOrder(t.Context(), "ord_1")
		e, ok := errors.AsType[*client.Error](err)
		if !ok || e.StatusCode != 502 || e.Code != 502 || !strings.HasPrefix(e.Message, "<html>Bad gateway é") ||
			len(e.Message) > 210 || e.Path != "/deposit/merchant/sdk/on-ramp/order/ord_1" || e.Attempts != 3 || !e.Retryable() {
			t.Fatalf("err = %#v", err)
		}
	})
	t.Run("empty", func(t *testing.T) {
		f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) { w.WriteHeader(404) })
		_, err := f.client().GetFiatOrder(t.Context(), "ord_1")
		if e, ok := errors.AsType[*client.Error](err); !ok || e.StatusCode != 404 || e.Message != "Not Found" {
			t.Fatalf("err = %#v", err)
		}
	})
	t.Run("undecodable success", func(t *testing.T) {
		f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) { answerJSON(w, 200, `{"order_id":12}`) })
		_, err := f.client().GetFiatOrder(t.Context(), "ord_1")
		if e, ok := errors.AsType[*client.Error](err); !ok || e.StatusCode != 200 || e.Err == nil || e.Retryable() || len(f.requests()) != 1 {
			t.Fatalf("err = %#v", err)
		}
	})
	t.Run("local", func(t *testing.T) {
		c := client.New("k")
		for _, err := range []error{
			func() error { _, err := c.CreateMintOrder(t.Context(), nil); return err }(),
			func() error { _, err := c.GetMintOrder(t.Context(), ""); return err }(),
			func() error { _, err := c.ResendFiatOrderWebhook(t.Context(), "ord_1", ""); return err }(),
			func() error { _, err := c.CreateMintOrderRefund(t.Context(), "ord_1", nil); return err }(),
			func() error {
				_, err := c.CreateDepositOrderRefund(t.Context(), "", &client.RefundRequest{})
				return err
			}(),
			func() error { _, err := c.ListFiatOrderRefunds(t.Context(), ""); return err }(),
			func() error {
				_, err := client.New("k", client.WithServerURL("not a url")).GetMintOrder(t.Context(), "ord_1")
				return err
			}(),
		} {
			if e, ok := errors.AsType[*client.Error](err); !ok || e.StatusCode != 0 || e.Err == nil || e.Retryable() {
				t.Errorf("err = %#v", err)
			}
		}
	})
}

// The paths and bodies of every call, against the routes of httpapi/routes.go.
func TestCallPaths(t *testing.T) {
	f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/orders"), strings.HasSuffix(r.URL.Path, "/webhooks"):
			answerJSON(w, 200, `{"data":[],"has_more":false}`)
		case strings.HasSuffix(r.URL.Path, "fiatCurrencies"):
			answerJSON(w, 200, `{"currencies":[]}`)
		case r.Method == "POST":
			answerJSON(w, 201, `{}`)
		default:
			answerJSON(w, 200, `{}`)
		}
	})
	c := f.client(client.WithBaseURLs(client.BaseURLs{Mint: f.srv.URL + "/a/", NFTRamp: f.srv.URL + "/b", Deposit: f.srv.URL + "/c"}))
	ctx := t.Context()
	calls := []struct {
		name string
		call func() error
		want string // method, path and query, body
	}{
		{"A1", func() error {
			_, err := c.CreateMintOrder(ctx, &client.MintOrderRequest{MerchantID: "mch_2"})
			return err
		},
			`POST /a/merchant/hosted/nftCheckout/order {"merchant_id":"mch_2","crypto_symbol":"","crypto_network":"","contractExecution":{"smartContractFunctionId":"","function_args":{},"network_params":{"networkName":""}},"merchant_user_id":"","merchant_redirect_url":""}`},
		{"A2", func() error {
			_, err := c.CreateCryptoQuote(ctx, &client.CryptoQuoteRequest{CryptoSymbol: "ETH"})
			return err
		},
			`POST /a/merchant/hosted/nftCheckout/cryptoQuote {"merchant_id":"mch_1","crypto_symbol":"ETH","crypto_network":"","contractExecution":{"smartContractFunctionId":"","function_args":{},"network_params":{"networkName":""}}}`},
		{"A lookup", func() error { _, err := c.GetMintOrder(ctx, "ord_1/x?"); return err },
			`GET /a/merchant/hosted/nftCheckout/order/ord_1%2Fx%3F`},
		{"A list", func() error {
			_, err := c.ListMintOrdersPage(ctx, &client.ListOrdersParams{Status: client.StatusSuccess, Limit: 5, StartingAfter: "ord_9",
				CreatedFrom: time.Date(2026, 11, 21, 14, 0, 0, 0, time.FixedZone("CET", 3600)), CreatedTo: time.Date(2026, 11, 22, 0, 0, 0, 5, time.UTC)})
			return err
		}, `GET /a/merchant/hosted/nftCheckout/orders?created_from=2026-11-21T13%3A00%3A00Z&created_to=2026-11-22T00%3A00%3A00.000000005Z&limit=5&starting_after=ord_9&status=SUCCESS`},
		{"A webhooks", func() error { _, err := c.ListMintOrderWebhooks(ctx, "ord_1"); return err },
			`GET /a/merchant/hosted/nftCheckout/order/ord_1/webhooks`},
		{"A resend", func() error { _, err := c.ResendMintOrderWebhook(ctx, "ord_1", "evt_2"); return err },
			`POST /a/merchant/hosted/nftCheckout/order/ord_1/webhooks/evt_2/resend {"merchant_id":"mch_1"}`},
		{"A refund address", func() error {
			_, err := c.SetMintOrderRefundAddress(ctx, "ord_1", "rfd_3", &client.MerchantRefundAddressRequest{Address: "0xabc"})
			return err
		}, `POST /a/merchant/hosted/nftCheckout/order/ord_1/refunds/rfd_3/address {"merchant_id":"mch_1","address":"0xabc"}`},
		{"A refund", func() error {
			_, err := c.CreateMintOrderRefund(ctx, "ord_1", &client.RefundRequest{Amount: "0.004", Reason: "damaged", Address: "0xabc"})
			return err
		}, `POST /a/merchant/hosted/nftCheckout/order/ord_1/refunds {"merchant_id":"mch_1","amount":"0.004","reason":"damaged","address":"0xabc"}`},
		{"A refunds", func() error { _, err := c.ListMintOrderRefunds(ctx, "ord_1/x"); return err },
			`GET /a/merchant/hosted/nftCheckout/order/ord_1%2Fx/refunds`},
		{"B1", func() error {
			_, err := c.CreateFiatOrder(ctx, &client.FiatOrderRequest{OrderFiatSymbol: "EUR", FiatPaymentMethod: client.MethodCard,
				UserDetails: client.UserDetails{UserDOB: "1990-12-10", UserCountryCode: "DE"}})
			return err
		}, `POST /b/merchant/hosted/nftCheckout/order {"merchant_id":"mch_1","order_fiat_symbol":"EUR","fiat_payment_method":"credit_debit_card","contractExecution":{"smartContractFunctionId":"","function_args":{},"network_params":{"networkName":""}},"merchant_user_id":"","merchant_redirect_url":"","user_dob":"1990-12-10","user_countryCode":"DE"}`},
		{"B2", func() error { _, err := c.ListFiatCurrencies(ctx); return err },
			`GET /b/merchant/hosted/nftCheckout/fiatCurrencies`},
		{"B3", func() error {
			_, err := c.CreateFiatQuote(ctx, &client.FiatQuoteRequest{OrderFiatSymbol: "GBP"})
			return err
		},
			`POST /b/merchant/hosted/nftCheckout/fiatQuote {"merchant_id":"mch_1","order_fiat_symbol":"GBP","fiat_payment_method":"","contractExecution":{"smartContractFunctionId":"","function_args":{},"network_params":{"networkName":""}}}`},
		{"B lookup", func() error { _, err := c.GetFiatOrder(ctx, "ord_1"); return err },
			`GET /b/merchant/hosted/nftCheckout/order/ord_1`},
		{"B list", func() error { _, err := c.ListFiatOrdersPage(ctx, nil); return err },
			`GET /b/merchant/hosted/nftCheckout/orders`},
		{"B webhooks", func() error { _, err := c.ListFiatOrderWebhooks(ctx, "ord_1"); return err },
			`GET /b/merchant/hosted/nftCheckout/order/ord_1/webhooks`},
		{"B resend", func() error { _, err := c.ResendFiatOrderWebhook(ctx, "ord_1", "evt_2"); return err },
			`POST /b/merchant/hosted/nftCheckout/order/ord_1/webhooks/evt_2/resend {"merchant_id":"mch_1"}`},
		{"B refund", func() error {
			_, err := c.CreateFiatOrderRefund(ctx, "ord_1", &client.RefundRequest{MerchantID: "mch_2", Amount: "12.50"})
			return err
		}, `POST /b/merchant/hosted/nftCheckout/order/ord_1/refunds {"merchant_id":"mch_2","amount":"12.50"}`},
		{"B refunds", func() error { _, err := c.ListFiatOrderRefunds(ctx, "ord_1"); return err },
			`GET /b/merchant/hosted/nftCheckout/order/ord_1/refunds`},
		{"C1", func() error {
			_, err := c.CreateDepositOrder(ctx, &client.DepositOrderRequest{OrderFiatSymbol: "EUR", OrderFiatAmount: "100.00",
				ConvertToCryptoSymbol: "ETH", ConvertToCryptoNetwork: "devnet"})
			return err
		}, `POST /c/merchant/sdk/on-ramp/order {"merchant_id":"mch_1","order_fiat_symbol":"EUR","order_fiat_amount":"100.00","convert_to_crypto_symbol":"ETH","convert_to_crypto_network":"devnet","merchant_user_id":"","merchant_redirect_url":""}`},
		{"C2", func() error { _, err := c.ListDepositFiatCurrencies(ctx); return err },
			`GET /c/merchant/sdk/onramp-to-deposit/fiatCurrencies`},
		{"C lookup", func() error { _, err := c.GetDepositOrder(ctx, "ord_1"); return err },
			`GET /c/merchant/sdk/on-ramp/order/ord_1`},
		{"C list", func() error { _, err := c.ListDepositOrdersPage(ctx, &client.ListOrdersParams{Limit: 100}); return err },
			`GET /c/merchant/sdk/on-ramp/orders?limit=100`},
		{"C webhooks", func() error { _, err := c.ListDepositOrderWebhooks(ctx, "ord_1"); return err },
			`GET /c/merchant/sdk/on-ramp/order/ord_1/webhooks`},
		{"C resend", func() error { _, err := c.ResendDepositOrderWebhook(ctx, "ord_1", "evt_2"); return err },
			`POST /c/merchant/sdk/on-ramp/order/ord_1/webhooks/evt_2/resend {"merchant_id":"mch_1"}`},
		{"C refund", func() error { _, err := c.CreateDepositOrderRefund(ctx, "ord_1", &client.RefundRequest{}); return err },
			`POST /c/merchant/sdk/on-ramp/order/ord_1/refunds {"merchant_id":"mch_1"}`},
		{"C refunds", func() error { _, err := c.ListDepositOrderRefunds(ctx, "ord_1"); return err },
			`GET /c/merchant/sdk/on-ramp/order/ord_1/refunds`},
	}
	for i, tc := range calls {
		if err := tc.call(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r := f.requests()[i]
		got := r.Method + " " + r.Path
		if r.Query != "" {
			got += "?" + r.Query
		}
		if r.Body != "" {
			got += " " + r.Body
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// pagedServer is a fake list of n orders, newest (ord_n) first, that honours limit and
// starting_after as rampway does; failAfter makes the page starting after that order fail.
func pagedServer(t *testing.T, n int, failAfter string) *fake {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("ord_%03d", n-i)
	}
	return newFake(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		limit := 20
		if v := q.Get("limit"); v != "" {
			limit, _ = strconv.Atoi(v)
		}
		start := 0
		if after := q.Get("starting_after"); after != "" {
			if after == failAfter {
				envelope(w, r, 400, 400, "starting_after must be the order_id of one of your orders")
				return
			}
			for i, id := range ids {
				if id == after {
					start = i + 1
				}
			}
		}
		end := min(start+limit, len(ids))
		page := struct {
			Data    []map[string]string `json:"data"`
			HasMore bool                `json:"has_more"`
		}{Data: []map[string]string{}, HasMore: end < len(ids)}
		for _, id := range ids[start:end] {
			page.Data = append(page.Data, map[string]string{"order_id": id, "status": q.Get("status")})
		}
		b, _ := json.Marshal(page)
		answerJSON(w, 200, string(b))
	})
}

func TestListIterator(t *testing.T) {
	t.Run("all pages", func(t *testing.T) {
		f := pagedServer(t, 45, "")
		var got []string
		for o, err := range f.client().ListFiatOrders(t.Context(), &client.ListOrdersParams{Limit: 10, Status: client.StatusSuccess}) {
			if err != nil {
				t.Fatal(err)
			}
			if o.Status != client.StatusSuccess {
				t.Fatalf("order %+v: the filter was not sent", o)
			}
			got = append(got, o.OrderID)
		}
		if len(got) != 45 || got[0] != "ord_045" || got[44] != "ord_001" {
			t.Fatalf("orders %v", got)
		}
		reqs := f.requests()
		if len(reqs) != 5 || reqs[0].Query != "limit=10&status=SUCCESS" || reqs[1].Query != "limit=10&starting_after=ord_036&status=SUCCESS" {
			t.Fatalf("requests %+v", reqs)
		}
	})
	t.Run("exact pages", func(t *testing.T) {
		f := pagedServer(t, 20, "")
		n := 0
		for _, err := range f.client().ListMintOrders(t.Context(), &client.ListOrdersParams{Limit: 10}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 20 || len(f.requests()) != 2 {
			t.Fatalf("%d orders in %d requests", n, len(f.requests()))
		}
	})
	t.Run("empty", func(t *testing.T) {
		f := pagedServer(t, 0, "")
		for o, err := range f.client().ListDepositOrders(t.Context(), nil) {
			t.Fatalf("yielded %v, %v", o, err)
		}
	})
	t.Run("stopped early", func(t *testing.T) {
		f := pagedServer(t, 45, "")
		n := 0
		for _, err := range f.client().ListDepositOrders(t.Context(), &client.ListOrdersParams{Limit: 10}) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; n == 15 {
				break
			}
		}
		if len(f.requests()) != 2 {
			t.Fatalf("%d requests for 15 orders of pages of 10", len(f.requests()))
		}
	})
	t.Run("starting after", func(t *testing.T) {
		f := pagedServer(t, 45, "")
		var first string
		for o, err := range f.client().ListMintOrders(t.Context(), &client.ListOrdersParams{StartingAfter: "ord_010"}) {
			if err != nil {
				t.Fatal(err)
			}
			if first == "" {
				first = o.OrderID
			}
		}
		if first != "ord_009" {
			t.Fatalf("first %s", first)
		}
	})
	t.Run("error ends it", func(t *testing.T) {
		f := pagedServer(t, 45, "ord_026")
		var got []string
		var errs []error
		for o, err := range f.client().ListMintOrders(t.Context(), &client.ListOrdersParams{Limit: 10}) {
			if err != nil {
				if o != nil {
					t.Fatal("an error yielded with an order")
				}
				errs = append(errs, err)
				continue
			}
			got = append(got, o.OrderID)
		}
		if len(got) != 20 || len(errs) != 1 {
			t.Fatalf("%d orders, errors %v", len(got), errs)
		}
		if e, ok := errors.AsType[*client.Error](errs[0]); !ok || e.StatusCode != 400 {
			t.Fatalf("error %#v", errs[0])
		}
	})
	t.Run("iterated twice", func(t *testing.T) {
		f := pagedServer(t, 15, "")
		seq := f.client().ListMintOrders(t.Context(), &client.ListOrdersParams{Limit: 10})
		for range 2 {
			n := 0
			for _, err := range seq {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			if n != 15 {
				t.Fatalf("%d orders", n)
			}
		}
	})
}

// Answers decode into the typed structs: amounts stay strings, nulls become zero values.
func TestOrderAnswerDecodes(t *testing.T) {
	const lookup = `{"order_id":"ord_1","livemode":true,"status":"SUCCESS","merchant_id":"mch_1","merchant_user_id":"u","merchant_txn_id":"t",
	"merchant_redirect_url":"http://x","merchant_webhook_url":"","crypto_symbol":"ETH","crypto_contract_address":null,"crypto_network":"devnet",
	"crypto_amount":"0.010263","crypto_amount_received":"0.010263","deposit_address":"0xb7","smartContractFunctionId":"scf_1",
	"function_args":{"quantity":"1"},"total_value":"0.01","network_fee":"0.000263","service_fee":"0","gas_limit":300000,
	"deposit_tx_hashes":["0xaa"],"deposits":[{"tx_hash":"0xaa","log_index":null,"from_address":"0x8C","amount":"0.010263","block_number":7,"status":"confirmed","seen_at":"2026-11-25T06:31:00.000Z"}],
	"execution_tx_hash":"0xbb","failure_reason":null,"refunds":[],"user":{"user_email_id":"a@b.c"},
	"order_fiat_symbol":"EUR","order_fiat_amount":"28.80","fiat_payment_method":"credit_debit_card",
	"fiat_payment":{"method":"credit_debit_card","status":"succeeded","amount":"28.80","currency":"EUR","reference":"","provider_ref":"pay_1","card_brand":"visa","card_last4":"4242","created_at":"2026-11-25T06:31:00.000Z"},
	"fiat_movements":[{"kind":"capture","amount":"28.80","currency":"EUR","status":"done","reason":"","created_at":"2026-11-25T06:32:00.000Z"}],
	"gateway_url":"http://x/checkout","expires_at":"2026-11-25T07:00:58.425Z","created_at":"2026-11-25T06:30:58.425Z","updated_at":"2026-11-25T06:32:00.000Z"}`
	f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) { answerJSON(w, 200, lookup) })
	o, err := f.client().GetFiatOrder(t.Context(), "ord_1")
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != client.StatusSuccess || !o.Livemode || o.CryptoContractAddress != "" || o.FailureReason != "" || o.ExecutionTxHash != "0xbb" ||
		o.GasLimit != 300000 || len(o.Deposits) != 1 || o.Deposits[0].LogIndex != nil || o.Deposits[0].BlockNumber != 7 ||
		string(o.FunctionArgs) != `{"quantity":"1"}` || o.FiatPayment == nil || o.FiatPayment.CardLast4 != "4242" ||
		len(o.FiatMovements) != 1 || o.FiatMovements[0].Kind != "capture" || o.User["user_email_id"] != "a@b.c" ||
		!o.ExpiresAt.Equal(time.Date(2026, 11, 25, 7, 0, 58, 425e6, time.UTC)) {
		t.Fatalf("order %+v", o)
	}
}

// A refund, the refund list and the order's refunded_amount decode: every field of the
// contract, times in UTC with milliseconds.
func TestRefundAnswersDecode(t *testing.T) {
	const card = `{"refund_id":"rfd_2","origin":"merchant","amount":"10.00","currency":"EUR","fee":"0.00","network_fee":"",` +
		`"amount_sent":"10.00","reason":"requested by the merchant","status":"done","status_reason":"","destination":"card visa ****4242",` +
		`"to_address":"","tx_hash":"","provider_reference":"re_1","created_at":"2026-11-25T06:31:00.000Z","updated_at":"2026-11-25T06:32:00.125Z"}`
	const chain = `{"refund_id":"rfd_1","origin":"automatic","amount":"0.000001","currency":"ETH","fee":"","network_fee":"",` +
		`"amount_sent":"","reason":"overpaid","status":"awaiting_address","status_reason":"the payer is a contract","destination":"",` +
		`"to_address":"","tx_hash":"","provider_reference":"","created_at":"2026-11-25T06:30:00.000Z","updated_at":"2026-11-25T06:30:00.000Z"}`
	f := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "POST":
			answerJSON(w, 200, card)
		case strings.HasSuffix(r.URL.Path, "/refunds"):
			answerJSON(w, 200, `{"data":[`+chain+`,`+card+`],"currency":"EUR","amount_paid":"25.00","amount_refunded":"10.00","amount_refundable":"15.00"}`)
		default:
			answerJSON(w, 200, `{"order_id":"ord_1","status":"SUCCESS","refunded_amount":"10.00","refunds":[`+card+`]}`)
		}
	})
	c := f.client()
	r, err := c.CreateDepositOrderRefund(t.Context(), "ord_1", &client.RefundRequest{Amount: "10.00"})
	if err != nil {
		t.Fatal(err)
	}
	want := client.Refund{RefundID: "rfd_2", Origin: "merchant", Amount: "10.00", Currency: "EUR", Fee: "0.00", AmountSent: "10.00",
		Reason: "requested by the merchant", Status: "done", Destination: "card visa ****4242", ProviderReference: "re_1",
		CreatedAt: time.Date(2026, 11, 25, 6, 31, 0, 0, time.UTC), UpdatedAt: time.Date(2026, 11, 25, 6, 32, 0, 125e6, time.UTC)}
	if !reflect.DeepEqual(*r, want) {
		t.Fatalf("refund\n%+v\nwant\n%+v", *r, want)
	}
	l, err := c.ListDepositOrderRefunds(t.Context(), "ord_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Data) != 2 || l.Data[0].Origin != "automatic" || l.Data[0].Status != "awaiting_address" || !reflect.DeepEqual(l.Data[1], want) ||
		l.Currency != "EUR" || l.AmountPaid != "25.00" || l.AmountRefunded != "10.00" || l.AmountRefundable != "15.00" {
		t.Fatalf("list %+v", l)
	}
	o, err := c.GetDepositOrder(t.Context(), "ord_1")
	if err != nil {
		t.Fatal(err)
	}
	if o.RefundedAmount != "10.00" || len(o.Refunds) != 1 || !reflect.DeepEqual(o.Refunds[0], want) {
		t.Fatalf("order %+v", o)
	}
}

// Livemode reads the key's mode from its prefix.
func TestClientLivemode(t *testing.T) {
	for key, want := range map[string]bool{"rw_live_abcd2345efgh": true, "rw_test_abcd2345efgh": false, "": false, "live_x": false} {
		if got := client.New(key).Livemode(); got != want {
			t.Errorf("New(%q).Livemode() = %v, want %v", key, got, want)
		}
	}
}
