package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/rampway/rampway/client"
	"github.com/rampway/rampway/webhook"
)

// receiver is the merchant's webhook endpoint, in process: the dispatcher's transport (no
// socket, no server goroutine). It verifies each delivery's signature with the merchant's
// secret and remembers, per event, how many deliveries reached it and how many came after it
// had answered 2xx; it fails or hangs when the step says so.
type receiver struct {
	seed   uint64
	secret string
	now    func() time.Time

	mu sync.Mutex
	// step and fail/hang rates (per mille) of the current step.
	step       int
	failRate   int
	hangRate   int
	events     map[string]*received
	badSigs    int
	fired      []string
	lastEvents []string
}

// received is what the receiver saw of one event.
type received struct {
	Name       string
	OrderID    string
	Deliveries int
	// Acked is when it first answered 2xx; AfterAck counts the deliveries that came after.
	Acked    bool
	AfterAck int
}

func newReceiver(seed uint64, now func() time.Time) *receiver {
	return &receiver{seed: seed, now: now, events: map[string]*received{}}
}

func (r *receiver) setStep(n, failRate, hangRate int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.step, r.failRate, r.hangRate = n, failRate, hangRate
}

// RoundTrip implements http.RoundTripper.
func (r *receiver) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ev, err := client.VerifyWebhook(r.secret, body, req.Header.Get(webhook.SignatureHeader), r.now())
	if err != nil {
		r.badSigs++
		return answer(req, http.StatusBadRequest), nil
	}
	got := r.events[ev.ID]
	if got == nil {
		got = &received{Name: ev.Name}
		var c struct {
			OrderID string `json:"order_id"`
		}
		if json.Unmarshal(ev.Context, &c) == nil {
			got.OrderID = c.OrderID
		}
		r.events[ev.ID] = got
	}
	got.Deliveries++
	if got.Acked {
		got.AfterAck++
	}
	roll := mix(r.seed, uint64(r.step), hashString(ev.ID), uint64(got.Deliveries)) % 1000
	switch {
	case roll < uint64(r.hangRate):
		// Received, and no answer before the attempt's timeout: the dispatcher must try again.
		r.fired = append(r.fired, "receiver.hang")
		return nil, fmt.Errorf("sim: receiver hangs: %w", context.DeadlineExceeded)
	case roll < uint64(r.hangRate+r.failRate):
		r.fired = append(r.fired, "receiver.500")
		return answer(req, http.StatusInternalServerError), nil
	}
	got.Acked = true
	return answer(req, http.StatusOK), nil
}

func answer(req *http.Request, code int) *http.Response {
	return &http.Response{StatusCode: code, Status: http.StatusText(code), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(nil)), Request: req}
}

func (r *receiver) takeFired() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.fired
	r.fired = nil
	return out
}
