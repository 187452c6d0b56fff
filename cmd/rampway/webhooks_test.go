package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/client"
	"github.com/rampway/rampway/httpapi"
)

// The admin CLI says on stderr, besides the JSON's warning, when a merchant has a webhook URL
// and no webhook secret (it gets no webhooks).
func TestAdminCLIWebhookWarning(t *testing.T) {
	t.Parallel()
	cfgPath := writeConfig(t, filepath.Join(t.TempDir(), "prod.db"))
	cli := func(args ...string) (map[string]any, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := runAdmin(t.Context(), append([]string{"--config", cfgPath}, args...), noEnv, &out, &errOut); err != nil {
			t.Fatalf("admin %v: %v\n%s", args, err, errOut.String())
		}
		var v map[string]any
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			t.Fatalf("admin %v: stdout is not one JSON object: %v\n%s", args, err, out.String())
		}
		return v, errOut.String()
	}
	m, stderr := cli("merchants", "create", "--name", "Hooked", "--webhook-url", "https://shop.example/hooks")
	id := m["merchant_id"].(string)
	want := "rampway: warning: merchant " + id + ": " + httpapi.NoWebhookSecretWarning(id) + "\n"
	if m["warning"] != httpapi.NoWebhookSecretWarning(id) || stderr != want {
		t.Fatalf("create: warning %v, stderr %q, want %q", m["warning"], stderr, want)
	}
	if _, stderr := cli("merchants", "get", id); stderr != want {
		t.Fatalf("get: stderr %q", stderr)
	}
	quiet, stderr := cli("merchants", "create", "--name", "Quiet")
	if _, ok := quiet["warning"]; ok || stderr != "" {
		t.Fatalf("create without a webhook URL: %v, stderr %q", quiet, stderr)
	}
	if _, stderr := cli("merchants", "list"); stderr != want {
		t.Fatalf("list: stderr %q, want only %q", stderr, want)
	}
	qid := quiet["merchant_id"].(string)
	if v, stderr := cli("merchants", "update", qid, "--webhook-url", "https://quiet.example/hooks"); v["warning"] == nil ||
		!strings.Contains(stderr, "merchant "+qid+": webhook_url is set but the merchant has no webhook secret") {
		t.Fatalf("update: %v, stderr %q", v, stderr)
	}
	if _, stderr := cli("webhook-secret", "rotate", id); stderr != "" {
		t.Fatalf("rotate: stderr %q", stderr)
	}
	if v, stderr := cli("merchants", "get", id); v["warning"] != nil || stderr != "" {
		t.Fatalf("with a secret: %v, stderr %q", v, stderr)
	}
}

