package rampway

import (
	"context"
	"time"
)

// IdempotencyRecord is a POST request remembered under its Idempotency-Key.
type IdempotencyRecord struct {
	MerchantID  string
	Key         string
	RequestHash []byte
	// Done is false while the first request is still being answered.
	Done      bool
	Status    int
	Body      []byte
	CreatedAt time.Time
}

// IdempotentReply is the response to remember under a claimed Idempotency-Key.
type IdempotentReply struct {
	MerchantID string
	Key        string
	Status     int
	Body       []byte
}

// IdempotencyStore remembers POST responses by Idempotency-Key (Stripe's semantics).
type IdempotencyStore interface {
	// BeginIdempotent claims (merchantID, key) for a request. When the key is new, or its
	// claim was abandoned (not done and older than staleBefore), it stores a fresh in-flight
	// record and returns (nil, nil): the caller runs the request. Otherwise it returns the
	// existing record for the caller to replay or refuse.
	BeginIdempotent(ctx context.Context, rec *IdempotencyRecord, staleBefore time.Time) (*IdempotencyRecord, error)
	// FinishIdempotent stores the response of a claimed request.
	FinishIdempotent(ctx context.Context, merchantID, key string, status int, body []byte) error
	// ReleaseIdempotent drops a claim whose request failed in a way worth retrying.
	ReleaseIdempotent(ctx context.Context, merchantID, key string) error
}
