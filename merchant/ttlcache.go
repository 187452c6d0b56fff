package merchant

import (
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// ttlCache is a bounded LRU cache whose entries last ttl on the service's clock (now), so
// that a test moves them past their time with its own clock rather than by waiting.
type ttlCache[K comparable, V any] struct {
	entries *lru.Cache[K, ttlEntry[V]]
	ttl     time.Duration
	now     func() time.Time
}

type ttlEntry[V any] struct {
	v  V
	at time.Time
}

func newTTLCache[K comparable, V any](size int, ttl time.Duration, now func() time.Time) *ttlCache[K, V] {
	entries, err := lru.New[K, ttlEntry[V]](size)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &ttlCache[K, V]{entries: entries, ttl: ttl, now: now}
}

// Get returns the value of k when it was added less than ttl ago.
func (c *ttlCache[K, V]) Get(k K) (V, bool) {
	e, ok := c.entries.Get(k)
	if !ok || !c.now().Before(e.at.Add(c.ttl)) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Add keeps v under k from now on.
func (c *ttlCache[K, V]) Add(k K, v V) { c.entries.Add(k, ttlEntry[V]{v: v, at: c.now()}) }

// Remove forgets k.
func (c *ttlCache[K, V]) Remove(k K) { c.entries.Remove(k) }

// Purge forgets everything.
func (c *ttlCache[K, V]) Purge() { c.entries.Purge() }
