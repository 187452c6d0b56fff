package httpapi

import (
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/merchant"
)

const (
	quotePath     = "/mint/merchant/hosted/nftCheckout/cryptoQuote"
	mintOrderPath = "/mint/merchant/hosted/nftCheckout/order"
)

// mintEnv is an env whose merchant registered the native-paid, token-paid and free mints.
type mintEnv struct {
	*env
	native, token, free string
}

func newMintEnv(t *testing.T, wrap ...func(checkout.Store) checkout.Store) *mintEnv {
	t.Helper()
	e := &mintEnv{env: newEnv(t, wrap...)}
	for _, r := range []struct {
		dst, name, payable string
	}{{"native", "mint", "ETH"}, {"token", "mintWithToken", "DUSD"}, {"free", "freeMint", ""}} {
		f, err := e.functions.Register(t.Context(), e.merchant.ID, contract.RegisterParams{Network: "devnet",
			ContractAddress: e.chain.Contracts().NFT.Hex(), ABI: nftFragment(t, r.name), DefaultGasLimit: 300_000, PayableSymbol: r.payable})
		if err != nil {
			t.Fatal(err)
		}
		switch r.dst {
		case "native":
			e.native = f.ID
		case "token":
			e.token = f.ID
		default:
			e.free = f.ID
		}
	}
	return e
}

// body is a valid A1 body paying the native mint of one token; edit changes it.
func (e *mintEnv) body(edit func(b map[string]any)) map[string]any {
	b := map[string]any{
		"merchant_id": e.merchant.ID, "crypto_symbol": "ETH", "crypto_network": "devnet", "crypto_contract_address": nil,
		"merchant_user_id": "user-7", "merchant_txn_id": "txn-7", "merchant_redirect_url": "https://shop.example/back",
		"contractExecution": map[string]any{
			"smartContractFunctionId": e.native,
			"function_args":           map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "quantity": "1"},
			"payment":                 map[string]any{"payableCryptoSymbol": "ETH", "payableCryptoContractAddress": "", "totalValue": "0.01"},
			"network_params":          map[string]any{"networkName": "devnet"},
		},
	}
	if edit != nil {
		edit(b)
	}
	return b
}

// tokenPaid makes b pay the token-paid mint of one token (10 DUSD).
func (e *mintEnv) tokenPaid(b map[string]any) {
	token := e.chain.Contracts().Token.Hex()
	b["crypto_symbol"], b["crypto_contract_address"] = "DUSD", token
	ex(b)["smartContractFunctionId"] = e.token
	ex(b)["payment"] = map[string]any{"payableCryptoSymbol": "DUSD", "payableCryptoContractAddress": token, "totalValue": "10"}
}

func ex(b map[string]any) map[string]any      { return b["contractExecution"].(map[string]any) }
func payment(b map[string]any) map[string]any { return ex(b)["payment"].(map[string]any) }

