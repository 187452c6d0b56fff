package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/client"
)

// `rampway listen` against rampway dev: every event of a paid order reaches a local receiver,
// in order, signed with the merchant's secret (the receiver verifies it with the client
// package), and listen prints one line each with the receiver's answer.
func TestListenForwardsAPaidOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dj, _ := startDev(t, dir)
	var mu sync.Mutex
	got := map[string][]string{} // order id -> event names
	hook := client.WebhookHandler(&client.Verifier{Secrets: []string{dj.Merchant.WebhookSecret}, Seen: client.NewMemoryDeduper(time.Hour)}, func(_ context.Context, ev *client.Event) error {
		oc, err := ev.Order()
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		got[oc.OrderID] = append(got[oc.OrderID], ev.Name)
		return nil
	})
	local := httptest.NewServer(hook)
	t.Cleanup(local.Close)

	ctx, cancel := context.WithCancel(context.Background())
	out := &lockedBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"listen", "--forward-to", local.URL, "--data-dir", dir}, noEnv, out) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("listen: %v", err)
		}
	})
	for deadline := time.Now().Add(time.Minute); !strings.Contains(out.String(), "ready: forwarding the test-mode deliveries"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("listen not ready:\n%s", out)
		}
	}

	f := dj.SmartContractFunctions[0]
	body := exampleQuote(dj, f)
	body["merchant_user_id"], body["merchant_redirect_url"] = "user-1", "http://127.0.0.1:3000/done"
	raw, _ := json.Marshal(body)
	code, o := post(t, dj.API.MintBaseURL+"/merchant/hosted/nftCheckout/order", dj.Merchant.APIKey, string(raw))
	if code != 201 {
		t.Fatalf("order: %d %v", code, o)
	}
	id := o["order_id"].(string)
	if err := run(context.Background(), []string{"dev", "pay", "--data-dir", dir, id}, noEnv, &lockedBuffer{}); err != nil {
		t.Fatal(err)
	}
	waitOrderStatus(t, dj, id, rampway.StatusSuccess, 60*time.Second)
	want := []string{client.EventOrderCreated, client.EventOrderDepositProcessing, client.EventOrderDepositSuccess,
		client.EventOrderSmartContractProcessing, client.EventOrderSmartContractSuccess, client.EventOrderSuccess}
	// listen prints a delivery's line once the local answer is back, after the receiver above
	// has recorded it: both are waited for.
	printed := func() bool {
		for _, name := range want {
			if !strings.Contains(out.String(), name) || !strings.Contains(out.String(), "-> 200 OK") {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		names := slices.Clone(got[id])
		mu.Unlock()
		if slices.Equal(names, want) && printed() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("forwarded %v, want %v, each with a line with the local answer:\n%s", names, want, out)
		}
	}
}

// Without a server and a dev.json, or with a key the server refuses, listen says why and stops.
func TestListenRefusals(t *testing.T) {
	t.Parallel()
	err := run(context.Background(), []string{"listen", "--forward-to", "http://127.0.0.1:3000/hooks", "--data-dir", t.TempDir()}, noEnv, &lockedBuffer{})
	if err == nil || !strings.Contains(err.Error(), "no rampway dev running") {
		t.Fatalf("no dev: %v", err)
	}
	if err := run(context.Background(), []string{"listen"}, noEnv, &lockedBuffer{}); err == nil || !strings.Contains(err.Error(), "--forward-to is required") {
		t.Fatalf("no --forward-to: %v", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-KEY") != "rw_test_k" {
			t.Errorf("key %q", r.Header.Get("X-API-KEY"))
		}
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"statusCode":401,"message":"Invalid API key"}`))
	}))
	defer srv.Close()
	env := map[string]string{EnvListenAPIKey: "rw_test_k"}
	out := &lockedBuffer{}
	err = run(context.Background(), []string{"listen", "--forward-to", "http://127.0.0.1:3000/hooks", "--server", srv.URL}, func(k string) string { return env[k] }, out)
	var fatal *listenFatal
	if !errors.As(err, &fatal) || !strings.Contains(err.Error(), "Invalid API key") || !strings.Contains(out.String(), "No RAMPWAY_WEBHOOK_SECRET") {
		t.Fatalf("refused key: %v\n%s", err, out)
	}
}
