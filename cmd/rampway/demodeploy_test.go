package main

import (
	"encoding/hex"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chain/gethtest"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/config"
)

// `rampway demo deploy` on go-ethereum's own node in its own process (geth --dev): the demo
// contracts are deployed from a funded key, and the printed configuration is valid YAML of
// rampway's that names contracts with code.
func TestDemoDeployOnGeth(t *testing.T) {
	t.Parallel()
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
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
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
	// The ETH registration's gas limit is enough for a real mint on this node (a constant
	// 200,000 was not: geth --dev's mint costs more than the embedded chain's).
	m := regexp.MustCompile(`"default_gas_limit":(\d+),"network":"gethdev","payable_symbol":"ETH"`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no ETH registration with a gas limit:\n%s", text)
	}
	limit, _ := strconv.ParseUint(m[1], 10, 64)
	nft := common.HexToAddress(regexp.MustCompile(`DemoNFT (0x[0-9a-fA-F]{40})`).FindStringSubmatch(text)[1])
	mint, err := bindings.NewDemoNFT().TryPackMint(common.HexToAddress("0x000000000000000000000000000000000000b0b0"), big.NewInt(1))
	if err != nil {
		t.Fatal(err)
	}
	nonce, _ := cl.PendingNonceAt(t.Context(), from)
	chainID, _ := cl.ChainID(t.Context())
	tx, _ := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, To: &nft,
		Value: big.NewInt(devchain.NFTPriceWei), Gas: limit, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9), Data: mint})
	if err := cl.SendTransaction(t.Context(), tx); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if rec, err := cl.TransactionReceipt(t.Context(), tx.Hash()); err == nil {
			if rec.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("a mint with the printed gas limit %d failed (used %d)", limit, rec.GasUsed)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the mint was not mined")
		}
	}
}