func TestCryptoQuote(t *testing.T) {
	t.Parallel()
	e := newMintEnv(t)
	q := decode[CryptoQuoteView](t, e.merchantAPI(http.MethodPost, quotePath, e.body(nil)), 200)
	amount, err := rampway.ParseUnits(q.CryptoAmount, 18)
	if err != nil || !q.Allowed || q.Message != "" {
		t.Fatalf("quote %+v", q)
	}
	price := big.NewInt(devchain.NFTPriceWei)
	if amount.Cmp(price) <= 0 || amount.Cmp(new(big.Int).Mul(price, big.NewInt(2))) >= 0 {
		t.Fatalf("crypto_amount %s: want 0.01 ETH plus a network fee", q.CryptoAmount)
	}
	// customGasLimit raises the network fee.
	q2 := decode[CryptoQuoteView](t, e.merchantAPI(http.MethodPost, quotePath, e.body(func(b map[string]any) {
		ex(b)["network_params"] = map[string]any{"networkName": "devnet", "customGasLimit": "600000"}
	})), 200)
	if a2, _ := rampway.ParseUnits(q2.CryptoAmount, 18); a2.Cmp(amount) <= 0 {
		t.Fatalf("customGasLimit 600000 quoted %s, default %s", q2.CryptoAmount, q.CryptoAmount)
	}
	// The token-paid mint is quoted in the token, the network fee converted at 3000 DUSD/ETH.
	qt := decode[CryptoQuoteView](t, e.merchantAPI(http.MethodPost, quotePath, e.body(func(b map[string]any) {
		b["crypto_symbol"], b["crypto_contract_address"] = "DUSD", e.chain.Contracts().Token.Hex()
		ex(b)["smartContractFunctionId"] = e.token
		ex(b)["payment"] = map[string]any{"payableCryptoSymbol": "DUSD", "payableCryptoContractAddress": e.chain.Contracts().Token.Hex(), "totalValue": "10"}
	})), 200)
	if at, err := rampway.ParseUnits(qt.CryptoAmount, 6); err != nil || at.Cmp(big.NewInt(10_000_000)) <= 0 || !qt.Allowed {
		t.Fatalf("token quote %+v", qt)
	}
	// A free function: the user pays the network fee only.
	qf := decode[CryptoQuoteView](t, e.merchantAPI(http.MethodPost, quotePath, e.body(func(b map[string]any) {
		ex(b)["smartContractFunctionId"] = e.free
		delete(ex(b), "payment")
	})), 200)
	if af, _ := rampway.ParseUnits(qf.CryptoAmount, 18); af.Sign() <= 0 || af.Cmp(price) >= 0 || !qf.Allowed {
		t.Fatalf("free quote %+v", qf)
	}
	// Every quote states its inputs, and they add up to crypto_amount.
	for _, c := range []struct {
		q        CryptoQuoteView
		decimals uint8
		value    string
		gas      uint64
	}{{q, 18, "0.01", 300_000}, {q2, 18, "0.01", 600_000}, {qt, 6, "10", 300_000}, {qf, 18, "0", 300_000}} {
		sum := new(big.Int)
		for _, part := range []string{c.q.TotalValue, c.q.NetworkFee, c.q.ServiceFee} {
			v, err := rampway.ParseUnits(part, c.decimals)
			if err != nil {
				t.Fatalf("quote %+v: %v", c.q, err)
			}
			sum.Add(sum, v)
		}
		if total, _ := rampway.ParseUnits(c.q.CryptoAmount, c.decimals); sum.Cmp(total) != 0 || c.q.TotalValue != c.value ||
			c.q.GasLimit != c.gas || c.q.NetworkFee == "0" {
			t.Fatalf("quote %+v: its inputs add up to %s", c.q, sum)
		}
		// What a person types: at most rampway.AmountDigits significant digits.
		if digits := strings.TrimLeft(strings.ReplaceAll(c.q.CryptoAmount, ".", ""), "0"); len(digits) > rampway.AmountDigits {
			t.Fatalf("crypto_amount %s has more than %d significant digits", c.q.CryptoAmount, rampway.AmountDigits)
		}
	}

	// A token payment named by its symbol alone (payableCryptoContractAddress is optional).
	qs := decode[CryptoQuoteView](t, e.merchantAPI(http.MethodPost, quotePath, e.body(func(b map[string]any) {
		e.tokenPaid(b)
		delete(payment(b), "payableCryptoContractAddress")
	})), 200)
	if qs.CryptoAmount != qt.CryptoAmount || !qs.Allowed {
		t.Fatalf("token quote without payableCryptoContractAddress %+v, with it %+v", qs, qt)
	}

	// A function registered with a default gas limit below the call's intrinsic gas.
	low, err := e.functions.Register(t.Context(), e.merchant.ID, contract.RegisterParams{Network: "devnet",
		ContractAddress: e.chain.Contracts().NFT.Hex(), ABI: nftFragment(t, "mint"), DefaultGasLimit: 21_000, PayableSymbol: "ETH"})
	if err != nil {
		t.Fatal(err)
	}

	// Not allowed: 200 with allowed false and why.
	for _, tc := range []struct {
		name string
		edit func(b map[string]any)
		msg  string
	}{
		{"would revert", func(b map[string]any) { payment(b)["totalValue"] = "0.02" }, "The smart-contract call would fail: execution reverted: DemoNFT: wrong payment"},
		{"above max", func(b map[string]any) { payment(b)["totalValue"] = "101" }, "is above the maximum payment of 100 ETH on devnet"},
		// The node's "intrinsic gas too low" is not passed on as it is.
		{"customGasLimit below the intrinsic gas", func(b map[string]any) {
			ex(b)["network_params"] = map[string]any{"networkName": "devnet", "customGasLimit": "21000"}
		}, "customGasLimit 21000 is below the 21572 gas the call needs before it runs"},
		{"default gas limit below the intrinsic gas", func(b map[string]any) { ex(b)["smartContractFunctionId"] = low.ID },
			"The gas limit 21000 registered for function " + low.ID + " is below the 21572 gas the call needs before it runs: give a higher customGasLimit"},
		{"token-paid customGasLimit below the intrinsic gas", func(b map[string]any) {
			e.tokenPaid(b)
			ex(b)["network_params"] = map[string]any{"networkName": "devnet", "customGasLimit": "21000"}
		}, "customGasLimit 21000 is below the 21572 gas the call needs before it runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := decode[CryptoQuoteView](t, e.merchantAPI(http.MethodPost, quotePath, e.body(tc.edit)), 200)
			if q.Allowed || !strings.Contains(q.Message, tc.msg) || q.CryptoAmount == "" || strings.Contains(q.Message, "err:") {
				t.Fatalf("quote %+v, want allowed false with %q", q, tc.msg)
			}
		})
	}
}

