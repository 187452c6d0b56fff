package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/contract"
)

// keysNewJSON runs `rampway keys new --json` with a light keystore KDF into dir.
func keysNewJSON(t *testing.T, dir string, getenv func(string) string, extra ...string) keysNew {
	t.Helper()
	var out bytes.Buffer
	args := append([]string{"keys", "new", "--json", "--light-kdf", "--keystore-dir", dir}, extra...)
	if err := run(t.Context(), args, getenv, &out); err != nil {
		t.Fatalf("keys new: %v\n%s", err, out.String())
	}
	var k keysNew
	if err := json.Unmarshal(out.Bytes(), &k); err != nil {
		t.Fatalf("keys new --json: %v\n%s", err, out.String())
	}
	return k
}

// envOf is the environment an operator makes of keys new's output: every instance's and the
// sweeper's variables, nothing else.
func envOf(k keysNew) func(string) string {
	env := map[string]string{}
	for _, m := range []map[string]string{k.Env, k.SweeperEnv} {
		for n, v := range m {
			env[n] = v
		}
	}
	return func(name string) string { return env[name] }
}

// keysConfig is a production configuration file with keys new's config values, the network
// rpcURL (devnet), a SQLite database and treasury.
func keysConfig(t *testing.T, k keysNew, rpcURL string, treasury common.Address) string {
	return keysConfigWith(t, k, rpcURL, treasury, `{addr: "127.0.0.1:0", public_url: "https://pay.example.com"}`, `{ETH: "3000"}`, "")
}

