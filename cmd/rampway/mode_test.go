package main

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/internal/devtest"
)

// recipientOf is a fresh address.
func recipientOf(t *testing.T) common.Address {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return crypto.PubkeyToAddress(k.PublicKey)
}

// The trial of issue 28, repeated on a real `rampway serve` in production mode: a test network
// (the dev chain) and the sandbox configured. The start says what each mode runs on. With a live
// key the test card is accepted nowhere: no fiat method is offered (B2, C2 empty), B1 and C1
// are refused, and A1 on the test network too; the live key sees none of the test orders. With
// a test key on the test network, a card order is paid with the sandbox's test card on the
// checkout page and minted, as in dev.
func TestServeTestAndLiveMode(t *testing.T) {
	t.Parallel()
	k := keysNewJSON(t, t.TempDir(), noEnv)
	hot := common.HexToAddress(k.HotWallet.Address)
	ether := new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))
	ch := devchaintest.Start(t, devchain.Funding{Address: hot, Wei: ether})
	port := devtest.FreePort(t)
	cfgPath := keysConfigWith(t, k, ch.RPCURL(), recipientOf(t), fmt.Sprintf(`{addr: "127.0.0.1:%d", public_url: "http://127.0.0.1:%d"}`, port, port),
		`{ETH: "3000", EUR: "1.08"}`, "fiat: {provider: sandbox}\n")
	base, out := serveInProcess(t, cfgPath, envOf(k))
	mineWhileTesting(t, ch) // a block per 100 ms until the test ends

	// What each mode runs on, said at start.
	for _, want := range []string{`"msg":"test mode","networks":"devnet (chain 1337)","payment_provider":"sandbox"`,
		`"msg":"live mode is off: no live network and no live payment provider`,
		`"msg":"a test-only payment provider is configured: it takes test data for test-mode orders only, never real money","provider":"sandbox"`} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("the start does not say %s:\n%s", want, out)
		}
	}

	admin := "Bearer " + k.Env[config.EnvAdminToken]
	mid := call(t, "POST", base+"/admin/merchants", admin, map[string]any{"name": "Modes Shop"})["merchant_id"].(string)
	key := map[bool]string{}
	for _, live := range []bool{false, true} {
		v := call(t, "POST", base+"/admin/merchants/"+mid+"/api-keys", admin, map[string]any{"mode": rampway.ModeName(live)})
		if key[live] = v["api_key"].(string); !strings.HasPrefix(key[live], rampway.APIKeyPrefix(live)) || v["livemode"] != live {
			t.Fatalf("%s key: %v", rampway.ModeName(live), v)
		}
	}
	frag, _ := contract.FunctionFragment(devchain.NFTABI(), "mint")
	f := call(t, "POST", base+"/admin/merchants/"+mid+"/contract-functions", admin, map[string]any{"network": "devnet",
		"contract_address": ch.Contracts().NFT.Hex(), "abi": json.RawMessage(frag), "default_gas_limit": 200000, "payable_symbol": "ETH"})
	payer, _ := crypto.GenerateKey()
	recipient := crypto.PubkeyToAddress(payer.PublicKey)
	exec := map[string]any{"smartContractFunctionId": f["smartContractFunctionId"], "function_args": map[string]any{"to": recipient.Hex(), "quantity": "1"},
		"payment":        map[string]any{"payableCryptoSymbol": "ETH", "totalValue": rampway.FormatUnits(big.NewInt(devchain.NFTPriceWei), 18)},
		"network_params": map[string]any{"networkName": "devnet"}}
	user := map[string]any{"user_first_name": "Ada", "user_last_name": "Lovelace", "user_email_id": "ada@example.com", "user_dob": "1990-12-10",
		"user_countryCode": "DE"}
	fiatOrder := map[string]any{"merchant_id": mid, "order_fiat_symbol": "EUR", "fiat_payment_method": "credit_debit_card", "contractExecution": exec,
		"merchant_user_id": "u1", "merchant_redirect_url": "https://shop.example/done"}
	for k, v := range user {
		fiatOrder[k] = v
	}
	mintOrder := map[string]any{"merchant_id": mid, "crypto_symbol": "ETH", "crypto_network": "devnet", "contractExecution": exec,
		"merchant_user_id": "u1", "merchant_redirect_url": "https://shop.example/done"}
	depositOrder := map[string]any{"merchant_id": mid, "order_fiat_symbol": "EUR", "order_fiat_amount": "50", "convert_to_crypto_symbol": "ETH",
		"convert_to_crypto_network": "devnet", "fiat_payment_method": "credit_debit_card", "merchant_user_id": "u1",
		"merchant_redirect_url": "https://shop.example/done"}

	// The live key: the test card is accepted nowhere.
	for _, path := range []string{"/nft-ramp/merchant/hosted/nftCheckout/fiatCurrencies", "/deposit/merchant/sdk/onramp-to-deposit/fiatCurrencies"} {
		if status, v := apiCall(t, "GET", base+path, key[true], nil); status != 200 || len(v["currencies"].([]any)) != 0 {
			t.Fatalf("live key, %s: %d %v", path, status, v)
		}
	}
	for _, c := range []struct{ path, msg string }{
		{"/nft-ramp/merchant/hosted/nftCheckout/fiatQuote", "no payment provider takes live-mode payments"},
		{"/nft-ramp/merchant/hosted/nftCheckout/order", "no payment provider takes live-mode payments"},
		{"/deposit/merchant/sdk/on-ramp/order", "no payment provider takes live-mode payments"},
		{"/mint/merchant/hosted/nftCheckout/order", "crypto_network devnet is a test network: a live-mode key (rw_live_…) orders on live networks only"},
		{"/mint/merchant/hosted/nftCheckout/cryptoQuote", "crypto_network devnet is a test network"},
	} {
		body := fiatOrder
		switch {
		case strings.HasPrefix(c.path, "/deposit"):
			body = depositOrder
		case strings.HasPrefix(c.path, "/mint"):
			body = mintOrder
		}
		status, v := apiCall(t, "POST", base+c.path, key[true], body)
		if msg, _ := v["message"].(string); status != 400 || !strings.Contains(msg, c.msg) {
			t.Fatalf("live key, %s: %d %v, want 400 saying %q", c.path, status, v, c.msg)
		}
	}

	// The test key: as in dev, a card order paid with the test card is minted.
	o := call(t, "POST", base+"/nft-ramp/merchant/hosted/nftCheckout/order", key[false], fiatOrder)
	if o["livemode"] != false {
		t.Fatalf("test key's order: %v", o)
	}
	id := o["order_id"].(string)
	devtest.PayCard(t, o["gateway_url"].(string), "4242424242424242")
	var v map[string]any
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if v = call(t, "GET", base+"/nft-ramp/merchant/hosted/nftCheckout/order/"+id, key[false], nil); v["status"] == "SUCCESS" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("test order still %v (%v) a minute after its card payment\n%s", v["status"], v["failure_reason"], out)
		}
	}
	if v["livemode"] != false || v["fiat_payment"].(map[string]any)["status"] == nil {
		t.Fatalf("test order: %v", v)
	}
	// The live key does not see it, in a lookup or a list.
	if status, _ := apiCall(t, "GET", base+"/nft-ramp/merchant/hosted/nftCheckout/order/"+id, key[true], nil); status != 404 {
		t.Fatalf("live key's lookup of a test order: %d", status)
	}
	if status, l := apiCall(t, "GET", base+"/nft-ramp/merchant/hosted/nftCheckout/orders", key[true], nil); status != 200 || len(l["data"].([]any)) != 0 {
		t.Fatalf("live key's list: %d %v", status, l)
	}
}