func TestMintRequestErrors(t *testing.T) {
	t.Parallel()
	e := newMintEnv(t)
	token := e.chain.Contracts().Token.Hex()
	for _, tc := range []struct {
		name       string
		edit       func(b map[string]any)
		bodyStatus int
		msg        string
	}{
		{"unknown function", func(b map[string]any) { ex(b)["smartContractFunctionId"] = "scf_nope" }, 400, `smartContractFunctionId "scf_nope" is not a registered function`},
		{"payable asset invalid", func(b map[string]any) { payment(b)["payableCryptoSymbol"] = "BTC" }, 400, "payableCryptoSymbol BTC is not valid for network devnet"},
		{"payment missing", func(b map[string]any) { delete(ex(b), "payment") }, 400, "contractExecution.payment is required"},
		{"payment on a free function", func(b map[string]any) { ex(b)["smartContractFunctionId"] = e.free }, 400, "receives no funds"},
		{"symbol differs", func(b map[string]any) {
			b["crypto_symbol"], b["crypto_contract_address"] = "DUSD", token
		}, 400, "crypto_symbol DUSD must be the payableCryptoSymbol ETH"},
		// crypto_symbol is checked against payableCryptoSymbol before its contract address: the
		// token's missing address is not the fault on a function paid in ETH.
		{"symbol differs, token without address", func(b map[string]any) { b["crypto_symbol"], b["crypto_contract_address"] = "DUSD", nil }, 400,
			"crypto_symbol DUSD must be the payableCryptoSymbol ETH"},
		{"symbol differs, wrong token address", func(b map[string]any) {
			b["crypto_symbol"], b["crypto_contract_address"] = "DUSD", "0x000000000000000000000000000000000000dEaD"
		}, 400, "crypto_symbol DUSD must be the payableCryptoSymbol ETH"},
		{"token without address", func(b map[string]any) { e.tokenPaid(b); b["crypto_contract_address"] = nil }, 400, "crypto_contract_address is required for the token DUSD"},
		{"wrong token address", func(b map[string]any) {
			e.tokenPaid(b)
			b["crypto_contract_address"] = "0x000000000000000000000000000000000000dEaD"
		}, 400, "crypto_contract_address 0x000000000000000000000000000000000000dEaD is not the contract of DUSD on devnet"},
		// "" names the native coin (the spec); left out, the symbol names the token (below).
		{"payable token with an empty address", func(b map[string]any) { e.tokenPaid(b); payment(b)["payableCryptoContractAddress"] = "" }, 400,
			`payableCryptoContractAddress "" names the native coin of devnet, but DUSD is a token: give its contract address ` + token + " or leave the field out"},
		{"payable token with a wrong address", func(b map[string]any) {
			e.tokenPaid(b)
			payment(b)["payableCryptoContractAddress"] = "0x000000000000000000000000000000000000dEaD"
		}, 400, "contractExecution.payment.payableCryptoContractAddress 0x000000000000000000000000000000000000dEaD is not the contract of DUSD on devnet"},
		// An asset the network lacks, named in both symbols: the payable one is the spec's fault.
		{"payable asset invalid, crypto_symbol too", func(b map[string]any) {
			b["crypto_symbol"] = "BTC"
			payment(b)["payableCryptoSymbol"] = "BTC"
		}, 400, "payableCryptoSymbol BTC is not valid for network devnet"},
		{"free function, token without address", func(b map[string]any) {
			b["crypto_symbol"], b["crypto_contract_address"] = "DUSD", nil
			ex(b)["smartContractFunctionId"] = e.free
			delete(ex(b), "payment")
		}, 400, "crypto_contract_address is required for the token DUSD"},
		// A payableCryptoSymbol valid on the network but not the function's asset says so; one
		// the network does not know keeps the spec's message (above).
		{"payable asset not the function's", func(b map[string]any) {
			e.tokenPaid(b)
			b["crypto_symbol"], b["crypto_contract_address"] = "ETH", nil
			payment(b)["payableCryptoSymbol"], payment(b)["payableCryptoContractAddress"] = "ETH", ""
		}, 400, "payableCryptoSymbol ETH is not the asset function " + e.token + " is paid in (DUSD)"},
		{"payable token on the native function", func(b map[string]any) {
			b["crypto_symbol"], b["crypto_contract_address"] = "DUSD", token
			payment(b)["payableCryptoSymbol"], payment(b)["payableCryptoContractAddress"] = "DUSD", token
		}, 400, "payableCryptoSymbol DUSD is not the asset function " + e.native + " is paid in (ETH)"},
		{"native with address", func(b map[string]any) { b["crypto_contract_address"] = token }, 400, "must be empty for ETH"},
		{"unknown network", func(b map[string]any) { b["crypto_network"] = "mainnet" }, 400, `crypto_network "mainnet" is not a supported network`},
		{"unknown symbol", func(b map[string]any) { b["crypto_symbol"] = "DOGE" }, 400, "crypto_symbol DOGE is not valid for network devnet"},
		{"networkName differs", func(b map[string]any) { ex(b)["network_params"] = map[string]any{"networkName": "mainnet"} }, 400, "networkName mainnet is not the network of function"},
		{"totalValue not a number", func(b map[string]any) { payment(b)["totalValue"] = "abc" }, 400, "totalValue must be a positive decimal"},
		{"totalValue zero", func(b map[string]any) { payment(b)["totalValue"] = "0" }, 400, "totalValue must be a positive decimal"},
		{"totalValue too precise", func(b map[string]any) { payment(b)["totalValue"] = "0.0000000000000000001" }, 400, "at most 18 decimal places"},
		{"totalValue a number", func(b map[string]any) { payment(b)["totalValue"] = 0.01 }, 400, "Field 'contractExecution.payment.totalValue' must be a string"},
		{"bad gas limit", func(b map[string]any) {
			ex(b)["network_params"] = map[string]any{"networkName": "devnet", "customGasLimit": "lots"}
		}, 400, "customGasLimit must be a whole number"},
		{"customGasLimit with a space", func(b map[string]any) {
			ex(b)["network_params"] = map[string]any{"networkName": "devnet", "customGasLimit": " 100000"}
		}, 400, "customGasLimit must be a whole number"},
		{"customGasLimit signed", func(b map[string]any) {
			ex(b)["network_params"] = map[string]any{"networkName": "devnet", "customGasLimit": "+100000"}
		}, 400, "customGasLimit must be a whole number"},
		{"customGasLimit a number", func(b map[string]any) {
			ex(b)["network_params"] = map[string]any{"networkName": "devnet", "customGasLimit": 600000}
		}, 400, "Field 'contractExecution.network_params.customGasLimit' must be a string, not a number"},
		{"customGasLimit a boolean", func(b map[string]any) {
			ex(b)["network_params"] = map[string]any{"networkName": "devnet", "customGasLimit": true}
		}, 400, "Field 'contractExecution.network_params.customGasLimit' must be a string, not a boolean"},
		{"no contractExecution", func(b map[string]any) { delete(b, "contractExecution") }, 400, "contractExecution is required"},
		{"no function_args", func(b map[string]any) { delete(ex(b), "function_args") }, 400, "contractExecution.function_args is required"},
		{"function_args null", func(b map[string]any) { ex(b)["function_args"] = nil }, 400, "contractExecution.function_args is required: a JSON object"},
		{"too few args", func(b map[string]any) {
			ex(b)["function_args"] = map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}
		}, 403, "Function arguments are not valid: 2 arguments required, 1 given"},
		{"arg of wrong type", func(b map[string]any) {
			ex(b)["function_args"] = map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "quantity": "many"}
		}, 403, "Function arguments are not valid: argument 'quantity' must be of type uint256"},
		{"foreign merchant_id", func(b map[string]any) { b["merchant_id"] = "mch_00000000000000000000000000" }, 401, "Unauthorized"},
	} {
		for _, path := range []string{quotePath, mintOrderPath} {
			t.Run(tc.name+" "+path, func(t *testing.T) {
				status := 400
				if tc.bodyStatus == 401 {
					status = 401
				}
				wantEnvelope(t, e.merchantAPI(http.MethodPost, path, e.body(tc.edit)), status, tc.bodyStatus, path, tc.msg)
			})
		}
	}
}

