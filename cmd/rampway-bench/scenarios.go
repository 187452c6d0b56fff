package main

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/config"
)

// scenario is one merchant API endpoint measured against its baseline: an order endpoint
// (A1, B1, C1) against the one-insert handler, a quote endpoint (A2, B3) against the bare JSON
// handler.
type scenario struct {
	name  string // as --api names it: a1, a2, b1, b3, c1
	title string // for the report
	// route is rampway's path for the endpoint.
	route func(config.BasePaths) string
	// baselinePath is the baseline's path on its own listener.
	baselinePath string
	// order: the endpoint creates an order (answers 201, each request has its own
	// merchant_txn_id, --idempotency-key applies, the baseline inserts a row of the order's
	// size); otherwise it quotes (answers 200, every request the same body, the baseline
	// touches no database).
	order bool
	// newBody returns what the baseline decodes the body into.
	newBody func() any
	// body returns the request; an order's merchant_txn_id is txnMark.
	body func(st *stack, o ordersOptions) any
}

// txnMark stands for the merchant_txn_id in an order scenario's encoded request.
const txnMark = "@TXN@"

// status is the answer a request of the scenario must get.
func (sc scenario) status() int {
	if sc.order {
		return http.StatusCreated
	}
	return http.StatusOK
}

// baselineKind names the scenario's baseline.
func (sc scenario) baselineKind() string {
	if sc.order {
		return "one insert"
	}
	return "bare JSON"
}

// baselineHandler is the scenario's baseline on b's database.
func (sc scenario) baselineHandler(b *baseline) http.Handler {
	if sc.order {
		return b.inserting(sc.newBody)
	}
	return bare(sc.newBody)
}

const (
	routeOrder     = "/merchant/hosted/nftCheckout/order"
	routeQuote     = "/merchant/hosted/nftCheckout/cryptoQuote"
	routeFiatQuote = "/merchant/hosted/nftCheckout/fiatQuote"
	routeOnRamp    = "/merchant/sdk/on-ramp/order"
)

// execution is the demo NFT's `mint` as dev.json's example has it: 0.01 ETH, quantity 1, to
// the payer.
func execution(st *stack) contractExecution {
	return contractExecution{
		SmartContractFunctionID: st.functionID,
		FunctionArgs:            map[string]string{"to": st.payer.Hex(), "quantity": "1"},
		Payment:                 &payment{PayableCryptoSymbol: devchain.NativeSymbol, PayableCryptoContractAddress: "", TotalValue: totalValue},
		NetworkParams:           networkParams{NetworkName: devNetwork},
	}
}

// scenarios are the endpoints the bench knows, in the order a run takes them.
var scenarios = []scenario{
	{name: "a1", title: "A1 order", route: func(bp config.BasePaths) string { return bp.Mint + routeOrder }, baselinePath: "/order", order: true,
		newBody: func() any { return new(orderRequest) },
		body: func(st *stack, o ordersOptions) any {
			return orderRequest{MerchantID: st.merchantID, CryptoSymbol: devchain.NativeSymbol, CryptoNetwork: devNetwork,
				ContractExecution: execution(st), MerchantUserID: "bench-user-1", MerchantTxnID: txnMark,
				MerchantRedirectURL: "https://merchant.example/return", UserEmailID: "buyer@example.com"}
		}},
	{name: "a2", title: "A2 cryptoQuote", route: func(bp config.BasePaths) string { return bp.Mint + routeQuote }, baselinePath: "/quote",
		newBody: func() any { return new(quoteRequest) },
		body: func(st *stack, o ordersOptions) any {
			return quoteRequest{MerchantID: st.merchantID, CryptoSymbol: devchain.NativeSymbol, CryptoNetwork: devNetwork, ContractExecution: execution(st)}
		}},
	{name: "b1", title: "B1 order", route: func(bp config.BasePaths) string { return bp.NFTRamp + routeOrder }, baselinePath: "/fiat-order", order: true,
		newBody: func() any { return new(fiatOrderRequest) },
		body: func(st *stack, o ordersOptions) any {
			return fiatOrderRequest{MerchantID: st.merchantID, OrderFiatSymbol: o.fiatSymbol, FiatPaymentMethod: o.fiatMethod,
				ContractExecution: execution(st), MerchantUserID: "bench-user-1", MerchantTxnID: txnMark,
				MerchantRedirectURL: "https://merchant.example/return", UserEmailID: "buyer@example.com"}
		}},
	{name: "b3", title: "B3 fiatQuote", route: func(bp config.BasePaths) string { return bp.NFTRamp + routeFiatQuote }, baselinePath: "/fiat-quote",
		newBody: func() any { return new(fiatQuoteRequest) },
		body: func(st *stack, o ordersOptions) any {
			return fiatQuoteRequest{MerchantID: st.merchantID, OrderFiatSymbol: o.fiatSymbol, FiatPaymentMethod: o.fiatMethod, ContractExecution: execution(st)}
		}},
	{name: "c1", title: "C1 order", route: func(bp config.BasePaths) string { return bp.Deposit + routeOnRamp }, baselinePath: "/deposit-order", order: true,
		newBody: func() any { return new(depositOrderRequest) },
		body: func(st *stack, o ordersOptions) any {
			return depositOrderRequest{MerchantID: st.merchantID, OrderFiatSymbol: o.fiatSymbol, OrderFiatAmount: o.fiatAmount, FiatPaymentMethod: o.fiatMethod,
				ConvertToCryptoSymbol: devchain.NativeSymbol, ConvertToCryptoNetwork: devNetwork, MerchantUserID: "bench-user-1", MerchantTxnID: txnMark,
				MerchantRedirectURL: "https://merchant.example/return", UserEmailID: "buyer@example.com"}
		}},
}

// parseScenarios reads --api: names separated by commas, run in the order given.
func parseScenarios(list string) ([]scenario, error) {
	var out []scenario
	for _, name := range strings.Split(list, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" {
			continue
		}
		found := false
		for _, sc := range scenarios {
			if sc.name == name {
				out, found = append(out, sc), true
			}
		}
		if !found {
			return nil, fmt.Errorf("--api: unknown endpoint %q (a1, a2, b1, b3 or c1)", name)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--api: no endpoint given (a1, a2, b1, b3 or c1)")
	}
	return out, nil
}
