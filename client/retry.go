package client

import (
	"math/rand/v2"
	"time"
)

// Defaults of a [RetryPolicy]'s fields left zero.
const (
	DefaultMaxAttempts   = 4
	DefaultBaseDelay     = 500 * time.Millisecond
	DefaultMaxDelay      = 8 * time.Second
	DefaultMaxRetryAfter = 30 * time.Second
)

// RetryPolicy says how a [Client] retries a call. A call is tried again only when its error is
// [Error.Retryable]: a network failure, a 409 with Retry-After, 429 or 5xx, never another 4xx. Every attempt of a
// POST sends the call's one Idempotency-Key, so a retry of a request the server did (its
// answer lost on the way) replays that answer rather than doing it twice.
//
// Before retry n (1 for the first retry) the call waits a random time between 0 and
// min(MaxDelay, BaseDelay x 2^(n-1)) ("full jitter"), and at least the Retry-After the server
// asked for. The call's context bounds it all: a wait that would outlast the context's
// deadline is not started, and the last error is returned instead.
//
// Fields left zero take the Default... constants; the zero RetryPolicy is the default policy.
type RetryPolicy struct {
	// MaxAttempts is how many requests a call may send in all, the first included: 1 turns
	// retries off.
	MaxAttempts int
	// BaseDelay is the ceiling of the wait before the first retry; it doubles with each retry.
	BaseDelay time.Duration
	// MaxDelay caps that ceiling.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After honoured: a server asking for a longer wait ends
	// the call with its error (still Retryable, for the caller to schedule).
	MaxRetryAfter time.Duration
}

// withDefaults returns p with its zero fields set to the defaults.
func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	return p
}

// delay is the wait before retry n (from 1), at least retryAfter; rnd returns a number in [0, 1).
func (p RetryPolicy) delay(n int, retryAfter time.Duration, rnd func() float64) time.Duration {
	ceiling := p.BaseDelay
	for i := 1; i < n && ceiling < p.MaxDelay; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, p.MaxDelay)
	d := time.Duration(rnd() * float64(ceiling))
	return max(d, retryAfter)
}

// jitter is the random source of the waits.
func jitter() float64 { return rand.Float64() }
