package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/contract"
)

// buildBinary returns the rampway binary, built once for the tests of this run (into
// binDir, which TestMain removes).
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, err := builtBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// binDir holds the binary builtBinary builds; TestMain makes and removes it.
var binDir string

var builtBinary = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(binDir, "rampway")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build: %v\n%s", err, out)
	}
	return bin, nil
})

func TestMain(m *testing.M) {
	var err error
	if binDir, err = os.MkdirTemp("", "rampway-test-bin"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

// server is a `rampway serve` process.
type server struct {
	cmd  *exec.Cmd
	out  *lockedBuffer
	base string
	done chan error
}

var listening = regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)

// serveInProcess runs `rampway serve --config cfgPath` in this process until the test ends and
// returns its base URL once it listens, and its output.
func serveInProcess(t *testing.T, cfgPath string, getenv func(string) string) (string, *lockedBuffer) {
	t.Helper()
	base, out, stop := startServe(t, cfgPath, getenv)
	t.Cleanup(func() {
		if err := stop(); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("serve: %v", err)
		}
	})
	return base, out
}

// startServe runs `rampway serve` in this process until stop, which returns how it ended.
func startServe(t *testing.T, cfgPath string, getenv func(string) string) (string, *lockedBuffer, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &lockedBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve", "--config", cfgPath}, getenv, out) }()
	var once sync.Once
	var ended error
	stop := func() error {
		once.Do(func() { cancel(); ended = <-done })
		return ended
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-done:
			cancel()
			t.Fatalf("serve ended: %v\n%s", err, out)
		default:
		}
		if m := listening.FindStringSubmatch(out.String()); m != nil {
			return "http://" + m[1], out, stop
		}
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("serve not listening after a minute\n%s", out)
		}
	}
}

// devServeConfig writes a dev-mode configuration of one network, devnet at rpcURL, with
// confirmations, the hot wallet hot, a fresh deposit seed and a SQLite file at dbPath, and
// extra YAML after it; it returns the file's path.
func devServeConfig(t *testing.T, dbPath, rpcURL string, confirmations int, hot common.Address, extra string) string {
	t.Helper()
	mnemonic, _ := hd.NewMnemonic()
	seed, _ := hd.FromMnemonic(mnemonic, "")
	xpub, _ := seed.XPub()
	cfgPath := filepath.Join(t.TempDir(), "rampway.yaml")
	cfg := fmt.Sprintf(`mode: dev
http: {addr: "127.0.0.1:0", public_url: "http://127.0.0.1:9"}
database: {driver: sqlite, path: %q}
admin: {token: dev-admin-token-0123456789abcdef0123}
secrets: {hash_secret: dev-hash-secret-0123456789abcdef0123}
networks:
  - name: devnet
    chain_id: %d
    rpc_urls: [%q]
    confirmations: %d
    native: {symbol: ETH, min_amount: "0.000001", max_amount: "100"}
checkout:
  deposit_xpub: %s
  hot_wallet_address: %q
  prices: {ETH: "3000", EUR: "1.08"}
`, dbPath, devchain.ChainID, rpcURL, confirmations, xpub, hot.Hex()) + extra
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfgPath
}

func startServer(t *testing.T, bin, cfgPath string, env ...string) *server {
	t.Helper()
	s := &server{cmd: exec.Command(bin, "serve", "--config", cfgPath), out: &lockedBuffer{}, done: make(chan error, 1)}
	s.cmd.Env = append(os.Environ(), env...)
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() { _ = s.cmd.Process.Kill(); <-s.done })
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := listening.FindStringSubmatch(s.out.String()); m != nil {
			s.base = "http://" + m[1]
			return s
		}
		select {
		case err := <-s.done:
			t.Fatalf("serve exited: %v\n%s", err, s.out)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("serve not listening after 30s\n%s", s.out)
	return nil
}

// kill ends the process with SIGKILL: no shutdown code runs.
func (s *server) kill(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.done
	s.done <- nil // for the cleanup
}

func call(t *testing.T, method, url, auth string, body any) map[string]any {
	t.Helper()
	status, v := apiCall(t, method, url, auth, body)
	if status >= 300 {
		t.Fatalf("%s %s: %d %v", method, url, status, v)
	}
	return v
}

// apiCall sends a merchant API or admin request and returns the status and the decoded body.
func apiCall(t *testing.T, method, url, auth string, body any) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = strings.NewReader(string(raw))
	}
	req, _ := http.NewRequest(method, url, r)
	req.Header.Set("Content-Type", "application/json")
	if strings.HasPrefix(auth, "Bearer ") {
		req.Header.Set("Authorization", auth)
	} else if auth != "" {
		req.Header.Set("X-API-KEY", auth)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v map[string]any
	data, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s %s: %d %s", method, url, res.StatusCode, data)
	}
	return res.StatusCode, v
}