func TestCreateMintOrderAndLookup(t *testing.T) {
	t.Parallel()
	e := newMintEnv(t)
	r := e.merchantAPI(http.MethodPost, mintOrderPath, e.body(nil))
	var raw map[string]any
	_ = json.Unmarshal(r.body, &raw)
	o := decode[MintOrderView](t, r, 201)
	if len(raw) != 8 || raw["crypto_contract_address"] != nil || raw["livemode"] != false {
		t.Fatalf("A1 answer %s: want exactly order_id, crypto_symbol, crypto_contract_address (null), crypto_network, crypto_amount, hash, gateway_url, and livemode (false: a test key's)", r.body)
	}
	if o.CryptoSymbol != "ETH" || o.CryptoNetwork != "devnet" || !strings.HasPrefix(o.OrderID, "ord_") || len(o.Hash) != 64 ||
		o.GatewayURL != "https://pay.example/checkout?order_id="+o.OrderID+"&hash="+o.Hash || !e.checkout.CheckHash(o.OrderID, o.Hash) {
		t.Fatalf("order %+v", o)
	}
	// The stored order, as the merchant looks it up.
	got := decode[OrderView](t, e.merchantAPI(http.MethodGet, mintOrderPath+"/"+o.OrderID, nil), 200)
	if got.Status != "CREATED" || got.CryptoAmount != o.CryptoAmount || got.CryptoAmountReceived != "0" || got.MerchantTxnID != "txn-7" ||
		got.MerchantUserID != "user-7" || got.TotalValue != "0.01" || !strings.HasPrefix(got.DepositAddress, "0x") || got.ExecutionTxHash != nil ||
		got.SmartContractFunctionID != e.native || got.GatewayURL != o.GatewayURL ||
		got.Deposits == nil || len(got.Deposits) != 0 || got.DepositTxHashes == nil || len(got.DepositTxHashes) != 0 {
		t.Fatalf("lookup %+v", got)
	}
	// The first deposit address of the test mnemonic's chain: index 1 (indexes start at 1).
	if got.DepositAddress != "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" {
		t.Fatalf("deposit address %s, want HD index 1", got.DepositAddress)
	}
	// Each order has its own address.
	o2 := decode[MintOrderView](t, e.merchantAPI(http.MethodPost, mintOrderPath, e.body(nil)), 201)
	got2 := decode[OrderView](t, e.merchantAPI(http.MethodGet, mintOrderPath+"/"+o2.OrderID, nil), 200)
	if got2.DepositAddress == got.DepositAddress {
		t.Fatal("two orders share a deposit address")
	}
	// Another merchant, another area, an unknown id: 404.
	other, _ := e.svc.Create(t.Context(), merchant.CreateParams{Name: "Other"})
	_, otherKey, _ := e.svc.IssueAPIKey(t.Context(), other.ID, false)
	p := mintOrderPath + "/" + o.OrderID
	wantEnvelope(t, e.do(http.MethodGet, p, nil, map[string]string{"X-API-KEY": otherKey}), 404, 404, p, "not found")
	wantEnvelope(t, e.merchantAPI(http.MethodGet, mintOrderPath+"/ord_nope", nil), 404, 404, mintOrderPath+"/ord_nope", "not found")
	// List, newest first, with a cursor.
	l := "/mint/merchant/hosted/nftCheckout/orders"
	page := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, l+"?limit=1", nil), 200)
	if len(page.Data) != 1 || !page.HasMore || page.Data[0].OrderID != o2.OrderID {
		t.Fatalf("page 1 %+v", page)
	}
	page = decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, l+"?limit=1&starting_after="+o2.OrderID, nil), 200)
	if len(page.Data) != 1 || page.HasMore || page.Data[0].OrderID != o.OrderID {
		t.Fatalf("page 2 %+v", page)
	}
	if page := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, l+"?status=SUCCESS", nil), 200); len(page.Data) != 0 {
		t.Fatalf("status filter %+v", page)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodGet, l+"?created_from=yesterday", nil), 400, 400, l, "created_from must be an ISO-8601 time")
	wantEnvelope(t, e.merchantAPI(http.MethodGet, l+"?limit=1000", nil), 400, 400, l, "limit must be")
	wantEnvelope(t, e.merchantAPI(http.MethodGet, l+"?status=PAID", nil), 400, 400, l, `status "PAID" is not an order status`)

	// A token order whose payment names its asset by symbol alone (the address is optional).
	ot := decode[MintOrderView](t, e.merchantAPI(http.MethodPost, mintOrderPath, e.body(func(b map[string]any) {
		e.tokenPaid(b)
		delete(payment(b), "payableCryptoContractAddress")
	})), 201)
	if ot.CryptoSymbol != "DUSD" || ot.CryptoContractAddress == nil || *ot.CryptoContractAddress != e.chain.Contracts().Token.Hex() {
		t.Fatalf("token order without payableCryptoContractAddress %+v", ot)
	}
}

