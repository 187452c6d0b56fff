package main

import (
	"context"
	"crypto/ecdsa"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	_ "modernc.org/sqlite"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/contract"
)

// refundEnv is a chain mined by hand, a `rampway serve` (in this process, or a binary that can
// be killed) with refund policies, a merchant with the demo NFT's mint and a webhook receiver.
type refundEnv struct {
	t            *testing.T
	ch           *devchain.Chain
	c            *ethclient.Client
	owner        *ecdsa.PrivateKey
	hotKey       *ecdsa.PrivateKey
	payerKey     *ecdsa.PrivateKey
	payer        common.Address
	dbPath       string
	cfgPath      string
	base         string
	apiKey       string
	merchantID   string
	functionID   string
	hooks        *receiver
	hookURL      string
	out          *lockedBuffer
	stopMining   func()
	miningPaused chan bool
}

const refundAdmin = "Bearer dev-admin-token-0123456789abcdef0123"

// newRefundEnv starts the chain and writes the configuration: ETH refunds automatic up to
// autoMax, dust below dust.
func newRefundEnv(t *testing.T, autoMax, dust string) *refundEnv {
	t.Helper()
	e := newChainEnv(t)
	e.cfgPath = devServeConfig(t, e.dbPath, e.ch.RPCURL(), 1, crypto.PubkeyToAddress(e.hotKey.PublicKey), fmt.Sprintf(`webhooks: {timeout: 10s, retry_first: 1s}
refunds:
  assets:
    - {network: devnet, symbol: ETH, auto_max: %q, dust: %q}
`, autoMax, dust))
	return e
}

// newChainEnv is what a refundEnv has before its configuration: the embedded chain, the hot
// wallet and the payer funded on it, a client, a database path and a webhook receiver.
func newChainEnv(t *testing.T) *refundEnv {
	t.Helper()
	e := &refundEnv{t: t}
	e.hotKey, _ = crypto.GenerateKey()
	e.payerKey, _ = crypto.GenerateKey()
	e.payer = crypto.PubkeyToAddress(e.payerKey.PublicKey)
	ether := new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))
	e.ch, e.owner = devchaintest.StartOwned(t, devchain.Funding{Address: crypto.PubkeyToAddress(e.hotKey.PublicKey), Wei: ether},
		devchain.Funding{Address: e.payer, Wei: ether})
	var err error
	if e.c, err = ethclient.Dial(e.ch.RPCURL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.c.Close)
	e.dbPath = filepath.Join(t.TempDir(), "rampway.db")
	e.hooks = &receiver{events: map[string][]string{}}
	hookSrv := httptest.NewServer(e.hooks)
	t.Cleanup(hookSrv.Close)
	e.hookURL = hookSrv.URL
	return e
}

func (e *refundEnv) env() []string {
	return []string{"RAMPWAY_HOT_WALLET_KEY=" + hex.EncodeToString(crypto.FromECDSA(e.hotKey))}
}

// serve runs `rampway serve` in this process and onboards the merchant.
func (e *refundEnv) serve() {
	e.t.Helper()
	env := e.env()
	e.base, e.out = serveInProcess(e.t, e.cfgPath, func(k string) string {
		if k == "RAMPWAY_HOT_WALLET_KEY" {
			return strings.TrimPrefix(env[0], k+"=")
		}
		return ""
	})
	e.onboard()
}

