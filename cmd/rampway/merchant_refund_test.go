package main

import (
	"database/sql"
	"math/big"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
)

// Merchant refunds of area A against `rampway serve` on the embedded chain, as a merchant's
// server (the API), its webhook receiver and an operator (the admin API) see them; every
// refund paid is checked on chain: the payer's balance rose by the amount less the stated fee.

// merchantRefund asks for a refund of the order (body nil: all that is left) with key.
func (e *refundEnv) merchantRefund(id, key string, body map[string]any) (int, map[string]any) {
	e.t.Helper()
	return refundAt(e.t, e.base+"/mint/merchant/hosted/nftCheckout/order/", id, key, body)
}

// refundAt asks route (an area's order route, with its /) for a refund of order id with key
// (body nil: all that is left).
func refundAt(t *testing.T, route, id, key string, body map[string]any) (int, map[string]any) {
	t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	return apiCall(t, "POST", route+id+"/refunds", key, body)
}

// waitRefund waits until the order's refund id is in status, and returns it as the order's
// refund list shows it, with the list.
func (e *refundEnv) waitRefund(orderID, id string, status rampway.RefundStatus) (map[string]any, map[string]any) {
	e.t.Helper()
	return waitRefundAt(e.t, e.base+"/mint/merchant/hosted/nftCheckout/order/", e.apiKey, orderID, id, status, e.log)
}

