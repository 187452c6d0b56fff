package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Error is the error of every [Client] call: an answer of the server that is not a success, or
// a failure to get one (the network, the context, a body that could not be encoded or
// decoded). Get it with [errors.As]:
//
//	var e *client.Error
//	if errors.As(err, &e) && e.StatusCode == http.StatusBadRequest {
//		log.Printf("refused: %s", e.Message)
//	}
//
// For an answer, StatusCode is its HTTP status and Message the reason the server gave in its
// error envelope. For a failure without an answer StatusCode is 0 and Err is the cause, which
// [errors.Is] and [errors.As] reach through Error (context.Canceled, a *url.Error, ...).
type Error struct {
	// StatusCode is the HTTP status of the answer; 0 when there was none.
	StatusCode int
	// Code is the envelope's statusCode: the HTTP status, except 403 for invalid smart
	// contract function arguments, which are HTTP 400.
	Code int
	// Message is the server's reason, for a human (the envelope's message). For a 500 it
	// carries the error id the server logged.
	Message string
	// Method and Path are the request's: its method and its URL path, without the query.
	Method string
	Path   string
	// Timestamp is when the server answered the error (the envelope's timestamp).
	Timestamp time.Time
	// RequestID is the answer's X-Request-Id, the id of the server's log lines.
	RequestID string
	// RetryAfter is how long the server asked to wait before another try (Retry-After); 0
	// when it did not say.
	RetryAfter time.Duration
	// Attempts is how many requests the call sent before giving up.
	Attempts int
	// Err is the cause of a failure without an answer, or of an answer that could not be
	// decoded; nil for an error answer.
	Err error

	network bool   // Err is the network's: the request may be sent again
	last    *Error // for a call ended by its context: the last attempt's error
}

// errorBody is the server's error envelope.
type errorBody struct {
	StatusCode int       `json:"statusCode"`
	Timestamp  time.Time `json:"timestamp"`
	Message    string    `json:"message"`
	Path       string    `json:"path"`
	Status     bool      `json:"status"`
}

// Error returns "rampway: METHOD PATH: STATUS: message", or the cause for a failure without
// an answer.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("rampway: ")
	if e.Method != "" || e.Path != "" {
		b.WriteString(strings.TrimSpace(e.Method + " " + e.Path))
		b.WriteString(": ")
	}
	switch {
	case e.Err != nil && e.StatusCode != 0:
		b.WriteString(strconv.Itoa(e.StatusCode) + ": " + e.Err.Error())
	case e.Err != nil:
		b.WriteString(e.Err.Error())
		if e.last != nil {
			b.WriteString(" (last attempt: " + strings.TrimPrefix(e.last.Error(), "rampway: ") + ")")
		}
	default:
		b.WriteString(strconv.Itoa(e.StatusCode) + " " + http.StatusText(e.StatusCode))
		if e.Message != "" {
			b.WriteString(": " + e.Message)
		}
	}
	return b.String()
}

// Unwrap returns the cause, Err.
func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same call may succeed if tried again unchanged: true for a
// network failure, a 409 with Retry-After (a request with the same Idempotency-Key still in
// progress: rampway marks it so), 429 (rate limited) and 5xx; false for every other answer,
// which a retry would only repeat (a 409 without Retry-After is a state conflict, such as a
// refund that no longer waits for an address), and for a call ended by its context. A [Client] retries these itself, as its [RetryPolicy] says, so an
// error it returns has used up its attempts (or asked for a longer wait than the policy
// allows).
func (e *Error) Retryable() bool {
	if e.StatusCode == 0 || e.Err != nil {
		return e.network && !errors.Is(e.Err, context.Canceled) && !errors.Is(e.Err, context.DeadlineExceeded)
	}
	return retryableStatus(e.StatusCode, e.RetryAfter)
}

// retryableStatus reports whether an answer of status, with the Retry-After retryAfter, may be
// retried.
func retryableStatus(status int, retryAfter time.Duration) bool {
	return status == http.StatusConflict && retryAfter > 0 || status == http.StatusTooManyRequests || status >= 500
}

// decodeError reads an error answer: the envelope when it is one, else the start of the body
// as the message (a proxy's page, say).
func decodeError(res *http.Response, data []byte) *Error {
	e := &Error{StatusCode: res.StatusCode, Code: res.StatusCode, RequestID: res.Header.Get("X-Request-Id"),
		RetryAfter: parseRetryAfter(res.Header.Get("Retry-After"), time.Now())}
	var body errorBody
	if err := json.Unmarshal(data, &body); err == nil && body.Message != "" {
		e.Message, e.Path, e.Timestamp = body.Message, body.Path, body.Timestamp
		if body.StatusCode != 0 {
			e.Code = body.StatusCode
		}
		return e
	}
	msg := strings.TrimSpace(string(data))
	if len(msg) > 200 {
		msg = msg[:200]
		for !utf8.ValidString(msg) {
			msg = msg[:len(msg)-1]
		}
		msg += "…"
	}
	if msg == "" {
		msg = http.StatusText(res.StatusCode)
	}
	e.Message = msg
	return e
}

// parseRetryAfter reads a Retry-After header: whole seconds, or an HTTP date. It returns 0
// for none or a malformed one.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		if n > 1<<31 {
			n = 1 << 31
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
