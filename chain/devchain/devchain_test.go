package devchain_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
)

// deployerHex is a fixed deployer key (the first Hardhat/Anvil test key), so that contract
// addresses are the same in every run.
const deployerHex = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

func mustKey(tb testing.TB, hexKey string) *ecdsa.PrivateKey {
	tb.Helper()
	if hexKey == "" {
		k, err := crypto.GenerateKey()
		if err != nil {
			tb.Fatal(err)
		}
		return k
	}
	k, err := crypto.HexToECDSA(hexKey)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

func ether(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

// mustStart starts a chain and closes it when the test ends.
func mustStart(tb testing.TB, ctx context.Context, cfg devchain.Config) *devchain.Chain {
	tb.Helper()
	start := time.Now()
	c, err := devchain.Start(ctx, cfg)
	if err != nil {
		tb.Fatalf("Start: %v", err)
	}
	tb.Logf("Start took %v", time.Since(start).Round(time.Millisecond))
	tb.Cleanup(func() {
		if err := c.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return c
}

// rpcCall does a JSON-RPC call with plain net/http and returns the result.
func rpcCall(tb testing.TB, url, method string, params ...any) json.RawMessage {
	tb.Helper()
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		tb.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("%s: HTTP %s", method, resp.Status)
	}
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		tb.Fatalf("%s: decode: %v", method, err)
	}
	if out.Error != nil {
		tb.Fatalf("%s: error %d: %s", method, out.Error.Code, out.Error.Message)
	}
	return out.Result
}

func rpcString(tb testing.TB, url, method string, params ...any) string {
	tb.Helper()
	var s string
	if err := json.Unmarshal(rpcCall(tb, url, method, params...), &s); err != nil {
		tb.Fatalf("%s: %v", method, err)
	}
	return s
}

func allContracts(c devchain.Contracts) map[string]common.Address {
	return map[string]common.Address{
		"DemoNFT": c.NFT, "DemoToken": c.Token, "PriceFeed": c.PriceFeed, "Multicall3": c.Multicall,
		"EUR / USD feed": c.EURUSDFeed, "GBP / USD feed": c.GBPUSDFeed,
	}
}

func TestRPCOverHTTP(t *testing.T) {
	c := mustStart(t, t.Context(), devchain.Config{
		RPCAddr:  "127.0.0.1:0",
		Deployer: mustKey(t, deployerHex),
	})
	url := c.RPCURL()
	if !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, ":0") {
		t.Fatalf("RPCURL() = %q", url)
	}

	if got, want := rpcString(t, url, "eth_chainId"), "0x539"; got != want {
		t.Errorf("eth_chainId = %s, want %s", got, want)
	}
	if got := c.ChainID(); got.Int64() != devchain.ChainID {
		t.Errorf("ChainID() = %s, want %d", got, devchain.ChainID)
	}
	bn, err := strconv.ParseUint(strings.TrimPrefix(rpcString(t, url, "eth_blockNumber"), "0x"), 16, 64)
	if err != nil || bn < 1 {
		t.Errorf("eth_blockNumber = %d (%v), want >= 1 after deployment", bn, err)
	}
	if got := rpcString(t, url, "net_version"); got != "1337" {
		t.Errorf("net_version = %s, want 1337", got)
	}
	for name, addr := range allContracts(c.Contracts()) {
		code := rpcString(t, url, "eth_getCode", addr.Hex(), "latest")
		if len(code) <= len("0x") {
			t.Errorf("eth_getCode(%s %s) = %q, want code", name, addr, code)
		}
	}
	if c.Contracts() != devchain.ContractAddresses(crypto.PubkeyToAddress(mustKey(t, deployerHex).PublicKey)) {
		t.Errorf("Contracts() = %+v, want ContractAddresses(deployer)", c.Contracts())
	}

	// Browsers send a Host header and, from pages, an Origin: both must be accepted.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://shop.example")
	req.Host = "devchain.example:8545"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") == "" {
		t.Errorf("request with Host and Origin: %s, Access-Control-Allow-Origin %q",
			resp.Status, resp.Header.Get("Access-Control-Allow-Origin"))
	}
}

