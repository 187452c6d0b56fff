package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"
)

func TestRetryDelayFullJitter(t *testing.T) {
	p := RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}.withDefaults()
	// The ceiling of retry n: 100ms, 200ms, 400ms, 800ms, then capped at 1s.
	ceilings := []time.Duration{100, 200, 400, 800, 1000, 1000, 1000}
	for i, c := range ceilings {
		n, ceiling := i+1, c*time.Millisecond
		if d := p.delay(n, 0, func() float64 { return 0 }); d != 0 {
			t.Errorf("retry %d with rnd 0: %s, want 0", n, d)
		}
		if d := p.delay(n, 0, func() float64 { return 0.5 }); d != ceiling/2 {
			t.Errorf("retry %d with rnd 0.5: %s, want %s", n, d, ceiling/2)
		}
		if d := p.delay(n, 0, func() float64 { return 0.9999999 }); d >= ceiling || d < ceiling*99/100 {
			t.Errorf("retry %d with rnd ~1: %s, want just under %s", n, d, ceiling)
		}
		// The real source: always in [0, ceiling), and spread over it.
		var lo, hi time.Duration = ceiling, 0
		for range 2000 {
			d := p.delay(n, 0, jitter)
			if d < 0 || d >= ceiling {
				t.Fatalf("retry %d: delay %s outside [0, %s)", n, d, ceiling)
			}
			lo, hi = min(lo, d), max(hi, d)
		}
		if lo > ceiling/10 || hi < ceiling*9/10 {
			t.Errorf("retry %d: 2000 delays span only [%s, %s] of [0, %s)", n, lo, hi, ceiling)
		}
	}
	// Retry-After is a floor: never less, and the jitter may add nothing beyond the ceiling.
	for _, rnd := range []float64{0, 0.5, 0.9999} {
		if d := p.delay(1, 3*time.Second, func() float64 { return rnd }); d != 3*time.Second {
			t.Errorf("Retry-After 3s, rnd %v: %s", rnd, d)
		}
		if d := p.delay(3, 300*time.Millisecond, func() float64 { return rnd }); d < 300*time.Millisecond || d >= 400*time.Millisecond {
			t.Errorf("Retry-After 300ms at retry 3, rnd %v: %s", rnd, d)
		}
	}
	// A huge attempt number does not overflow the ceiling.
	if d := p.delay(1000, 0, func() float64 { return 0.9999 }); d <= 0 || d > time.Second {
		t.Errorf("retry 1000: %s", d)
	}
}

func TestRetryPolicyDefaults(t *testing.T) {
	got := RetryPolicy{}.withDefaults()
	want := RetryPolicy{MaxAttempts: DefaultMaxAttempts, BaseDelay: DefaultBaseDelay, MaxDelay: DefaultMaxDelay, MaxRetryAfter: DefaultMaxRetryAfter}
	if got != want {
		t.Fatalf("zero policy = %+v, want %+v", got, want)
	}
	if p := (RetryPolicy{MaxAttempts: 1}).withDefaults(); p.MaxAttempts != 1 {
		t.Fatalf("MaxAttempts 1 became %d", p.MaxAttempts)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
	}{
		{"", 0},
		{"1", time.Second},
		{" 5 ", 5 * time.Second},
		{"0", 0},
		{"-3", 0},
		{"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
	} {
		if got := parseRetryAfter(tc.v, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

func TestErrorRetryable(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    *Error
		want bool
	}{
		{"400", &Error{StatusCode: 400}, false},
		{"401", &Error{StatusCode: 401}, false},
		{"403", &Error{StatusCode: 403}, false},
		{"404", &Error{StatusCode: 404}, false},
		{"409 with Retry-After (key in use)", &Error{StatusCode: 409, RetryAfter: time.Second}, true},
		{"409 without (a state conflict)", &Error{StatusCode: 409}, false},
		{"413", &Error{StatusCode: 413}, false},
		{"422", &Error{StatusCode: 422}, false},
		{"429", &Error{StatusCode: 429}, true},
		{"500", &Error{StatusCode: 500}, true},
		{"502", &Error{StatusCode: 502}, true},
		{"503", &Error{StatusCode: 503}, true},
		{"network", &Error{Err: errors.New("connection reset"), network: true}, true},
		{"answer cut short", &Error{StatusCode: 200, Err: errors.New("unexpected EOF"), network: true}, true},
		{"undecodable answer", &Error{StatusCode: 200, Err: errors.New("invalid character")}, false},
		{"local", &Error{Err: errNilRequest}, false},
		{"canceled", &Error{Err: context.Canceled, network: true}, false},
		{"deadline", &Error{Err: fmt.Errorf("x: %w", context.DeadlineExceeded), network: true}, false},
	} {
		if got := tc.e.Retryable(); got != tc.want {
			t.Errorf("%s: Retryable = %v, want %v", tc.name, got, tc.want)
		}
	}
}
