package client

import (
	"sync"
	"time"
)

// Deduper remembers the eventIds of events already received, so a [Verifier] can turn a
// second delivery of one into [ErrDuplicate]. Implementations must be safe for concurrent use.
// [NewMemoryDeduper] keeps them in memory; a receiver running on several machines can back one
// with a shared store (for example a unique key in its database).
type Deduper interface {
	// Seen reports whether eventID was recorded before, and records it.
	Seen(eventID string, now time.Time) bool
	// Forget removes eventID, so that a retry of an event that could not be processed is
	// processed again. [WebhookHandler] calls it when its func fails.
	Forget(eventID string)
}

// DefaultDedupeTTL is how long a [MemoryDeduper] made with a ttl of zero remembers an event.
const DefaultDedupeTTL = 24 * time.Hour

// MemoryDeduper is a [Deduper] in memory, for one process. It remembers each eventId for its
// ttl and then forgets it, so its size is bounded by the events of one ttl. It is safe for
// concurrent use. The zero value remembers for [DefaultDedupeTTL].
type MemoryDeduper struct {
	ttl time.Duration

	mu   sync.Mutex
	seen map[string]time.Time // eventId -> when recorded
	// order is the records oldest first, from index head on; entries removed by Forget (or
	// recorded again since) are skipped when they expire.
	order []dedupeEntry
	head  int
}

type dedupeEntry struct {
	id string
	at time.Time
}

var _ Deduper = (*MemoryDeduper)(nil)

// NewMemoryDeduper returns a MemoryDeduper that remembers each event for ttl
// ([DefaultDedupeTTL] when ttl is zero or less). To stop replays ttl must be at least twice
// the Verifier's Tolerance; to also absorb rampway's retries of deliveries whose answer was
// lost, make it hours. The merchant's own processing should still be idempotent by eventId:
// this memory is lost on restart.
func NewMemoryDeduper(ttl time.Duration) *MemoryDeduper {
	if ttl <= 0 {
		ttl = DefaultDedupeTTL
	}
	return &MemoryDeduper{ttl: ttl, seen: make(map[string]time.Time)}
}

// Seen reports whether eventID was recorded in the last ttl, and records it. now should be the
// current time.
func (d *MemoryDeduper) Seen(eventID string, now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seen == nil {
		d.seen = make(map[string]time.Time)
	}
	d.expire(now)
	if _, ok := d.seen[eventID]; ok {
		return true
	}
	d.seen[eventID] = now
	d.order = append(d.order, dedupeEntry{eventID, now})
	return false
}

// Forget removes eventID.
func (d *MemoryDeduper) Forget(eventID string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.seen, eventID)
}

// Len returns how many events are remembered.
func (d *MemoryDeduper) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.seen)
}

// expire forgets the records ttl old or older at now. d.mu must be held.
func (d *MemoryDeduper) expire(now time.Time) {
	ttl := d.ttl
	if ttl <= 0 {
		ttl = DefaultDedupeTTL
	}
	cutoff := now.Add(-ttl)
	for d.head < len(d.order) && !d.order[d.head].at.After(cutoff) {
		e := d.order[d.head]
		d.order[d.head] = dedupeEntry{}
		d.head++
		if at, ok := d.seen[e.id]; ok && at.Equal(e.at) {
			delete(d.seen, e.id)
		}
	}
	// Reclaim the expired front once it is half the slice.
	if d.head > 0 && d.head*2 >= len(d.order) {
		n := copy(d.order, d.order[d.head:])
		clear(d.order[n:])
		d.order = d.order[:n]
		d.head = 0
	}
}
