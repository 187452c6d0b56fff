package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/client"
)

// receiver is the merchant's webhook endpoint: it verifies each delivery with the client
// package and keeps the events per order, in arrival order.
type receiver struct {
	secret string
	mu     sync.Mutex
	events map[string][]string // order_id -> event names
	bad    []string
	// refunds are, per order, the events about one of its merchant refunds, as
	// "<event> <refund_id> <status> <amount>" (made on first use).
	refunds map[string][]string
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	ev, err := client.VerifyWebhook(r.secret, body, req.Header.Get(client.SignatureHeader), time.Now())
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil || req.Header.Get("Content-Type") != "application/json" || !strings.HasPrefix(req.UserAgent(), "rampway/") {
		r.bad = append(r.bad, fmt.Sprintf("%v %q %q", err, req.Header.Get("Content-Type"), req.UserAgent()))
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	oc, err := ev.Order()
	if err != nil {
		r.bad = append(r.bad, err.Error())
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	r.events[oc.OrderID] = append(r.events[oc.OrderID], ev.Name)
	if rf := oc.Refund; rf != nil {
		if r.refunds == nil {
			r.refunds = map[string][]string{}
		}
		r.refunds[oc.OrderID] = append(r.refunds[oc.OrderID], strings.Join([]string{ev.Name, rf.RefundID, rf.Status, rf.Amount}, " "))
	}
}

// wantEvents waits until the order's events are want, in that order.
func (r *receiver) wantEvents(t *testing.T, orderID string, names []rampway.EventName) {
	t.Helper()
	want := make([]string, len(names))
	for i, n := range names {
		want[i] = string(n)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		r.mu.Lock()
		got, bad := slices.Clone(r.events[orderID]), slices.Clone(r.bad)
		r.mu.Unlock()
		if len(bad) > 0 {
			t.Fatalf("deliveries refused by the receiver: %v", bad)
		}
		if slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) || len(got) > len(want) {
			t.Fatalf("events of %s: %v, want %v", orderID, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// journey is a merchant's server and a paying user against a running `rampway dev`: it only
// speaks HTTP to the API and JSON-RPC to the chain.
type journey struct {
	t     *testing.T
	dj    devJSON
	hooks *receiver
	hook  string // the receiver's URL
	c     *ethclient.Client
	payer *ecdsa.PrivateKey
	mu    sync.Mutex // the payer's nonce, counted here (a node's pending view can lag)
	nonce uint64
}

func newJourney(t *testing.T, dj devJSON) *journey {
	c, err := ethclient.Dial(dj.Chain.RPCURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	payer, err := crypto.HexToECDSA(strings.TrimPrefix(dj.Chain.PayerPrivateKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.PendingNonceAt(t.Context(), crypto.PubkeyToAddress(payer.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	hooks := &receiver{secret: dj.Merchant.WebhookSecret, events: map[string][]string{}}
	srv := httptest.NewServer(hooks)
	t.Cleanup(srv.Close)
	return &journey{t: t, dj: dj, hooks: hooks, hook: srv.URL + "/hooks", c: c, payer: payer, nonce: n}
}

// order creates an order for the example of function i with function_args edited.
func (j *journey) order(t *testing.T, i int, args map[string]any) map[string]any {
	t.Helper()
	f := j.dj.SmartContractFunctions[i]
	ex := f.Example
	ex.FunctionArgs = args
	symbol, contractAddr := "ETH", any(nil)
	if ex.Payment != nil {
		symbol = ex.Payment.PayableCryptoSymbol
		if a := ex.Payment.PayableCryptoContractAddress; a != "" {
			contractAddr = a
		}
	}
	body, _ := json.Marshal(map[string]any{"merchant_id": j.dj.Merchant.MerchantID, "crypto_symbol": symbol, "crypto_network": j.dj.Chain.Network,
		"crypto_contract_address": contractAddr, "contractExecution": ex, "merchant_user_id": "user-1",
		"merchant_redirect_url": "http://127.0.0.1:3000/done", "merchant_txn_id": t.Name(), "merchant_webhook_url": j.hook})
	code, o := post(t, j.dj.API.MintBaseURL+"/merchant/hosted/nftCheckout/order", j.dj.Merchant.APIKey, string(body))
	if code != 201 {
		t.Fatalf("order: %d %v", code, o)
	}
	return j.get(t, o["order_id"].(string))
}

func (j *journey) get(t *testing.T, id string) map[string]any {
	t.Helper()
	return getOrder(t, j.dj, id)
}

// mined waits for tx's receipt, and fails the test if it did not succeed or is not mined in
// 2 minutes (a hang guard), saying where the chain is.
func (j *journey) mined(t *testing.T, tx *types.Transaction) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		rc, err := j.c.TransactionReceipt(t.Context(), tx.Hash())
		if err == nil {
			if rc.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("transaction %s reverted in block %d (gas used %d of its %d)", tx.Hash().Hex(), rc.BlockNumber, rc.GasUsed, tx.Gas())
			}
			return
		}
		if time.Now().After(deadline) {
			head, herr := j.c.HeaderByNumber(t.Context(), nil)
			if herr != nil {
				t.Fatalf("transaction %s not mined in 2 minutes (%v); the chain does not answer: %v", tx.Hash().Hex(), err, herr)
			}
			t.Fatalf("transaction %s (nonce %d, fee cap %s) not mined in 2 minutes (%v); the chain is at block %d, %s old, base fee %s",
				tx.Hash().Hex(), tx.Nonce(), tx.GasFeeCap(), err, head.Number, time.Since(time.Unix(int64(head.Time), 0)).Round(time.Second), head.BaseFee)
		}
	}
}

// pay sends amount (in the order's asset, decimal text) to the order's deposit address.
func (j *journey) pay(t *testing.T, o map[string]any, amount string) {
	t.Helper()
	decimals := uint8(18)
	token := common.Address{}
	if a, ok := o["crypto_contract_address"].(string); ok {
		token, decimals = common.HexToAddress(a), 6
	}
	units, err := rampway.ParseUnits(amount, decimals)
	if err != nil {
		t.Fatal(err)
	}
	to, value, data := common.HexToAddress(o["deposit_address"].(string)), units, []byte(nil)
	if token != (common.Address{}) {
		data = append(crypto.Keccak256([]byte("transfer(address,uint256)"))[:4],
			append(common.LeftPadBytes(to.Bytes(), 32), common.LeftPadBytes(units.Bytes(), 32)...)...)
		to, value = token, nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	tx := devchaintest.SignTx(t, j.c, big.NewInt(int64(j.dj.Chain.ChainID)), j.payer, j.nonce, to, value, data, 100_000)
	if err := j.c.SendTransaction(context.Background(), tx); err != nil {
		t.Fatalf("pay: %v", err)
	}
	j.nonce++
}

// wait polls the order until it is in status, failing on a terminal other one or after limit.
func (j *journey) wait(t *testing.T, id, status string, limit time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		v := j.get(t, id)
		if v["status"] == status {
			return v
		}
		if s := v["status"]; (s == "SUCCESS" || s == "FAILED" || s == "EXPIRED") && s != status {
			t.Fatalf("order %s is %v (reason %v), want %s", id, s, v["failure_reason"], status)
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s still %v after %s, want %s", id, v["status"], limit, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func sub(t *testing.T, a, b string, decimals uint8) string {
	x, err1 := rampway.ParseUnits(a, decimals)
	y, err2 := rampway.ParseUnits(b, decimals)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return rampway.FormatUnits(new(big.Int).Sub(x, y), decimals)
}

// units is a decimal amount in units of 10^-18, for sums and comparisons of any asset's amounts.
func units(t *testing.T, a string) *big.Int {
	x, err := rampway.ParseUnits(a, 18)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestJourneyAreaA is the whole of area A on a running dev server: quote, order, payment by
// the user, confirmation, execution from the hot wallet, the minted token at the recipient.
func TestJourneyAreaA(t *testing.T) {
	t.Parallel()
	dj, _ := startDev(t, t.TempDir())
	j := newJourney(t, dj)
	nft := bindings.NewDemoNFT()
	nftAddr := common.HexToAddress(dj.Contracts.NFT)
	inst := nft.Instance(j.c, nftAddr)
	balance := func(t *testing.T, who common.Address) int64 {
		b, err := bind.Call(inst, &bind.CallOpts{Context: context.Background()}, nft.PackBalanceOf(who), nft.UnpackBalanceOf)
		if err != nil {
			t.Fatal(err)
		}
		return b.Int64()
	}
	for _, tc := range []struct {
		name     string
		function int
		quantity string
		pay      func(t *testing.T, o map[string]any) // the user's payments
		refunded string                               // the excess owed back, if any
		events   []rampway.EventName                  // the webhook events, when they are certain
	}{
		{"native", 0, "1", func(t *testing.T, o map[string]any) { j.pay(t, o, o["crypto_amount"].(string)) }, "", paidEvents},
		{"token", 1, "1", func(t *testing.T, o map[string]any) { j.pay(t, o, o["crypto_amount"].(string)) }, "", paidEvents},
		{"underpaid then topped up", 0, "1", func(t *testing.T, o map[string]any) {
			j.pay(t, o, "0.001")
			j.wait(t, o["order_id"].(string), "UNDERPAID", time.Minute)
			j.pay(t, o, sub(t, o["crypto_amount"].(string), "0.001", 18))
		}, "", []rampway.EventName{"order.created", "order.deposit.processing", "order.deposit.success", "order.deposit.processing",
			"order.deposit.success", "order.smartcontract.processing", "order.smartcontract.success", "order.success"}},
		{"overpaid", 1, "1", func(t *testing.T, o map[string]any) {
			j.pay(t, o, o["crypto_amount"].(string))
			j.pay(t, o, "3.5")
		}, "3.5", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			key, _ := crypto.GenerateKey()
			recipient := crypto.PubkeyToAddress(key.PublicKey) // a fresh wallet: it owns nothing yet
			o := j.order(t, tc.function, map[string]any{"to": recipient.Hex(), "quantity": tc.quantity})
			if o["status"] != "CREATED" || o["deposit_address"] == "" {
				t.Fatalf("new order: %v", o)
			}
			tc.pay(t, o)
			done := j.wait(t, o["order_id"].(string), "SUCCESS", 60*time.Second)
			hash, _ := done["execution_tx_hash"].(string)
			rec, err := j.c.TransactionReceipt(context.Background(), common.HexToHash(hash))
			if err != nil || rec.Status != 1 || rec.Logs[0].Address != nftAddr {
				t.Fatalf("execution tx %q: %v %+v", hash, err, rec)
			}
			if got := balance(t, recipient); got != mustInt(t, tc.quantity) {
				t.Fatalf("recipient owns %d tokens, want %s", got, tc.quantity)
			}
			// The sweeper moves the deposit on to the treasury in the background.
			deposit := common.HexToAddress(o["deposit_address"].(string))
			swept := func() bool {
				if a, ok := o["crypto_contract_address"].(string); ok {
					out, err := j.c.CallContract(context.Background(), ethereum.CallMsg{To: ptr(common.HexToAddress(a)),
						Data: append(crypto.Keccak256([]byte("balanceOf(address)"))[:4], common.LeftPadBytes(deposit.Bytes(), 32)...)}, nil)
					return err == nil && new(big.Int).SetBytes(out).Sign() == 0
				}
				b, err := j.c.BalanceAt(context.Background(), deposit, nil)
				return err == nil && b.Cmp(big.NewInt(1e15)) < 0 // what is left is the unused part of the gas
			}
			for deadline := time.Now().Add(30 * time.Second); !swept(); time.Sleep(200 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("deposit %s not swept after 30s", deposit.Hex())
				}
			}
			if tc.events != nil {
				j.hooks.wantEvents(t, o["order_id"].(string), tc.events)
			}
			// The lookup shows every payment, credited, and they add up to what was received. An
			// overpayment's second transfer may not even be recorded when the first has made the
			// order SUCCESS (a loaded machine's watcher a block behind): the lookup is read again
			// now that everything is swept (a sweep takes only confirmed transfers), and again
			// until no transfer is still confirming (its own deadline, not a margin on the first).
			done = j.get(t, o["order_id"].(string))
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				seen := false
				for _, d := range done["deposits"].([]any) {
					seen = seen || d.(map[string]any)["status"] == "seen"
				}
				if !seen || time.Now().After(deadline) {
					break
				}
				done = j.get(t, o["order_id"].(string))
			}
			deps, _ := done["deposits"].([]any)
			hashes, _ := done["deposit_tx_hashes"].([]any)
			sum := new(big.Int)
			for _, d := range deps {
				d := d.(map[string]any)
				native := tc.function == 0 // a native payment has no log: log_index null
				if d["status"] != "confirmed" || d["from_address"] != dj.Chain.PayerAddress || !slices.Contains(hashes, d["tx_hash"]) ||
					native != (d["log_index"] == nil) {
					t.Fatalf("deposit %v (payer %s, hashes %v)", d, dj.Chain.PayerAddress, hashes)
				}
				sum.Add(sum, units(t, d["amount"].(string)))
			}
			if len(deps) == 0 || len(hashes) != len(deps) || sum.Cmp(units(t, done["crypto_amount_received"].(string))) != 0 {
				t.Fatalf("deposits %v add up to %s, received %v", deps, sum, done["crypto_amount_received"])
			}
			refunds, _ := done["refunds"].([]any)
			switch {
			case tc.refunded == "" && len(refunds) != 0:
				t.Fatalf("refunds %v, want none", refunds)
			case tc.refunded != "":
				if len(refunds) != 1 || refunds[0].(map[string]any)["amount"] != tc.refunded ||
					refunds[0].(map[string]any)["to_address"] != dj.Chain.PayerAddress {
					t.Fatalf("refunds %v, want %s to the payer %s", refunds, tc.refunded, dj.Chain.PayerAddress)
				}
			}
		})
	}
}

// paidEvents are the webhook events of an order paid at once and executed.
var paidEvents = []rampway.EventName{"order.created", "order.deposit.processing", "order.deposit.success", "order.smartcontract.processing",
	"order.smartcontract.success", "order.success"}

func mustInt(t *testing.T, s string) int64 {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("not an integer: %q", s)
	}
	return n.Int64()
}

func ptr[T any](v T) *T { return &v }

// The webhook log and resend from the admin CLI, on a running dev server's data directory.
func TestAdminCLIWebhooks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dj, _ := startDev(t, dir)
	j := newJourney(t, dj)
	o := j.order(t, 0, map[string]any{"to": dj.Chain.PayerAddress, "quantity": "1"})
	id := o["order_id"].(string)
	j.hooks.wantEvents(t, id, []rampway.EventName{"order.created"})
	cli := func(args ...string) map[string]any {
		t.Helper()
		var out bytes.Buffer
		if err := run(t.Context(), append([]string{"admin", "--data-dir", dir}, args...), noEnv, &out); err != nil {
			t.Fatalf("admin %v: %v\n%s", args, err, out.String())
		}
		var v map[string]any
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			t.Fatalf("admin %v: %v\n%s", args, err, out.String())
		}
		return v
	}
	// The receiver has the event; the delivery's record follows its 200 (read until it does).
	var log []any
	var first map[string]any
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		log = cli("webhooks", "list", dj.Merchant.MerchantID, id)["data"].([]any)
		if first = log[0].(map[string]any); first["status"] != "pending" || time.Now().After(deadline) {
			break
		}
	}
	attempts := first["attempts"].([]any)
	if len(log) != 1 || first["event_name"] != "order.created" || first["status"] != "delivered" || len(attempts) != 1 ||
		attempts[0].(map[string]any)["status_code"] != float64(200) {
		t.Fatalf("webhook log: %v", log)
	}
	// The resend answers as the HTTP API does: pending again, with the attempts made so far.
	if r := cli("webhooks", "resend", dj.Merchant.MerchantID, id, first["event_id"].(string)); r["status"] != "pending" ||
		len(r["attempts"].([]any)) != 1 || r["delivered_at"] != nil {
		t.Fatalf("resend: %v", r)
	}
	j.hooks.wantEvents(t, id, []rampway.EventName{"order.created", "order.created"}) // the same event, again
	var out bytes.Buffer
	if err := run(t.Context(), []string{"admin", "--data-dir", dir, "webhooks", "resend", dj.Merchant.MerchantID, id, "evt_nope"}, noEnv, &out); err == nil ||
		!strings.Contains(err.Error(), "not found") {
		t.Fatalf("resend of an unknown event: %v", err)
	}
}