// TestOrderListCursor: starting_after must be one of the merchant's own orders; another
// merchant's order id is refused exactly as an unknown one, so that the list does not tell
// which ids exist.
func TestOrderListCursor(t *testing.T) {
	t.Parallel()
	e := newMintEnv(t)
	l := "/mint/merchant/hosted/nftCheckout/orders"
	own := decode[MintOrderView](t, e.merchantAPI(http.MethodPost, mintOrderPath, e.body(nil)), 201)
	// Another merchant's order, newer than the first merchant's.
	other, _ := e.svc.Create(t.Context(), merchant.CreateParams{Name: "Other"})
	_, otherKey, _ := e.svc.IssueAPIKey(t.Context(), other.ID, false)
	f, err := e.functions.Register(t.Context(), other.ID, contract.RegisterParams{Network: "devnet",
		ContractAddress: e.chain.Contracts().NFT.Hex(), ABI: nftFragment(t, "mint"), DefaultGasLimit: 300_000, PayableSymbol: "ETH"})
	if err != nil {
		t.Fatal(err)
	}
	foreign := decode[MintOrderView](t, e.do(http.MethodPost, mintOrderPath, e.body(func(b map[string]any) {
		b["merchant_id"] = other.ID
		ex(b)["smartContractFunctionId"] = f.ID
	}), map[string]string{"X-API-KEY": otherKey}), 201)
	newer := decode[MintOrderView](t, e.merchantAPI(http.MethodPost, mintOrderPath, e.body(nil)), 201)

	page := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, l+"?starting_after="+newer.OrderID, nil), 200)
	if len(page.Data) != 1 || page.Data[0].OrderID != own.OrderID {
		t.Fatalf("after its own newer order: %+v, want the older one", page)
	}
	for _, tc := range []struct{ name, cursor string }{
		{"another merchant's order", foreign.OrderID},
		{"an unknown order", rampway.NewID(rampway.PrefixOrder, time.Now())},
		{"not an order id", "ord_nope"},
		{"a merchant id", e.merchant.ID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.merchantAPI(http.MethodGet, l+"?starting_after="+tc.cursor, nil)
			b := wantEnvelope(t, r, 400, 400, l, "starting_after must be the order_id of one of your orders")
			if b.Message != "starting_after must be the order_id of one of your orders" {
				t.Fatalf("message %q", b.Message)
			}
		})
	}
}

