package client

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Paths of the merchant API under each area's base URL.
const (
	pathNFTOrder        = "/merchant/hosted/nftCheckout/order"
	pathNFTOrders       = "/merchant/hosted/nftCheckout/orders"
	pathCryptoQuote     = "/merchant/hosted/nftCheckout/cryptoQuote"
	pathFiatCurrencies  = "/merchant/hosted/nftCheckout/fiatCurrencies"
	pathFiatQuote       = "/merchant/hosted/nftCheckout/fiatQuote"
	pathDepositOrder    = "/merchant/sdk/on-ramp/order"
	pathDepositOrders   = "/merchant/sdk/on-ramp/orders"
	pathDepositFiatList = "/merchant/sdk/onramp-to-deposit/fiatCurrencies"
)

// area is one of the three areas: its base URL and the paths of its orders.
type area struct {
	base   string
	order  string // the creation path; a lookup is order+"/{order_id}"
	orders string // the list
}

func (c *Client) mint() area    { return area{c.base.Mint, pathNFTOrder, pathNFTOrders} }
func (c *Client) nftRamp() area { return area{c.base.NFTRamp, pathNFTOrder, pathNFTOrders} }
func (c *Client) deposit() area { return area{c.base.Deposit, pathDepositOrder, pathDepositOrders} }

// errNilRequest is the cause of a call made with a nil request.
var errNilRequest = errors.New("nil request")

