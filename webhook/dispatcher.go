// Package webhook delivers order events to merchants: from the outbox the store writes with
// every event, signed, at least once, retried with backoff, in order per order, and in
// parallel across orders and merchants.
package webhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/client"
)

// SignatureHeader carries the signature of a delivery.
const SignatureHeader = client.SignatureHeader

// Sign returns the signature header of body at t: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">,
// one v1 per secret (a rotation keeps the old secret valid for a while). Each v1 is the
// merchant-side package's own (client.Sign), so what is sent is what merchants verify.
func Sign(secrets []string, body []byte, t time.Time) string {
	prefix := "t=" + strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString(prefix)
	for _, s := range secrets {
		b.WriteString(strings.TrimPrefix(client.Sign(s, body, t), prefix))
	}
	return b.String()
}

// Schedule is when a failed delivery is tried again: First after the first attempt, doubling up
// to Max, each wait shortened or lengthened at random by up to Jitter (a fraction), until
// GiveUpAfter since the event: then the delivery is failed.
type Schedule struct {
	First       time.Duration
	Max         time.Duration
	Jitter      float64
	GiveUpAfter time.Duration
}

// DefaultSchedule retries for 3 days: 10 s, 20 s, 40 s, ... up to an hour between attempts.
var DefaultSchedule = Schedule{First: 10 * time.Second, Max: time.Hour, Jitter: 0.2, GiveUpAfter: 72 * time.Hour}

// Next returns when attempt n+1 is due after attempt n (1-based) failed at now, or false when
// the retry period of an event created at created is over.
func (s Schedule) Next(n int, created, now time.Time, rnd func() float64) (time.Time, bool) {
	wait := s.First
	for i := 1; i < n && wait < s.Max; i++ {
		wait *= 2
	}
	wait = min(wait, s.Max)
	if s.Jitter > 0 {
		wait = time.Duration(float64(wait) * (1 + s.Jitter*(2*rnd()-1)))
	}
	next := now.Add(wait)
	if next.Sub(created) > s.GiveUpAfter {
		return time.Time{}, false
	}
	return next, true
}

// Secrets gives the webhook secrets a merchant's deliveries of a mode (their orders', test or
// live) are signed with: the current one, and the previous one during its grace period. None
// means the merchant removed its secret.
// The dispatcher asks once its attempts are started, right before they sign (one call for the
// attempts of a merchant that a Step starts together): an implementation must not answer from
// a cache (not even for a second), or deliveries sent after a rotation returned would be
// signed without the new secret, which the merchant may already be checking against alone.
// For a disabled merchant it returns an error with rampway.ErrMerchantDisabled in its chain:
// the attempt is then not made (nor counted), and the delivery goes back to the store, which
// holds it until the merchant is enabled again (a delivery claimed just before it was
// disabled). merchant.Service implements it, reading the database every time.
type Secrets interface {
	WebhookSecrets(ctx context.Context, merchantID string, livemode bool) ([]string, error)
}

// Config tunes a Dispatcher.
type Config struct {
	// Timeout bounds one attempt: a 2xx within it is success. Default 10 s.
	Timeout time.Duration
	// Workers bounds the attempts in flight that are not yet slow (see SlowAfter); default 128.
	Workers int
	// PerMerchant bounds one merchant's attempts in flight, and the deliveries of one merchant a
	// claim takes; default 16 (one busy merchant's backlog drains at about twice the rate of
	// 4: docs/BENCHMARKS.md, BenchmarkOneMerchantBacklog).
	PerMerchant int
	// SlowAfter is when an attempt still in flight stops counting against Workers, so that slow
	// or dead endpoints do not shrink the pool the others are served by: in flight at most
	// Workers plus PerMerchant for each slow merchant. Default 250 ms.
	SlowAfter time.Duration
	// BreakAfter consecutive failed attempts to a merchant's endpoint pause its deliveries:
	// the pending ones due now are made due after a pause of BreakFor, doubling at each
	// pause that follows without a success in between, up to Schedule.Max. A dead endpoint's
	// backlog then stays out of the due range that every claim walks, instead of slowing the
	// claims for everyone. Deliveries made due during a pause (new events, a resend) go out
	// as usual: one that succeeds ends the pauses. Defaults 5 and 30 s.
	BreakAfter int
	BreakFor   time.Duration
	// Poll is how often the outbox is read when it had nothing due; default 200 ms.
	Poll     time.Duration
	Schedule Schedule
	// UserAgent names rampway and its version.
	UserAgent string
	// AllowPrivate lets deliveries reach loopback and private addresses (dev mode only).
	AllowPrivate bool
	// Transport, when set, carries the attempts instead of the SSRF-safe HTTP client's own
	// transport (the simulation's in-process receiver, package sim); nil in production.
	Transport http.RoundTripper
	// Rand, when set, is the source of the retries' jitter (a seeded one makes a run
	// repeatable); nil uses math/rand/v2's.
	Rand func() float64
}

