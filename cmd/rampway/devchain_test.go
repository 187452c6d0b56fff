package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/contract"
)

// rpcCall is a JSON-RPC call over plain HTTP, as any client in any language would make it.
func rpcCall(t *testing.T, url, method string, params ...any) json.RawMessage {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	res, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer res.Body.Close()
	var out struct {
		Result json.RawMessage
		Error  *struct{ Message string }
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || out.Error != nil {
		t.Fatalf("%s: %v %+v", method, err, out.Error)
	}
	return out.Result
}

// waitMined polls for a receipt every 50 ms, failing after limit.
func waitMined(t *testing.T, c *ethclient.Client, hash common.Hash, limit time.Duration) *types.Receipt {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		r, err := c.TransactionReceipt(context.Background(), hash)
		if err == nil {
			return r
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("tx %s not mined within %s", hash.Hex(), limit)
	return nil
}

// send signs and sends a transaction from key, returning its receipt.
func send(t *testing.T, c *ethclient.Client, key *ecdsa.PrivateKey, to common.Address, value *big.Int, data []byte) *types.Receipt {
	t.Helper()
	ctx := context.Background()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := c.NonceAt(ctx, from, nil) // each send waits for its receipt, so the latest state is current
	if err != nil {
		t.Fatal(err)
	}
	chainID, _ := c.ChainID(ctx)
	gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: value, Data: data})
	if err != nil {
		t.Fatalf("estimate gas: %v", err)
	}
	tx := devchaintest.SignTx(t, c, chainID, key, nonce, to, value, data, gas*2)
	if err := c.SendTransaction(ctx, tx); err != nil {
		t.Fatalf("send: %v", err)
	}
	return waitMined(t, c, tx.Hash(), time.Minute)
}

func TestDevChain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dj, _ := startDev(t, dir)
	if dj.Chain.Network != "devnet" || dj.Chain.ChainID != 1337 || !strings.HasPrefix(dj.Chain.RPCURL, "http://127.0.0.1:") {
		t.Fatalf("chain part %+v", dj.Chain)
	}
	// A client that is not ours: plain JSON-RPC over HTTP.
	if id := rpcCall(t, dj.Chain.RPCURL, "eth_chainId"); string(id) != `"0x539"` {
		t.Fatalf("eth_chainId = %s", id)
	}
	rpcCall(t, dj.Chain.RPCURL, "eth_blockNumber")
	for name, addr := range map[string]string{"nft": dj.Contracts.NFT, "token": dj.Contracts.Token, "price_feed": dj.Contracts.PriceFeed} {
		var code string
		_ = json.Unmarshal(rpcCall(t, dj.Chain.RPCURL, "eth_getCode", addr, "latest"), &code)
		if len(code) <= 2 {
			t.Fatalf("no code at contracts.%s %s", name, addr)
		}
	}
	if len(dj.Assets) != 2 || dj.Assets[0] != (devAsset{"ETH", "devnet", "", 18}) || dj.Assets[1] != (devAsset{"DUSD", "devnet", dj.Contracts.Token, 6}) {
		t.Fatalf("assets %+v", dj.Assets)
	}

	// A wallet library signs a transfer with payer_private_key: mined within 2 s.
	payer, err := crypto.HexToECDSA(strings.TrimPrefix(dj.Chain.PayerPrivateKey, "0x"))
	if err != nil || crypto.PubkeyToAddress(payer.PublicKey).Hex() != dj.Chain.PayerAddress {
		t.Fatalf("payer key %v does not match payer_address %s", err, dj.Chain.PayerAddress)
	}
	c, err := ethclient.Dial(dj.Chain.RPCURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	to := common.HexToAddress("0x000000000000000000000000000000000000bEEF")
	nonce, _ := c.NonceAt(ctx, crypto.PubkeyToAddress(payer.PublicKey), nil)
	tx := devchaintest.SignTx(t, c, big.NewInt(1337), payer, nonce, to, big.NewInt(12345), nil, 21000)
	if err := c.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if r := waitMined(t, c, tx.Hash(), time.Minute); r.Status != types.ReceiptStatusSuccessful {
		t.Fatal("transfer failed")
	}
	if bal, _ := c.BalanceAt(ctx, to, nil); bal.Int64() != 12345 {
		t.Fatalf("recipient balance %s", bal)
	}
}