// post sends body to base+path and decodes the answer into a new T.
func post[T any](ctx context.Context, c *Client, base, path string, body any, opts []CallOption) (*T, error) {
	out := new(T)
	if err := c.call(ctx, request{method: http.MethodPost, base: base, path: path, body: body}, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// get reads base+path (with query) into a new T.
func get[T any](ctx context.Context, c *Client, base, path string, query url.Values, opts []CallOption) (*T, error) {
	out := new(T)
	if err := c.call(ctx, request{method: http.MethodGet, base: base, path: path, query: query}, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// localError is the error of a call refused before any request.
func localError(method, path string, err error) error {
	return &Error{Method: method, Path: path, Err: err}
}

// merchant returns id, or the Client's merchant id when id is empty.
func (c *Client) merchant(id string) string {
	if id == "" {
		return c.merchantID
	}
	return id
}

// Area A: NFT minting paid in crypto.

// CreateMintOrder creates an area A order (A1: POST {mint_base_url}/merchant/hosted/nftCheckout/order).
// Send the user to the answer's GatewayURL. The call carries an Idempotency-Key (random, or
// [WithIdempotencyKey]'s), so its retries make one order.
func (c *Client) CreateMintOrder(ctx context.Context, r *MintOrderRequest, opts ...CallOption) (*MintOrder, error) {
	if r == nil {
		return nil, localError(http.MethodPost, pathNFTOrder, errNilRequest)
	}
	body := *r
	body.MerchantID = c.merchant(body.MerchantID)
	return post[MintOrder](ctx, c, c.base.Mint, pathNFTOrder, &body, opts)
}

// CreateCryptoQuote quotes an area A order (A2: POST {mint_base_url}/merchant/hosted/nftCheckout/cryptoQuote).
// A quote that is not allowed is an answer, not an error: see [CryptoQuote.Allowed].
func (c *Client) CreateCryptoQuote(ctx context.Context, r *CryptoQuoteRequest, opts ...CallOption) (*CryptoQuote, error) {
	if r == nil {
		return nil, localError(http.MethodPost, pathCryptoQuote, errNilRequest)
	}
	body := *r
	body.MerchantID = c.merchant(body.MerchantID)
	return post[CryptoQuote](ctx, c, c.base.Mint, pathCryptoQuote, &body, opts)
}

// GetMintOrder returns one of the merchant's area A orders
// (GET {mint_base_url}/merchant/hosted/nftCheckout/order/{order_id}); 404 for an unknown one.
func (c *Client) GetMintOrder(ctx context.Context, orderID string, opts ...CallOption) (*Order, error) {
	return c.getOrder(ctx, c.mint(), orderID, opts)
}

// ListMintOrders iterates over the merchant's area A orders matching p (nil for all), newest
// first, fetching pages as it goes (GET {mint_base_url}/merchant/hosted/nftCheckout/orders).
// An error ends the iteration, yielded with a nil order.
func (c *Client) ListMintOrders(ctx context.Context, p *ListOrdersParams, opts ...CallOption) iter.Seq2[*Order, error] {
	return c.listOrders(ctx, c.mint(), p, opts)
}

// ListMintOrdersPage returns one page of the merchant's area A orders.
func (c *Client) ListMintOrdersPage(ctx context.Context, p *ListOrdersParams, opts ...CallOption) (*OrderList, error) {
	return c.ordersPage(ctx, c.mint(), p, opts)
}

// ListMintOrderWebhooks returns the webhook log of an area A order
// (GET {mint_base_url}/merchant/hosted/nftCheckout/order/{order_id}/webhooks).
func (c *Client) ListMintOrderWebhooks(ctx context.Context, orderID string, opts ...CallOption) (*DeliveryLog, error) {
	return c.deliveries(ctx, c.mint(), orderID, opts)
}

// ResendMintOrderWebhook queues an event of an area A order for delivery again (POST
// {mint_base_url}/merchant/hosted/nftCheckout/order/{order_id}/webhooks/{event_id}/resend),
// and returns its delivery, pending.
func (c *Client) ResendMintOrderWebhook(ctx context.Context, orderID, eventID string, opts ...CallOption) (*Delivery, error) {
	return c.resend(ctx, c.mint(), orderID, eventID, opts)
}

// SetMintOrderRefundAddress gives a refund of an area A order that waits for an address (its
// payer is a contract, or unknown) the address to send it to (POST
// {mint_base_url}/merchant/hosted/nftCheckout/order/{order_id}/refunds/{refund_id}/address),
// and returns the refund. 409 when the refund does not wait for an address (not retried: a
// state conflict carries no Retry-After).
func (c *Client) SetMintOrderRefundAddress(ctx context.Context, orderID, refundID string, r *MerchantRefundAddressRequest, opts ...CallOption) (*Refund, error) {
	path, err := pathf(pathNFTOrder+"/%s/refunds/%s/address", orderID, refundID)
	if err != nil {
		return nil, localError(http.MethodPost, pathNFTOrder, err)
	}
	if r == nil {
		return nil, localError(http.MethodPost, path, errNilRequest)
	}
	body := *r
	body.MerchantID = c.merchant(body.MerchantID)
	return post[Refund](ctx, c, c.base.Mint, path, &body, opts)
}

// CreateMintOrderRefund refunds the payer of one of the merchant's paid (SUCCESS) area A orders,
// in its crypto asset (POST {mint_base_url}/merchant/hosted/nftCheckout/order/{order_id}/refunds),
// and returns the refund (its status pending, awaiting_address or awaiting_approval; one that
// waits for an address gets it with [Client.SetMintOrderRefundAddress]). An empty
// [RefundRequest] refunds all that is left, with the default reason. 409 when the order is not
// SUCCESS or nothing is left; 400 naming amount (more than is left, or over the merchant's daily
// cap) or address. The call carries an Idempotency-Key (random, or [WithIdempotencyKey]'s), so
// its retries make one refund.
func (c *Client) CreateMintOrderRefund(ctx context.Context, orderID string, r *RefundRequest, opts ...CallOption) (*Refund, error) {
	return c.createRefund(ctx, c.mint(), orderID, r, opts)
}

// ListMintOrderRefunds returns the refunds of an area A order, automatic and merchant ones,
// oldest first, with what it was paid and what is left to refund
// (GET {mint_base_url}/merchant/hosted/nftCheckout/order/{order_id}/refunds).
func (c *Client) ListMintOrderRefunds(ctx context.Context, orderID string, opts ...CallOption) (*RefundList, error) {
	return c.refunds(ctx, c.mint(), orderID, opts)
}

// Area B: NFT checkout paid in fiat.

// CreateFiatOrder creates an area B order (B1: POST {nft_ramp_base_url}/merchant/hosted/nftCheckout/order).
// Send the user to the answer's GatewayURL. Invalid function arguments are a 400 whose
// [Error.Code] is 403.
func (c *Client) CreateFiatOrder(ctx context.Context, r *FiatOrderRequest, opts ...CallOption) (*FiatOrder, error) {
	if r == nil {
		return nil, localError(http.MethodPost, pathNFTOrder, errNilRequest)
	}
	body := *r
	body.MerchantID = c.merchant(body.MerchantID)
	return post[FiatOrder](ctx, c, c.base.NFTRamp, pathNFTOrder, &body, opts)
}

// ListFiatCurrencies returns the currencies and payment methods of area B
// (B2: GET {nft_ramp_base_url}/merchant/hosted/nftCheckout/fiatCurrencies).
func (c *Client) ListFiatCurrencies(ctx context.Context, opts ...CallOption) (*FiatCurrencies, error) {
	return get[FiatCurrencies](ctx, c, c.base.NFTRamp, pathFiatCurrencies, nil, opts)
}

// CreateFiatQuote quotes an area B order (B3: POST {nft_ramp_base_url}/merchant/hosted/nftCheckout/fiatQuote).
// A quote that is not allowed is an answer, not an error: see [FiatQuote.Allowed].
func (c *Client) CreateFiatQuote(ctx context.Context, r *FiatQuoteRequest, opts ...CallOption) (*FiatQuote, error) {
	if r == nil {
		return nil, localError(http.MethodPost, pathFiatQuote, errNilRequest)
	}
	body := *r
	body.MerchantID = c.merchant(body.MerchantID)
	return post[FiatQuote](ctx, c, c.base.NFTRamp, pathFiatQuote, &body, opts)
}

// GetFiatOrder returns one of the merchant's area B orders
// (GET {nft_ramp_base_url}/merchant/hosted/nftCheckout/order/{order_id}).
func (c *Client) GetFiatOrder(ctx context.Context, orderID string, opts ...CallOption) (*Order, error) {
	return c.getOrder(ctx, c.nftRamp(), orderID, opts)
}

// ListFiatOrders iterates over the merchant's area B orders matching p (nil for all), newest
// first (GET {nft_ramp_base_url}/merchant/hosted/nftCheckout/orders). An error ends the
// iteration, yielded with a nil order.
func (c *Client) ListFiatOrders(ctx context.Context, p *ListOrdersParams, opts ...CallOption) iter.Seq2[*Order, error] {
	return c.listOrders(ctx, c.nftRamp(), p, opts)
}

// ListFiatOrdersPage returns one page of the merchant's area B orders.
func (c *Client) ListFiatOrdersPage(ctx context.Context, p *ListOrdersParams, opts ...CallOption) (*OrderList, error) {
	return c.ordersPage(ctx, c.nftRamp(), p, opts)
}

// ListFiatOrderWebhooks returns the webhook log of an area B order
// (GET {nft_ramp_base_url}/merchant/hosted/nftCheckout/order/{order_id}/webhooks).
func (c *Client) ListFiatOrderWebhooks(ctx context.Context, orderID string, opts ...CallOption) (*DeliveryLog, error) {
	return c.deliveries(ctx, c.nftRamp(), orderID, opts)
}

// ResendFiatOrderWebhook queues an event of an area B order for delivery again, and returns
// its delivery, pending.
func (c *Client) ResendFiatOrderWebhook(ctx context.Context, orderID, eventID string, opts ...CallOption) (*Delivery, error) {
	return c.resend(ctx, c.nftRamp(), orderID, eventID, opts)
}

// CreateFiatOrderRefund refunds the payer of one of the merchant's paid (SUCCESS) area B
// orders, in its fiat currency, through the payment's provider (POST
// {nft_ramp_base_url}/merchant/hosted/nftCheckout/order/{order_id}/refunds), and returns the
// refund. An empty [RefundRequest] refunds all that is left; Address must be empty (400 naming
// address). 409 when the order is not SUCCESS or nothing is left; 400 naming amount when it is
// more than is left or over the merchant's daily cap. Its retries make one refund (one
// Idempotency-Key).
func (c *Client) CreateFiatOrderRefund(ctx context.Context, orderID string, r *RefundRequest, opts ...CallOption) (*Refund, error) {
	return c.createRefund(ctx, c.nftRamp(), orderID, r, opts)
}

// ListFiatOrderRefunds returns the refunds of an area B order, oldest first, with what it was
// paid and what is left to refund
// (GET {nft_ramp_base_url}/merchant/hosted/nftCheckout/order/{order_id}/refunds).
func (c *Client) ListFiatOrderRefunds(ctx context.Context, orderID string, opts ...CallOption) (*RefundList, error) {
	return c.refunds(ctx, c.nftRamp(), orderID, opts)
}

// Area C: on-ramp to the merchant's deposit address.

// CreateDepositOrder creates an area C order (C1: POST {deposit_base_url}/merchant/sdk/on-ramp/order).
// Send the user to the answer's GatewayURL.
func (c *Client) CreateDepositOrder(ctx context.Context, r *DepositOrderRequest, opts ...CallOption) (*DepositOrder, error) {
	if r == nil {
		return nil, localError(http.MethodPost, pathDepositOrder, errNilRequest)
	}
	body := *r
	body.MerchantID = c.merchant(body.MerchantID)
	return post[DepositOrder](ctx, c, c.base.Deposit, pathDepositOrder, &body, opts)
}

// ListDepositFiatCurrencies returns the currencies and payment methods of area C
// (C2: GET {deposit_base_url}/merchant/sdk/onramp-to-deposit/fiatCurrencies).
func (c *Client) ListDepositFiatCurrencies(ctx context.Context, opts ...CallOption) (*FiatCurrencies, error) {
	return get[FiatCurrencies](ctx, c, c.base.Deposit, pathDepositFiatList, nil, opts)
}

// GetDepositOrder returns one of the merchant's area C orders
// (GET {deposit_base_url}/merchant/sdk/on-ramp/order/{order_id}).
func (c *Client) GetDepositOrder(ctx context.Context, orderID string, opts ...CallOption) (*Order, error) {
	return c.getOrder(ctx, c.deposit(), orderID, opts)
}

// ListDepositOrders iterates over the merchant's area C orders matching p (nil for all),
// newest first (GET {deposit_base_url}/merchant/sdk/on-ramp/orders). An error ends the
// iteration, yielded with a nil order.
func (c *Client) ListDepositOrders(ctx context.Context, p *ListOrdersParams, opts ...CallOption) iter.Seq2[*Order, error] {
	return c.listOrders(ctx, c.deposit(), p, opts)
}

// ListDepositOrdersPage returns one page of the merchant's area C orders.
func (c *Client) ListDepositOrdersPage(ctx context.Context, p *ListOrdersParams, opts ...CallOption) (*OrderList, error) {
	return c.ordersPage(ctx, c.deposit(), p, opts)
}

// ListDepositOrderWebhooks returns the webhook log of an area C order
// (GET {deposit_base_url}/merchant/sdk/on-ramp/order/{order_id}/webhooks).
func (c *Client) ListDepositOrderWebhooks(ctx context.Context, orderID string, opts ...CallOption) (*DeliveryLog, error) {
	return c.deliveries(ctx, c.deposit(), orderID, opts)
}

// ResendDepositOrderWebhook queues an event of an area C order for delivery again, and
// returns its delivery, pending.
func (c *Client) ResendDepositOrderWebhook(ctx context.Context, orderID, eventID string, opts ...CallOption) (*Delivery, error) {
	return c.resend(ctx, c.deposit(), orderID, eventID, opts)
}

// CreateDepositOrderRefund refunds the payer of one of the merchant's paid (SUCCESS) area C
// orders, in its fiat currency, through the payment's provider (POST
// {deposit_base_url}/merchant/sdk/on-ramp/order/{order_id}/refunds), and returns the refund.
// An empty [RefundRequest] refunds all that is left; Address must be empty (400 naming
// address). 409 when the order is not SUCCESS or nothing is left; 400 naming amount when it is
// more than is left or over the merchant's daily cap. Its retries make one refund (one
// Idempotency-Key).
func (c *Client) CreateDepositOrderRefund(ctx context.Context, orderID string, r *RefundRequest, opts ...CallOption) (*Refund, error) {
	return c.createRefund(ctx, c.deposit(), orderID, r, opts)
}

// ListDepositOrderRefunds returns the refunds of an area C order, oldest first, with what it
// was paid and what is left to refund
// (GET {deposit_base_url}/merchant/sdk/on-ramp/order/{order_id}/refunds).
func (c *Client) ListDepositOrderRefunds(ctx context.Context, orderID string, opts ...CallOption) (*RefundList, error) {
	return c.refunds(ctx, c.deposit(), orderID, opts)
}

// What the areas share.

func (c *Client) getOrder(ctx context.Context, a area, orderID string, opts []CallOption) (*Order, error) {
	path, err := pathf(a.order+"/%s", orderID)
	if err != nil {
		return nil, localError(http.MethodGet, a.order, err)
	}
	return get[Order](ctx, c, a.base, path, nil, opts)
}

func (c *Client) deliveries(ctx context.Context, a area, orderID string, opts []CallOption) (*DeliveryLog, error) {
	path, err := pathf(a.order+"/%s/webhooks", orderID)
	if err != nil {
		return nil, localError(http.MethodGet, a.order, err)
	}
	return get[DeliveryLog](ctx, c, a.base, path, nil, opts)
}

func (c *Client) resend(ctx context.Context, a area, orderID, eventID string, opts []CallOption) (*Delivery, error) {
	path, err := pathf(a.order+"/%s/webhooks/%s/resend", orderID, eventID)
	if err != nil {
		return nil, localError(http.MethodPost, a.order, err)
	}
	return post[Delivery](ctx, c, a.base, path, &resendRequest{MerchantID: c.merchantID}, opts)
}

func (c *Client) createRefund(ctx context.Context, a area, orderID string, r *RefundRequest, opts []CallOption) (*Refund, error) {
	path, err := pathf(a.order+"/%s/refunds", orderID)
	if err != nil {
		return nil, localError(http.MethodPost, a.order, err)
	}
	if r == nil {
		return nil, localError(http.MethodPost, path, errNilRequest)
	}
	body := *r
	body.MerchantID = c.merchant(body.MerchantID)
	return post[Refund](ctx, c, a.base, path, &body, opts)
}

func (c *Client) refunds(ctx context.Context, a area, orderID string, opts []CallOption) (*RefundList, error) {
	path, err := pathf(a.order+"/%s/refunds", orderID)
	if err != nil {
		return nil, localError(http.MethodGet, a.order, err)
	}
	return get[RefundList](ctx, c, a.base, path, nil, opts)
}

// query is p as the list's query parameters.
func (p *ListOrdersParams) query() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	if p.Status != "" {
		q.Set("status", string(p.Status))
	}
	if !p.CreatedFrom.IsZero() {
		q.Set("created_from", p.CreatedFrom.UTC().Format(time.RFC3339Nano))
	}
	if !p.CreatedTo.IsZero() {
		q.Set("created_to", p.CreatedTo.UTC().Format(time.RFC3339Nano))
	}
	if p.Limit != 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.StartingAfter != "" {
		q.Set("starting_after", p.StartingAfter)
	}
	return q
}

func (c *Client) ordersPage(ctx context.Context, a area, p *ListOrdersParams, opts []CallOption) (*OrderList, error) {
	return get[OrderList](ctx, c, a.base, a.orders, p.query(), opts)
}

// listOrders iterates over the pages of a list, each started after the last order of the one
// before, until a page says it has no more.
func (c *Client) listOrders(ctx context.Context, a area, p *ListOrdersParams, opts []CallOption) iter.Seq2[*Order, error] {
	var params ListOrdersParams
	if p != nil {
		params = *p
	}
	return func(yield func(*Order, error) bool) {
		next := params // each iteration starts where p says
		for {
			page, err := c.ordersPage(ctx, a, &next, opts)
			if err != nil {
				yield(nil, err)
				return
			}
			for i := range page.Data {
				if !yield(&page.Data[i], nil) {
					return
				}
			}
			if !page.HasMore || len(page.Data) == 0 {
				return
			}
			next.StartingAfter = page.Data[len(page.Data)-1].OrderID
		}
	}
}