// Dispatcher sends due deliveries. Several may run, in one process or many: each claims its
// deliveries with a lease.
type Dispatcher struct {
	cfg     Config
	store   rampway.DeliveryStore
	secrets Secrets
	client  *http.Client
	log     *slog.Logger
	now     func() time.Time

	mu    sync.Mutex
	busy  map[string]int       // merchant -> attempts in flight
	queue map[string][]waiting // merchant -> claimed deliveries waiting for its share of workers
	// breakers are the merchants whose last attempts failed, by merchant.
	breakers map[string]*breaker
	wg       sync.WaitGroup
	free     chan struct{} // one token per idle worker
	wake     chan struct{} // a finished attempt may unblock an order's next event
}

// New returns a Dispatcher.
func New(cfg Config, store rampway.DeliveryStore, secrets Secrets, log *slog.Logger, now func() time.Time) *Dispatcher {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 128
	}
	if cfg.PerMerchant <= 0 {
		cfg.PerMerchant = 16
	}
	if cfg.SlowAfter <= 0 {
		cfg.SlowAfter = 250 * time.Millisecond
	}
	if cfg.BreakAfter <= 0 {
		cfg.BreakAfter = 5
	}
	if cfg.BreakFor <= 0 {
		cfg.BreakFor = 30 * time.Second
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 200 * time.Millisecond
	}
	if cfg.Schedule == (Schedule{}) {
		cfg.Schedule = DefaultSchedule
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "rampway"
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Float64
	}
	if now == nil {
		now = time.Now
	}
	d := &Dispatcher{cfg: cfg, store: store, secrets: secrets, client: NewHTTPClient(cfg.Timeout, cfg.AllowPrivate), log: log, now: now,
		busy: map[string]int{}, queue: map[string][]waiting{}, breakers: map[string]*breaker{}, free: make(chan struct{}, cfg.Workers), wake: make(chan struct{}, 1)}
	if cfg.Transport != nil {
		d.client.Transport = cfg.Transport
	}
	for range cfg.Workers {
		d.free <- struct{}{}
	}
	return d
}

// Wait returns once the attempts Step started are over and recorded. Run needs no Wait (it
// waits when ctx ends); a caller that steps the dispatcher itself (the simulation) calls it
// after each Step, so that what the Step started is done before anything else happens.
func (d *Dispatcher) Wait() { d.wg.Wait() }

// lease is how long a claimed delivery is this dispatcher's: well beyond what an attempt and
// its record take, and short enough that a crashed process's deliveries go out soon after.
func (d *Dispatcher) lease() time.Duration { return 2*d.cfg.Timeout + 5*time.Second }

// Wake has Run step at once: an order's cause made events to deliver.
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run delivers until ctx ends, then waits for the attempts in flight (each bounded by the
// timeout) so that none is cut off unrecorded.
func (d *Dispatcher) Run(ctx context.Context) {
	defer d.wg.Wait()
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			d.mu.Lock()
			var queued []*rampway.Delivery
			for _, q := range d.queue {
				for _, w := range q {
					queued = append(queued, w.del)
				}
			}
			clear(d.queue)
			d.mu.Unlock()
			if err := d.release(ctx, queued); err != nil { // another instance may take them at once
				d.log.Warn("release queued webhook deliveries; their leases will run out", "error", err)
			}
			return
		case <-t.C:
		case <-d.wake:
		}
		n, err := d.Step(ctx)
		if err != nil && ctx.Err() == nil {
			d.log.Error("webhook dispatch", "error", err)
		}
		wait := d.cfg.Poll
		if n > 0 {
			wait = 0 // more may be due
		}
		t.Reset(wait)
	}
}

