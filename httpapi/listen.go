package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/rampway/rampway"
)

// EventStream is what the stream reads: the store.
type EventStream interface {
	MerchantDeliveries(ctx context.Context, merchantID string, livemode bool, after int64, limit int) ([]*rampway.Delivery, error)
	LastEventSeq(ctx context.Context) (int64, error)
}

// Stream tuning: how often it reads, how long a delivery may take to commit after its event's
// sequence number was taken (the stream reads that window again so that a late commit is not
// passed over), how many streams a merchant may have open, the keep-alive period.
const (
	listenPoll      = 250 * time.Millisecond
	listenSettle    = 10 * time.Second
	listenBatch     = 1000
	listenPerMerch  = 5
	listenKeepAlive = 15 * time.Second
)

// listeners counts each merchant's open streams.
type listeners struct {
	mu sync.Mutex
	n  map[string]int
}

func (l *listeners) add(id string, d int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = map[string]int{}
	}
	if d > 0 && l.n[id] >= listenPerMerch {
		return false
	}
	l.n[id] += d
	return true
}

// handleListen streams the merchant's webhook deliveries as server-sent events, each as it is
// written (whatever becomes of its POST): "event: delivery", the delivery's body as its data,
// byte for byte as the webhook carries it, and as id a resume point. A client that reconnects
// with Last-Event-ID gets what came after it (a delivery may come twice across a reconnect:
// receivers deduplicate by eventId). Without it the stream starts at the newest event.
func (s *Server) handleListen(w http.ResponseWriter, r *http.Request) error {
	if s.events == nil {
		return rampway.Errorf(rampway.EUNAVAILABLE, "The event stream is not available on this server")
	}
	m := merchantFrom(r.Context())
	ctx := r.Context()
	var after int64
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return rampway.FieldErrorf("Last-Event-ID", "Last-Event-ID must be an id this stream sent")
		}
		after = n
	} else {
		n, err := s.events.LastEventSeq(ctx)
		if err != nil {
			return err
		}
		after = n
	}
	if !s.listening.add(m.ID, 1) {
		return rampway.Errorf(rampway.ERATELIMIT, "At most %d event streams may be open for a merchant", listenPerMerch)
	}
	defer s.listening.add(m.ID, -1)

	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives the server's write timeout
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// The resume point first: a client that reconnects before any delivery resumes here.
	if _, err := fmt.Fprintf(w, "id: %d\nevent: ready\ndata: {\"merchant_id\":%q,\"livemode\":%t}\n\n", after, m.ID, livemodeFrom(ctx)); err != nil {
		return nil
	}
	_ = rc.Flush()

	// after is the settled point: every delivery at or below it was sent. Those above it are
	// read again each time until they are listenSettle old (one committed late, with a lower
	// sequence number than one already sent, is then sent too); sent remembers them.
	sent := map[string]int64{}
	// marks are the newest event sequence number of any merchant at each read, kept until they
	// are listenSettle old: every event at or below such a mark has committed by then, so the
	// settled point moves over the other merchants' events too, and a quiet merchant's reads
	// do not start ever further back while busy ones write.
	type mark struct {
		at  time.Time
		seq int64
	}
	var marks []mark
	tick := time.NewTicker(listenPoll)
	defer tick.Stop()
	beat := time.Now()
	for {
		top, err := s.events.LastEventSeq(ctx)
		var ds []*rampway.Delivery
		if err == nil {
			ds, err = s.events.MerchantDeliveries(ctx, m.ID, livemodeFrom(ctx), after, listenBatch)
		}
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("event stream", "merchant_id", m.ID, "error", err)
			}
		} else {
			settle := time.Now().Add(-s.listenSettle)
			settled, settling := after, true
			for _, d := range ds { // in event order
				if _, ok := sent[d.EventID]; !ok {
					if err := writeEvent(w, "delivery", settled, d.Body); err != nil {
						return nil
					}
					sent[d.EventID] = d.EventSeq
					beat = time.Now()
				}
				// The settled point moves over the old ones up to the first recent one.
				if settling = settling && d.CreatedAt.Before(settle); settling {
					settled = d.EventSeq
				}
			}
			marks = append(marks, mark{time.Now(), top})
			if len(ds) < listenBatch { // every delivery of the merchant after `after` was read, and sent
				for len(marks) > 0 && marks[0].at.Before(settle) {
					settled = max(settled, marks[0].seq)
					marks = marks[1:]
				}
			}
			if settled != after {
				after = settled
				for id, seq := range sent {
					if seq <= after {
						delete(sent, id)
					}
				}
			}
			_ = rc.Flush()
		}
		if time.Since(beat) > s.listenKeepAlive {
			beat = time.Now()
			if _, err := fmt.Fprintf(w, "id: %d\n: keep-alive\n\n", after); err != nil {
				return nil
			}
			_ = rc.Flush()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// writeEvent writes one server-sent event with data split into data lines.
func writeEvent(w http.ResponseWriter, name string, id int64, data []byte) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "id: %d\nevent: %s\n", id, name)
	for _, line := range bytes.Split(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}
