package main

import (
	"encoding/json"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
)

// The demo merchant has a deposit address for each dev asset, listed in dev.json as the DESIGN
// contract has it: an account of the data directory's own (not the payer, the hot wallet or
// the treasury) that starts empty, so that its balance grows by exactly what is sent. The
// admin API and CLI set, list and delete deposit addresses on the running dev server; a
// restart keeps the account and the addresses the developer set, and gives back one deleted.
func TestDevDepositAddresses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dj, stop := startDev(t, dir)

	// dev.json: merchant.deposit_addresses is exactly [{symbol, network, address}] per asset.
	raw, err := os.ReadFile(filepath.Join(dir, devJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var contract struct {
		Merchant struct {
			DepositAddresses []map[string]string `json:"deposit_addresses"`
		} `json:"merchant"`
		Contracts map[string]string `json:"contracts"`
	}
	if err := json.Unmarshal(raw, &contract); err != nil {
		t.Fatal(err)
	}
	got := contract.Merchant.DepositAddresses
	if len(got) != 2 || len(got[0]) != 3 || len(got[1]) != 3 {
		t.Fatalf("dev.json merchant.deposit_addresses %v", got)
	}
	account := common.HexToAddress(got[0]["address"])
	want := []map[string]string{
		{"symbol": "ETH", "network": "devnet", "address": account.Hex()},
		{"symbol": "DUSD", "network": "devnet", "address": account.Hex()},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("dev.json merchant.deposit_addresses %v, want %v", got, want)
	}
	if len(dj.Merchant.DepositAddresses) != 2 || dj.Merchant.DepositAddresses[1] != (devMerchantDepositAddress{Symbol: "DUSD", Network: "devnet", Address: account.Hex()}) {
		t.Fatalf("dev.json %+v", dj.Merchant.DepositAddresses)
	}
	st, err := readDevState(dir)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := st.keys()
	if err != nil {
		t.Fatal(err)
	}
	for name, a := range map[string]common.Address{"payer": common.HexToAddress(dj.Chain.PayerAddress),
		"hot wallet": crypto.PubkeyToAddress(keys.hotWallet.PublicKey), "treasury": crypto.PubkeyToAddress(keys.deployer.PublicKey)} {
		if a == account {
			t.Fatalf("the deposit address is the %s's", name)
		}
	}
	c := dialChain(t, dj)
	ctx := t.Context()
	if code, err := c.CodeAt(ctx, common.HexToAddress(contract.Contracts["multicall3"]), nil); err != nil || len(code) == 0 {
		t.Fatalf("dev.json contracts.multicall3 %q holds no contract: %v", contract.Contracts["multicall3"], err)
	}
	token := common.HexToAddress(dj.Contracts.Token)
	tokenBalance := func(a common.Address) *big.Int {
		t.Helper()
		out, err := c.CallContract(ctx, ethereum.CallMsg{To: &token, Data: rampway.ERC20Call(rampway.SelBalanceOf, a, new(big.Int))[:36]}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return new(big.Int).SetBytes(out)
	}
	if b, err := c.BalanceAt(ctx, account, nil); err != nil || b.Sign() != 0 || tokenBalance(account).Sign() != 0 {
		t.Fatalf("the deposit address starts with %v ETH, %v DUSD (%v)", b, tokenBalance(account), err)
	}
	payer, _ := crypto.HexToECDSA(strings.TrimPrefix(dj.Chain.PayerPrivateKey, "0x"))
	sent := big.NewInt(123_456_789_000)
	send(t, c, payer, account, sent, nil)
	if b, err := c.BalanceAt(ctx, account, nil); err != nil || b.Cmp(sent) != 0 {
		t.Fatalf("after sending %v wei the deposit address holds %v (%v)", sent, b, err)
	}

	// The admin API lists them, by network then symbol.
	admin := "Bearer " + dj.AdminToken
	base := dj.API.AdminBaseURL + "/merchants/" + dj.Merchant.MerchantID + "/deposit-addresses"
	list := call(t, "GET", base, admin, nil)
	data, _ := list["data"].([]any)
	if len(data) != 2 || data[0].(map[string]any)["symbol"] != "DUSD" || data[1].(map[string]any)["address"] != account.Hex() || list["has_more"] != false {
		t.Fatalf("admin list %v", list)
	}

	// The CLI on the data directory, while the server runs.
	cli := adminCLI(t, dir)
	mid := dj.Merchant.MerchantID
	if v, err := cli("deposit-addresses", "list", mid); err != nil || len(v["data"].([]any)) != 2 {
		t.Fatalf("cli list: %v %v", v, err)
	}
	// The demo NFT takes DUSD (an ERC-20 transfer runs none of its code) but refuses ETH.
	if v, err := cli("deposit-addresses", "set", mid, "--network", "devnet", "--symbol", "DUSD", "--address", dj.Contracts.NFT); err != nil ||
		v["address"] != common.HexToAddress(dj.Contracts.NFT).Hex() || v["symbol"] != "DUSD" || v["network"] != "devnet" || v["merchant_id"] != mid {
		t.Fatalf("cli set DUSD to the NFT contract: %v %v", v, err)
	}
	for _, bad := range []struct {
		args []string
		msg  string
	}{
		{[]string{"set", mid, "--network", "devnet", "--symbol", "ETH", "--address", dj.Contracts.NFT}, "is a contract that refuses a plain transfer of ETH on devnet"},
		{[]string{"set", mid, "--network", "devnet", "--symbol", "XYZ", "--address", account.Hex()}, `symbol "XYZ" is not an asset of network devnet (ETH, DUSD)`},
		{[]string{"set", mid, "--network", "mainnet", "--symbol", "ETH", "--address", account.Hex()}, `network "mainnet" is not configured`},
		{[]string{"set", mid, "--network", "devnet", "--symbol", "ETH", "--address", "0xabc"}, "address must be a 0x-prefixed 20-byte hex address"},
		{[]string{"set", "mch_00000000000000000000000000", "--network", "devnet", "--symbol", "ETH", "--address", account.Hex()}, "not found"},
		{[]string{"delete", mid, "--network", "devnet"}, "--symbol is required"},
		{[]string{"delete", mid, "--network", "devnet", "--symbol", "USDC"}, `Deposit address for "USDC" on network "devnet" not found`},
		{[]string{"list"}, "expects MERCHANT_ID"},
	} {
		if _, err := cli(append([]string{"deposit-addresses"}, bad.args...)...); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("admin deposit-addresses %v: %v, want an error with %q", bad.args, err, bad.msg)
		}
	}
	if v, err := cli("deposit-addresses", "delete", mid, "--network", "devnet", "--symbol", "DUSD"); err != nil || v["symbol"] != "DUSD" {
		t.Fatalf("cli delete: %v %v", v, err)
	}
	// The developer's own ETH address, set through the admin API: kept across the restart.
	own, _ := crypto.GenerateKey()
	mine := crypto.PubkeyToAddress(own.PublicKey)
	if v := call(t, "POST", base, admin, map[string]string{"network": "devnet", "symbol": "ETH", "address": strings.ToLower(mine.Hex())}); v["address"] != mine.Hex() {
		t.Fatalf("admin set %v", v)
	}
	req, _ := http.NewRequest("DELETE", base+"/devnet/DUSD", nil)
	req.Header.Set("Authorization", admin)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 404 {
		t.Fatalf("delete of a deleted address: %v %v, want 404", res, err)
	} else {
		res.Body.Close()
	}

	if err := stop(); err != nil {
		t.Fatal(err)
	}
	dj2, _ := startDev(t, dir)
	wantAddrs := []devMerchantDepositAddress{{Symbol: "ETH", Network: "devnet", Address: mine.Hex()}, {Symbol: "DUSD", Network: "devnet", Address: account.Hex()}}
	if !reflect.DeepEqual(dj2.Merchant.DepositAddresses, wantAddrs) {
		t.Fatalf("after restart dev.json lists %+v, want %+v", dj2.Merchant.DepositAddresses, wantAddrs)
	}
	if dj2.Contracts != dj.Contracts {
		t.Fatalf("contracts moved: %+v %+v", dj.Contracts, dj2.Contracts)
	}
}