// keysConfigWith is keysConfig with its http section, its prices and extra YAML after it.
func keysConfigWith(t *testing.T, k keysNew, rpcURL string, treasury common.Address, http, prices, extra string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rampway.yaml")
	cfg := fmt.Sprintf(`http: `+http+`
database: {driver: sqlite, path: %q}
networks:
  - name: devnet
    mode: test
    chain_id: %d
    rpc_urls: [%q]
    confirmations: 1
    native: {symbol: ETH, min_amount: "0.000001", max_amount: "100"}
checkout:
  deposit_xpub: %s
  hot_wallet_address: %q
  hot_wallet_keystore: %s
  treasury_address: %q
  prices: `+prices+`
`+extra, filepath.Join(t.TempDir(), "rampway.db"), devchain.ChainID, rpcURL, k.Config["checkout.deposit_xpub"],
		k.Config["checkout.hot_wallet_address"], yamlString(k.Config["checkout.hot_wallet_keystore"]), treasury.Hex())
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// keys new makes keys that go together: the xpub derives the addresses the xprv and the
// mnemonic spend, the keystore opens with the passphrase, and every value names a variable
// or field that the configuration knows.
func TestKeysNew(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "keys") // made by keys new
	k := keysNewJSON(t, dir, noEnv)

	// The deposit seed: the mnemonic, the xpub (API side) and the xprv (sweeper) are one.
	if k.Deposit.DerivationPath != hd.ChainPath || len(strings.Fields(k.Deposit.Mnemonic)) != 24 ||
		k.Config["checkout.deposit_xpub"] != k.Deposit.XPub || k.SweeperEnv[config.EnvDepositXPrv] != k.Deposit.XPrv {
		t.Fatalf("deposit %+v, config %v, sweeper env %v", k.Deposit, k.Config, k.SweeperEnv)
	}
	seed, err := hd.FromMnemonic(k.Deposit.Mnemonic, "")
	if err != nil {
		t.Fatal(err)
	}
	if xpub, _ := seed.XPub(); xpub != k.Deposit.XPub || seed.XPrv() != k.Deposit.XPrv {
		t.Fatalf("the mnemonic's keys are %s and %s", xpub, seed.XPrv())
	}
	deriver, err := hd.FromXPub(k.Deposit.XPub)
	if err != nil {
		t.Fatal(err)
	}
	sweeper, err := hd.FromXPrv(k.Deposit.XPrv)
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint32(5) {
		a, err := deriver.Address(i)
		if err != nil {
			t.Fatal(err)
		}
		fromXPrv, err1 := sweeper.Key(i)
		fromSeed, err2 := seed.Key(i)
		if err1 != nil || err2 != nil || crypto.PubkeyToAddress(fromXPrv.PublicKey) != a || crypto.PubkeyToAddress(fromSeed.PublicKey) != a {
			t.Fatalf("deposit address %d: xpub %s, xprv %v, mnemonic %v (%v %v)", i, a.Hex(), fromXPrv, fromSeed, err1, err2)
		}
		if i == 0 && a.Hex() != k.Deposit.FirstAddress {
			t.Fatalf("first_address %s, the xpub's address 0 is %s", k.Deposit.FirstAddress, a.Hex())
		}
	}

	// The hot wallet: a keystore file only its owner reads, opened with the passphrase.
	file := k.HotWallet.KeystoreFile
	if filepath.Dir(file) != dir || k.Config["checkout.hot_wallet_keystore"] != file || k.HotWallet.PassphraseGiven {
		t.Fatalf("hot wallet %+v, config %v", k.HotWallet, k.Config)
	}
	info, err := os.Stat(file)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("keystore file: %v, mode %v", err, info.Mode())
	}
	s, err := chain.LoadKeystore(file, k.Env[config.EnvHotWalletPassphrase])
	if err != nil || s.Address().Hex() != k.HotWallet.Address || k.Config["checkout.hot_wallet_address"] != k.HotWallet.Address {
		t.Fatalf("keystore opens as %v (%v), hot wallet %s", s, err, k.HotWallet.Address)
	}

	// Every secret is new, long and not a dev one; every name is one config reads.
	seen := map[string]bool{}
	for name, v := range k.Env {
		switch name {
		case config.EnvAdminToken, config.EnvHashSecret, config.EnvEncryptionKey, config.EnvHotWalletPassphrase:
		default:
			t.Errorf("env %s is not a rampway variable", name)
		}
		if len(v) < 32 || strings.HasPrefix(v, config.DevSecretPrefix) || seen[v] {
			t.Errorf("env %s=%q", name, v)
		}
		seen[v] = true
	}
	if len(k.Env) != 4 || len(k.SweeperEnv) != 1 || len(k.Config) != 3 {
		t.Fatalf("env %v, sweeper env %v, config %v", k.Env, k.SweeperEnv, k.Config)
	}

	// What it prints is what a production configuration accepts.
	cfg, err := config.Load(keysConfig(t, k, "http://127.0.0.1:8545", common.HexToAddress("0x000000000000000000000000000000000000dEaD")), envOf(k))
	if err != nil {
		t.Fatalf("a configuration made of keys new's output: %v", err)
	}
	if cfg.Mode != config.ModeProduction || cfg.Secrets.DepositXPrv != k.Deposit.XPrv || cfg.Secrets.HotWalletPassphrase == "" {
		t.Fatalf("config %+v", cfg)
	}

	// A second run makes other keys.
	if k2 := keysNewJSON(t, dir, noEnv); k2.Deposit.Mnemonic == k.Deposit.Mnemonic || k2.HotWallet.Address == k.HotWallet.Address ||
		k2.Env[config.EnvAdminToken] == k.Env[config.EnvAdminToken] {
		t.Fatal("a second keys new made the same keys")
	}
}

