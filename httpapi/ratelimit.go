package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/rampway/rampway"
)

// RateLimit is the token bucket each merchant's requests to the merchant API take from, in
// this instance: a bucket of Burst requests, refilled at RequestsPerSecond. A request over it
// is 429 with Retry-After. Unauthenticated requests, the admin API, the checkout page and the
// operations endpoints are not limited; idempotent replays are requests like any other.
type RateLimit struct {
	// RequestsPerSecond refills a merchant's bucket; 0 turns the limit off.
	RequestsPerSecond float64
	// Burst is the bucket's size: how many requests a merchant idle long enough may make at
	// once. At least 1 when RequestsPerSecond is set.
	Burst int
}

// minBucketIdle is the least time a merchant's bucket stays after its last request.
const minBucketIdle = time.Minute

// merchantLimiter holds a token bucket per merchant. A bucket unused for idle, by when it is
// full again (a new one is the same), is dropped at the next sweep: the map holds the
// merchants seen within the last two idle periods at most.
type merchantLimiter struct {
	rps   float64
	limit rate.Limit
	burst int
	idle  time.Duration
	now   func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	nextSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	last time.Time // of the last request; guarded by merchantLimiter.mu
}

// newMerchantLimiter returns the limiter of cfg, or nil when cfg turns the limit off.
func newMerchantLimiter(cfg RateLimit) *merchantLimiter {
	if !(cfg.RequestsPerSecond > 0) || cfg.Burst < 1 {
		return nil
	}
	full := time.Duration(math.Min(float64(cfg.Burst)/cfg.RequestsPerSecond*float64(time.Second), float64(365*24*time.Hour)))
	return &merchantLimiter{rps: cfg.RequestsPerSecond, limit: rate.Limit(cfg.RequestsPerSecond), burst: cfg.Burst,
		idle: max(full, minBucketIdle), now: time.Now, buckets: map[string]*bucket{}}
}

// allow takes a token from the merchant's bucket. When it has none, it takes nothing and
// says how long until it has one.
func (l *merchantLimiter) allow(merchantID string) (ok bool, wait time.Duration) {
	now := l.now()
	l.mu.Lock()
	if !now.Before(l.nextSweep) {
		for id, b := range l.buckets {
			if now.Sub(b.last) >= l.idle {
				delete(l.buckets, id)
			}
		}
		l.nextSweep = now.Add(l.idle)
	}
	b := l.buckets[merchantID]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[merchantID] = b
	}
	b.last = now
	l.mu.Unlock()

	// AllowN takes a token only when there is one: a refused request costs nothing.
	if b.lim.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - b.lim.TokensAt(now)
	return false, time.Duration(missing / l.rps * float64(time.Second))
}

// size is the number of buckets held.
func (l *merchantLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// rateLimit answers 429 with Retry-After (whole seconds, at least 1) to the authenticated
// merchant's requests over its bucket. It goes after merchantAuth: an unauthenticated flood
// takes nothing from any merchant's budget.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	if s.limiter == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := merchantFrom(r.Context())
		if m == nil {
			next.ServeHTTP(w, r)
			return
		}
		ok, wait := s.limiter.allow(m.ID)
		if ok {
			next.ServeHTTP(w, r)
			return
		}
		secs := retryAfterSeconds(wait)
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
		s.writeError(w, r, rampway.Errorf(rampway.ERATELIMIT, "Too many requests: at most %s per second for this merchant; retry after %d s",
			strconv.FormatFloat(s.limiter.rps, 'f', -1, 64), secs))
	})
}

// retryAfterSeconds rounds a wait up to whole seconds, at least 1.
func retryAfterSeconds(wait time.Duration) int64 {
	secs := int64(math.Ceil(wait.Seconds()))
	return max(secs, 1)
}
