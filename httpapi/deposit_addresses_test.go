package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/merchant"
)

// newDepositAddresses is the deposit address onboarding on e's dev chain, simulating from e's
// hot wallet, as the server wires it.
func newDepositAddresses(t *testing.T, e *env) *merchant.DepositAddresses {
	t.Helper()
	nets, err := chain.Dial(t.Context(), []rampway.Network{e.chain.Network("devnet")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nets.Close)
	return merchant.NewDepositAddresses(merchant.DepositAddressesConfig{HotWallet: e.hotWallet}, e.store, nets, nil)
}

// noDepositChains has no network: every deposit address is refused for its network.
type noDepositChains struct{}

func (noDepositChains) Network(string) (*rampway.Network, bool) { return nil, false }
func (noDepositChains) List() []*rampway.Network                { return nil }
func (noDepositChains) HasCode(context.Context, string, common.Address) (bool, error) {
	return false, errNoChain
}
func (noDepositChains) Simulate(context.Context, string, common.Address, []rampway.Call) (string, error) {
	return "", errNoChain
}

// TestAdminDepositAddresses: POST, GET and DELETE on a merchant's deposit addresses over HTTP,
// checked against the dev chain: each refusal is the envelope naming the field at fault.
func TestAdminDepositAddresses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := httptest.NewServer(New(testConfig(), Deps{Merchants: e.svc, Functions: e.functions, Checkout: e.checkout, Idempotency: e.store,
		DB: e.ping, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: prometheus.NewRegistry(), DepositAddresses: newDepositAddresses(t, e)}))
	t.Cleanup(srv.Close)
	e.srv = srv
	base := "/merchants/" + e.merchant.ID + "/deposit-addresses"
	view := func(r resp, status int) DepositAddressView {
		t.Helper()
		if r.status != status {
			t.Fatalf("HTTP %d, want %d: %s", r.status, status, r.body)
		}
		var fields map[string]any
		_ = json.Unmarshal(r.body, &fields)
		if len(fields) != 6 {
			t.Fatalf("view %s: want exactly merchant_id, network, symbol, address, created_at, updated_at", r.body)
		}
		var v DepositAddressView
		if err := json.Unmarshal(r.body, &v); err != nil {
			t.Fatal(err)
		}
		if !timestampRE.MatchString(v.CreatedAt) || !timestampRE.MatchString(v.UpdatedAt) {
			t.Fatalf("times %s", r.body)
		}
		return v
	}
	list := func() []DepositAddressView {
		t.Helper()
		r := e.admin("GET", base, nil)
		if r.status != 200 {
			t.Fatalf("list: %d %s", r.status, r.body)
		}
		var l struct {
			Data    []DepositAddressView `json:"data"`
			HasMore *bool                `json:"has_more"`
		}
		if err := json.Unmarshal(r.body, &l); err != nil || l.Data == nil || l.HasMore == nil || *l.HasMore {
			t.Fatalf("list %s: %v", r.body, err)
		}
		return l.Data
	}
	if l := list(); len(l) != 0 {
		t.Fatalf("a new merchant has %+v", l)
	}

	key, _ := crypto.GenerateKey()
	account := crypto.PubkeyToAddress(key.PublicKey)
	nft := e.chain.Contracts().NFT
	eth := view(e.admin("POST", base, map[string]string{"network": "devnet", "symbol": "ETH", "address": strings.ToLower(account.Hex())}), 201)
	if eth != (DepositAddressView{MerchantID: e.merchant.ID, Network: "devnet", Symbol: "ETH", Address: account.Hex(), CreatedAt: eth.CreatedAt, UpdatedAt: eth.CreatedAt}) {
		t.Fatalf("set %+v", eth)
	}
	view(e.admin("POST", base, map[string]string{"network": "devnet", "symbol": "DUSD", "address": nft.Hex()}), 201) // a contract that takes DUSD

	path := "/admin" + base
	for _, c := range []struct {
		name string
		body any
		msg  string
	}{
		{"contract refusing ETH", map[string]string{"network": "devnet", "symbol": "ETH", "address": nft.Hex()},
			"address " + nft.Hex() + " is a contract that refuses a plain transfer of ETH on devnet (1 wei of ETH sent with no data, simulated: execution reverted): deposits sent there would fail"},
		{"empty", map[string]string{}, "network is required"},
		{"unknown network", map[string]string{"network": "mainnet", "symbol": "ETH", "address": account.Hex()}, `network "mainnet" is not configured (configured: devnet)`},
		{"no symbol", map[string]string{"network": "devnet", "address": account.Hex()}, "symbol is required"},
		{"unknown symbol", map[string]string{"network": "devnet", "symbol": "USDC", "address": account.Hex()}, `symbol "USDC" is not an asset of network devnet (ETH, DUSD)`},
		{"no address", map[string]string{"network": "devnet", "symbol": "ETH"}, "address is required"},
		{"bad address", map[string]string{"network": "devnet", "symbol": "ETH", "address": "0x1234"}, "address must be a 0x-prefixed 20-byte hex address"},
		{"bad checksum", map[string]string{"network": "devnet", "symbol": "ETH", "address": "0x70997970C51812dc3A010C7d01b50e0d17dc79c8"}, // ...79C8
			"address has a wrong EIP-55 checksum"},
		{"zero address", map[string]string{"network": "devnet", "symbol": "ETH", "address": common.Address{}.Hex()}, "address must not be the zero address"},
		{"hot wallet", map[string]string{"network": "devnet", "symbol": "ETH", "address": e.hotWallet.Hex()}, "is the service's hot wallet"},
		{"unknown field", `{"network":"devnet","symbol":"ETH","address":"` + account.Hex() + `","memo":"x"}`, "memo"},
		{"wrong type", `{"network":"devnet","symbol":"ETH","address":1}`, "address"},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantEnvelope(t, e.admin("POST", base, c.body), 400, 400, path, c.msg)
		})
	}
	// Set again: replaced, 201, created_at stays.
	other, _ := crypto.GenerateKey()
	replaced := view(e.admin("POST", base, map[string]string{"network": "devnet", "symbol": "ETH", "address": crypto.PubkeyToAddress(other.PublicKey).Hex()}), 201)
	if replaced.Address != crypto.PubkeyToAddress(other.PublicKey).Hex() || replaced.CreatedAt != eth.CreatedAt || replaced.UpdatedAt < eth.UpdatedAt {
		t.Fatalf("replaced %+v, first %+v", replaced, eth)
	}
	l := list()
	if len(l) != 2 || l[0].Symbol != "DUSD" || l[0].Address != nft.Hex() || l[1] != replaced {
		t.Fatalf("list %+v", l)
	}

	// Unknown merchant, unknown address: 404.
	unknown := "/merchants/mch_00000000000000000000000000/deposit-addresses"
	wantEnvelope(t, e.admin("POST", unknown, map[string]string{"network": "devnet", "symbol": "ETH", "address": account.Hex()}), 404, 404,
		"/admin"+unknown, `Merchant "mch_00000000000000000000000000" not found`)
	wantEnvelope(t, e.admin("GET", unknown, nil), 404, 404, "/admin"+unknown, "not found")
	wantEnvelope(t, e.admin("DELETE", unknown+"/devnet/ETH", nil), 404, 404, "/admin"+unknown+"/devnet/ETH", "not found")
	if r := e.admin("DELETE", base+"/devnet/DUSD", nil); r.status != 204 || len(r.body) != 0 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	wantEnvelope(t, e.admin("DELETE", base+"/devnet/DUSD", nil), 404, 404, path+"/devnet/DUSD", `Deposit address for "DUSD" on network "devnet" not found`)
	wantEnvelope(t, e.admin("DELETE", base+"/devnet/dusd", nil), 404, 404, path+"/devnet/dusd", "not found")
	if l := list(); len(l) != 1 || l[0] != replaced {
		t.Fatalf("after delete %+v", l)
	}

	// The admin token only: a merchant key is 401.
	r := e.do("GET", "/admin"+base, nil, map[string]string{"X-API-KEY": e.key})
	wantEnvelope(t, r, 401, 401, path, "")
}