// TestEchoedValuesAreCapped: a message repeats at most 64 characters of a value the client
// sent, then "...", however long the value.
func TestEchoedValuesAreCapped(t *testing.T) {
	t.Parallel()
	e := newMintEnv(t)
	long := func(c string, n int) string { return strings.Repeat(c, n) }
	cut := func(c string) string { return long(c, 64) + "..." }
	key := map[string]string{"X-API-KEY": e.key}
	post := func(edit func(b map[string]any)) func(path string) resp {
		return func(path string) resp { return e.merchantAPI(http.MethodPost, path, e.body(edit)) }
	}
	for _, tc := range []struct {
		name   string
		send   func(path string) resp
		paths  []string
		status int
		msg    string
	}{
		{"smartContractFunctionId", post(func(b map[string]any) { ex(b)["smartContractFunctionId"] = long("f", 100_000) }), []string{quotePath, mintOrderPath}, 400,
			`smartContractFunctionId "` + cut("f") + `" is not a registered function`},
		{"crypto_network", post(func(b map[string]any) { b["crypto_network"] = long("n", 100_000) }), []string{quotePath, mintOrderPath}, 400,
			`crypto_network "` + cut("n") + `" is not a supported network`},
		{"crypto_symbol", post(func(b map[string]any) { b["crypto_symbol"] = long("S", 10_000) }), []string{quotePath, mintOrderPath}, 400,
			"crypto_symbol " + cut("S") + " is not valid for network devnet"},
		{"networkName", post(func(b map[string]any) { ex(b)["network_params"] = map[string]any{"networkName": long("m", 10_000)} }), []string{quotePath, mintOrderPath}, 400,
			"networkName " + cut("m") + " is not the network of function"},
		{"payableCryptoSymbol", post(func(b map[string]any) { payment(b)["payableCryptoSymbol"] = long("P", 10_000) }), []string{quotePath, mintOrderPath}, 400,
			"payableCryptoSymbol " + cut("P") + " is not valid for network devnet"},
		{"totalValue", post(func(b map[string]any) { payment(b)["totalValue"] = long("9", 500) }), []string{quotePath, mintOrderPath}, 400,
			`totalValue must be a positive decimal with at most 18 decimal places, not "` + cut("9") + `"`},
		{"order id", func(path string) resp { return e.merchantAPI(http.MethodGet, path, nil) }, []string{mintOrderPath + "/" + long("o", 5000)}, 404,
			`Order "` + cut("o") + `" not found`},
		{"status filter", func(path string) resp { return e.merchantAPI(http.MethodGet, path+"?status="+long("s", 5000), nil) },
			[]string{"/mint/merchant/hosted/nftCheckout/orders"}, 400, `status "` + cut("s") + `" is not an order status`},
		{"Content-Type", func(path string) resp {
			return e.do(http.MethodPost, path, "{}", map[string]string{"X-API-KEY": e.key, "Content-Type": "text/" + long("t", 5000)})
		}, []string{quotePath}, 415, `Content-Type must be application/json, not "text/` + long("t", 59) + `..."`},
		{"unknown route", func(path string) resp { return e.do(http.MethodGet, path, nil, key) }, []string{"/" + long("p", 5000)}, 404,
			"Cannot GET /" + long("p", 63) + "..."},
		{"method", func(path string) resp { return e.do(long("M", 5000), path, nil, key) }, []string{"/healthz"}, 405,
			"Method " + cut("M") + " is not allowed on /healthz; allowed: GET, HEAD"},
	} {
		for _, path := range tc.paths {
			t.Run(tc.name+" "+path[:min(len(path), 60)], func(t *testing.T) {
				r := tc.send(path)
				p, _, _ := strings.Cut(path, "?")
				b := wantEnvelope(t, r, tc.status, tc.status, p, tc.msg)
				if len(b.Message) > len(tc.msg)+200 {
					t.Fatalf("message of %d bytes: %.300s", len(b.Message), b.Message)
				}
			})
		}
	}
}

