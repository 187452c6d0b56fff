package rampway

import (
	"context"
	"strings"
	"time"
)

// IdempotencyScope is the key a request's Idempotency-Key is stored under: keys are per mode,
// as a payment API's usually are, so that a test key's request never replays a live one's answer or the
// reverse. A live request's key is stored as given (as every key was before modes: those of
// production's live keys), a test request's under "test:".
func IdempotencyScope(key string, livemode bool) string {
	if livemode {
		return key
	}
	return idempotencyTestPrefix + key
}

const idempotencyTestPrefix = "test:"

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

// IdempotencyClaim names a request's claim on its Idempotency-Key: the merchant, the key and
// the claim's time (the record's CreatedAt as BeginIdempotent stored it). A claim left
// unanswered too long is taken over by the next request with the key, which gives the record
// its own time: whatever the first request then writes under its claim matches nothing, so
// that the two never both create an order.
type IdempotencyClaim struct {
	MerchantID string
	Key        string
	ClaimedAt  time.Time
}

// IdempotentReply is the response to remember under a claim.
type IdempotentReply struct {
	IdempotencyClaim
	Status int
	Body   []byte
}

// IdempotencyStore remembers POST responses by Idempotency-Key (the usual semantics of payment APIs).
type IdempotencyStore interface {
	// BeginIdempotent claims (merchantID, key) for a request. When the key is new, or its
	// claim was abandoned (not done and older than staleBefore), it stores a fresh in-flight
	// record and returns (nil, nil): the caller runs the request. Otherwise it returns the
	// existing record for the caller to replay or refuse.
	BeginIdempotent(ctx context.Context, rec *IdempotencyRecord, staleBefore time.Time) (*IdempotencyRecord, error)
	// FinishIdempotent stores the response of a claimed request; ECONFLICT when the claim was
	// taken over (or answered) meanwhile, and nothing is stored.
	FinishIdempotent(ctx context.Context, reply *IdempotentReply) error
	// ReleaseIdempotent drops a claim whose request failed in a way worth retrying; a claim
	// taken over or answered meanwhile is left as it is.
	ReleaseIdempotent(ctx context.Context, claim IdempotencyClaim) error
}

// ErrClaimLost answers a write made under an Idempotency-Key claim that another request took
// over (or that was answered) meanwhile: nothing of it is stored.
// Retried, the request is answered by the later one's result.
func ErrClaimLost(key string) error {
	key = strings.TrimPrefix(key, idempotencyTestPrefix) // the key as the merchant sent it
	e := Errorf(ECONFLICT, "The claim on Idempotency-Key %q was taken over by a later request with it: this request made nothing", key)
	e.RetryAfter = time.Second
	return e
}

// ErrKeyInUse answers a request whose Idempotency-Key another request with it is still
// running under: retried a moment later, it gets that request's answer (409 with Retry-After,
// which tells it from a 409 a retry would only repeat).
func ErrKeyInUse(key string) error {
	e := Errorf(ECONFLICT, "A request with Idempotency-Key %q is still in progress", key)
	if key == "" {
		e.Message = "A request with this Idempotency-Key is in progress"
	}
	e.RetryAfter = time.Second
	return e
}