// Step starts deliveries: first those claimed earlier and waiting for their merchant's share
// of workers, then as many newly claimed as there are idle workers. A claim takes at most
// PerMerchant deliveries of a merchant, and none of one that has twice that in flight or
// waiting; a claimed delivery whose merchant already has PerMerchant attempts in flight waits
// in a local queue (in flight and waiting stay under three times PerMerchant, so a claim never
// has to give any back) instead of going back to the store: each claim serves several
// merchants' next attempts. The attempts of a merchant started together share one read of its
// secrets, made once they all are started. It returns how many it started.
func (d *Dispatcher) Step(ctx context.Context) (int, error) {
	started := 0
	var stale []*rampway.Delivery
	reads := secretsReads{}
	d.mu.Lock()
	for m, q := range d.queue {
		for len(q) > 0 && d.busy[m] < d.cfg.PerMerchant && len(d.free) > 0 {
			w := q[0]
			q = q[1:]
			if d.now().After(w.startBy) {
				stale = append(stale, w.del)
				continue
			}
			d.start(ctx, w.del, reads.of(w.del))
			started++
		}
		if len(q) == 0 {
			delete(d.queue, m)
		} else {
			d.queue[m] = q
		}
	}
	idle := len(d.free)
	var full []string
	for m, n := range d.busy {
		if n+len(d.queue[m]) >= 2*d.cfg.PerMerchant {
			full = append(full, m)
		}
	}
	d.mu.Unlock()
	reads.begin()
	if err := d.release(ctx, stale); err != nil || idle == 0 {
		return started, err
	}
	now := d.now().UTC()
	claimed, err := d.store.ClaimDeliveries(ctx, now, d.lease(), idle, d.cfg.PerMerchant, full)
	if err != nil {
		return started, err
	}
	var back []*rampway.Delivery
	reads = secretsReads{} // new ones: those above may be read already
	d.mu.Lock()
	for _, del := range claimed {
		m := del.MerchantID
		switch {
		case d.busy[m] < d.cfg.PerMerchant && len(d.queue[m]) == 0 && len(d.free) > 0:
			d.start(ctx, del, reads.of(del))
			started++
		case d.busy[m]+len(d.queue[m]) < 3*d.cfg.PerMerchant:
			// This merchant's endpoint holds its share of workers: the delivery waits here
			// for one, while its lease leaves room for an attempt and its record.
			d.queue[m] = append(d.queue[m], waiting{del: del, startBy: now.Add(d.lease() - d.cfg.Timeout - 5*time.Second)})
		default:
			back = append(back, del)
		}
	}
	d.mu.Unlock()
	reads.begin()
	return started, d.release(ctx, back)
}

// secretsRead is one read of a merchant's secrets for the attempts a Step starts together. It
// is made once they all are started (begin), by the first of them to need it, so each is signed
// with what the store held after the attempt started: as fresh as a read of its own, for a
// fraction of the reads when a merchant's deliveries go out in bursts.
type secretsRead struct {
	started chan struct{} // closed once every attempt sharing the read is started
	once    sync.Once
	secrets []string
	err     error
}

func (r *secretsRead) get(ctx context.Context, src Secrets, del *rampway.Delivery) ([]string, error) {
	<-r.started
	r.once.Do(func() { r.secrets, r.err = src.WebhookSecrets(ctx, del.MerchantID, del.Livemode) })
	return r.secrets, r.err
}

// secretsReads are the reads of one Step's attempts, by merchant and mode.
type secretsReads map[secretsOf]*secretsRead

// secretsOf is whose secrets a read is: a merchant's of a mode.
type secretsOf struct {
	merchantID string
	livemode   bool
}