func TestAutomineTransferOverRPC(t *testing.T) {
	payer := mustKey(t, "")
	payerAddr := crypto.PubkeyToAddress(payer.PublicKey)
	c := mustStart(t, t.Context(), devchain.Config{
		RPCAddr:  "127.0.0.1:0",
		Deployer: mustKey(t, deployerHex),
		Fund:     []devchain.Funding{{Address: payerAddr, Wei: ether(100)}},
	})
	ec, err := ethclient.DialContext(t.Context(), c.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	if !c.Automining() {
		t.Fatal("no automining with the default BlockTime")
	}

	to := common.HexToAddress("0x000000000000000000000000000000000000bEEF")
	tx := mustSendTx(t, ec, payer, &to, big.NewInt(12345), nil, 21000)
	sent := time.Now()
	r := waitReceiptWithin(t, ec, tx.Hash(), time.Minute)
	t.Logf("transfer mined by automining in %v (block %d)", time.Since(sent).Round(time.Millisecond), r.BlockNumber)
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("transfer failed: %+v", r)
	}
	bal, err := ec.BalanceAt(t.Context(), to, nil)
	if err != nil || bal.Int64() != 12345 {
		t.Errorf("balance of recipient = %v (%v), want 12345", bal, err)
	}
	block, err := ec.HeaderByNumber(t.Context(), r.BlockNumber)
	if err != nil {
		t.Fatal(err)
	}
	if now := uint64(time.Now().Unix()); block.Time > now {
		t.Errorf("block time %d is ahead of the wall clock %d", block.Time, now)
	}

	// Mine is safe while automining runs (run with -race); explicit Mines run the block
	// timestamps ahead of the clock, so this comes last.
	to2 := common.HexToAddress("0x000000000000000000000000000000000000cafe")
	tx2 := mustSendTx(t, ec, payer, &to2, big.NewInt(1), nil, 21000)
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if _, err := c.Mine(); err != nil {
				t.Errorf("Mine: %v", err)
			}
		})
	}
	wg.Wait()
	waitReceiptWithin(t, ec, tx2.Hash(), time.Minute)
}

func TestNoRPCAndManualMining(t *testing.T) {
	payer := mustKey(t, "")
	c := mustStart(t, t.Context(), devchain.Config{Deployer: mustKey(t, deployerHex), BlockTime: -1,
		Fund: []devchain.Funding{{Address: crypto.PubkeyToAddress(payer.PublicKey), Wei: ether(1)}}})
	if c.RPCURL() != "" {
		t.Errorf("RPCURL() = %q, want empty without RPCAddr", c.RPCURL())
	}
	// BlockTime < 0: no automining loop at all, so a transaction waits in the pool until Mine
	// (checked on the chain's structure: waiting for a block that must not come proves nothing).
	if c.Automining() {
		t.Fatal("automining runs with BlockTime < 0")
	}
	before, err := c.Client().BlockNumber(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0x000000000000000000000000000000000000f00d")
	tx := mustSendTx(t, c.Client(), payer, &to, big.NewInt(1), nil, 21000)
	// The pool takes a transaction in the background: mine once it holds it.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		n, err := c.Client().PendingNonceAt(t.Context(), crypto.PubkeyToAddress(payer.PublicKey))
		if err != nil {
			t.Fatal(err)
		}
		if n > tx.Nonce() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("transaction %s not in the pool after a minute", tx.Hash())
		}
	}
	hash, err := c.Mine()
	if err != nil {
		t.Fatal(err)
	}
	head, err := c.Client().HeaderByNumber(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if head.Hash() != hash || head.Number.Uint64() != before+1 {
		t.Errorf("after Mine: head %d %s, want %d %s", head.Number, head.Hash(), before+1, hash)
	}
	if r, err := c.Client().TransactionReceipt(t.Context(), tx.Hash()); err != nil || r.BlockHash != hash {
		t.Errorf("the waiting transaction is not in the block Mine made: %+v %v", r, err)
	}
}

func TestClosePortAndStableAddresses(t *testing.T) {
	deployer := mustKey(t, deployerHex)
	first, err := devchain.Start(t.Context(), devchain.Config{RPCAddr: "127.0.0.1:0", Deployer: deployer})
	if err != nil {
		t.Fatal(err)
	}
	url, contracts := first.RPCURL(), first.Contracts()
	rpcString(t, url, "eth_chainId")
	start := time.Now()
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	t.Logf("Close took %v", time.Since(start).Round(time.Millisecond))
	if err := first.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := first.Mine(); err != devchain.ErrClosed {
		t.Errorf("Mine after Close = %v, want ErrClosed", err)
	}

	addr := strings.TrimPrefix(url, "http://")
	second := mustStart(t, t.Context(), devchain.Config{RPCAddr: addr, Deployer: deployer})
	if second.RPCURL() != url {
		t.Errorf("RPCURL() = %s, want %s", second.RPCURL(), url)
	}
	if second.Contracts() != contracts {
		t.Errorf("Contracts() = %+v, want %+v (same deployer)", second.Contracts(), contracts)
	}
	if got := rpcString(t, url, "eth_getCode", contracts.NFT.Hex(), "latest"); len(got) <= 2 {
		t.Errorf("no DemoNFT code after restart")
	}

	// A port in use: Start fails cleanly (no panic, nothing left running).
	_, err = devchain.Start(t.Context(), devchain.Config{RPCAddr: addr, Deployer: deployer})
	if err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("Start on a busy port: err = %v, want address already in use", err)
	}
}

