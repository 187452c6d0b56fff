package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"

	"github.com/rampway/rampway/client"
)

// exampleServer stands in for a rampway server in the examples: an A1 that answers an order,
// a lookup, and a list of 5 orders.
func exampleServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == "POST" && r.URL.Path == "/mint/merchant/hosted/nftCheckout/order":
			var body map[string]any
			json.NewDecoder(r.Body).Decode(&body)
			if body["merchant_redirect_url"] == "" || body["merchant_redirect_url"] == nil {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"statusCode":400,"timestamp":"2026-11-25T06:30:53.495Z","message":"merchant_redirect_url is required",`+
					`"path":"/mint/merchant/hosted/nftCheckout/order","status":false}`)
				return
			}
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"order_id":"ord_06h12sktf7t9fn4apnn9raevh8","crypto_symbol":"ETH","crypto_contract_address":null,`+
				`"crypto_network":"devnet","crypto_amount":"0.010263","hash":"278f40","gateway_url":"https://pay.example.com/checkout?order_id=ord_06h12sktf7t9fn4apnn9raevh8&hash=278f40"}`)
		case r.URL.Path == "/mint/merchant/hosted/nftCheckout/orders":
			// Orders ord_5 (newest) to ord_1, limit a page, starting after starting_after.
			limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
			next := 5
			if after := r.URL.Query().Get("starting_after"); after != "" {
				next, _ = strconv.Atoi(strings.TrimPrefix(after, "ord_"))
				next--
			}
			var data []string
			for ; next > 0 && len(data) < limit; next-- {
				data = append(data, fmt.Sprintf(`{"order_id":"ord_%d","status":"SUCCESS","crypto_amount":"0.0%d"}`, next, next))
			}
			fmt.Fprintf(w, `{"data":[%s],"has_more":%t}`, strings.Join(data, ","), next > 0)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"statusCode":404,"timestamp":"2026-11-25T06:30:53.495Z","message":"Not found","path":%q,"status":false}`, r.URL.Path)
		}
	}))
}

func ExampleNew() {
	// The base URLs of a server that mounts the areas at its root's default paths.
	c := client.New("rw_test_…", client.WithServerURL("https://pay.example.com"))
	fmt.Println(c.BaseURLs().Mint)

	// Or each area's own: the "api" object of `rampway dev`'s dev.json decodes into BaseURLs.
	var dev struct {
		API client.BaseURLs `json:"api"`
	}
	json.Unmarshal([]byte(`{"api":{"mint_base_url":"http://127.0.0.1:8080/mint",`+
		`"nft_ramp_base_url":"http://127.0.0.1:8080/nft-ramp","deposit_base_url":"http://127.0.0.1:8080/deposit"}}`), &dev)
	c = client.New(os.Getenv("RAMPWAY_API_KEY"),
		client.WithBaseURLs(dev.API),
		client.WithMerchantID("mch_06h12sjn2nm4dtd6xsw7mcd9m8"), // put in every body that carries merchant_id
		client.WithHTTPClient(&http.Client{}),                   // your transport, proxy, timeouts
		client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 5}),
	)
	fmt.Println(c.BaseURLs().Deposit)
	// Output:
	// https://pay.example.com/mint
	// http://127.0.0.1:8080/deposit
}

func ExampleClient_CreateMintOrder() {
	srv := exampleServer()
	defer srv.Close()
	c := client.New("rw_test_…", client.WithServerURL(srv.URL), client.WithMerchantID("mch_06h12sjn2nm4dtd6xsw7mcd9m8"))

	var info client.ResponseInfo
	order, err := c.CreateMintOrder(context.Background(), &client.MintOrderRequest{
		CryptoSymbol:  "ETH",
		CryptoNetwork: "devnet",
		ContractExecution: client.ContractExecution{
			SmartContractFunctionID: "scf_06h12sjn2v81g8m3wqfxpvhre0",
			FunctionArgs:            map[string]any{"to": "0x8C6e4566760f8c3Cd0036188A7022fD50dD67DD6", "quantity": "1"},
			Payment:                 &client.ContractExecutionPayment{PayableCryptoSymbol: "ETH", TotalValue: "0.01"},
			NetworkParams:           client.NetworkParams{NetworkName: "devnet"},
		},
		MerchantUserID:      "user-77",
		MerchantTxnID:       "order-1042",
		MerchantRedirectURL: "https://shop.example.com/orders/1042",
	},
		// Your own key makes the call idempotent across restarts of your process too;
		// without it the call makes one, which its retries share.
		client.WithIdempotencyKey("order-1042"),
		client.WithResponseInfo(&info))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(order.OrderID, order.CryptoAmount, order.CryptoSymbol)
	fmt.Println(order.GatewayURL) // send the user there
	fmt.Println(info.IdempotencyKey, info.Attempts)
	// Output:
	// ord_06h12sktf7t9fn4apnn9raevh8 0.010263 ETH
	// https://pay.example.com/checkout?order_id=ord_06h12sktf7t9fn4apnn9raevh8&hash=278f40
	// order-1042 1
}

func ExampleError() {
	srv := exampleServer()
	defer srv.Close()
	c := client.New("rw_test_…", client.WithServerURL(srv.URL))

	_, err := c.CreateMintOrder(context.Background(), &client.MintOrderRequest{MerchantID: "mch_06h12sjn2nm4dtd6xsw7mcd9m8"})
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println(e.StatusCode, e.Message)
		fmt.Println(e.Path, e.Retryable())
	}
	_, err = c.GetMintOrder(context.Background(), "ord_unknown")
	if errors.As(err, &e) && e.StatusCode == http.StatusNotFound {
		fmt.Println(err)
	}
	// Output:
	// 400 merchant_redirect_url is required
	// /mint/merchant/hosted/nftCheckout/order false
	// rampway: GET /mint/merchant/hosted/nftCheckout/order/ord_unknown: 404 Not Found: Not found
}

func ExampleClient_ListMintOrders() {
	srv := exampleServer()
	defer srv.Close()
	c := client.New("rw_test_…", client.WithServerURL(srv.URL))

	// Every SUCCESS order, newest first, two a page: the iterator fetches the pages.
	for o, err := range c.ListMintOrders(context.Background(), &client.ListOrdersParams{Status: client.StatusSuccess, Limit: 2}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(o.OrderID, o.Status, o.CryptoAmount)
	}
	// Output:
	// ord_5 SUCCESS 0.05
	// ord_4 SUCCESS 0.04
	// ord_3 SUCCESS 0.03
	// ord_2 SUCCESS 0.02
	// ord_1 SUCCESS 0.01
}