func (rs secretsReads) of(del *rampway.Delivery) *secretsRead {
	k := secretsOf{del.MerchantID, del.Livemode}
	r := rs[k]
	if r == nil {
		r = &secretsRead{started: make(chan struct{})}
		rs[k] = r
	}
	return r
}

// begin lets the reads be made: the attempts sharing them are all started.
func (rs secretsReads) begin() {
	for _, r := range rs {
		close(r.started)
	}
}

// waiting is a claimed delivery in the local queue.
type waiting struct {
	del     *rampway.Delivery
	startBy time.Time // after this its lease is too short for an attempt: it is released
}

// release gives claimed deliveries back to the store.
func (d *Dispatcher) release(ctx context.Context, ds []*rampway.Delivery) error {
	for _, del := range ds {
		if err := d.store.ReleaseDelivery(context.WithoutCancel(ctx), del.EventID); err != nil {
			return err
		}
	}
	return nil
}

// start runs one attempt on an idle worker, signed with what read gives; d.mu is held and a
// worker is idle.
func (d *Dispatcher) start(ctx context.Context, del *rampway.Delivery, read *secretsRead) {
	<-d.free
	d.busy[del.MerchantID]++
	d.wg.Go(func() {
		// An attempt still waiting after SlowAfter gives its worker back: a slow or dead
		// endpoint then holds only its merchant's share (PerMerchant), not the pool.
		var handBack sync.Once
		free := func() {
			handBack.Do(func() {
				d.free <- struct{}{}
				select {
				case d.wake <- struct{}{}:
				default:
				}
			})
		}
		slow := time.AfterFunc(d.cfg.SlowAfter, free)
		defer func() {
			slow.Stop()
			d.mu.Lock()
			if d.busy[del.MerchantID]--; d.busy[del.MerchantID] == 0 {
				delete(d.busy, del.MerchantID)
			}
			d.mu.Unlock()
			free()
			select { // the merchant's next queued delivery may go now
			case d.wake <- struct{}{}:
			default:
			}
		}()
		d.attempt(context.WithoutCancel(ctx), del, read)
	})
}

// attempt POSTs a delivery once and records what happened.
func (d *Dispatcher) attempt(ctx context.Context, del *rampway.Delivery, read *secretsRead) {
	a := &rampway.DeliveryAttempt{EventID: del.EventID, Attempt: del.Attempts + 1, At: d.now().UTC()}
	code, err := d.post(ctx, del, read)
	if errors.Is(err, rampway.ErrMerchantDisabled) {
		// Disabled since the claim: no attempt. The store holds its deliveries (the claim
		// leaves a disabled merchant's out in any case) until it is enabled again.
		d.log.Info("webhook delivery held: the merchant is disabled", "event_id", del.EventID, "merchant_id", del.MerchantID)
		if err := d.release(ctx, []*rampway.Delivery{del}); err != nil {
			d.log.Warn("release a disabled merchant's webhook delivery; its lease will run out", "event_id", del.EventID, "error", err)
		}
		return
	}
	a.Latency, a.StatusCode = d.now().Sub(a.At), code
	status, next := rampway.DeliveryDelivered, a.At
	if err != nil {
		a.Error = err.Error()
		// The retry period runs from the event, moved on by any time held (its merchant
		// disabled); the backoff starts over after such a hold.
		from := del.RetryFrom
		if from.IsZero() {
			from = del.CreatedAt
		}
		var ok bool
		if next, ok = d.cfg.Schedule.Next(a.Attempt-del.BackoffFrom, from, a.At.Add(a.Latency), d.cfg.Rand); ok {
			status = rampway.DeliveryPending
		} else {
			status, next = rampway.DeliveryFailed, a.At.Add(a.Latency)
		}
	}
	// A failure may pause the merchant's deliveries; this one, in flight when the others were
	// deferred, waits for the pause's end too.
	if until := d.noteResult(ctx, del.MerchantID, err == nil); status == rampway.DeliveryPending && next.Before(until) {
		next = until
	}
	log := d.log.With("event_id", del.EventID, "event", del.EventName, "order_id", del.OrderID, "merchant_id", del.MerchantID,
		"attempt", a.Attempt, "status_code", code, "latency_ms", a.Latency.Milliseconds())
	if rerr := d.store.RecordAttempt(ctx, a, status, next); rerr != nil {
		// The lease runs out and the delivery is sent again: at least once.
		log.Error("record webhook attempt", "error", rerr)
		return
	}
	switch status {
	case rampway.DeliveryDelivered:
		log.Debug("webhook delivered")
	case rampway.DeliveryPending:
		log.Warn("webhook attempt failed; will retry", "error", a.Error, "next_attempt_at", next)
	default:
		log.Error("webhook delivery failed for good", "error", a.Error)
	}
}

