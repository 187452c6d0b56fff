package client

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestMemoryDeduper(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 16, 40, 0, 0, time.UTC)
	d := NewMemoryDeduper(10 * time.Minute)
	steps := []struct {
		id   string
		at   time.Duration // after t0
		seen bool
	}{
		{"a", 0, false},
		{"a", time.Second, true},
		{"b", time.Minute, false},
		{"a", 10*time.Minute - 1, true},
		{"a", 10 * time.Minute, false}, // ttl old: forgotten, recorded again
		{"b", 10*time.Minute + time.Second, true},
		{"b", 11 * time.Minute, false},
		{"a", 19 * time.Minute, true},
		{"a", 20 * time.Minute, false},
	}
	for _, s := range steps {
		if got := d.Seen(s.id, t0.Add(s.at)); got != s.seen {
			t.Fatalf("Seen(%s) at +%s = %v, want %v", s.id, s.at, got, s.seen)
		}
	}
}

func TestMemoryDeduperForget(t *testing.T) {
	t0 := time.Now()
	d := NewMemoryDeduper(time.Minute)
	d.Seen("a", t0)
	d.Forget("a")
	d.Forget("never seen")
	if d.Seen("a", t0.Add(time.Second)) {
		t.Fatal("a forgotten but still seen")
	}
	// The record made after Forget lives its own ttl, not the first one's.
	if !d.Seen("a", t0.Add(time.Minute)) {
		t.Fatal("a recorded again at +1s forgotten at +1m")
	}
	if d.Seen("a", t0.Add(time.Minute+time.Second)) {
		t.Fatal("a still seen after its ttl")
	}
}

func TestMemoryDeduperBounded(t *testing.T) {
	t0 := time.Now()
	d := NewMemoryDeduper(time.Minute)
	// 100 events a second for 10 minutes: never more than a minute's worth remembered.
	for i := range 60_000 {
		now := t0.Add(time.Duration(i) * 10 * time.Millisecond)
		if d.Seen(fmt.Sprint("evt_", i), now) {
			t.Fatalf("event %d seen", i)
		}
		if i%1000 == 0 {
			d.Forget(fmt.Sprint("evt_", i-10))
		}
	}
	if n := d.Len(); n > 6000 {
		t.Fatalf("Len = %d, want at most a minute of events (6000)", n)
	}
	if n := len(d.order); n > 2*6000+1 {
		t.Fatalf("expiry queue holds %d entries", n)
	}
}

func TestMemoryDeduperDefaultTTL(t *testing.T) {
	if d := NewMemoryDeduper(0); d.ttl != DefaultDedupeTTL {
		t.Fatalf("ttl = %s", d.ttl)
	}
	var zero MemoryDeduper // usable, with the default ttl
	t0 := time.Now()
	zero.Forget("a")
	if zero.Seen("a", t0) || !zero.Seen("a", t0.Add(DefaultDedupeTTL-1)) || zero.Seen("a", t0.Add(DefaultDedupeTTL)) {
		t.Fatal("zero MemoryDeduper does not remember for DefaultDedupeTTL")
	}
}

func TestMemoryDeduperConcurrent(t *testing.T) {
	d := NewMemoryDeduper(time.Hour)
	var firsts atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			for i := range 100 {
				if !d.Seen(fmt.Sprint("evt_", i), time.Now()) {
					firsts.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := firsts.Load(); n != 100 {
		t.Fatalf("%d first sightings of 100 events", n)
	}
}
