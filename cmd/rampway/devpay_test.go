package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway"
)

// waitOrderStatus polls the order as its merchant until it has status, or fails the test.
func waitOrderStatus(t *testing.T, dj devJSON, id string, status rampway.OrderStatus, limit time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		v := getOrder(t, dj, id)
		if v["status"] == string(status) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s is %v after %s, want %s", id, v["status"], limit, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// `rampway dev pay` pays what is due: part of it with --amount (the order is then UNDERPAID),
// then the rest, for an ETH and a token order, as the README's first steps do.
func TestDevPay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dj, _ := startDev(t, dir)
	pay := func(args ...string) (string, error) {
		out := &lockedBuffer{}
		err := run(context.Background(), append([]string{"dev", "pay", "--data-dir", dir}, args...), noEnv, out)
		return out.String(), err
	}
	for _, f := range dj.SmartContractFunctions {
		if f.PayableSymbol == "" {
			continue
		}
		t.Run(f.PayableSymbol, func(t *testing.T) {
			body := exampleQuote(dj, f)
			body["merchant_user_id"], body["merchant_redirect_url"] = "user-1", "http://127.0.0.1:3000/done"
			raw, _ := json.Marshal(body)
			code, o := post(t, dj.API.MintBaseURL+"/merchant/hosted/nftCheckout/order", dj.Merchant.APIKey, string(raw))
			if code != 201 {
				t.Fatalf("order: %d %v", code, o)
			}
			id := o["order_id"].(string)
			decimals := uint8(18)
			if f.PayableSymbol != "ETH" {
				decimals = 6
			}
			total, _ := rampway.ParseUnits(o["crypto_amount"].(string), decimals)
			half := rampway.FormatUnits(total.Rsh(total, 1), decimals)
			out, err := pay(id, "--amount", half)
			if err != nil || !strings.Contains(out, "paid "+half+" "+f.PayableSymbol) {
				t.Fatalf("dev pay --amount %s: %v\n%s", half, err, out)
			}
			waitOrderStatus(t, dj, id, rampway.StatusUnderpaid, 30*time.Second)
			if out, err = pay(id); err != nil {
				t.Fatalf("dev pay: %v\n%s", err, out)
			}
			v := waitOrderStatus(t, dj, id, rampway.StatusSuccess, 60*time.Second)
			if v["crypto_amount_received"] != o["crypto_amount"] {
				t.Fatalf("received %v, asked %v", v["crypto_amount_received"], o["crypto_amount"])
			}
			// Nothing is due any more: said, nothing sent.
			if out, err := pay(id); err == nil || !strings.Contains(err.Error(), "nothing is due") {
				t.Fatalf("dev pay of a paid order: %v\n%s", err, out)
			}
		})
	}
	for _, bad := range [][]string{{}, {"nope"}, {"ord_00000000000000000000000000"}, {"ord_x", "--amount", "-1"}} {
		if out, err := pay(bad...); err == nil {
			t.Fatalf("dev pay %v: no error\n%s", bad, out)
		}
	}
}