// onboard creates the merchant, its key, its webhook secret and the mint, through the admin API.
func (e *refundEnv) onboard() {
	t := e.t
	m := call(t, "POST", e.base+"/admin/merchants", refundAdmin, map[string]any{"name": "Refund Shop", "webhook_url": "https://hooks.example/x"})
	e.merchantID = m["merchant_id"].(string)
	e.hooks.secret = call(t, "POST", e.base+"/admin/merchants/"+e.merchantID+"/webhook-secret", refundAdmin, nil)["webhook_secret"].(string)
	e.apiKey = call(t, "POST", e.base+"/admin/merchants/"+e.merchantID+"/api-keys", refundAdmin, map[string]any{})["api_key"].(string)
	frag, _ := contract.FunctionFragment(devchain.NFTABI(), "mint")
	f := call(t, "POST", e.base+"/admin/merchants/"+e.merchantID+"/contract-functions", refundAdmin, map[string]any{"network": "devnet",
		"contract_address": e.ch.Contracts().NFT.Hex(), "abi": json.RawMessage(frag), "default_gas_limit": 200000, "payable_symbol": "ETH"})
	e.functionID = f["smartContractFunctionId"].(string)
}

// mineEvery mines a block every d until the test ends.
func (e *refundEnv) mineEvery(d time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			_, _ = e.ch.Mine()
			select {
			case <-ctx.Done():
			case <-time.After(d):
			}
		}
	}()
	e.t.Cleanup(func() { cancel(); <-done })
}

// order creates an order for the mint of one NFT to the payer.
func (e *refundEnv) order() map[string]any {
	return call(e.t, "POST", e.base+"/mint/merchant/hosted/nftCheckout/order", e.apiKey, map[string]any{"merchant_id": e.merchantID, "crypto_symbol": "ETH",
		"crypto_network": "devnet", "merchant_user_id": "u1", "merchant_redirect_url": "https://shop.example/done", "merchant_webhook_url": e.hookURL,
		"contractExecution": map[string]any{"smartContractFunctionId": e.functionID, "function_args": map[string]any{"to": e.payer.Hex(), "quantity": "1"},
			"payment":        map[string]any{"payableCryptoSymbol": "ETH", "totalValue": rampway.FormatUnits(big.NewInt(devchain.NFTPriceWei), 18)},
			"network_params": map[string]any{"networkName": "devnet"}}})
}

func (e *refundEnv) get(id string) map[string]any {
	return call(e.t, "GET", e.base+"/mint/merchant/hosted/nftCheckout/order/"+id, e.apiKey, nil)
}

// pay sends amount wei from the payer to the order's deposit address and returns the receipt.
func (e *refundEnv) pay(o map[string]any, amount *big.Int) *types.Receipt {
	e.t.Helper()
	nonce, err := e.c.PendingNonceAt(e.t.Context(), e.payer)
	if err != nil {
		e.t.Fatal(err)
	}
	tx := devchaintest.SignTx(e.t, e.c, e.ch.ChainID(), e.payerKey, nonce, common.HexToAddress(o["deposit_address"].(string)), amount, nil, 21_000)
	if err := e.c.SendTransaction(e.t.Context(), tx); err != nil {
		e.t.Fatal(err)
	}
	return waitMined(e.t, e.c, tx.Hash(), time.Minute)
}

