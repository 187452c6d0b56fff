package httpapi

import (
	"context"
	"net/http"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
)

// AttemptView is one POST of a webhook delivery.
type AttemptView struct {
	Attempt    int     `json:"attempt"`
	At         string  `json:"at"`
	StatusCode *int    `json:"status_code"`
	LatencyMS  int64   `json:"latency_ms"`
	Error      *string `json:"error"`
}

// DeliveryView is a webhook delivery as the log shows it. Status is where the event stands now
// (a resent event is pending again, whatever its earlier attempts gave); AttemptCount counts
// every attempt, each listed in Attempts, oldest first, those before a resend included;
// LastStatusCode and LastError are the last attempt's. DeliveredAt is set only while the
// status is delivered: when the attempt that delivered it ended. A delivered event that is
// resent has none until an attempt succeeds again; its earlier success stays in Attempts.
// Held is true for a pending delivery of a disabled merchant: it is not attempted (nor failed)
// until the merchant is enabled again, HeldSince says since when, and NextAttemptAt is null.
type DeliveryView struct {
	EventID        string        `json:"event_id"`
	EventName      string        `json:"event_name"`
	OrderID        string        `json:"order_id"`
	URL            string        `json:"url"`
	Status         string        `json:"status"`
	Held           bool          `json:"held"`
	HeldSince      *string       `json:"held_since"`
	AttemptCount   int           `json:"attempt_count"`
	NextAttemptAt  *string       `json:"next_attempt_at"`
	LastStatusCode *int          `json:"last_status_code"`
	LastError      *string       `json:"last_error"`
	CreatedAt      string        `json:"created_at"`
	DeliveredAt    *string       `json:"delivered_at"`
	Attempts       []AttemptView `json:"attempts"`
}

func optionalInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

// NewDeliveryView is the log entry of a delivery.
func NewDeliveryView(d *rampway.Delivery, attempts []*rampway.DeliveryAttempt) DeliveryView {
	v := DeliveryView{EventID: d.EventID, EventName: string(d.EventName), OrderID: d.OrderID, URL: d.URL, Status: string(d.Status), AttemptCount: d.Attempts,
		LastStatusCode: optionalInt(d.LastStatusCode), LastError: optional(d.LastError), CreatedAt: d.CreatedAt.UTC().Format(TimeFormat),
		Attempts: make([]AttemptView, len(attempts))}
	switch d.Status {
	case rampway.DeliveryPending:
		if d.Held() {
			v.Held, v.HeldSince = true, timePtr(d.HeldAt)
			break
		}
		at := d.NextAttemptAt.UTC().Format(TimeFormat)
		v.NextAttemptAt = &at
	case rampway.DeliveryDelivered:
		// The store keeps the last success's time through a resend; it is this status's only.
		v.DeliveredAt = timePtr(d.DeliveredAt)
	}
	for i, a := range attempts {
		v.Attempts[i] = AttemptView{Attempt: a.Attempt, At: a.At.UTC().Format(TimeFormat), StatusCode: optionalInt(a.StatusCode),
			LatencyMS: a.Latency.Milliseconds(), Error: optional(a.Error)}
	}
	return v
}

// NewDeliveryLog is an order's webhook log.
func NewDeliveryLog(logs []checkout.DeliveryLog) ListView[DeliveryView] {
	out := ListView[DeliveryView]{Data: make([]DeliveryView, len(logs))}
	for i, l := range logs {
		out.Data[i] = NewDeliveryView(l.Delivery, l.Attempts)
	}
	return out
}

// handleDeliveries answers an order's webhook log, for its merchant (the merchant API) or for
// an operator (the admin API, merchant in the path).
func (s *Server) handleDeliveries(area rampway.Area, admin bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		scope := rampway.AdminScope(r.PathValue("merchant_id"))
		if !admin {
			if err := checkQueryMerchantID(r); err != nil {
				return err
			}
			scope = scopeFrom(r.Context())
		}
		logs, err := s.checkout.Deliveries(r.Context(), scope, area, r.PathValue("order_id"))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, NewDeliveryLog(logs))
		return nil
	}
}

// handleResend queues an event again; 202: it goes out as soon as a dispatcher takes it.
func (s *Server) handleResend(area rampway.Area, admin bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		// The body is optional. A merchant's may carry merchant_id, checked as every merchant
		// POST checks it, and, like theirs, fields it does not take; the admin's none.
		var body struct {
			MerchantID *string `json:"merchant_id"`
		}
		if admin {
			var none struct{}
			if err := decodeJSON(r, &none, decodeOptions{strict: true, optional: true}); err != nil {
				return err
			}
		} else if err := decodeJSON(r, &body, decodeOptions{optional: true}); err != nil {
			return err
		}
		scope := rampway.AdminScope(r.PathValue("merchant_id"))
		if !admin {
			if body.MerchantID != nil {
				if err := checkMerchantID(r, body.MerchantID); err != nil {
					return err
				}
			}
			scope = scopeFrom(r.Context())
		}
		v, err := ResendDelivery(r.Context(), s.checkout, scope, area, r.PathValue("order_id"), r.PathValue("event_id"))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusAccepted, v)
		return nil
	}
}

// ResendDelivery queues an event of a merchant's order again (checkout.Service.Resend) and
// returns its log entry as the resend left it: pending, with the attempts made so far (as many
// as attempt_count; one a dispatcher records meanwhile is left for the log). ENOTFOUND for an
// unknown or foreign order or event.
func ResendDelivery(ctx context.Context, c Webhooks, scope rampway.Scope, area rampway.Area, orderID, eventID string) (DeliveryView, error) {
	d, err := c.Resend(ctx, scope, area, orderID, eventID)
	if err != nil {
		return DeliveryView{}, err
	}
	logs, err := c.Deliveries(ctx, scope, area, orderID)
	if err != nil {
		return DeliveryView{}, err
	}
	var attempts []*rampway.DeliveryAttempt
	for _, l := range logs {
		if l.Delivery.EventID != eventID {
			continue
		}
		for _, a := range l.Attempts {
			if a.Attempt <= d.Attempts {
				attempts = append(attempts, a)
			}
		}
	}
	return NewDeliveryView(d, attempts), nil
}
