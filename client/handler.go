package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// MaxBodyBytes bounds the body [WebhookHandler] reads; a larger one is answered 413.
const MaxBodyBytes = 1 << 20

// WebhookHandler returns an [http.Handler] that receives rampway's webhooks: it reads the body
// (up to [MaxBodyBytes]), verifies it with v and calls fn with the event. Its answers:
//
//   - 200 when fn returns nil, and for a duplicate of an event already processed (fn is not
//     called again): rampway stops retrying.
//   - 400 when the delivery does not verify (no or bad signature, t outside the tolerance,
//     bad body); the body of the answer says why.
//   - 409 when the same event is still being processed by fn (a retry that arrived early):
//     rampway retries later.
//   - 500 when fn returns an error (or panics): rampway retries later. The event is forgotten
//     by v.Seen, so the retry reaches fn.
//   - 405 for a method other than POST, 413 for a body over MaxBodyBytes.
//
// fn gets the request's context, which ends when rampway stops waiting (after 10 seconds): a
// slow job is better queued by fn and done after answering. Within one handler, concurrent
// deliveries of one event reach fn once. Behind a load balancer, a [Deduper] shared by the
// instances stops double processing, but a retry that reaches another instance while fn still
// runs is acknowledged as a duplicate: if fn then fails, the event is not retried. There, let
// fn record the event durably first and work from that record.
func WebhookHandler(v *Verifier, fn func(ctx context.Context, ev *Event) error) http.Handler {
	if v == nil || fn == nil {
		panic("client.WebhookHandler: nil Verifier or func")
	}
	return &webhookHandler{v: v, fn: fn, inflight: make(map[string]struct{})}
}

type webhookHandler struct {
	v  *Verifier
	fn func(context.Context, *Event) error

	mu       sync.Mutex
	inflight map[string]struct{} // eventIds being processed by fn
}

func (h *webhookHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return
	}
	now := time.Now()
	ev, err := h.v.verify(body, r.Header.Get(SignatureHeader), now)
	if err != nil {
		if errors.Is(err, ErrNoSignature) || errors.Is(err, ErrBadSignature) ||
			errors.Is(err, ErrTimestamp) || errors.Is(err, ErrBadBody) {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		http.Error(w, "webhook receiver misconfigured", http.StatusInternalServerError)
		return
	}

	// Mark the event in flight before asking the Deduper, so that a concurrent delivery of it
	// is never acknowledged before fn has succeeded.
	if !h.begin(ev.ID) {
		http.Error(w, "event "+ev.ID+" is being processed; retry later", http.StatusConflict)
		return
	}
	done := false
	defer func() {
		if !done && h.v.Seen != nil {
			h.v.Seen.Forget(ev.ID)
		}
		h.end(ev.ID)
	}()
	if h.v.Seen != nil && h.v.Seen.Seen(ev.ID, now) {
		done = true // processed before: acknowledge, and keep it recorded
		w.WriteHeader(http.StatusOK)
		return
	}
	if err := h.fn(r.Context(), ev); err != nil {
		http.Error(w, "event "+ev.ID+" not processed; retry later", http.StatusInternalServerError)
		return
	}
	done = true
	w.WriteHeader(http.StatusOK)
}

// begin marks id in flight, reporting false when it already is.
func (h *webhookHandler) begin(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.inflight[id]; ok {
		return false
	}
	h.inflight[id] = struct{}{}
	return true
}

func (h *webhookHandler) end(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.inflight, id)
}
