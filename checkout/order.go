package checkout

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/merchant"
)

// NoWebhookSecretInfo is the info of an order of a mode created with a webhook URL while the
// merchant has no webhook secret of that mode (secrets are per mode).
func NoWebhookSecretInfo(livemode bool) string {
	return "No " + rampway.ModeName(livemode) + "-mode webhook secret is configured for this merchant: no webhook events will be sent for this order"
}

// OrderParams are the merchant and user fields of an order request.
type OrderParams struct {
	MerchantUserID      string
	MerchantTxnID       string
	MerchantRedirectURL string
	MerchantWebhookURL  string
	// User holds the optional user fields by API name (user_email_id, user_first_name, ...).
	User map[string]string
}

// MintOrderParams is an A1 request.
type MintOrderParams struct {
	Quote QuoteParams
	Order OrderParams
	// Reply, when set, is the response to remember under the Idempotency-Key the request
	// claimed: it is given the order before the order is stored and its answer is stored with
	// the order, in the same write (rampway.OrderStore.CreateOrderWithReply).
	Reply func(c *Created) (*rampway.IdempotentReply, error)
}

// Created is a new order with what its creation response needs.
type Created struct {
	Order      *rampway.Order
	Hash       string
	GatewayURL string
	// Info is set when the order's events will not be sent (no webhook secret).
	Info string
}

// CreateMintOrder creates an area A order: it quotes, refuses what the quote does not allow,
// gives the order its own deposit address and stores it with its order.created event.
func (s *Service) CreateMintOrder(ctx context.Context, m *rampway.Merchant, p MintOrderParams) (*Created, error) {
	if err := s.checkOrderParams(p.Order); err != nil {
		return nil, err
	}
	p.Quote.MerchantID, p.Quote.ServiceFeeBPS = m.ID, m.ServiceFeeBPS
	q, err := s.Quote(ctx, p.Quote)
	if err != nil {
		return nil, err
	}
	if !q.Allowed {
		return nil, rampway.Errorf(rampway.EINVALID, "%s", q.Message)
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	o := &rampway.Order{
		ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: m.ID, Area: rampway.AreaMint, Status: rampway.StatusCreated, Livemode: p.Quote.Livemode,
		MerchantUserID: p.Order.MerchantUserID, MerchantTxnID: p.Order.MerchantTxnID, MerchantRedirectURL: p.Order.MerchantRedirectURL,
		MerchantWebhookURL: p.Order.MerchantWebhookURL, User: p.Order.User,
		Network: q.Network.Name, Asset: q.Asset, CryptoAmount: q.Amount, CryptoReceived: new(big.Int),
		FunctionID: q.Function.ID, FunctionArgs: q.Args, PaymentValue: q.Value, GasLimit: q.GasLimit,
		NetworkFee: q.NetworkFee, ServiceFee: q.ServiceFee,
		ExpiresAt: now.Add(s.cfg.OrderExpiry), CreatedAt: now, UpdatedAt: now,
	}
	if s.addresses == nil {
		return nil, errors.New("create order: no deposit key is configured (checkout.deposit_xpub)")
	}
	idx, addr, err := s.addresses.next(ctx)
	if err != nil {
		return nil, fmt.Errorf("create order: %w", err)
	}
	o.DepositIndex, o.DepositAddress = idx, addr
	return s.storeNew(ctx, m, o, p.Reply)
}

// storeNew stores a new order (A1, B1) with its order.created event and, when the request
// claimed an Idempotency-Key, the answer to replay (reply), in one write.
func (s *Service) storeNew(ctx context.Context, m *rampway.Merchant, o *rampway.Order, replyFn func(c *Created) (*rampway.IdempotentReply, error)) (*Created, error) {
	c := &Created{Order: o, Hash: s.Hash(o.ID), GatewayURL: s.GatewayURL(o.ID)}
	if o.MerchantWebhookURL != "" && !m.HasWebhookSecret(o.Livemode) {
		c.Info = NoWebhookSecretInfo(o.Livemode)
		o.WebhooksOff = true // as the answer says, for good: a secret set later sends none
	}
	var reply *rampway.IdempotentReply
	if replyFn != nil {
		var err error
		if reply, err = replyFn(c); err != nil {
			return nil, fmt.Errorf("create order: reply: %w", err)
		}
	}
	if err := s.store.CreateOrderWithReply(ctx, o, reply); err != nil {
		return nil, fmt.Errorf("create order: %w", err)
	}
	return c, nil
}

// userFields are the optional user fields and their longest accepted length.
var userFields = map[string]int{
	"user_email_id": 254, "user_first_name": 100, "user_last_name": 100, "user_mobileNumber": 20, "user_dob": 10,
	"user_addressLine1": 200, "user_addressLine2": 200, "user_city": 100, "user_state": 100, "user_postCode": 20,
	"user_countryCode": 2,
}

// checkPlainText refuses text a person could not have typed in a field: control characters
// (a NUL, newlines, escapes: they break logs, webhook receivers and PostgreSQL's text) and
// anything that is not UTF-8.
func checkPlainText(field, v string) error {
	switch {
	case !utf8.ValidString(v):
		return rampway.FieldErrorf(field, "%s must be UTF-8 text", field)
	case strings.IndexFunc(v, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) }) >= 0:
		return rampway.FieldErrorf(field, "%s must not contain control characters (such as NUL, tab or a line break)", field)
	}
	return nil
}

func (s *Service) checkOrderParams(p OrderParams) error {
	for _, f := range []struct{ name, v string }{{"merchant_user_id", p.MerchantUserID}, {"merchant_txn_id", p.MerchantTxnID},
		{"merchant_redirect_url", p.MerchantRedirectURL}, {"merchant_webhook_url", p.MerchantWebhookURL}} {
		if err := checkPlainText(f.name, f.v); err != nil {
			return err
		}
	}
	for name, v := range p.User {
		if err := checkPlainText(name, v); err != nil {
			return err
		}
	}
	switch {
	case p.MerchantUserID == "":
		return rampway.FieldErrorf("merchant_user_id", "merchant_user_id is required")
	case utf8.RuneCountInString(p.MerchantUserID) > 256:
		return rampway.FieldErrorf("merchant_user_id", "merchant_user_id must be at most 256 characters")
	case utf8.RuneCountInString(p.MerchantTxnID) > 256:
		return rampway.FieldErrorf("merchant_txn_id", "merchant_txn_id must be at most 256 characters")
	case p.MerchantRedirectURL == "":
		return rampway.FieldErrorf("merchant_redirect_url", "merchant_redirect_url is required")
	}
	if u, err := url.Parse(p.MerchantRedirectURL); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || len(p.MerchantRedirectURL) > 2048 {
		return rampway.FieldErrorf("merchant_redirect_url", "merchant_redirect_url must be an absolute http(s) URL")
	}
	if err := merchant.CheckWebhookURL("merchant_webhook_url", p.MerchantWebhookURL, s.cfg.DevMode); err != nil {
		return err
	}
	for name, v := range p.User {
		max, ok := userFields[name]
		if !ok {
			return rampway.FieldErrorf(name, "unknown user field %s", name)
		}
		if utf8.RuneCountInString(v) > max {
			return rampway.FieldErrorf(name, "%s must be at most %d characters", name, max)
		}
	}
	if e := p.User["user_email_id"]; e != "" {
		if a, err := mail.ParseAddress(e); err != nil || a.Address != e {
			return rampway.FieldErrorf("user_email_id", "user_email_id must be an e-mail address")
		}
	}
	return nil
}