// waitRefundAt is waitRefund of an area's order route (with its /), log what to show when it
// times out.
func waitRefundAt(t *testing.T, route, key, orderID, id string, status rampway.RefundStatus, log func() string) (map[string]any, map[string]any) {
	t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for {
		list := call(t, "GET", route+orderID+"/refunds", key, nil)
		for _, r := range list["data"].([]any) {
			if r := r.(map[string]any); r["refund_id"] == id && r["status"] == string(status) {
				return r, list
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("refund %s of %s is not %s: %v\n%s", id, orderID, status, list, log())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// atOnce runs refund twice at once and returns the two answers' status codes, sorted.
func atOnce(refund func() int) []int {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		codes []int
	)
	for range 2 {
		wg.Go(func() {
			code := refund()
			mu.Lock()
			codes = append(codes, code)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(codes)
	return codes
}

// paidOrder is an order paid its price and executed: SUCCESS. It returns its id and price.
func (e *refundEnv) paidOrder() (string, *big.Int) {
	e.t.Helper()
	o := e.order()
	id := o["order_id"].(string)
	price, _ := rampway.ParseUnits(o["crypto_amount"].(string), 18)
	e.pay(e.get(id), price)
	e.waitRefunds(id, "SUCCESS")
	return id, price
}

func eth(v *big.Int) string { return rampway.FormatUnits(v, 18) }

func milliETH(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e15)) }

func TestMerchantRefundsOnChain(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t, "10", "0")
	e.serve()
	e.mineEvery(200 * time.Millisecond)
	// Refunds above 0.008 ETH wait for an operator.
	call(t, "PATCH", e.base+"/admin/merchants/"+e.merchantID, refundAdmin, map[string]any{"refund_policy": map[string]any{"ETH": map[string]any{"approval_above": "0.008"}}})

	// Two partial refunds, one that would exceed what is left, then the rest: REFUNDED.
	id, price := e.paidOrder()
	code, r1 := e.merchantRefund(id, e.apiKey, map[string]any{"amount": "0.002", "reason": "one returned"})
	if code != 200 || r1["status"] != "pending" || r1["origin"] != "merchant" || r1["currency"] != "ETH" || r1["amount"] != "0.002" ||
		r1["reason"] != "one returned" || r1["to_address"] != e.payer.Hex() || r1["destination"] != e.payer.Hex() {
		t.Fatalf("refund: %d %v", code, r1)
	}
	done, _ := e.waitRefund(id, r1["refund_id"].(string), rampway.RefundDone)
	e.checkPaidBack(done, milliETH(2))
	_, r2 := e.merchantRefund(id, e.apiKey, map[string]any{"amount": "0.003"})
	done, list := e.waitRefund(id, r2["refund_id"].(string), rampway.RefundDone)
	e.checkPaidBack(done, milliETH(3))
	left := new(big.Int).Sub(price, milliETH(5))
	if list["amount_paid"] != eth(price) || list["amount_refunded"] != "0.005" || list["amount_refundable"] != eth(left) || list["currency"] != "ETH" {
		t.Fatalf("list %v", list)
	}
	if v := e.get(id); v["status"] != "SUCCESS" || v["refunded_amount"] != "0.005" {
		t.Fatalf("a part refunded: %v %v", v["status"], v["refunded_amount"])
	}
	code, bad := e.merchantRefund(id, e.apiKey, map[string]any{"amount": eth(new(big.Int).Add(left, big.NewInt(1)))})
	if msg, _ := bad["message"].(string); code != 400 || !strings.Contains(msg, "amount") || !strings.Contains(msg, eth(left)+" ETH left") {
		t.Fatalf("more than is left: %d %v", code, bad)
	}
	_, r3 := e.merchantRefund(id, e.apiKey, nil)
	if r3["amount"] != eth(left) {
		t.Fatalf("the rest: %v", r3)
	}
	done, _ = e.waitRefund(id, r3["refund_id"].(string), rampway.RefundDone)
	e.checkPaidBack(done, left)
	if v := e.waitRefunds(id, "REFUNDED", rampway.RefundDone, rampway.RefundDone, rampway.RefundDone); v["refunded_amount"] != eth(price) {
		t.Fatalf("refunded %v", v["refunded_amount"])
	}
	if code, v := e.merchantRefund(id, e.apiKey, nil); code != 409 {
		t.Fatalf("a refunded order refunded again: %d %v", code, v)
	}
	e.hooks.wantEvents(t, id, []rampway.EventName{rampway.EventCreated, rampway.EventDepositProcessing, rampway.EventDepositSuccess,
		rampway.EventSmartContractProcessing, rampway.EventSmartContractSuccess, rampway.EventSuccess,
		rampway.EventRefundPending, rampway.EventMerchantRefundSucceeded, rampway.EventRefundPending, rampway.EventMerchantRefundSucceeded,
		rampway.EventRefundPending, rampway.EventMerchantRefundSucceeded})
	e.hooks.mu.Lock()
	got := slices.Clone(e.hooks.refunds[id])
	e.hooks.mu.Unlock()
	want := []string{"order.refund.pending " + r1["refund_id"].(string) + " pending 0.002", "order.refund.succeeded " + r1["refund_id"].(string) + " done 0.002"}
	if len(got) != 6 || !slices.Equal(got[:2], want) {
		t.Fatalf("refund events %q, want 6 starting %q", got, want)
	}

	// Two refunds at once that together exceed what was paid: one is refused.
	id, _ = e.paidOrder()
	if codes := atOnce(func() int { code, _ := e.merchantRefund(id, e.apiKey, map[string]any{"amount": "0.006"}); return code }); !slices.Equal(codes, []int{200, 400}) {
		t.Fatalf("two refunds at once: %v, want one 200 and one 400", codes)
	}

	// Above the merchant's threshold: waits for an operator, approved, paid.
	id, price = e.paidOrder()
	_, big1 := e.merchantRefund(id, e.apiKey, nil)
	if big1["status"] != "awaiting_approval" || !strings.Contains(big1["status_reason"].(string), "0.008 ETH") {
		t.Fatalf("above the threshold: %v", big1)
	}
	time.Sleep(time.Second) // blocks pass: nothing is sent without the approval
	if r, _ := e.waitRefund(id, big1["refund_id"].(string), rampway.RefundAwaitingApproval); r["tx_hash"] != "" {
		t.Fatalf("sent before its approval: %v", r)
	}
	call(t, "POST", e.base+"/admin/refunds/"+big1["refund_id"].(string)+"/approve", refundAdmin, map[string]any{"approved_by": "alice"})
	done, _ = e.waitRefund(id, big1["refund_id"].(string), rampway.RefundDone)
	e.checkPaidBack(done, price)
	e.waitRefunds(id, "REFUNDED", rampway.RefundDone)

	// A test key does not see a live order: 404, nothing recorded. (This server's networks are
	// test ones, as dev's: the order is made live in the database, as a live network's would be.)
	id, _ = e.paidOrder()
	db, err := sql.Open("sqlite", "file:"+e.dbPath+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE orders SET livemode = 1 WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	testKey := e.apiKey
	if code, v := e.merchantRefund(id, testKey, map[string]any{"amount": "0.001"}); code != 404 {
		t.Fatalf("a test key refunded a live order: %d %v", code, v)
	}
	if code, v := apiCall(t, "GET", e.base+"/mint/merchant/hosted/nftCheckout/order/"+id+"/refunds", testKey, nil); code != 404 {
		t.Fatalf("a test key listed a live order's refunds: %d %v", code, v)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM refunds WHERE order_id = ?`, id).Scan(&n); err != nil || n != 0 {
		t.Fatalf("refunds of the live order: %d %v", n, err)
	}
}

// Merchant refunds of areas B and C against `rampway dev` and its sandbox provider, as the
// merchant's server, its webhook receiver, the operator and the sandbox's books see them: what
// the sandbox paid back is exactly what the refunds say they sent (their fee is 0.00).
func TestMerchantRefundsFiat(t *testing.T) {
	t.Parallel()
	j := newFiatJourney(t)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(j.dir, "rampway.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	admin := "Bearer " + j.dj.AdminToken
	key := j.dj.Merchant.APIKey
	// EUR refunds above 15.00 wait for an operator.
	call(t, "PATCH", j.dj.API.AdminBaseURL+"/merchants/"+j.dj.Merchant.MerchantID, admin,
		map[string]any{"refund_policy": map[string]any{"EUR": map[string]any{"approval_above": "15.00"}}})

	// books are what the sandbox refunded of the order's payment, in cents.
	books := func(id string) int64 {
		t.Helper()
		var refunded string
		if err := db.QueryRow(`SELECT refunded FROM sandbox_payments WHERE order_id = ?`, id).Scan(&refunded); err != nil {
			t.Fatal(err)
		}
		v, _ := new(big.Int).SetString(refunded, 10)
		return v.Int64()
	}
	cents := func(s string) int64 {
		v, err := rampway.ParseUnits(s, 2)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return v.Int64()
	}
	for _, area := range []struct {
		name  string
		route string
		order func(card string) map[string]any
	}{
		{"B", j.dj.API.NFTRampBaseURL + "/merchant/hosted/nftCheckout/order/", func(card string) map[string]any {
			o := j.order(t, "EUR", rampway.MethodCard, nil)
			j.card(t, o, card)
			return o
		}},
		{"C", j.dj.API.DepositBaseURL + "/merchant/sdk/on-ramp/order/", func(card string) map[string]any {
			o := j.depositOrder(t, "EUR", "40.00", "ETH", rampway.MethodCard, j.hook)
			j.card(t, o, card)
			return o
		}},
	} {
		refund := func(id string, body map[string]any) (int, map[string]any) {
			return refundAt(t, area.route, id, key, body)
		}
		waitRefund := func(orderID, id string, status rampway.RefundStatus) (map[string]any, map[string]any) {
			t.Helper()
			return waitRefundAt(t, area.route, key, orderID, id, status, func() string { return area.name })
		}
		paid := func(card string) (string, int64) {
			t.Helper()
			o := area.order(card)
			id := o["order_id"].(string)
			j.waitStatus(t, id, "SUCCESS", 30*time.Second)
			j.captured(t, id, o["order_fiat_amount"].(string))
			return id, cents(o["order_fiat_amount"].(string))
		}
		fixed := func(c int64) string { return rampway.FormatFixed(big.NewInt(c), 2) }

		// Two parts, each paid back by the sandbox as stated; more than is left refused; the
		// rest, above the threshold: waits, approved, paid back: REFUNDED.
		id, price := paid(j.dj.Fiat.TestCards.Success)
		sent := int64(0)
		for _, part := range []string{"5.00", "7.00"} {
			code, r := refund(id, map[string]any{"amount": part, "reason": "returned"})
			if code != 200 || r["status"] != "pending" || r["currency"] != "EUR" || r["origin"] != "merchant" || r["destination"] != "card visa ****4242" {
				t.Fatalf("%s: refund %d %v", area.name, code, r)
			}
			done, _ := waitRefund(id, r["refund_id"].(string), rampway.RefundDone)
			if done["fee"] != "0.00" || done["amount_sent"] != part || !strings.HasPrefix(done["provider_reference"].(string), "sbr_") {
				t.Fatalf("%s: done %v", area.name, done)
			}
			sent += cents(part)
			if got := books(id); got != sent {
				t.Fatalf("%s: the sandbox refunded %d cents, the refunds sent %d", area.name, got, sent)
			}
		}
		left := price - sent
		code, bad := refund(id, map[string]any{"amount": fixed(left + 1)})
		if msg, _ := bad["message"].(string); code != 400 || !strings.Contains(msg, fixed(left)+" EUR left") {
			t.Fatalf("%s: more than is left: %d %v", area.name, code, bad)
		}
		_, rest := refund(id, nil)
		if rest["status"] != "awaiting_approval" || rest["amount"] != fixed(left) {
			t.Fatalf("%s: the rest %v", area.name, rest)
		}
		if got := books(id); got != sent {
			t.Fatalf("%s: refunded %d cents before the approval", area.name, got)
		}
		call(t, "POST", j.dj.API.AdminBaseURL+"/refunds/"+rest["refund_id"].(string)+"/approve", admin, map[string]any{"approved_by": "alice"})
		waitRefund(id, rest["refund_id"].(string), rampway.RefundDone)
		if v := j.waitStatus(t, id, "REFUNDED", 30*time.Second); v["refunded_amount"] != fixed(price) || books(id) != price {
			t.Fatalf("%s: refunded %v, the sandbox %d of %d", area.name, v["refunded_amount"], books(id), price)
		}

		// Two refunds at once that together exceed what was paid: one is refused.
		id, price = paid(j.dj.Fiat.TestCards.Success)
		if codes := atOnce(func() int { code, _ := refund(id, map[string]any{"amount": fixed(price/2 + 100)}); return code }); !slices.Equal(codes, []int{200, 400}) {
			t.Fatalf("%s: two refunds at once: %v, want one 200 and one 400", area.name, codes)
		}

		// The card's issuer refuses the refund: failed, the merchant told, nothing moved, and
		// all of it refundable again.
		id, price = paid(sandboxCardRefundFails)
		_, r := refund(id, map[string]any{"amount": "5.00"})
		failed, list := waitRefund(id, r["refund_id"].(string), rampway.RefundFailed)
		if !strings.Contains(failed["status_reason"].(string), "refused") || list["amount_refundable"] != fixed(price) || books(id) != 0 {
			t.Fatalf("%s: failed %v, list %v, the sandbox refunded %d", area.name, failed, list, books(id))
		}
		if v := j.lookup(t, id); v["status"] != "SUCCESS" || v["refunded_amount"] != "0.00" {
			t.Fatalf("%s: order %v %v", area.name, v["status"], v["refunded_amount"])
		}
		deadline := time.Now().Add(time.Minute)
		for {
			j.hooks.mu.Lock()
			got := slices.Clone(j.hooks.refunds[id])
			j.hooks.mu.Unlock()
			if slices.Contains(got, "order.refund.failed "+r["refund_id"].(string)+" failed 5.00") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: refund events %q", area.name, got)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if code, v := apiCall(t, "POST", j.dj.API.AdminBaseURL+"/refunds/"+r["refund_id"].(string)+"/approve", admin, map[string]any{}); code != 409 {
			t.Fatalf("%s: a failed merchant refund approved: %d %v", area.name, code, v)
		}

		// A test key does not see a live order (made live in the database: dev has no live
		// provider): 404, nothing recorded.
		id, _ = paid(j.dj.Fiat.TestCards.Success)
		if _, err := db.Exec(`UPDATE orders SET livemode = 1 WHERE id = ?`, id); err != nil {
			t.Fatal(err)
		}
		if code, v := refund(id, nil); code != 404 {
			t.Fatalf("%s: a test key refunded a live order: %d %v", area.name, code, v)
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM refunds WHERE order_id = ?`, id).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%s: refunds of the live order: %d %v", area.name, n, err)
		}
	}
}

// sandboxCardRefundFails is the sandbox's test card whose payments cannot be refunded.
const sandboxCardRefundFails = "4000000000005126"

// A merchant refund's transaction broadcast, then rampway killed (SIGKILL) before the receipt
// is recorded: after the restart it is followed, not sent again: one refund, paid once, the hot
// wallet's nonces counting the call and that one refund.
func TestMerchantRefundSIGKILLPaysOnce(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	e := newRefundEnv(t, "1", "0")
	srv := e.startKillable(bin)
	mine := e.mine
	o := e.order()
	id := o["order_id"].(string)
	price, _ := rampway.ParseUnits(o["crypto_amount"].(string), 18)
	e.send(id, price)
	for deadline := time.Now().Add(30 * time.Second); e.get(id)["status"] != "SUCCESS"; time.Sleep(100 * time.Millisecond) {
		mine()
		if time.Now().After(deadline) {
			t.Fatalf("order %v\n%s", e.get(id)["status"], srv.out)
		}
	}
	code, r := e.merchantRefund(id, e.apiKey, map[string]any{"amount": "0.004"})
	if code != 200 {
		t.Fatalf("refund %d %v", code, r)
	}
	// Sent (in the pool, not mined: no block after it), then killed.
	var sent map[string]any
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if rs := e.get(id)["refunds"].([]any); len(rs) == 1 && rs[0].(map[string]any)["status"] == string(rampway.RefundSent) {
			sent = rs[0].(map[string]any)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("refund of %s not sent\n%s", id, srv.out)
		}
	}
	hash := common.HexToHash(sent["tx_hash"].(string))
	e.killWhilePending(srv, hash)
	mine()
	mine()

	srv = startServer(t, bin, e.cfgPath, e.env()...)
	e.base = srv.base
	var v map[string]any
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		mine()
		v = e.get(id)
		if rs := v["refunds"].([]any); len(rs) == 1 && rs[0].(map[string]any)["status"] == string(rampway.RefundDone) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %v, refunds %v after the restart\n%s", v["status"], v["refunds"], srv.out)
		}
	}
	done := refundOf(t, v)
	if done["tx_hash"] != hash.Hex() || v["status"] != "SUCCESS" || v["refunded_amount"] != "0.004" {
		t.Fatalf("order %v refunded %v, refund %v; sent as %s", v["status"], v["refunded_amount"], done, hash.Hex())
	}
	e.checkPaidBack(done, milliETH(4))
	if n, err := e.c.NonceAt(t.Context(), crypto.PubkeyToAddress(e.hotKey.PublicKey), nil); err != nil || n != 2 {
		t.Fatalf("hot wallet nonce %d (%v), want 2: the call and the one refund", n, err)
	}
}
