// Package client is the Go client library for merchants of a rampway payment gateway: typed
// calls to the merchant API of its three areas, and the verification of the webhooks it sends.
//
// # Calls
//
// A [Client] holds a merchant API key and the base URLs of the three areas: A, NFT minting
// paid in crypto ({mint_base_url}); B, NFT checkout paid in fiat ({nft_ramp_base_url}); C,
// on-ramp to the merchant's deposit address ({deposit_base_url}). It has a method for every
// merchant operation of the API, named after the operation of rampway's OpenAPI document:
// order creation, quotes and fiat currencies, order lookups and lists, an order's webhook log
// and resends, merchant refunds and an order's refunds, a refund's address.
//
//	c := client.New(os.Getenv("RAMPWAY_API_KEY"),
//		client.WithServerURL("https://pay.example.com"),
//		client.WithMerchantID("mch_…"))
//
//	order, err := c.CreateMintOrder(ctx, &client.MintOrderRequest{
//		CryptoSymbol:  "ETH",
//		CryptoNetwork: "ethereum",
//		ContractExecution: client.ContractExecution{
//			SmartContractFunctionID: "scf_…",
//			FunctionArgs:            map[string]any{"to": userWallet, "quantity": "1"},
//			Payment:                 &client.ContractExecutionPayment{PayableCryptoSymbol: "ETH", TotalValue: "0.01"},
//			NetworkParams:           client.NetworkParams{NetworkName: "ethereum"},
//		},
//		MerchantUserID:      user.ID,
//		MerchantTxnID:       cart.ID, // comes back in every webhook event of the order
//		MerchantRedirectURL: "https://shop.example.com/orders/" + cart.ID,
//	}, client.WithIdempotencyKey("cart-"+cart.ID))
//	if err != nil {
//		var e *client.Error
//		if errors.As(err, &e) && e.StatusCode == http.StatusBadRequest {
//			// e.Message names the field or argument the server refused.
//		}
//		return err
//	}
//	http.Redirect(w, r, order.GatewayURL, http.StatusSeeOther)
//
// Money is never a float: amounts are decimal strings in whole units ("0.010263" ETH, "28.80"
// EUR), exactly as the API carries them.
//
// # Errors, retries and idempotency
//
// Every error a call returns is an [*Error]: the HTTP status, the server's message from its
// error envelope, the request's path, and [Error.Retryable]. A call retries by itself, with
// exponential backoff and full jitter, on network failures, 409 with Retry-After, 429 and 5xx (waiting at least
// the server's Retry-After), never on another 4xx, up to its [RetryPolicy]'s attempts and
// within its context. Every POST carries an Idempotency-Key, made at random for the call or
// given with [WithIdempotencyKey], that all its attempts share: a retry of a request the
// server did, whose answer was lost, gets that answer replayed and creates nothing twice.
//
// # Lists
//
// The order lists are iterators over the cursor pagination, fetching pages as they go:
//
//	for o, err := range c.ListMintOrders(ctx, &client.ListOrdersParams{Status: client.StatusSuccess}) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(o.OrderID, o.CryptoAmount)
//	}
//
// # Webhooks
//
// [VerifyWebhook] verifies and decodes a delivery for one secret, a [Verifier] adds secret
// rotation, replay and duplicate protection, and [WebhookHandler] mounts a receiver on an
// [net/http] server. [Sign] produces the signature header, for tests.
//
// The package imports only the standard library, so a merchant can depend on it alone.
// docs/webhooks.md in the rampway repository describes the events and the signature scheme.
package client