// breaker counts a merchant's consecutive failed attempts and pauses its deliveries.
type breaker struct {
	failures int       // consecutive failed attempts
	pauses   int       // pauses since the last success
	until    time.Time // paused until
}

// noteResult counts an attempt's outcome for its merchant, pauses the merchant's due
// deliveries once its endpoint failed BreakAfter times in a row (again, after a longer pause,
// while it keeps failing once the pause is over), and returns the end of the merchant's pause
// (zero when it is not paused).
func (d *Dispatcher) noteResult(ctx context.Context, merchantID string, ok bool) time.Time {
	d.mu.Lock()
	b := d.breakers[merchantID]
	if ok {
		delete(d.breakers, merchantID)
		d.mu.Unlock()
		return time.Time{}
	}
	if b == nil {
		b = &breaker{}
		d.breakers[merchantID] = b
	}
	b.failures++
	now := d.now().UTC()
	if b.failures < d.cfg.BreakAfter || now.Before(b.until) {
		until := b.until
		d.mu.Unlock()
		return until
	}
	pause := d.cfg.BreakFor
	for i := 0; i < b.pauses && pause < d.cfg.Schedule.Max; i++ {
		pause *= 2
	}
	pause = min(pause, max(d.cfg.Schedule.Max, d.cfg.BreakFor))
	b.pauses++
	b.until = now.Add(pause)
	until, failures := b.until, b.failures
	d.mu.Unlock()
	n, err := d.store.DeferDeliveries(ctx, merchantID, now, until)
	if err != nil {
		d.log.Error("pause webhook deliveries", "merchant_id", merchantID, "error", err)
		return until
	}
	d.log.Warn("webhook endpoint keeps failing: its deliveries are paused", "merchant_id", merchantID,
		"failed_attempts", failures, "paused_until", until, "deliveries_deferred", n)
	return until
}

// errStatus is a non-2xx answer.
type errStatus int

func (e errStatus) Error() string {
	return fmt.Sprintf("answered %d %s", int(e), http.StatusText(int(e)))
}

// post sends the delivery and returns the answer's status code; err is nil for a 2xx.
func (d *Dispatcher) post(ctx context.Context, del *rampway.Delivery, read *secretsRead) (int, error) {
	secrets, err := read.get(ctx, d.secrets, del)
	if err != nil {
		return 0, fmt.Errorf("webhook secret: %w", err)
	}
	if len(secrets) == 0 {
		return 0, errors.New("the merchant has no webhook secret any more")
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, del.URL, strings.NewReader(string(del.Body)))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", d.cfg.UserAgent)
	req.Header.Set(SignatureHeader, Sign(secrets, del.Body, d.now()))
	res, err := d.client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) // let the connection be reused
	res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return res.StatusCode, errStatus(res.StatusCode)
	}
	return res.StatusCode, nil
}

// SendTest POSTs body (a webhook.test event, rampway.TestEventBody) to url once, signed with
// the merchant's current secrets of the mode livemode exactly as a delivery of that mode is,
// through the same client (SSRF-safe, the same timeout). It is not an outbox delivery: nothing
// is stored, and a failure is not retried. It returns the answer's status code (0 when none
// came); err is nil for a 2xx.
func (d *Dispatcher) SendTest(ctx context.Context, merchantID string, livemode bool, url string, body []byte) (status int, err error) {
	read := &secretsRead{started: make(chan struct{})}
	close(read.started) // read at once: no other attempt shares it
	return d.post(ctx, &rampway.Delivery{EventName: rampway.EventWebhookTest, MerchantID: merchantID, Livemode: livemode, URL: url, Body: body}, read)
}
