package storetest

import (
	"sync"
	"testing"
	"time"
)

// Leases: one holder at a time; renewed by its holder; taken by another once expired or
// released; of many asking at once, one gets it.
func testLeases(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	t0 := now()
	take := func(name, holder string, at time.Time) bool {
		t.Helper()
		ok, err := s.TakeLease(ctx, name, holder, at, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !take("watch:a", "i1", t0) {
		t.Fatal("a new lease was not taken")
	}
	if take("watch:a", "i2", t0.Add(time.Second)) {
		t.Fatal("another holder took a lease that has not expired")
	}
	if !take("watch:a", "i1", t0.Add(5*time.Second)) {
		t.Fatal("its holder could not renew it")
	}
	if take("watch:a", "i2", t0.Add(12*time.Second)) {
		t.Fatal("taken before the renewal expired (t0+15s)")
	}
	if !take("watch:b", "i2", t0.Add(12*time.Second)) {
		t.Fatal("another lease's name was not free")
	}
	if !take("watch:a", "i2", t0.Add(15*time.Second)) {
		t.Fatal("an expired lease was not taken over")
	}
	// A release by a holder that lost it changes nothing; by the holder, frees it at once.
	if err := s.ReleaseLease(ctx, "watch:a", "i1"); err != nil {
		t.Fatal(err)
	}
	if take("watch:a", "i1", t0.Add(16*time.Second)) {
		t.Fatal("a stale holder's release freed another's lease")
	}
	if err := s.ReleaseLease(ctx, "watch:a", "i2"); err != nil {
		t.Fatal(err)
	}
	if !take("watch:a", "i1", t0.Add(16*time.Second)) {
		t.Fatal("a released lease was not free")
	}
	// Eight instances at once, on a new lease: exactly one holds it.
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := 0
	for i := range 8 {
		wg.Go(func() {
			ok, err := s.TakeLease(ctx, "exec:c", string(rune('a'+i)), t0, 10*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				mu.Lock()
				got++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if got != 1 {
		t.Fatalf("%d holders of one lease", got)
	}
}