func TestConfigValidate(t *testing.T) {
	key := mustKey(t, deployerHex)
	tests := []struct {
		name    string
		cfg     devchain.Config
		wantErr string
	}{
		{"minimal", devchain.Config{Deployer: key}, ""},
		{"rpc port 0", devchain.Config{Deployer: key, RPCAddr: "127.0.0.1:0"}, ""},
		{"no deployer", devchain.Config{}, "Deployer is required"},
		{"rpc addr without port", devchain.Config{Deployer: key, RPCAddr: "127.0.0.1"}, "RPCAddr"},
		{"rpc port out of range", devchain.Config{Deployer: key, RPCAddr: "127.0.0.1:70000"}, "bad port"},
		{"negative wei", devchain.Config{Deployer: key, Fund: []devchain.Funding{{Wei: big.NewInt(-1)}}}, "Fund[0].Wei"},
		{"negative tokens", devchain.Config{Deployer: key, Fund: []devchain.Funding{{TokenUnits: big.NewInt(-1)}}}, "Fund[0].TokenUnits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// mustSendTx signs and sends an EIP-1559 transaction from key. gas 0 means estimate.
func mustSendTx(tb testing.TB, ec interface {
	ethereum.TransactionSender
	ethereum.PendingStateReader
	ethereum.GasPricer1559
	ethereum.ChainReader
	ethereum.GasEstimator
}, key *ecdsa.PrivateKey, to *common.Address, value *big.Int, data []byte, gas uint64) *types.Transaction {
	tb.Helper()
	ctx := context.Background()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := ec.PendingNonceAt(ctx, from)
	if err != nil {
		tb.Fatal(err)
	}
	tip, err := ec.SuggestGasTipCap(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	head, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if gas == 0 {
		gas, err = ec.EstimateGas(ctx, ethereum.CallMsg{From: from, To: to, Value: value, Data: data})
		if err != nil {
			tb.Fatalf("estimate gas: %v", err)
		}
	}
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(devchain.ChainID)), &types.DynamicFeeTx{
		ChainID:   big.NewInt(devchain.ChainID),
		Nonce:     nonce,
		GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip),
		Gas:       gas,
		To:        to,
		Value:     value,
		Data:      data,
	})
	if err != nil {
		tb.Fatal(err)
	}
	if err := ec.SendTransaction(ctx, tx); err != nil {
		tb.Fatalf("send transaction: %v", err)
	}
	return tx
}

// waitReceiptWithin polls for a receipt every 50 ms and fails the test after d.
func waitReceiptWithin(tb testing.TB, ec ethereum.TransactionReader, hash common.Hash, d time.Duration) *types.Receipt {
	tb.Helper()
	deadline := time.Now().Add(d)
	for {
		r, err := ec.TransactionReceipt(context.Background(), hash)
		if err == nil {
			return r
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no receipt for %s after %v: %v", hash, d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestDemoParametersMatchABI(t *testing.T) {
	for name, abiJSON := range map[string]string{
		"DemoNFT": devchain.NFTABI(), "DemoToken": devchain.TokenABI(),
		"PriceFeed": devchain.PriceFeedABI(), "Multicall3": devchain.MulticallABI(),
	} {
		var fragments []map[string]any
		if err := json.Unmarshal([]byte(abiJSON), &fragments); err != nil || len(fragments) == 0 {
			t.Errorf("%s ABI: %d fragments, %v", name, len(fragments), err)
		}
	}
	nft := bindings.NewDemoNFT().GetABI()
	for _, m := range []string{"mint", "mintIds"} {
		if !nft.Methods[m].IsPayable() {
			t.Errorf("DemoNFT.%s is not payable", m)
		}
	}
	for _, m := range []string{"mintWithToken", "freeMint"} {
		if nft.Methods[m].IsPayable() {
			t.Errorf("DemoNFT.%s is payable", m)
		}
	}
	if got := fmt.Sprint(devchain.NFTPriceWei); got != "10000000000000000" {
		t.Errorf("NFTPriceWei = %s, want 0.01 ETH", got)
	}
}

// A chain on a data directory goes on from its last block when started again: balances,
// minted tokens and contracts are kept, nothing is deployed or funded twice, and new
// transactions are mined on top. Another genesis on the same directory is refused, and so is
// a second process while the first runs.
func TestDataDirKeepsTheChain(t *testing.T) {
	dir := t.TempDir()
	deployer, payer := mustKey(t, deployerHex), mustKey(t, "")
	payerAddr := crypto.PubkeyToAddress(payer.PublicKey)
	cfg := devchain.Config{Deployer: deployer, BlockTime: -1, DataDir: dir,
		Fund: []devchain.Funding{{Address: payerAddr, Wei: ether(10), TokenUnits: big.NewInt(5_000_000)}}}
	first, err := devchain.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The payer mints one token: a block after the deployment's.
	mint := bindings.NewDemoNFT()
	tx := signSend(t, first, payer, first.Contracts().NFT, big.NewInt(devchain.NFTPriceWei), mint.PackMint(payerAddr, big.NewInt(1)))
	if _, err := first.Mine(); err != nil {
		t.Fatal(err)
	}
	headBefore, err := first.Client().HeaderByNumber(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	balBefore, _ := first.Client().BalanceAt(t.Context(), payerAddr, nil)

	// Another process on the same directory while the first runs: refused.
	if c, err := devchain.Start(t.Context(), cfg); err == nil {
		c.Close()
		t.Fatal("a second chain started on a data directory in use")
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	second := mustStart(t, t.Context(), cfg)
	head, err := second.Client().HeaderByNumber(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if head.Hash() != headBefore.Hash() {
		t.Fatalf("head after restart %d %s, want %d %s", head.Number, head.Hash(), headBefore.Number, headBefore.Hash())
	}
	if r, err := second.Client().TransactionReceipt(t.Context(), tx.Hash()); err != nil || r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("the mint's receipt after restart: %v, %v", r, err)
	}
	if bal, _ := second.Client().BalanceAt(t.Context(), payerAddr, nil); bal.Cmp(balBefore) != 0 {
		t.Fatalf("payer balance %s after restart, want %s", bal, balBefore)
	}
	tokens := bindings.NewDemoToken()
	out, err := second.Client().CallContract(t.Context(), ethereum.CallMsg{To: ptr(second.Contracts().Token), Data: tokens.PackBalanceOf(payerAddr)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if units, err := tokens.UnpackBalanceOf(out); err != nil || units.Cmp(big.NewInt(5_000_000)) != 0 {
		t.Fatalf("payer DUSD %v after restart (%v), want 5000000: funded once", units, err)
	}
	// New transactions go on top.
	signSend(t, second, payer, second.Contracts().NFT, big.NewInt(devchain.NFTPriceWei), mint.PackMint(payerAddr, big.NewInt(1)))
	if _, err := second.Mine(); err != nil {
		t.Fatal(err)
	}
	out, err = second.Client().CallContract(t.Context(), ethereum.CallMsg{To: ptr(second.Contracts().NFT), Data: mint.PackTotalMinted()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := mint.UnpackTotalMinted(out); err != nil || n.Int64() != 2 {
		t.Fatalf("totalMinted %v (%v), want 2", n, err)
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}

	// Another genesis (another funding) on the same directory: refused, saying what to do.
	other := cfg
	other.Fund = nil
	if c, err := devchain.Start(t.Context(), other); err == nil {
		c.Close()
		t.Fatal("a chain of another genesis started on the data directory")
	} else if !strings.Contains(err.Error(), "remove the directory") {
		t.Fatalf("another genesis: %v; want it to say to remove the directory", err)
	}
}

func ptr[T any](v T) *T { return &v }

// signSend signs and sends a call from key with value and data, at the next nonce.
func signSend(t *testing.T, c *devchain.Chain, key *ecdsa.PrivateKey, to common.Address, value *big.Int, data []byte) *types.Transaction {
	t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := c.Client().PendingNonceAt(t.Context(), from)
	if err != nil {
		t.Fatal(err)
	}
	head, err := c.Client().HeaderByNumber(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(c.ChainID()), &types.DynamicFeeTx{ChainID: c.ChainID(), Nonce: nonce,
		GasTipCap: big.NewInt(1e9), GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), big.NewInt(1e9)),
		Gas: 300_000, To: &to, Value: value, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Client().SendTransaction(t.Context(), tx); err != nil {
		t.Fatal(err)
	}
	return tx
}