// Every function dev.json lists runs as is: its example's function_args through the
// registry's encoder, sent from the hot wallet the way the executor pays (value for the native
// coin, approve then call for the token).
func TestDevFunctionsExecute(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dj, _ := startDev(t, dir)
	st, err := readDevState(dir)
	if err != nil {
		t.Fatal(err)
	}
	hot, err := crypto.HexToECDSA(st.HotWalletKey)
	if err != nil {
		t.Fatal(err)
	}
	c := dialChain(t, dj)
	if len(dj.SmartContractFunctions) != 3 {
		t.Fatalf("%d functions, want the native-paid, token-paid and free mints", len(dj.SmartContractFunctions))
	}
	nft := common.HexToAddress(dj.Contracts.NFT)
	balanceOf := func() *big.Int {
		data := append(crypto.Keccak256([]byte("balanceOf(address)"))[:4], common.LeftPadBytes(common.HexToAddress(dj.Chain.PayerAddress).Bytes(), 32)...)
		out, err := c.CallContract(context.Background(), ethereum.CallMsg{To: &nft, Data: data}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return new(big.Int).SetBytes(out)
	}
	seen := map[string]bool{}
	for _, f := range dj.SmartContractFunctions {
		t.Run(f.PayableSymbol+"/"+f.ID, func(t *testing.T) {
			ex := f.Example
			if ex.SmartContractFunctionID != f.ID || ex.NetworkParams.NetworkName != "devnet" || f.ContractAddress != dj.Contracts.NFT {
				t.Fatalf("example %+v", ex)
			}
			fn, err := contract.ParseFunction(f.ABI)
			if err != nil {
				t.Fatal(err)
			}
			seen[fn.Name()] = true
			args, _ := json.Marshal(ex.FunctionArgs)
			data, err := fn.Encode(args)
			if err != nil {
				t.Fatalf("encode %s: %v", args, err)
			}
			value := new(big.Int)
			switch f.PayableSymbol {
			case "ETH":
				if ex.Payment == nil || ex.Payment.PayableCryptoContractAddress != "" {
					t.Fatalf("payment %+v", ex.Payment)
				}
				if value, err = rampway.ParseUnits(ex.Payment.TotalValue, 18); err != nil {
					t.Fatal(err)
				}
			case "DUSD":
				if ex.Payment == nil || ex.Payment.PayableCryptoContractAddress != dj.Contracts.Token {
					t.Fatalf("payment %+v", ex.Payment)
				}
				amount, err := rampway.ParseUnits(ex.Payment.TotalValue, 6)
				if err != nil {
					t.Fatal(err)
				}
				approve := append(crypto.Keccak256([]byte("approve(address,uint256)"))[:4], append(common.LeftPadBytes(nft.Bytes(), 32), common.LeftPadBytes(amount.Bytes(), 32)...)...)
				if r := send(t, c, hot, common.HexToAddress(dj.Contracts.Token), nil, approve); r.Status != types.ReceiptStatusSuccessful {
					t.Fatal("approve failed")
				}
			case "":
				if ex.Payment != nil {
					t.Fatalf("a function paid in nothing has a payment %+v", ex.Payment)
				}
			default:
				t.Fatalf("payable_symbol %q", f.PayableSymbol)
			}
			before := balanceOf()
			if r := send(t, c, hot, nft, value, data); r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("%s failed on chain", fn.Signature())
			}
			if after := balanceOf(); after.Cmp(new(big.Int).Add(before, big.NewInt(1))) != 0 {
				t.Fatalf("payer owns %s NFTs after %s, had %s", after, fn.Signature(), before)
			}
		})
	}
	if !seen["mint"] || !seen["mintWithToken"] || !seen["freeMint"] {
		t.Fatalf("functions %v", seen)
	}
}

