package httpapi

import (
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

// DeliveryView is a webhook delivery as the log shows it.
type DeliveryView struct {
	EventID        string        `json:"event_id"`
	EventName      string        `json:"event_name"`
	OrderID        string        `json:"order_id"`
	URL            string        `json:"url"`
	Status         string        `json:"status"`
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
	v := DeliveryView{EventID: d.EventID, EventName: d.EventName, OrderID: d.OrderID, URL: d.URL, Status: d.Status, AttemptCount: d.Attempts,
		LastStatusCode: optionalInt(d.LastStatusCode), LastError: optional(d.LastError), CreatedAt: d.CreatedAt.UTC().Format(TimeFormat),
		DeliveredAt: timePtr(d.DeliveredAt), Attempts: make([]AttemptView, len(attempts))}
	if d.Status == rampway.DeliveryPending {
		at := d.NextAttemptAt.UTC().Format(TimeFormat)
		v.NextAttemptAt = &at
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
		mid := r.PathValue("merchant_id")
		if !admin {
			if err := checkQueryMerchantID(r); err != nil {
				return err
			}
			mid = merchantFrom(r.Context()).ID
		}
		logs, err := s.checkout.Deliveries(r.Context(), mid, area, r.PathValue("order_id"))
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
		var body struct{}
		if err := decodeJSON(r, &body, decodeOptions{strict: true, optional: true}); err != nil {
			return err
		}
		mid := r.PathValue("merchant_id")
		if !admin {
			mid = merchantFrom(r.Context()).ID
		}
		d, err := s.checkout.Resend(r.Context(), mid, area, r.PathValue("order_id"), r.PathValue("event_id"))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusAccepted, NewDeliveryView(d, nil))
		return nil
	}
}
