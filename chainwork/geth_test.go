package chainwork_test

import (
	"context"
	"log/slog"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/gethtest"
	"github.com/rampway/rampway/chain/rpcfault"
	"github.com/rampway/rampway/chainwork"
	"github.com/rampway/rampway/storetest"

	"net/http/httptest"
)

// The deposit watcher against go-ethereum's own node in its own process (geth --dev, a block a
// second), through the fault proxy answering a stale head now and then: a payment from the
// node's developer account is seen and credited once, after its confirmations.
func TestWatcherOnGethProcess(t *testing.T) {
	t.Parallel()
	node := gethtest.Start(t, time.Second)
	proxy := rpcfault.New(node.URL)
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	proxy.Set(rpcfault.Rule{Fault: rpcfault.StaleHead, Method: "eth_blockNumber", Blocks: 1, Every: 3})
	cl, err := ethclient.Dial(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	chainID, err := cl.ChainID(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	store := storetest.OpenSQLite(t)
	m := storetest.NewMerchant(t, store)
	net := rampway.Network{Name: "devnet", ChainID: chainID, Confirmations: 2, Native: rampway.Asset{Symbol: "ETH", Network: "devnet", Decimals: 18}}
	key, _ := crypto.GenerateKey()
	now := time.Now().UTC().Truncate(time.Microsecond)
	i, _ := store.NextDepositIndex(t.Context())
	o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: m.ID, Area: rampway.AreaMint, Status: rampway.StatusCreated,
		MerchantUserID: "u", MerchantRedirectURL: "https://x.example", Network: "devnet", Asset: net.Native,
		CryptoAmount: big.NewInt(1e16), CryptoReceived: new(big.Int), PaymentValue: new(big.Int), NetworkFee: new(big.Int), ServiceFee: new(big.Int),
		DepositAddress: crypto.PubkeyToAddress(key.PublicKey), DepositIndex: i, ExpiresAt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now}
	if err := store.CreateOrder(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	w := mustWatcher(t, chainwork.WatcherConfig{}, store, &net, cl, slog.New(slog.DiscardHandler), nil)
	if err := w.Step(t.Context()); err != nil { // starts at the head
		t.Fatal(err)
	}
	raw, err := rpc.Dial(node.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var hash string
	if err := raw.CallContext(t.Context(), &hash, "eth_sendTransaction", map[string]any{"from": node.Dev, "to": o.DepositAddress,
		"value": hexutil.EncodeBig(o.CryptoAmount)}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if err := w.Step(context.Background()); err != nil {
			t.Logf("step: %v", err)
		}
		got, err := store.Order(t.Context(), o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == rampway.StatusDepositSuccess {
			if got.CryptoReceived.Cmp(o.CryptoAmount) != 0 {
				t.Fatalf("credited %s, paid %s", got.CryptoReceived, o.CryptoAmount)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s a minute after its payment %s (stale heads answered: %d)\n%s", got.Status, hash, proxy.Fired()[rpcfault.StaleHead], node.Log())
		}
		time.Sleep(300 * time.Millisecond)
	}
	if proxy.Fired()[rpcfault.StaleHead] == 0 {
		t.Fatal("no stale head was answered")
	}
	ts, _ := store.OrderTransfers(t.Context(), o.ID)
	if len(ts) != 1 {
		t.Fatalf("transfers %+v, want the payment once", ts)
	}
}