// dev.json's examples make orders as they are: the way a merchant's first try goes.
func TestDevExamplesMakeOrders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dj, _ := startDev(t, dir)
	for _, f := range dj.SmartContractFunctions {
		body := exampleQuote(dj, f)
		raw, _ := json.Marshal(body)
		code, q := post(t, dj.API.MintBaseURL+"/merchant/hosted/nftCheckout/cryptoQuote", dj.Merchant.APIKey, string(raw))
		if code != 200 || q["allowed"] != true {
			t.Fatalf("quote for %s: %d %v", f.ID, code, q)
		}
		body["merchant_user_id"], body["merchant_redirect_url"] = "user-1", "http://127.0.0.1:3000/done"
		raw, _ = json.Marshal(body)
		code, o := post(t, dj.API.MintBaseURL+"/merchant/hosted/nftCheckout/order", dj.Merchant.APIKey, string(raw))
		if code != 201 || o["crypto_amount"] != q["crypto_amount"] || !strings.Contains(o["gateway_url"].(string), "/checkout?order_id=") {
			t.Fatalf("order for %s: %d %v (quote %v)", f.ID, code, o, q)
		}
	}
}

// exampleQuote is the A2 body of the example of dev.json's function f (A1 needs the order
// fields too).
func exampleQuote(dj devJSON, f devFunction) map[string]any {
	symbol, contractAddr := "ETH", any(nil)
	if f.Example.Payment != nil {
		symbol = f.Example.Payment.PayableCryptoSymbol
		if a := f.Example.Payment.PayableCryptoContractAddress; a != "" {
			contractAddr = a
		}
	}
	return map[string]any{"merchant_id": dj.Merchant.MerchantID, "crypto_symbol": symbol, "crypto_network": dj.Chain.Network,
		"crypto_contract_address": contractAddr, "contractExecution": f.Example}
}

// createExample creates an order from the example of dev.json's first function (the ETH
// mint) and returns the creation's answer.
func createExample(t *testing.T, dj devJSON) map[string]any {
	t.Helper()
	body := exampleQuote(dj, dj.SmartContractFunctions[0])
	body["merchant_user_id"], body["merchant_redirect_url"] = "user-1", "http://127.0.0.1:3000/done"
	raw, _ := json.Marshal(body)
	code, o := post(t, dj.API.MintBaseURL+"/merchant/hosted/nftCheckout/order", dj.Merchant.APIKey, string(raw))
	if code != 201 {
		t.Fatalf("order: %d %v", code, o)
	}
	return o
}

// getOrder looks an order up as its merchant.
func getOrder(t *testing.T, dj devJSON, id string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, dj.API.MintBaseURL+"/merchant/hosted/nftCheckout/order/"+id, nil)
	req.Header.Set("X-API-KEY", dj.Merchant.APIKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil || res.StatusCode != 200 {
		t.Fatalf("get order %s: %d %v", id, res.StatusCode, err)
	}
	return v
}

// dialChain dials the dev chain's RPC URL; the client closes when the test ends.
func dialChain(t *testing.T, dj devJSON) *ethclient.Client {
	t.Helper()
	c, err := ethclient.Dial(dj.Chain.RPCURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// payExample creates an order from the example of dev.json's first function, pays it from
// the payer over the chain's RPC URL, and waits until the order is SUCCESS.
func payExample(t *testing.T, dj devJSON) string {
	t.Helper()
	o := createExample(t, dj)
	id := o["order_id"].(string)
	amount, err := rampway.ParseUnits(o["crypto_amount"].(string), 18)
	if err != nil {
		t.Fatal(err)
	}
	payer, err := crypto.HexToECDSA(strings.TrimPrefix(dj.Chain.PayerPrivateKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	send(t, dialChain(t, dj), payer, common.HexToAddress(getOrder(t, dj, id)["deposit_address"].(string)), amount, nil)
	deadline := time.Now().Add(30 * time.Second)
	for {
		v := getOrder(t, dj, id)
		if v["status"] == string(rampway.StatusSuccess) {
			return id
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s still %v 30 s after its payment", id, v["status"])
		}
		time.Sleep(100 * time.Millisecond)
	}
}
