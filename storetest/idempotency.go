package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rampway/rampway"
)

func testIdempotency(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	rec := func(key string, at time.Time) *rampway.IdempotencyRecord {
		return &rampway.IdempotencyRecord{MerchantID: "mch_a", Key: key, RequestHash: []byte("h1"), CreatedAt: at}
	}
	t0 := now()
	if got, err := s.BeginIdempotent(ctx, rec("k1", t0), t0.Add(-time.Minute)); err != nil || got != nil {
		t.Fatalf("first Begin = %+v, %v; want a claim", got, err)
	}
	got, err := s.BeginIdempotent(ctx, rec("k1", t0), t0.Add(-time.Minute))
	if err != nil || got == nil || got.Done || string(got.RequestHash) != "h1" {
		t.Fatalf("second Begin while in flight = %+v, %v", got, err)
	}
	k1 := rampway.IdempotencyClaim{MerchantID: "mch_a", Key: "k1", ClaimedAt: t0}
	reply := func(c rampway.IdempotencyClaim, status int, body string) *rampway.IdempotentReply {
		return &rampway.IdempotentReply{IdempotencyClaim: c, Status: status, Body: []byte(body)}
	}
	if err := s.FinishIdempotent(ctx, reply(k1, 201, `{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	// An answered key keeps its answer (a second finish is ECONFLICT), and a release leaves it.
	wantCode(t, s.FinishIdempotent(ctx, reply(k1, 200, `{"other":true}`)), rampway.ECONFLICT)
	if err := s.ReleaseIdempotent(ctx, k1); err != nil {
		t.Fatal(err)
	}
	got, err = s.BeginIdempotent(ctx, rec("k1", t0), t0.Add(time.Hour))
	if err != nil || got == nil || !got.Done || got.Status != 201 || string(got.Body) != `{"ok":true}` {
		t.Fatalf("Begin after Finish = %+v, %v", got, err)
	}
	// Another merchant's same key is another key.
	other := rec("k1", t0)
	other.MerchantID = "mch_b"
	if got, err := s.BeginIdempotent(ctx, other, t0); err != nil || got != nil {
		t.Fatalf("other merchant's key = %+v, %v", got, err)
	}
	// An abandoned claim is taken over once stale; the first request's claim then holds
	// nothing: its release and its answer do not touch the new claim. A released one is free.
	if got, _ := s.BeginIdempotent(ctx, rec("k2", t0), t0); got != nil {
		t.Fatal("k2 not claimed")
	}
	t1 := t0.Add(2 * time.Minute)
	if got, err := s.BeginIdempotent(ctx, rec("k2", t1), t0.Add(time.Minute)); err != nil || got != nil {
		t.Fatalf("stale claim not taken over: %+v, %v", got, err)
	}
	first, second := rampway.IdempotencyClaim{MerchantID: "mch_a", Key: "k2", ClaimedAt: t0}, rampway.IdempotencyClaim{MerchantID: "mch_a", Key: "k2", ClaimedAt: t1}
	wantCode(t, s.FinishIdempotent(ctx, reply(first, 201, `{"first":true}`)), rampway.ECONFLICT)
	if err := s.ReleaseIdempotent(ctx, first); err != nil {
		t.Fatal(err)
	}
	if got, err := s.BeginIdempotent(ctx, rec("k2", t1), t0); err != nil || got == nil || got.Done {
		t.Fatalf("the taken-over claim's release or answer touched the new claim: %+v, %v", got, err)
	}
	if err := s.ReleaseIdempotent(ctx, second); err != nil {
		t.Fatal(err)
	}
	if got, err := s.BeginIdempotent(ctx, rec("k2", t0), t0.Add(-time.Hour)); err != nil || got != nil {
		t.Fatalf("released key not free: %+v, %v", got, err)
	}
	// Racing first requests: exactly one claims the key.
	var wg sync.WaitGroup
	claims := make(chan bool, 8)
	for range 8 {
		wg.Go(func() {
			got, err := s.BeginIdempotent(context.Background(), rec("k3", now()), now().Add(-time.Hour))
			claims <- err == nil && got == nil
		})
	}
	wg.Wait()
	close(claims)
	n := 0
	for c := range claims {
		if c {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d requests claimed one key, want 1", n)
	}
}