// waitRefunds waits until the order is in status and its refunds' statuses are want.
func (e *refundEnv) waitRefunds(id string, status string, want ...rampway.RefundStatus) map[string]any {
	e.t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for {
		v := e.get(id)
		var got []rampway.RefundStatus
		for _, r := range v["refunds"].([]any) {
			got = append(got, rampway.RefundStatus(r.(map[string]any)["status"].(string)))
		}
		if v["status"] == status && slices.Equal(got, want) {
			return v
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("order %s: %v with refunds %v, want %s with %v\n%v\n%s", id, v["status"], got, status, want, v["refunds"], e.log())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// wantEventsInOrder waits until each sequence of seqs is a subsequence of the order's
// events (events of the execution and of a refund interleave as their blocks come), with no
// event twice.
func (e *refundEnv) wantEventsInOrder(id string, seqs ...[]rampway.EventName) {
	e.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		e.hooks.mu.Lock()
		got := slices.Clone(e.hooks.events[id])
		e.hooks.mu.Unlock()
		ok := true
		for _, seq := range seqs {
			i := 0
			for _, ev := range got {
				if i < len(seq) && ev == string(seq[i]) {
					i++
				}
			}
			ok = ok && i == len(seq)
		}
		seen := map[string]bool{}
		for _, ev := range got {
			if seen[ev] && ev != string(rampway.EventDepositSuccess) {
				e.t.Fatalf("events of %s: %v: %s twice", id, got, ev)
			}
			seen[ev] = true
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("events of %s: %v, want each of %v in order", id, got, seqs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// log is the server's output, when it runs in this process.
func (e *refundEnv) log() string {
	if e.out == nil {
		return ""
	}
	var keep []string
	for _, l := range strings.Split(e.out.String(), "\n") {
		if strings.Contains(l, "refund") || strings.Contains(l, "error") || strings.Contains(l, "ERROR") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// checkPaidBack checks a refund as the order API shows it against the chain: amount =
// owed, amount_sent + network_fee = amount to the wei, its transaction sent amount_sent from
// the hot wallet to the payer, mined and successful, and the payer's balance rose by exactly
// that in its block.
func (e *refundEnv) checkPaidBack(r map[string]any, owed *big.Int) {
	t := e.t
	t.Helper()
	amount, _ := rampway.ParseUnits(r["amount"].(string), 18)
	fee, _ := rampway.ParseUnits(r["network_fee"].(string), 18)
	sent, _ := rampway.ParseUnits(r["amount_sent"].(string), 18)
	if amount.Cmp(owed) != 0 || new(big.Int).Add(sent, fee).Cmp(amount) != 0 || fee.Sign() <= 0 || sent.Sign() <= 0 {
		t.Fatalf("refund %v: amount %s (owed %s), fee %s, sent %s", r, amount, owed, fee, sent)
	}
	if r["to_address"] != e.payer.Hex() {
		t.Fatalf("refund to %v, paid by %s", r["to_address"], e.payer.Hex())
	}
	hash := common.HexToHash(r["tx_hash"].(string))
	tx, _, err := e.c.TransactionByHash(t.Context(), hash)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := e.c.TransactionReceipt(t.Context(), hash)
	if err != nil || rec.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("refund tx %s: %v %+v", hash.Hex(), err, rec)
	}
	from, _ := types.Sender(types.LatestSignerForChainID(e.ch.ChainID()), tx)
	if *tx.To() != e.payer || tx.Value().Cmp(sent) != 0 || from != crypto.PubkeyToAddress(e.hotKey.PublicKey) {
		t.Fatalf("refund tx from %s to %s of %s, want from the hot wallet to %s of %s", from.Hex(), tx.To().Hex(), tx.Value(), e.payer.Hex(), sent)
	}
	before, _ := e.c.BalanceAt(t.Context(), e.payer, new(big.Int).Sub(rec.BlockNumber, big.NewInt(1)))
	after, _ := e.c.BalanceAt(t.Context(), e.payer, rec.BlockNumber)
	if got := new(big.Int).Sub(after, before); got.Cmp(sent) != 0 {
		t.Fatalf("the payer's balance rose by %s in the refund's block, sent %s", got, sent)
	}
}

// startKillable runs the binary's `rampway serve` (which a test may SIGKILL) and onboards the
// merchant.
func (e *refundEnv) startKillable(bin string) *server {
	e.t.Helper()
	srv := startServer(e.t, bin, e.cfgPath, e.env()...)
	e.base = srv.base
	e.onboard()
	return srv
}

// mine mines one block.
func (e *refundEnv) mine() {
	e.t.Helper()
	if _, err := e.ch.Mine(); err != nil {
		e.t.Fatal(err)
	}
}

// send sends amount wei from the payer to the order's deposit address, without waiting for
// it to be mined.
func (e *refundEnv) send(id string, amount *big.Int) {
	e.t.Helper()
	nonce, _ := e.c.PendingNonceAt(e.t.Context(), e.payer)
	pay := devchaintest.SignTx(e.t, e.c, e.ch.ChainID(), e.payerKey, nonce, common.HexToAddress(e.get(id)["deposit_address"].(string)), amount, nil, 21_000)
	if err := e.c.SendTransaction(e.t.Context(), pay); err != nil {
		e.t.Fatal(err)
	}
}

// killWhilePending waits until the transaction hash is in the node's pool (broadcast, not
// mined), then SIGKILLs srv.
func (e *refundEnv) killWhilePending(srv *server, hash common.Hash) {
	e.t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, pending, err := e.c.TransactionByHash(e.t.Context(), hash); err == nil && pending {
			break
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("refund %s never reached the node\n%s", hash.Hex(), srv.out)
		}
	}
	srv.kill(e.t)
}

// refundOf returns the order's only refund.
func refundOf(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	rs := v["refunds"].([]any)
	if len(rs) != 1 {
		t.Fatalf("refunds %v, want one", rs)
	}
	return rs[0].(map[string]any)
}

// expire ends the order's time now, as the clock would (the expiry worker does the rest).
func (e *refundEnv) expire(id string) {
	e.t.Helper()
	db, err := sql.Open("sqlite", "file:"+e.dbPath+"?_pragma=busy_timeout(10000)")
	if err != nil {
		e.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE orders SET expires_at = ? WHERE id = ?`, time.Now().Add(-time.Second).UnixMicro(), id); err != nil {
		e.t.Fatal(err)
	}
}

// Area A's refunds, paid on chain by a `rampway serve` on the embedded chain: an overpayment's
// excess, a payment after expiry, the payment of an order whose mint sold out, each back at the
// payer to the wei, less the network fee the record states; the merchant hears each step.
func TestRefundsPaidOnChain(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t, "1", "0")
	e.serve()
	e.mineEvery(200 * time.Millisecond)

	// 1.5x: SUCCESS, and the excess back.
	o := e.order()
	id := o["order_id"].(string)
	price, _ := rampway.ParseUnits(o["crypto_amount"].(string), 18)
	paid := new(big.Int).Div(new(big.Int).Mul(price, big.NewInt(3)), big.NewInt(2))
	e.pay(e.get(id), paid)
	v := e.waitRefunds(id, "SUCCESS", rampway.RefundDone)
	e.checkPaidBack(refundOf(t, v), new(big.Int).Sub(paid, price))
	e.wantEventsInOrder(id, []rampway.EventName{rampway.EventCreated, rampway.EventDepositProcessing, rampway.EventDepositSuccess, rampway.EventSmartContractProcessing,
		rampway.EventSmartContractSuccess, rampway.EventSuccess}, []rampway.EventName{rampway.EventDepositSuccess, rampway.EventRefundProcessing, rampway.EventRefunded})

	// Paid after expiry: REFUND_PENDING, then REFUNDED, the whole payment back less the fee.
	o = e.order()
	id = o["order_id"].(string)
	e.expire(id)
	e.waitRefunds(id, "EXPIRED")
	late, _ := rampway.ParseUnits(o["crypto_amount"].(string), 18)
	e.pay(e.get(id), late)
	v = e.waitRefunds(id, "REFUNDED", rampway.RefundDone)
	e.checkPaidBack(refundOf(t, v), late)
	e.wantEventsInOrder(id, []rampway.EventName{rampway.EventCreated, rampway.EventDepositFailure, rampway.EventDepositSuccess, rampway.EventRefundPending,
		rampway.EventRefundProcessing, rampway.EventRefunded})

	// Sold out between the order and its payment: FAILED, then REFUNDED.
	o = e.order()
	id = o["order_id"].(string)
	nft := bindings.NewDemoNFT()
	minted := new(big.Int).SetBytes(mustCallView(t, e.c, e.ch.Contracts().NFT, nft.PackTotalMinted()))
	e.ownerSend(e.ch.Contracts().NFT, nft.PackSetMaxSupply(minted))
	owed, _ := rampway.ParseUnits(o["crypto_amount"].(string), 18)
	e.pay(e.get(id), owed)
	v = e.waitRefunds(id, "REFUNDED", rampway.RefundDone)
	if !strings.Contains(v["failure_reason"].(string), "sold out") {
		t.Fatalf("failure_reason %v", v["failure_reason"])
	}
	e.checkPaidBack(refundOf(t, v), owed)
	e.wantEventsInOrder(id, []rampway.EventName{rampway.EventCreated, rampway.EventDepositProcessing, rampway.EventDepositSuccess, rampway.EventSmartContractFailure,
		rampway.EventRefundProcessing, rampway.EventRefunded})
}

// mustCallView reads a view function.
func mustCallView(t *testing.T, c *ethclient.Client, to common.Address, data []byte) []byte {
	t.Helper()
	out, err := c.CallContract(t.Context(), ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ownerSend sends a call from the demo contracts' owner and waits for it.
func (e *refundEnv) ownerSend(to common.Address, data []byte) {
	e.t.Helper()
	owner := crypto.PubkeyToAddress(e.owner.PublicKey)
	nonce, err := e.c.PendingNonceAt(e.t.Context(), owner)
	if err != nil {
		e.t.Fatal(err)
	}
	tx := devchaintest.SignTx(e.t, e.c, e.ch.ChainID(), e.owner, nonce, to, new(big.Int), data, 100_000)
	if err := e.c.SendTransaction(e.t.Context(), tx); err != nil {
		e.t.Fatal(err)
	}
	if r := waitMined(e.t, e.c, tx.Hash(), time.Minute); r.Status != types.ReceiptStatusSuccessful {
		e.t.Fatalf("owner call to %s reverted", to.Hex())
	}
}

// A real `rampway serve` is killed with SIGKILL once its refund transaction is broadcast (in
// the node's pool, not mined); the refund is mined while it is down. After the restart the
// refund is recorded paid with that transaction: the payer is paid back exactly once, and the
// hot wallet sent nothing else.
func TestRefundSIGKILLPaysOnce(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	e := newRefundEnv(t, "1", "0")
	srv := e.startKillable(bin)
	mine := e.mine
	o := e.order()
	id := o["order_id"].(string)
	price, _ := rampway.ParseUnits(o["crypto_amount"].(string), 18)
	paid := new(big.Int).Mul(price, big.NewInt(2))
	e.send(id, paid)
	// Blocks until the refund is sent: the payment, its confirmation, the call and the refund
	// broadcast (in the pool, not mined: no block after it).
	var sent map[string]any
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		v := e.get(id)
		if rs := v["refunds"].([]any); len(rs) == 1 && rs[0].(map[string]any)["status"] == string(rampway.RefundSent) {
			sent = rs[0].(map[string]any)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("refund of %s not sent: %v\n%s", id, v["refunds"], srv.out)
		}
		if len(v["refunds"].([]any)) == 0 {
			mine() // the refund is recorded with the payment's confirmation; no block after that
		}
	}
	hash := common.HexToHash(sent["tx_hash"].(string))
	e.killWhilePending(srv, hash)
	mine() // the refund (and the call, if it was still waiting) are mined while rampway is down
	mine()

	srv = startServer(t, bin, e.cfgPath, e.env()...)
	e.base = srv.base
	var v map[string]any
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		mine()
		v = e.get(id)
		if v["status"] == "SUCCESS" && refundOf(t, v)["status"] == string(rampway.RefundDone) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %v, refunds %v after the restart\n%s", v["status"], v["refunds"], srv.out)
		}
	}
	r := refundOf(t, v)
	if r["tx_hash"] != hash.Hex() {
		t.Fatalf("refund recorded as %v, sent as %s", r["tx_hash"], hash.Hex())
	}
	e.checkPaidBack(r, new(big.Int).Sub(paid, price))
	// Nothing else leaves the hot wallet in the executor's later steps: an order paid now is
	// executed by them, and the wallet's nonce counts the first call, the one refund and that
	// order's call.
	next := e.order()
	nextID := next["order_id"].(string)
	nextPrice, _ := rampway.ParseUnits(next["crypto_amount"].(string), 18)
	e.send(nextID, nextPrice)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		mine()
		if v = e.get(nextID); v["status"] == "SUCCESS" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the next order is %v\n%s", v["status"], srv.out)
		}
	}
	if n, err := e.c.PendingNonceAt(t.Context(), crypto.PubkeyToAddress(e.hotKey.PublicKey)); err != nil || n != 3 { // mined or not
		t.Fatalf("hot wallet nonce %d (%v), want 3: the first call, one refund, the next order's call", n, err)
	}
}

// The refund policy: an excess above the asset's automatic limit waits for an operator's
// approval (admin API), then is paid; one that would send no more than the dust threshold
// after its fee is not sent, and the merchant hears order.refund.failure.
func TestRefundPolicy(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t, "0.01", "0.001")
	e.serve()
	e.mineEvery(200 * time.Millisecond)

	// 0.05 ETH too much: above the 0.01 limit.
	o := e.order()
	id := o["order_id"].(string)
	price, _ := rampway.ParseUnits(o["crypto_amount"].(string), 18)
	excess, _ := rampway.ParseUnits("0.05", 18)
	e.pay(e.get(id), new(big.Int).Add(price, excess))
	v := e.waitRefunds(id, "SUCCESS", rampway.RefundAwaitingApproval)
	r := refundOf(t, v)
	if !strings.Contains(r["status_reason"].(string), "above the automatic refund limit of 0.01 ETH") || r["tx_hash"] != "" {
		t.Fatalf("held refund %v", r)
	}
	listed := call(t, "GET", e.base+"/admin/refunds?status=awaiting_approval", refundAdmin, nil)
	if b, _ := json.Marshal(listed); !strings.Contains(string(b), r["refund_id"].(string)) {
		t.Fatalf("admin list of refunds awaiting approval: %s", b)
	}

	// 0.0005 ETH too much: below the dust threshold once the fee is off. Nothing is sent.
	dust := e.order()
	dustID := dust["order_id"].(string)
	price, _ = rampway.ParseUnits(dust["crypto_amount"].(string), 18)
	tiny, _ := rampway.ParseUnits("0.0005", 18)
	e.pay(e.get(dustID), new(big.Int).Add(price, tiny))
	v = e.waitRefunds(dustID, "SUCCESS", rampway.RefundDust)
	dr := refundOf(t, v)
	if dr["tx_hash"] != "" || dr["amount_sent"] != "0" || dr["network_fee"] == "" || !strings.Contains(dr["status_reason"].(string), "dust threshold of 0.001 ETH") {
		t.Fatalf("dust refund %v", dr)
	}
	e.wantEventsInOrder(dustID, []rampway.EventName{rampway.EventSuccess}, []rampway.EventName{rampway.EventDepositSuccess, rampway.EventRefundFailure})

	// The executor's steps that settled that refund, recorded after the first was held, left
	// the first held: no refund above the limit goes out without an approval.
	if got := refundOf(t, e.get(id)); got["status"] != string(rampway.RefundAwaitingApproval) {
		t.Fatalf("refund %v sent without approval", got)
	}
	call(t, "POST", e.base+"/admin/refunds/"+r["refund_id"].(string)+"/approve", refundAdmin, map[string]any{"approved_by": "alice"})
	v = e.waitRefunds(id, "SUCCESS", rampway.RefundDone)
	e.checkPaidBack(refundOf(t, v), excess)
}

// A payment forwarded by a contract (Multicall3 aggregate3Value on rampway dev, which traces
// its blocks) pays 1.5x: the order succeeds, and the excess, owed to a contract that may not
// take it back, waits for an address. The page asks the user; the user answers with an
// account, and the excess reaches it, less the stated fee.
func TestRefundToContractSenderAsksTheUser(t *testing.T) {
	t.Parallel()
	dj, _ := startDev(t, t.TempDir())
	o := createExample(t, dj)
	id := o["order_id"].(string)
	price, _ := rampway.ParseUnits(o["crypto_amount"].(string), 18)
	paid := new(big.Int).Div(new(big.Int).Mul(price, big.NewInt(3)), big.NewInt(2))
	deposit := common.HexToAddress(getOrder(t, dj, id)["deposit_address"].(string))
	payer, _ := crypto.HexToECDSA(strings.TrimPrefix(dj.Chain.PayerPrivateKey, "0x"))
	c := dialChain(t, dj)
	data := bindings.NewMulticall3().PackAggregate3Value([]bindings.Multicall3Call3Value{{Target: deposit, Value: paid}})
	if r := send(t, c, payer, common.HexToAddress(dj.Contracts.Multicall3), paid, data); r.Status != types.ReceiptStatusSuccessful {
		t.Fatal("the forward failed")
	}
	waitOrder := func(cond func(v map[string]any) bool, what string) map[string]any {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			v := getOrder(t, dj, id)
			if cond(v) {
				return v
			}
			if time.Now().After(deadline) {
				t.Fatalf("order %s: %v %v, want %s", id, v["status"], v["refunds"], what)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	v := waitOrder(func(v map[string]any) bool {
		rs := v["refunds"].([]any)
		return v["status"] == "SUCCESS" && len(rs) == 1 && rs[0].(map[string]any)["status"] == string(rampway.RefundAwaitingAddress)
	}, "SUCCESS with its refund awaiting an address")
	r := refundOf(t, v)
	if !strings.Contains(r["status_reason"].(string), dj.Contracts.Multicall3) || r["to_address"] != dj.Contracts.Multicall3 {
		t.Fatalf("held refund %v: owed to the contract %s", r, dj.Contracts.Multicall3)
	}

	// The page shows the question; the user answers, first with the contract again (refused,
	// the page says why), then with an account of theirs.
	gateway, _ := url.Parse(o["gateway_url"].(string))
	res, err := http.Get(o["gateway_url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	page := string(raw)
	if !strings.Contains(page, `name="refund_id" value="`+r["refund_id"].(string)+`"`) {
		t.Fatalf("the page does not ask for the refund's address:\n%s", page)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	answer := func(address string) (int, string) {
		res, err := noRedirect.PostForm(gateway.Scheme+"://"+gateway.Host+"/checkout/refund-address", url.Values{"order_id": {id}, "hash": {gateway.Query().Get("hash")},
			"refund_id": {r["refund_id"].(string)}, "address": {address}})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := answer(deposit.Hex()); code != http.StatusBadRequest || !strings.Contains(body, "deposit address") {
		t.Fatalf("the deposit address as the refund's: %d\n%s", code, body)
	}
	user, _ := crypto.GenerateKey()
	to := crypto.PubkeyToAddress(user.PublicKey)
	if code, _ := answer(to.Hex()); code != http.StatusSeeOther {
		t.Fatalf("an account as the refund's address: %d", code)
	}
	v = waitOrder(func(v map[string]any) bool { return refundOf(t, v)["status"] == string(rampway.RefundDone) }, "its refund paid")
	r = refundOf(t, v)
	sent, _ := rampway.ParseUnits(r["amount_sent"].(string), 18)
	fee, _ := rampway.ParseUnits(r["network_fee"].(string), 18)
	if r["to_address"] != to.Hex() || new(big.Int).Add(sent, fee).Cmp(new(big.Int).Sub(paid, price)) != 0 {
		t.Fatalf("refund %v, owed %s", r, new(big.Int).Sub(paid, price))
	}
	if bal, _ := c.BalanceAt(t.Context(), to, nil); bal.Cmp(sent) != 0 {
		t.Fatalf("the user's account holds %s, sent %s", bal, sent)
	}
}
