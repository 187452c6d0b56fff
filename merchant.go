package rampway

import (
	"context"
	"math/big"
	"strings"
	"time"
)

// MerchantStatus says whether a merchant may use the API.
type MerchantStatus string

// Merchant statuses. A disabled merchant's API keys are refused.
const (
	MerchantActive   MerchantStatus = "active"
	MerchantDisabled MerchantStatus = "disabled"
)

// Valid reports whether s is a known merchant status.
func (s MerchantStatus) Valid() bool { return s == MerchantActive || s == MerchantDisabled }

// Merchant is a business onboarded to sell through rampway.
type Merchant struct {
	ID     string
	Name   string
	Status MerchantStatus
	// WebhookURL is the default address for webhook events; an order may override it.
	WebhookURL string
	// WebhookSecret signs webhook events; "" means none is configured, and no events are sent.
	// Stores keep it encrypted at rest when an encryption key is configured.
	//
	// WebhookSecret and its previous one sign test-mode events; LiveWebhookSecret and its
	// previous one live-mode events (webhook secrets are per mode, as API keys are).
	WebhookSecret      string
	WebhookSecretSetAt *time.Time
	// PreviousWebhookSecret, after a rotation with a grace period, still signs deliveries
	// until PreviousSecretExpiresAt.
	PreviousWebhookSecret   string
	PreviousSecretExpiresAt *time.Time
	// The live-mode secrets, as the test-mode ones above.
	LiveWebhookSecret           string
	LiveWebhookSecretSetAt      *time.Time
	PreviousLiveWebhookSecret   string
	PreviousLiveSecretExpiresAt *time.Time
	// ServiceFeeBPS is the merchant's service fee in basis points of the paid value (0 to
	// 10000); nil means the configured default (checkout.service_fee_bps).
	ServiceFeeBPS *int64
	// LogoURL is the merchant's logo, shown with its name on the hosted checkout page; "" for
	// none. An absolute https URL (http in dev mode): see CheckImageURL.
	LogoURL string
	// RefundPolicies are the merchant's rules for the refunds it asks for, by currency symbol
	// ("EUR", "ETH"): a currency without one has no approval threshold and no daily cap.
	RefundPolicies map[string]RefundLimits
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// RefundLimits are a merchant's refund rule for one currency, as decimal amounts of it ("" for
// none): refunds above ApprovalAbove wait for an operator's approval; DailyCap is the most
// its refunds of one UTC day (of each mode) add up to.
type RefundLimits struct {
	ApprovalAbove string `json:"approval_above,omitempty"`
	DailyCap      string `json:"daily_cap,omitempty"`
}

// RefundPolicy is the merchant's rule for refunds of currency symbol (its key matched
// exactly, else without regard to case), in its smallest unit
// (decimals digits; an amount given with more digits is cut, so that the rule is never looser
// than written).
func (m *Merchant) RefundPolicy(symbol string, decimals uint8) MerchantRefundPolicy {
	l, ok := m.RefundPolicies[symbol]
	if !ok { // "eur" written for EUR
		for k, v := range m.RefundPolicies {
			if strings.EqualFold(k, symbol) {
				l, ok = v, true
			}
		}
	}
	if !ok {
		return MerchantRefundPolicy{}
	}
	return MerchantRefundPolicy{ApprovalAbove: floorUnits(l.ApprovalAbove, decimals), DailyCap: floorUnits(l.DailyCap, decimals)}
}

// CheckRefundPolicies checks a merchant's refund policies: currency symbols of 1 to 16
// letters and digits, amounts that are non-negative decimals (at most 18 decimals). EINVALID
// naming refund_policy.
func CheckRefundPolicies(p map[string]RefundLimits) error {
	for sym, l := range p {
		if len(sym) == 0 || len(sym) > 16 || strings.IndexFunc(sym, func(r rune) bool {
			return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}) >= 0 {
			return FieldErrorf("refund_policy", "refund_policy: %q is not a currency symbol (1 to 16 letters and digits, such as EUR or ETH)", Echo(sym))
		}
		for name, v := range map[string]string{"approval_above": l.ApprovalAbove, "daily_cap": l.DailyCap} {
			if v == "" {
				continue
			}
			if _, err := ParseUnits(v, 18); err != nil {
				return FieldErrorf("refund_policy", "refund_policy.%s.%s must be a decimal amount such as \"100.00\", not %q", sym, name, Echo(v))
			}
		}
	}
	return nil
}

// floorUnits is decimal amount v in units of decimals digits, its extra digits cut; nil for "".
func floorUnits(v string, decimals uint8) *big.Int {
	if v == "" {
		return nil
	}
	if i := strings.IndexByte(v, '.'); i >= 0 && len(v)-i-1 > int(decimals) {
		v = strings.TrimSuffix(v[:i+1+int(decimals)], ".")
	}
	x, err := ParseUnits(v, decimals)
	if err != nil {
		return nil
	}
	return x
}

// WebhookSecrets returns the secrets that sign the merchant's deliveries of a mode at now: the
// current one, then the previous one during its grace period. None means no events of that
// mode are sent.
func (m *Merchant) WebhookSecrets(livemode bool, now time.Time) []string {
	cur, prev, until := m.WebhookSecret, m.PreviousWebhookSecret, m.PreviousSecretExpiresAt
	if livemode {
		cur, prev, until = m.LiveWebhookSecret, m.PreviousLiveWebhookSecret, m.PreviousLiveSecretExpiresAt
	}
	if cur == "" {
		return nil
	}
	out := []string{cur}
	if prev != "" && until != nil && now.Before(*until) {
		out = append(out, prev)
	}
	return out
}

// HasWebhookSecret reports whether the merchant has a secret to sign events of a mode with.
func (m *Merchant) HasWebhookSecret(livemode bool) bool {
	if livemode {
		return m.LiveWebhookSecret != ""
	}
	return m.WebhookSecret != ""
}

// MerchantUpdate holds the fields to change on a merchant; nil fields are left as they are.
type MerchantUpdate struct {
	Name       *string
	WebhookURL *string
	Status     *MerchantStatus
	// LogoURL replaces the logo ("" removes it).
	LogoURL *string
	// SetServiceFeeBPS replaces the merchant's service fee with ServiceFeeBPS, which may be nil
	// (back to the configured default); without it the fee is left as it is.
	SetServiceFeeBPS bool
	ServiceFeeBPS    *int64
	// RefundPolicies, when not nil, replaces the merchant's refund policies (an empty map
	// removes them all).
	RefundPolicies map[string]RefundLimits
	UpdatedAt      time.Time
}

// APIKey is a merchant's credential for the merchant API. Only a keyed hash of the key is
// stored; the key itself is shown once, when it is issued.
type APIKey struct {
	ID         string
	MerchantID string
	// Prefix is the visible start of the key (it identifies the key in lists and logs).
	Prefix string
	// Hash is HMAC-SHA256 of the whole key under the service's hash secret.
	Hash      []byte
	CreatedAt time.Time
	RevokedAt *time.Time
}

// Active reports whether the key has not been revoked.
func (k *APIKey) Active() bool { return k.RevokedAt == nil }

// Livemode reports the key's mode (its prefix says it: rw_live_ or rw_test_).
func (k *APIKey) Livemode() bool {
	live, _ := APIKeyLivemode(k.Prefix)
	return live
}

// Page asks for one page of a list ordered by id: items after the id After, at most Limit.
type Page struct {
	After string
	Limit int
}

// MerchantStore keeps merchants and their API keys.
type MerchantStore interface {
	// CreateMerchant stores a new merchant. ECONFLICT if the id exists.
	CreateMerchant(ctx context.Context, m *Merchant) error
	// Merchant returns a merchant by id. ENOTFOUND if there is none.
	Merchant(ctx context.Context, id string) (*Merchant, error)
	// Merchants lists merchants by id.
	Merchants(ctx context.Context, p Page) ([]*Merchant, error)
	// UpdateMerchant changes the fields set in u and returns the merchant. ENOTFOUND. A status
	// in u holds or releases the merchant's webhook deliveries in the same transaction:
	// disabled holds its pending ones, active releases the held ones, due at once (see
	// DeliveryStore.ClaimDeliveries).
	UpdateMerchant(ctx context.Context, id string, u MerchantUpdate) (*Merchant, error)
	// SetWebhookSecret sets or replaces the merchant's webhook secret of a mode; with grace > 0
	// the replaced one stays valid until at+grace (else it, and any earlier one, ends now).
	// ENOTFOUND.
	SetWebhookSecret(ctx context.Context, merchantID string, livemode bool, secret string, grace time.Duration, at time.Time) error

	// CreateAPIKey stores a new API key. ENOTFOUND if the merchant does not exist, ECONFLICT if
	// the id or prefix exists.
	CreateAPIKey(ctx context.Context, k *APIKey) error
	// APIKeyByPrefix returns the key with that visible prefix. ENOTFOUND.
	APIKeyByPrefix(ctx context.Context, prefix string) (*APIKey, error)
	// APIKeys lists a merchant's keys, revoked ones included, oldest first. ENOTFOUND if the
	// merchant does not exist.
	APIKeys(ctx context.Context, merchantID string) ([]*APIKey, error)
	// RevokeAPIKey revokes a merchant's key at once and returns it; revoking twice keeps the
	// first time. ENOTFOUND if the merchant has no such key.
	RevokeAPIKey(ctx context.Context, merchantID, keyID string, at time.Time) (*APIKey, error)
}

// Store is everything rampway keeps, behind one database.
type Store interface {
	MerchantStore
	ContractFunctionStore
	OrderStore
	IdempotencyStore
	DepositStore
	ExecutionStore
	RefundStore
	SweepStore
	DeliveryStore
	FiatPaymentStore
	MerchantDepositAddressStore
	LeaseStore
	DashboardStore
	WebhookLogStore
	StatsStore
	DashboardOrderStore
	LedgerStore
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// Close releases the database.
	Close() error
}