func TestCreateMintOrderFields(t *testing.T) {
	t.Parallel()
	e := newMintEnv(t)
	// A webhook URL while the merchant has no webhook secret: created, with info.
	r := e.merchantAPI(http.MethodPost, mintOrderPath, e.body(func(b map[string]any) { b["merchant_webhook_url"] = "http://127.0.0.1:9/hooks" }))
	silent := decode[MintOrderView](t, r, 201)
	if silent.Info == "" || !strings.Contains(silent.Info, "no webhook events will be sent") {
		t.Fatalf("info missing: %s", r.body)
	}
	if _, err := e.svc.SetWebhookSecret(t.Context(), e.merchant.ID, false, "", 0); err != nil {
		t.Fatal(err)
	}
	r = e.merchantAPI(http.MethodPost, mintOrderPath, e.body(func(b map[string]any) { b["merchant_webhook_url"] = "http://127.0.0.1:9/hooks" }))
	signed := decode[MintOrderView](t, r, 201)
	if signed.Info != "" {
		t.Fatalf("info with a secret configured: %s", r.body)
	}
	// The info's promise holds once a secret is set: the order's later events are not sent
	// either; the order created with the secret has its events sent.
	for id, want := range map[string]int{silent.OrderID: 0, signed.OrderID: 2} {
		if _, err := e.store.Apply(t.Context(), id, rampway.Cancelled{}, time.Now()); err != nil {
			t.Fatal(err)
		}
		if ds, err := e.store.Deliveries(t.Context(), id); err != nil || len(ds) != want {
			t.Fatalf("order %s: %d deliveries, %v; want %d", id, len(ds), err, want)
		}
	}
	for _, tc := range []struct {
		name string
		edit func(b map[string]any)
		msg  string
	}{
		{"no user id", func(b map[string]any) { delete(b, "merchant_user_id") }, "merchant_user_id is required"},
		{"no redirect", func(b map[string]any) { delete(b, "merchant_redirect_url") }, "merchant_redirect_url is required"},
		{"bad redirect", func(b map[string]any) { b["merchant_redirect_url"] = "shop/back" }, "merchant_redirect_url must be an absolute http(s) URL"},
		{"bad webhook", func(b map[string]any) { b["merchant_webhook_url"] = "ftp://x" }, "merchant_webhook_url must be an absolute http(s) URL"},
		{"bad email", func(b map[string]any) { b["user_email_id"] = "not-an-email" }, "user_email_id must be an e-mail address"},
		{"long name", func(b map[string]any) { b["user_first_name"] = strings.Repeat("n", 101) }, "user_first_name must be at most 100 characters"},
		{"not allowed", func(b map[string]any) { payment(b)["totalValue"] = "0.02" }, "The smart-contract call would fail"},
		{"customGasLimit below the intrinsic gas", func(b map[string]any) {
			ex(b)["network_params"] = map[string]any{"networkName": "devnet", "customGasLimit": "21000"}
		}, "customGasLimit 21000 is below the 21572 gas the call needs before it runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantEnvelope(t, e.merchantAPI(http.MethodPost, mintOrderPath, e.body(tc.edit)), 400, 400, mintOrderPath, tc.msg)
		})
	}
	// A refused request creates nothing.
	page := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, "/mint/merchant/hosted/nftCheckout/orders", nil), 200)
	if len(page.Data) != 2 {
		t.Fatalf("%d orders stored, want the 2 created", len(page.Data))
	}
}

