// Package rampway holds the vocabulary of the rampway payment gateway: merchants, API keys,
// orders and their states, amounts, and the interfaces that the adapters (stores, chains, price
// sources, fiat providers) implement. It imports nothing else of this module.
package rampway

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Error codes. Each maps to one HTTP status in httpapi; callers test them with ErrorCode,
// never by matching message strings.
const (
	EINVALID        = "invalid"         // bad input: 400
	EFUNCARGS       = "function_args"   // invalid smart-contract function arguments: 400, body statusCode 403
	EUNAUTHORIZED   = "unauthorized"    // missing, unknown or revoked credentials: 401
	ENOTFOUND       = "not_found"       // no such resource (or not the caller's): 404
	ECONFLICT       = "conflict"        // state conflict, e.g. a request still in flight: 409
	EUNPROCESSABLE  = "unprocessable"   // well-formed but refused, e.g. idempotency key reuse: 422
	ETOOLARGE       = "too_large"       // request body over the limit: 413
	EUNSUPPORTED    = "unsupported"     // unsupported media type: 415
	EMETHOD         = "method"          // method not allowed: 405
	ERATELIMIT      = "rate_limited"    // too many requests: 429
	ENOTIMPLEMENTED = "not_implemented" // route mounted, behaviour not built yet: 501
	EUNAVAILABLE    = "unavailable"     // a dependency is down: 503
	EINTERNAL       = "internal"        // anything else: 500, with an error id, never internals
)

// Error is the one error type of rampway. Message is safe to show to API callers.
type Error struct {
	Code    string
	Message string
	// Field names the request field at fault, when there is one (dotted path).
	Field string
	// Err is the cause, kept for logs; it is never shown to callers.
	Err error
	// RetryAfter, when set, says the same request may succeed this much later (an
	// Idempotency-Key still in use): the answer carries it as Retry-After, which tells such a
	// 409 from one a retry would only repeat.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted, caller-safe message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldErrorf returns an EINVALID *Error that names the field at fault.
func FieldErrorf(field, format string, args ...any) *Error {
	return &Error{Code: EINVALID, Field: field, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for any other
// non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the caller-safe message of err: the message of the first *Error in its
// chain, or a generic text for any other error.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Internal server error"
}

// ErrorEnvelope is the spec's error body, the one shape every JSON error answer has:
// statusCode (the HTTP status, but 403 for invalid function arguments), an ISO-8601 UTC
// timestamp, the message, the request path, and status false.
type ErrorEnvelope struct {
	StatusCode int    `json:"statusCode"`
	Timestamp  string `json:"timestamp"`
	Message    string `json:"message"`
	Path       string `json:"path"`
	Status     bool   `json:"status"`
}

// echoMax is how much of a client's value an error message repeats.
const echoMax = 64

// Echo is a value the client sent as an error message repeats it: whole up to 64 bytes, else
// its first 64 (cut between characters) and "...", so that a message stays small however
// long the value.
func Echo(s string) string {
	if len(s) <= echoMax {
		return s
	}
	n := echoMax
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// ErrorRetryAfter returns the RetryAfter of the first *Error in err's chain (0 for none).
func ErrorRetryAfter(err error) time.Duration {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.RetryAfter
	}
	return 0
}
