package rampway

import (
	"context"
	"math/big"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// OnrampPartner is a crypto on-ramp partner: a provider that takes the user's fiat and delivers
// the crypto itself, to the address rampway names, instead of rampway paying it from its own
// liquidity (an area C order without a hot wallet). It is a separate interface from
// FiatProvider: rampway never captures, voids or refunds at a partner; it quotes through it,
// starts the user's order there, and hears of the delivery. Its module registers as payment
// providers do (package provider); none is built yet.
type OnrampPartner interface {
	// Name is the instance's configured name, the {name} of /providers/{name}/webhook.
	Name() string
	// Livemode is the mode it serves (false: test data and test networks only).
	Livemode() bool
	// Assets are what it delivers: a symbol on a network (by chain id), for each currency.
	Assets() []PartnerAsset
	// Quote prices a fiat amount in an asset: what the user pays, what is delivered, the
	// partner's fees and how long the price holds.
	Quote(ctx context.Context, q PartnerQuoteRequest) (*PartnerQuote, error)
	// Start opens the order at the partner, idempotently under OrderID: the user pays on the
	// partner's page (Next), and the partner sends the asset to Destination.
	Start(ctx context.Context, s PartnerStart) (*PartnerOrder, error)
	// Order reads an order's state at the partner (a user back before its notification).
	Order(ctx context.Context, ref string) (*PartnerOrder, error)
	// ParseWebhook verifies a notification's signature and parses it; an error applies nothing.
	ParseWebhook(h http.Header, body []byte, now time.Time) (*PartnerEvent, error)
}

// PartnerAsset is an asset a partner delivers, for a fiat currency.
type PartnerAsset struct {
	Currency string // ISO 4217
	Symbol   string
	ChainID  *big.Int
	Contract common.Address // zero for the native coin
}

// PartnerQuoteRequest asks a partner for a price: FiatAmount (minor units) of Currency paid by
// Method, in Asset.
type PartnerQuoteRequest struct {
	Currency   string
	FiatAmount *big.Int
	Method     string
	Asset      PartnerAsset
	Livemode   bool
}

// PartnerQuote is a partner's price: the crypto delivered (base units), its fees in the fiat
// currency (minor units), and until when it holds.
type PartnerQuote struct {
	CryptoAmount *big.Int
	Fee          *big.Int
	ExpiresAt    time.Time
}

// PartnerStart opens an order at a partner.
type PartnerStart struct {
	OrderID     string // rampway's: the idempotency key
	Quote       PartnerQuote
	Request     PartnerQuoteRequest
	Destination common.Address // where the asset goes (the merchant's deposit address)
	ReturnURL   string
}

// PartnerOrder is an order at a partner.
type PartnerOrder struct {
	Ref    string
	Status PartnerStatus
	Next   *NextAction // where the user pays, while it waits on them
	// TxHash is the delivery's transaction, once the partner has sent the asset.
	TxHash        string
	FailureReason string
}

// PartnerStatus is an order's state at a partner.
type PartnerStatus string

// The states of an order at a partner.
const (
	PartnerWaiting   PartnerStatus = "waiting"   // the user has not paid
	PartnerPaid      PartnerStatus = "paid"      // paid, the asset not yet sent
	PartnerDelivered PartnerStatus = "delivered" // sent: TxHash
	PartnerFailed    PartnerStatus = "failed"    // not paid, or refunded by the partner
)

// PartnerEvent is a partner's notification: an order's new state, applied once by ID.
type PartnerEvent struct {
	ID    string
	Order PartnerOrder
}