// A real `rampway serve` process is killed with SIGKILL twice: once with a payment seen but not
// yet confirmed, once with the execution broadcast but not mined. Each restart carries on from
// the database: the payment is credited once, the order executed once.
func TestSIGKILLExecutesOnce(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	hotKey, _ := crypto.GenerateKey()
	payerKey, _ := crypto.GenerateKey()
	hot, payer := crypto.PubkeyToAddress(hotKey.PublicKey), crypto.PubkeyToAddress(payerKey.PublicKey)
	ether := new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))
	ch := devchaintest.Start(t, devchain.Funding{Address: hot, Wei: ether}, devchain.Funding{Address: payer, Wei: ether})
	c, err := ethclient.Dial(ch.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Dev mode: the merchant's webhook receiver is this test's loopback server. The attempts'
	// timeout is short for the restarted process to take the hung delivery over soon (its lease
	// is twice that and 5 s), long enough for the receiver's answers on a loaded machine (an
	// answer after the timeout would be delivered again).
	cfgPath := devServeConfig(t, filepath.Join(t.TempDir(), "rampway.db"), ch.RPCURL(), 2, hot, "webhooks: {timeout: 5s}\n")
	env := "RAMPWAY_HOT_WALLET_KEY=" + hex.EncodeToString(crypto.FromECDSA(hotKey))
	srv := startServer(t, bin, cfgPath, env)

	// Onboarding through the admin API, as an operator would.
	admin := "Bearer dev-admin-token-0123456789abcdef0123"
	// The merchant's webhook endpoint hangs on the first delivery: rampway dies with it in flight.
	hooks := &receiver{events: map[string][]string{}}
	var first sync.Once
	hang := make(chan struct{})
	hookSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hung := false
		first.Do(func() { hung = true })
		if hung {
			select {
			case <-hang:
			case <-r.Context().Done():
			}
			return
		}
		hooks.ServeHTTP(w, r)
	}))
	defer hookSrv.Close()
	defer close(hang) // before the server closes: it waits for its handlers
	m := call(t, "POST", srv.base+"/admin/merchants", admin, map[string]any{"name": "Crash Test Shop", "webhook_url": "https://hooks.example/x"})
	mid := m["merchant_id"].(string)
	hooks.secret = call(t, "POST", srv.base+"/admin/merchants/"+mid+"/webhook-secret", admin, nil)["webhook_secret"].(string)
	key := call(t, "POST", srv.base+"/admin/merchants/"+mid+"/api-keys", admin, map[string]any{})["api_key"].(string)
	frag, _ := contract.FunctionFragment(devchain.NFTABI(), "mint")
	f := call(t, "POST", srv.base+"/admin/merchants/"+mid+"/contract-functions", admin, map[string]any{"network": "devnet",
		"contract_address": ch.Contracts().NFT.Hex(), "abi": json.RawMessage(frag), "default_gas_limit": 200000, "payable_symbol": "ETH"})
	newOrder := func(base string, recipient common.Address) map[string]any {
		return call(t, "POST", base+"/mint/merchant/hosted/nftCheckout/order", key, map[string]any{"merchant_id": mid, "crypto_symbol": "ETH",
			"crypto_network": "devnet", "merchant_user_id": "u1", "merchant_redirect_url": "https://shop.example/done", "merchant_webhook_url": hookSrv.URL,
			"contractExecution": map[string]any{"smartContractFunctionId": f["smartContractFunctionId"], "function_args": map[string]any{"to": recipient.Hex(), "quantity": "1"},
				"payment":        map[string]any{"payableCryptoSymbol": "ETH", "totalValue": rampway.FormatUnits(big.NewInt(devchain.NFTPriceWei), 18)},
				"network_params": map[string]any{"networkName": "devnet"}}})
	}
	recipient := common.HexToAddress("0x000000000000000000000000000000000000c0de")
	o := newOrder(srv.base, recipient)
	id := o["order_id"].(string)
	getOrder := func(base, id string) map[string]any {
		return call(t, "GET", base+"/mint/merchant/hosted/nftCheckout/order/"+id, key, nil)
	}
	get := func(base string) map[string]any { return getOrder(base, id) }
	wait := func(s *server, status string) map[string]any {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			v := get(s.base)
			if v["status"] == status {
				return v
			}
			if time.Now().After(deadline) {
				t.Fatalf("order still %v, want %s\n%s", v["status"], status, s.out)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	mine := func() {
		t.Helper()
		if _, err := ch.Mine(); err != nil {
			t.Fatal(err)
		}
	}

	// The user pays; one block: seen, not yet confirmed (2 confirmations).
	amount, _ := rampway.ParseUnits(o["crypto_amount"].(string), 18)
	pay := devchaintest.SignTx(t, c, ch.ChainID(), payerKey, 0, common.HexToAddress(get(srv.base)["deposit_address"].(string)), amount, nil, 21_000)
	if err := c.SendTransaction(t.Context(), pay); err != nil {
		t.Fatal(err)
	}
	mine()
	wait(srv, "DEPOSIT_PROCESSING")
	srv.kill(t)

	// Restarted: the next block confirms the payment, credited once; the call is broadcast.
	srv = startServer(t, bin, cfgPath, env)
	mine()
	v := wait(srv, "SMARTCONTRACT_PROCESSING")
	if v["crypto_amount_received"] != o["crypto_amount"] {
		t.Fatalf("received %v after the restart, paid %v", v["crypto_amount_received"], o["crypto_amount"])
	}
	hash := common.HexToHash(v["execution_tx_hash"].(string))
	deadline := time.Now().Add(time.Minute)
	for {
		if _, pending, err := c.TransactionByHash(context.Background(), hash); err == nil && pending {
			break // in the pool, not mined: the moment to die
		}
		if time.Now().After(deadline) {
			t.Fatalf("execution %s never reached the node\n%s", hash.Hex(), srv.out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	srv.kill(t)
	mine() // the call is mined while rampway is down
	mine()

	srv = startServer(t, bin, cfgPath, env)
	done := wait(srv, "SUCCESS")
	if done["execution_tx_hash"] != hash.Hex() {
		t.Fatalf("executed as %v, sent as %s", done["execution_tx_hash"], hash.Hex())
	}

	// And nothing more happens for it. Another order, paid and executed by this process after
	// the first one's SUCCESS, is the barrier rather than a pause: its payment is in a later
	// block than any of the first order's, so the watcher has scanned those again if it ever
	// does (a second credit shows below), and its call is the hot wallet's next transaction,
	// so a second call for the first order sent before it would have taken its nonce.
	recipient2 := common.HexToAddress("0x000000000000000000000000000000000000c0df")
	o2 := newOrder(srv.base, recipient2)
	id2 := o2["order_id"].(string)
	amount2, _ := rampway.ParseUnits(o2["crypto_amount"].(string), 18)
	payerNonce, err := c.PendingNonceAt(t.Context(), payer)
	if err != nil {
		t.Fatal(err)
	}
	pay2 := devchaintest.SignTx(t, c, ch.ChainID(), payerKey, payerNonce, common.HexToAddress(getOrder(srv.base, id2)["deposit_address"].(string)), amount2, nil, 21_000)
	if err := c.SendTransaction(t.Context(), pay2); err != nil {
		t.Fatal(err)
	}
	var v2 map[string]any
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		mine() // the payment, its confirmation, the call, its confirmation: as they come
		if v2 = getOrder(srv.base, id2); v2["status"] == "SUCCESS" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("second order still %v\n%s", v2["status"], srv.out)
		}
	}
	exec2, _, err := c.TransactionByHash(t.Context(), common.HexToHash(v2["execution_tx_hash"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	if exec2.Nonce() != 1 {
		t.Fatalf("the second order's call has nonce %d, want 1: the hot wallet sent another transaction before it", exec2.Nonce())
	}
	nft := bindings.NewDemoNFT()
	for _, r := range []common.Address{recipient, recipient2} {
		owned, err := bind.Call(nft.Instance(c, ch.Contracts().NFT), nil, nft.PackBalanceOf(r), nft.UnpackBalanceOf)
		if err != nil || owned.Int64() != 1 {
			t.Fatalf("recipient %s owns %v (%v), want exactly 1", r, owned, err)
		}
	}
	if n, err := c.PendingNonceAt(t.Context(), hot); err != nil || n != 2 {
		t.Fatalf("the hot wallet sent %d transactions (%v), want 2 (one per order)", n, err)
	}
	if v := get(srv.base); v["crypto_amount_received"] != o["crypto_amount"] || v["status"] != "SUCCESS" {
		t.Fatalf("order at the end: %v", v)
	}
	// Every event reached the merchant once the lease of the attempt that died with the first
	// process ran out, in order, signed.
	hooks.wantEvents(t, id, paidEvents)
}
