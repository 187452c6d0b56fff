package main

import (
	"encoding/hex"
	"math/big"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/rampway/rampway/chain/gethtest"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/config"
)

// `rampway demo deploy` on go-ethereum's own node in its own process (geth --dev): the demo
// contracts are deployed from a funded key, and the printed configuration is valid YAML of
// rampway's that names contracts with code.
func TestDemoDeployOnGeth(t *testing.T) {
	node := gethtest.Start(t, time.Second)
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	raw, err := rpc.Dial(node.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var hash string
	if err := raw.CallContext(t.Context(), &hash, "eth_sendTransaction", map[string]any{"from": node.Dev, "to": from,
		"value": hexutil.EncodeBig(new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18)))}); err != nil {
		t.Fatal(err)
	}
	cl, err := ethclient.Dial(node.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if bal, err := cl.BalanceAt(t.Context(), from, nil); err == nil && bal.Sign() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the deployer was not funded")
		}
	}
	var out strings.Builder
	env := map[string]string{EnvDeployerKey: hex.EncodeToString(crypto.FromECDSA(key))}
	if err := run(t.Context(), []string{"demo", "deploy", "--rpc-url", node.URL, "--network", "gethdev"}, func(k string) string { return env[k] }, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	text := out.String()
	// The YAML part is rampway's configuration: its networks and price feeds parse and
	// validate (with the rest of a dev configuration around them).
	yamlPart := text[strings.Index(text, "networks:"):strings.Index(text, "# Register")]
	mnemonic, _ := hd.NewMnemonic()
	seed, _ := hd.FromMnemonic(mnemonic, "")
	xpub, _ := seed.XPub()
	cfgText := "mode: dev\nhttp: {public_url: \"http://127.0.0.1:8080\"}\nadmin: {token: dev-admin-token-0123456789abcdef0123}\n" +
		"secrets: {hash_secret: dev-hash-secret-0123456789abcdef0123}\n" + strings.Replace(yamlPart, "checkout:\n",
		"checkout:\n  deposit_xpub: "+xpub+"\n  hot_wallet_address: \""+from.Hex()+"\"\n", 1)
	cfg, err := config.Parse(strings.NewReader(cfgText), func(string) string { return "" })
	if err != nil {
		t.Fatalf("the printed configuration: %v\n%s", err, cfgText)
	}
	if len(cfg.Networks) != 1 || cfg.Networks[0].ChainID != 1337 || len(cfg.Networks[0].Tokens) != 1 || len(cfg.Checkout.PriceFeeds) != 3 {
		t.Fatalf("configuration %+v", cfg.Networks)
	}
	for _, a := range regexp.MustCompile(`0x[0-9a-fA-F]{40}`).FindAllString(yamlPart, -1) {
		if code, err := cl.CodeAt(t.Context(), common.HexToAddress(a), nil); err != nil || len(code) == 0 {
			t.Fatalf("no code at %s (%v)", a, err)
		}
	}
	if !strings.Contains(text, `"payable_symbol":"ETH"`) || !strings.Contains(text, `"payable_symbol":"DUSD"`) {
		t.Fatalf("registrations missing:\n%s", text)
	}
}
