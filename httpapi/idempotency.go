package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/rampway/rampway"
)

// idempotencyStale is how long an unanswered claim on a key holds before a retry may take it
// over (the first request's process died). It bounds how long a merchant's retry waits (409)
// after the instance that had its request was killed: a minute here was a minute-long order
// creation in the e2e kill loop. Shorter cannot make two orders: an order is written with its
// answer only while its claim holds (TestIdempotentSlowRequestTakenOver), so a request still
// running past it loses the key (409) rather than writing a second order; other POSTs set
// values or resend deliveries, which a second run repeats harmlessly.
const idempotencyStale = 15 * time.Second

// idempotent gives merchant POSTs the usual Idempotency-Key semantics of payment APIs: the same key with the
// same request replays the first answer; with another request it is 422; while the first is
// still running, 409. Only successful answers are remembered: as at payment APIs, a request refused
// before anything was done (4xx: every refusal here comes before an order exists) or a server
// error (5xx) leaves no result, so the request may be corrected, or retried, under its key.
func (s *Server) idempotent(next http.Handler) http.Handler {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		key := r.Header.Get("Idempotency-Key")
		if key == "" || s.idem == nil {
			next.ServeHTTP(w, r)
			return nil
		}
		if len(key) > 255 || bytes.IndexFunc([]byte(key), func(c rune) bool { return c < 0x21 || c > 0x7e }) >= 0 {
			return rampway.Errorf(rampway.EINVALID, "Idempotency-Key must be 1 to 255 printable ASCII characters without spaces")
		}
		body, err := readBody(r)
		if err != nil {
			return err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h := sha256.New()
		h.Write([]byte(r.Method + " " + r.URL.Path + "\n"))
		h.Write(canonicalBody(body))
		m := merchantFrom(r.Context())
		now := time.Now().UTC().Truncate(time.Microsecond)
		scoped := rampway.IdempotencyScope(key, livemodeFrom(r.Context())) // test and live keys apart
		prev, err := s.idem.BeginIdempotent(r.Context(), &rampway.IdempotencyRecord{MerchantID: m.ID, Key: scoped, RequestHash: h.Sum(nil), CreatedAt: now}, now.Add(-idempotencyStale))
		if err != nil {
			return err
		}
		if prev != nil {
			switch {
			case !bytes.Equal(prev.RequestHash, h.Sum(nil)):
				return rampway.Errorf(rampway.EUNPROCESSABLE, "Idempotency-Key %q was already used with a different request", key)
			case !prev.Done:
				return rampway.ErrKeyInUse(key)
			}
			w.Header().Set("Idempotent-Replayed", "true")
			writeJSONBytes(w, prev.Status, prev.Body)
			return nil
		}
		claim := &idempotencyClaim{IdempotencyClaim: rampway.IdempotencyClaim{MerchantID: m.ID, Key: scoped, ClaimedAt: now}}
		cw := &statusWriter{ResponseWriter: w, capture: &bytes.Buffer{}}
		defer func() {
			if claim.stored {
				return // the handler's own write stored the answer with what it did
			}
			// The answer is remembered even when the client has gone. A claim whose handler
			// failed is released, unless its write stored an answer after all (the release
			// drops only unanswered claims, and only its own: not one a later request took
			// over).
			ctx := context.WithoutCancel(r.Context())
			var err error
			if cw.status == 0 || cw.status >= 400 {
				err = s.idem.ReleaseIdempotent(ctx, claim.IdempotencyClaim)
			} else {
				err = s.idem.FinishIdempotent(ctx, &rampway.IdempotentReply{IdempotencyClaim: claim.IdempotencyClaim, Status: cw.status, Body: cw.capture.Bytes()})
			}
			if err != nil {
				s.log.ErrorContext(ctx, "idempotency record", "error", err, "merchant_id", m.ID)
			}
		}()
		next.ServeHTTP(cw, r.WithContext(context.WithValue(r.Context(), keyIdempotencyClaim, claim)))
		return nil
	})
}

// canonicalBody is what a request's body is compared by: valid JSON without its insignificant
// whitespace (the same request laid out another way is the same request), any other body as
// it is.
func canonicalBody(body []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, body); err != nil {
		return body
	}
	return b.Bytes()
}

// idempotencyClaim is a request's claim on its Idempotency-Key, for a handler whose write can
// store its answer itself (the order's, with the order: a crash between the two cannot leave
// an order whose key a retry would take over and run again).
type idempotencyClaim struct {
	rampway.IdempotencyClaim
	stored bool // the handler stored the answer
}

// claimFrom returns the request's claim on its Idempotency-Key, or nil when it has none.
func claimFrom(ctx context.Context) *idempotencyClaim {
	c, _ := ctx.Value(keyIdempotencyClaim).(*idempotencyClaim)
	return c
}