// demoEvents reads the demo store's received events, oldest first.
func demoEvents(t *testing.T, base string) []demoEvent {
	t.Helper()
	res, err := http.Get(base + demoWebhookPath)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var page struct {
		Data []demoEvent `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil || res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", demoWebhookPath, res.StatusCode, err)
	}
	slices.Reverse(page.Data)
	return page.Data
}

// The demo merchant's webhook URL is the demo store's receiver: a paid order's events reach it
// signed, and it verifies them with the client package. The URL follows the server's port
// across restarts unless the developer set one of their own; dev.json's merchant stays as the
// contract has it.
func TestDemoStoreReceivesWebhooks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dj, stop := startDev(t, dir)
	base := strings.TrimSuffix(dj.API.MintBaseURL, "/mint")
	admin := "Bearer " + dj.AdminToken
	merchantURL := dj.API.AdminBaseURL + "/merchants/" + dj.Merchant.MerchantID
	if m := call(t, "GET", merchantURL, admin, nil); m["webhook_url"] != base+demoWebhookPath || m["has_webhook_secret"] != true || m["warning"] != nil {
		t.Fatalf("demo merchant %v, want webhook_url %s with a secret", m, base+demoWebhookPath)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, devJSONFile))
	var contract struct {
		Merchant map[string]any `json:"merchant"`
	}
	_ = json.Unmarshal(raw, &contract)
	if len(contract.Merchant) != 4 || contract.Merchant["merchant_id"] == nil || contract.Merchant["api_key"] == nil || contract.Merchant["webhook_secret"] == nil ||
		contract.Merchant["deposit_addresses"] == nil {
		t.Fatalf("dev.json merchant %v, want exactly merchant_id, api_key, webhook_secret, deposit_addresses", contract.Merchant)
	}

	id := payExample(t, dj) // an order without merchant_webhook_url: the merchant's URL
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var got []rampway.EventName
		for _, e := range demoEvents(t, base) {
			if e.OrderID == id {
				got = append(got, rampway.EventName(e.EventName))
			}
		}
		if slices.Equal(got, paidEvents) {
			break
		}
		if time.Now().After(deadline) || len(got) > len(paidEvents) {
			t.Fatalf("the demo store received %v for %s, want %v", got, id, paidEvents)
		}
	}
	// Each delivery succeeded at its first attempt (the receiver answers 400 to one that does
	// not verify). The last one's may be recorded a moment after the receiver had it.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		log := call(t, "GET", merchantURL+"/orders/"+id+"/webhooks", admin, nil)["data"].([]any)
		delivered := 0
		for _, d := range log {
			d := d.(map[string]any)
			attempts := d["attempts"].([]any)
			if len(attempts) > 1 || (len(attempts) == 1 && attempts[0].(map[string]any)["status_code"] != float64(200)) {
				t.Fatalf("delivery %v: want one attempt, answered 200", d)
			}
			if d["status"] == "delivered" {
				delivered++
			}
		}
		if len(log) == len(paidEvents) && delivered == len(log) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook log %v: want %d deliveries, all delivered", log, len(paidEvents))
		}
	}

	// A delivery that does not verify is refused and not recorded.
	before := len(demoEvents(t, base))
	body := []byte(`{"eventId":"evt_forged","timestamp":"2026-01-01T00:00:00Z","eventName":"order.success","context":{"order_id":"` + id + `"}}`)
	for _, sig := range []string{"", client.Sign("whsec_not_the_secret_0123456789abcdef", body, time.Now())} {
		req, _ := http.NewRequest(http.MethodPost, base+demoWebhookPath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if sig != "" {
			req.Header.Set(client.SignatureHeader, sig)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest {
			t.Fatalf("forged delivery (signature %q): %d, want 400", sig, res.StatusCode)
		}
	}
	if n := len(demoEvents(t, base)); n != before {
		t.Fatalf("forged deliveries recorded: %d events, were %d", n, before)
	}
	// The store's page shows what it received.
	res, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(page), "Webhooks received") || !strings.Contains(string(page), "order.success") || !strings.Contains(string(page), id) {
		t.Fatalf("the store's page does not show the events:\n%s", page)
	}

	// Restarted on another port: the URL follows it.
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	dj, stop = startDev(t, dir)
	base2 := strings.TrimSuffix(dj.API.MintBaseURL, "/mint")
	merchantURL = dj.API.AdminBaseURL + "/merchants/" + dj.Merchant.MerchantID
	if m := call(t, "GET", merchantURL, admin, nil); m["webhook_url"] != base2+demoWebhookPath {
		t.Fatalf("after a restart at %s: webhook_url %v", base2, m["webhook_url"])
	}
	// A URL of the developer's own stays.
	own := "http://127.0.0.1:9/my-hooks"
	call(t, "PATCH", merchantURL, admin, map[string]any{"webhook_url": own})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	dj, _ = startDev(t, dir)
	if m := call(t, "GET", dj.API.AdminBaseURL+"/merchants/"+dj.Merchant.MerchantID, admin, nil); m["webhook_url"] != own {
		t.Fatalf("after a restart: webhook_url %v, want the developer's %s", m["webhook_url"], own)
	}
}