// TestMerchantServiceFee: a merchant's own service fee prices its quotes and orders; another
// merchant keeps the configured default (0 in this env).
func TestMerchantServiceFee(t *testing.T) {
	t.Parallel()
	e := newMintEnv(t)
	// A second merchant, onboarded through the admin API with a fee of 250 bps (2.5%).
	fm := decode[MerchantView](t, e.admin(http.MethodPost, "/merchants", map[string]any{"name": "Fee Shop", "service_fee_bps": 250}), 201)
	_, feeKey, err := e.svc.IssueAPIKey(t.Context(), fm.MerchantID, false)
	if err != nil {
		t.Fatal(err)
	}
	f, err := e.functions.Register(t.Context(), fm.MerchantID, contract.RegisterParams{Network: "devnet",
		ContractAddress: e.chain.Contracts().NFT.Hex(), ABI: nftFragment(t, "mint"), DefaultGasLimit: 300_000, PayableSymbol: "ETH"})
	if err != nil {
		t.Fatal(err)
	}
	feeBody := func(total string) map[string]any {
		return e.body(func(b map[string]any) {
			b["merchant_id"] = fm.MerchantID
			ex(b)["smartContractFunctionId"] = f.ID
			payment(b)["totalValue"] = total
		})
	}
	feeAPI := func(method, path string, body any) resp {
		return e.do(method, path, body, map[string]string{"X-API-KEY": feeKey})
	}
	wei := func(s string) *big.Int {
		t.Helper()
		v, err := rampway.ParseUnits(s, 18)
		if err != nil {
			t.Fatalf("amount %q: %v", s, err)
		}
		return v
	}
	// Same function, gas limit and fee data: the quotes differ by the service fee they state
	// (their amounts are rounded up to rampway.AmountDigits, which may hide a few wei).
	for _, tc := range []struct {
		total, fee string
	}{
		{"0.01", "0.00025"},
		{"0.000000000000000123", "0.000000000000000004"}, // 3.075 wei, rounded up (a reverting quote still prices)
	} {
		def := decode[CryptoQuoteView](t, e.merchantAPI(http.MethodPost, quotePath, e.body(func(b map[string]any) { payment(b)["totalValue"] = tc.total })), 200)
		withFee := decode[CryptoQuoteView](t, feeAPI(http.MethodPost, quotePath, feeBody(tc.total)), 200)
		if withFee.ServiceFee != tc.fee || def.ServiceFee != "0" || wei(withFee.CryptoAmount).Cmp(wei(def.CryptoAmount)) < 0 {
			t.Fatalf("totalValue %s: quotes %+v (250 bps) and %+v (default), want the service fee %s", tc.total, withFee, def, tc.fee)
		}
	}

	// The orders keep their service fee; crypto_amount is its sum.
	lookup := func(r resp, api func(string, string, any) resp) OrderView {
		t.Helper()
		o := decode[MintOrderView](t, r, 201)
		return decode[OrderView](t, api(http.MethodGet, mintOrderPath+"/"+o.OrderID, nil), 200)
	}
	withFee := lookup(feeAPI(http.MethodPost, mintOrderPath, feeBody("0.01")), feeAPI)
	def := lookup(e.merchantAPI(http.MethodPost, mintOrderPath, e.body(nil)), e.merchantAPI)
	for _, tc := range []struct {
		o   OrderView
		fee string
	}{{withFee, "0.00025"}, {def, "0"}} {
		sum := new(big.Int).Add(wei(tc.o.TotalValue), wei(tc.o.NetworkFee))
		sum.Add(sum, wei(tc.o.ServiceFee))
		if tc.o.ServiceFee != tc.fee || tc.o.TotalValue != "0.01" || wei(tc.o.CryptoAmount).Cmp(sum) != 0 {
			t.Fatalf("order of %s: service_fee %s (want %s), crypto_amount %s = %s + %s + %s?", tc.o.MerchantID,
				tc.o.ServiceFee, tc.fee, tc.o.CryptoAmount, tc.o.TotalValue, tc.o.NetworkFee, tc.o.ServiceFee)
		}
	}
	if withFee.NetworkFee != def.NetworkFee {
		t.Fatalf("network fees differ: %s and %s", withFee.NetworkFee, def.NetworkFee)
	}

	// Back to the default: the next quote and order have no service fee; the order made before
	// keeps its own.
	decode[MerchantView](t, e.admin(http.MethodPatch, "/merchants/"+fm.MerchantID, `{"service_fee_bps": null}`), 200)
	if q := decode[CryptoQuoteView](t, feeAPI(http.MethodPost, quotePath, feeBody("0.01")), 200); q.CryptoAmount != def.CryptoAmount {
		t.Fatalf("after the reset the quote is %s, want the default merchant's %s", q.CryptoAmount, def.CryptoAmount)
	}
	if o := lookup(feeAPI(http.MethodPost, mintOrderPath, feeBody("0.01")), feeAPI); o.ServiceFee != "0" {
		t.Fatalf("order after the reset: service_fee %s", o.ServiceFee)
	}
	if o := decode[OrderView](t, feeAPI(http.MethodGet, mintOrderPath+"/"+withFee.OrderID, nil), 200); o.ServiceFee != "0.00025" {
		t.Fatalf("the earlier order's service_fee changed to %s", o.ServiceFee)
	}
}

// A quote the hot wallet cannot pay for now is not allowed, and says so without the node's
// words: they name the hot wallet's address and balance, which are not the merchant's business.
func TestQuoteHotWalletShort(t *testing.T) {
	t.Parallel()
	e := newMintEnv(t)
	// The hot wallet sends nearly all it has away.
	c := e.chain.Client()
	hot, _ := crypto.HexToECDSA(hotWalletKey)
	bal, err := c.BalanceAt(t.Context(), e.hotWallet, nil)
	if err != nil {
		t.Fatal(err)
	}
	keep := big.NewInt(5e15) // 0.005 ETH: less than the mint's 0.01
	tx := devchaintest.SignTx(t, c, e.chain.ChainID(), hot, 0, common.Address{0x01}, new(big.Int).Sub(bal, keep), nil, 21_000)
	if err := c.SendTransaction(t.Context(), tx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.chain.Mine(); err != nil {
		t.Fatal(err)
	}
	q := decode[CryptoQuoteView](t, e.merchantAPI(http.MethodPost, quotePath, e.body(nil)), 200)
	if q.Allowed || !strings.Contains(q.Message, "the service's wallet on devnet cannot pay") ||
		strings.Contains(strings.ToLower(q.Message), strings.ToLower(e.hotWallet.Hex()[2:])) || strings.Contains(q.Message, "have") {
		t.Fatalf("quote with the hot wallet short: %+v", q)
	}
}