// The keystore passphrase may come from the environment or a file; it is then not printed.
func TestKeysNewGivenPassphrase(t *testing.T) {
	t.Parallel()
	const fromEnv = "correct horse battery staple"
	dir := t.TempDir()
	k := keysNewJSON(t, dir, func(n string) string {
		if n == config.EnvHotWalletPassphrase {
			return fromEnv
		}
		return ""
	})
	if _, ok := k.Env[config.EnvHotWalletPassphrase]; ok || !k.HotWallet.PassphraseGiven {
		t.Fatalf("env %v, hot wallet %+v", k.Env, k.HotWallet)
	}
	if s, err := chain.LoadKeystore(k.HotWallet.KeystoreFile, fromEnv); err != nil || s.Address().Hex() != k.HotWallet.Address {
		t.Fatalf("keystore with the env's passphrase: %v", err)
	}
	passFile := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(passFile, []byte("from a file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	k = keysNewJSON(t, dir, noEnv, "--passphrase-file", passFile)
	if s, err := chain.LoadKeystore(k.HotWallet.KeystoreFile, "from a file"); err != nil || s.Address().Hex() != k.HotWallet.Address ||
		!k.HotWallet.PassphraseGiven {
		t.Fatalf("keystore with the file's passphrase: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	_ = os.WriteFile(empty, []byte("\n"), 0o600)
	for _, args := range [][]string{
		{"keys", "new", "--passphrase-file", empty, "--keystore-dir", dir},
		{"keys", "new", "--passphrase-file", filepath.Join(dir, "nope"), "--keystore-dir", dir},
		{"keys", "new", "extra"},
		{"keys", "old"},
		{"keys"},
	} {
		if err := run(t.Context(), args, noEnv, &bytes.Buffer{}); err == nil {
			t.Errorf("%v succeeded", args)
		}
	}
}

// The text output says, for each value, the variable or field it goes into.
func TestKeysNewText(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(t.Context(), []string{"keys", "new", "--light-kdf", "--keystore-dir", t.TempDir()}, noEnv, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		config.EnvAdminToken + "=", config.EnvHashSecret + "=", config.EnvEncryptionKey + "=", config.EnvHotWalletPassphrase + "=",
		config.EnvDepositXPrv + "=xprv", "deposit_xpub: xpub", "hot_wallet_address: \"0x", "hot_wallet_keystore: /",
		"treasury_address:", "Offline only", "  24 ", "Warnings:",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q:\n%s", want, text)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasSuffix(line, " ") {
			t.Errorf("trailing space: %q", line)
		}
	}
}

// A real `rampway serve` in production mode starts with what keys new printed and nothing
// else: it derives deposit addresses from the xpub, executes a paid order from the keystore's
// hot wallet, and sweeps the deposit with the xprv.
func TestKeysNewServe(t *testing.T) {
	t.Parallel()
	k := keysNewJSON(t, t.TempDir(), noEnv)
	hot := common.HexToAddress(k.HotWallet.Address)
	payerKey, _ := crypto.GenerateKey()
	payer := crypto.PubkeyToAddress(payerKey.PublicKey)
	ether := new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))
	ch := devchaintest.Start(t, devchain.Funding{Address: hot, Wei: ether}, devchain.Funding{Address: payer, Wei: ether})
	c, err := ethclient.Dial(ch.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	treasuryKey, _ := crypto.GenerateKey()
	treasury := crypto.PubkeyToAddress(treasuryKey.PublicKey)
	cfgPath := keysConfig(t, k, ch.RPCURL(), treasury)

	base, out := serveInProcess(t, cfgPath, envOf(k))
	// The chain mines while the test runs (a block per 100 ms).
	mineWhileTesting(t, ch) // a block per 100 ms until the test ends

	admin := "Bearer " + k.Env[config.EnvAdminToken]
	m := call(t, "POST", base+"/admin/merchants", admin, map[string]any{"name": "Keys Shop"})
	mid := m["merchant_id"].(string)
	if live := call(t, "POST", base+"/admin/merchants/"+mid+"/api-keys", admin, map[string]any{})["api_key"].(string); !strings.HasPrefix(live, "rw_live_") {
		t.Fatalf("a production server issued %q by default", live)
	}
	// devnet is a test network: test keys order on it.
	key := call(t, "POST", base+"/admin/merchants/"+mid+"/api-keys", admin, map[string]any{"mode": "test"})["api_key"].(string)
	if !strings.HasPrefix(key, "rw_test_") {
		t.Fatalf("a test key asked for, %q given", key)
	}
	frag, _ := contract.FunctionFragment(devchain.NFTABI(), "mint")
	f := call(t, "POST", base+"/admin/merchants/"+mid+"/contract-functions", admin, map[string]any{"network": "devnet",
		"contract_address": ch.Contracts().NFT.Hex(), "abi": json.RawMessage(frag), "default_gas_limit": 200000, "payable_symbol": "ETH"})
	recipient := common.HexToAddress("0x000000000000000000000000000000000000c0de")
	o := call(t, "POST", base+"/mint/merchant/hosted/nftCheckout/order", key, map[string]any{"merchant_id": mid, "crypto_symbol": "ETH",
		"crypto_network": "devnet", "merchant_user_id": "u1", "merchant_redirect_url": "https://shop.example/done",
		"contractExecution": map[string]any{"smartContractFunctionId": f["smartContractFunctionId"], "function_args": map[string]any{"to": recipient.Hex(), "quantity": "1"},
			"payment":        map[string]any{"payableCryptoSymbol": "ETH", "totalValue": rampway.FormatUnits(big.NewInt(devchain.NFTPriceWei), 18)},
			"network_params": map[string]any{"networkName": "devnet"}}})
	id := o["order_id"].(string)
	get := func() map[string]any {
		return call(t, "GET", base+"/mint/merchant/hosted/nftCheckout/order/"+id, key, nil)
	}

	// The deposit address is one of the seed's: the server derived it from the xpub.
	deposit := common.HexToAddress(get()["deposit_address"].(string))
	seed, _ := hd.FromMnemonic(k.Deposit.Mnemonic, "")
	ours := false
	for i := range uint32(10) {
		dk, _ := seed.Key(i)
		ours = ours || crypto.PubkeyToAddress(dk.PublicKey) == deposit
	}
	if !ours {
		t.Fatalf("deposit address %s is none of the seed's first 10", deposit.Hex())
	}

	amount, _ := rampway.ParseUnits(o["crypto_amount"].(string), 18)
	nonce, err := c.PendingNonceAt(t.Context(), payer)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SendTransaction(t.Context(), devchaintest.SignTx(t, c, ch.ChainID(), payerKey, nonce, deposit, amount, nil, 21_000)); err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if v = get(); v["status"] == "SUCCESS" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("order still %v (%v) a minute after its payment\n%s", v["status"], v["failure_reason"], out)
		}
	}
	// Executed from the keystore's hot wallet.
	tx, _, err := c.TransactionByHash(t.Context(), common.HexToHash(v["execution_tx_hash"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	if from, err := types.Sender(types.LatestSignerForChainID(ch.ChainID()), tx); err != nil || from != hot {
		t.Fatalf("executed by %s (%v), want the hot wallet %s", from.Hex(), err, hot.Hex())
	}
	nft := bindings.NewDemoNFT()
	if owned, err := bind.Call(nft.Instance(c, ch.Contracts().NFT), nil, nft.PackBalanceOf(recipient), nft.UnpackBalanceOf); err != nil || owned.Int64() != 1 {
		t.Fatalf("recipient owns %v (%v), want 1", owned, err)
	}
	// Swept to the treasury with the xprv's key of the deposit address.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		b, err := c.BalanceAt(t.Context(), treasury, nil)
		if err == nil && b.Sign() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing swept to the treasury after 30s\n%s", out)
		}
	}
	for _, bad := range []string{"no hot wallet key", "sweeper not started"} {
		if strings.Contains(out.String(), bad) {
			t.Errorf("serve logged %q\n%s", bad, out)
		}
	}
}

// mineWhileTesting mines a block on ch every 100 ms until the test ends (its cleanup waits for
// the last one), as a node with a block time would.
func mineWhileTesting(t *testing.T, ch *devchain.Chain) {
	t.Helper()
	mining, stop := context.WithCancel(context.Background())
	mined := make(chan struct{})
	go func() {
		defer close(mined)
		for mining.Err() == nil {
			_, _ = ch.Mine()
			time.Sleep(100 * time.Millisecond)
		}
	}()
	t.Cleanup(func() { stop(); <-mined })
}
