// Package merchant is onboarding: merchants, their API keys and webhook secrets, and the
// authentication of API keys. The admin HTTP API and the admin CLI both call it.
package merchant

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/rampway/rampway"
)

// key and secret text: lowercase base32, no padding.
var keyEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

const (
	keyRandomBytes = 20 // 160 bits
	keyBodyLen     = 32 // base32 characters of keyRandomBytes
	keyPrefixLen   = 8  // characters of the body that stay visible
	// WebhookSecretPrefix starts every generated webhook secret.
	WebhookSecretPrefix = "whsec_"
	// MaxServiceFeeBPS is the highest service fee a merchant may be given: 100%.
	MaxServiceFeeBPS = 10_000
)

// Service is the onboarding use cases.
type Service struct {
	store      rampway.MerchantStore
	hashSecret []byte
	devMode    bool
	now        func() time.Time
	// keys keeps, by key prefix, each key and its merchant as read for an authentication (nil:
	// every request reads them).
	keys *ttlCache[string, authEntry]
}

// authEntry is a key and its merchant as the store had them.
type authEntry struct {
	key      *rampway.APIKey
	merchant *rampway.Merchant
}

// Options configure a Service.
type Options struct {
	// HashSecret keys the stored hashes of API keys. Required.
	HashSecret string
	// DevMode issues test-mode keys and secrets unless asked for live ones (production the
	// reverse: see DefaultLivemode) and allows http and loopback webhook URLs.
	DevMode bool
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// AuthCacheTTL, when set, keeps each API key and its merchant this long (on the clock
	// Now) after a request read them, so that a burst of requests does not read them every
	// time. A change made through this Service applies at once; one made by another process
	// (the admin CLI, another instance) within the TTL.
	AuthCacheTTL time.Duration
}

// NewService returns a Service over store.
func NewService(store rampway.MerchantStore, opt Options) *Service {
	s := &Service{store: store, hashSecret: []byte(opt.HashSecret), devMode: opt.DevMode, now: opt.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if opt.AuthCacheTTL > 0 {
		s.keys = newTTLCache[string, authEntry](maxCachedKeys, opt.AuthCacheTTL, s.now)
	}
	return s
}

// maxCachedKeys bounds the authentication cache; only keys that exist are kept.
const maxCachedKeys = 10_000

// changed forgets what the authentication cache holds, after a change to a merchant or a key.
func (s *Service) changed() {
	if s.keys != nil {
		s.keys.Purge()
	}
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// CreateParams are a new merchant's fields.
type CreateParams struct {
	Name       string
	WebhookURL string
	// ServiceFeeBPS is the merchant's own service fee (0 to MaxServiceFeeBPS basis points); nil
	// leaves it at the configured default.
	ServiceFeeBPS *int64
	// LogoURL is the merchant's logo on the hosted checkout page: "" (none), or an absolute
	// https URL (http too in dev mode), rampway.CheckImageURL.
	LogoURL string
}

// Create onboards a merchant. EINVALID for a bad name, webhook URL, logo URL or service fee.
func (s *Service) Create(ctx context.Context, p CreateParams) (*rampway.Merchant, error) {
	name, err := checkName(p.Name)
	if err != nil {
		return nil, err
	}
	if err := CheckWebhookURL("webhook_url", p.WebhookURL, s.devMode); err != nil {
		return nil, err
	}
	if err := rampway.CheckImageURL("logo_url", p.LogoURL, s.devMode); err != nil {
		return nil, err
	}
	fee, err := checkServiceFee(p.ServiceFeeBPS)
	if err != nil {
		return nil, err
	}
	now := s.clock()
	m := &rampway.Merchant{ID: rampway.NewID(rampway.PrefixMerchant, now), Name: name, Status: rampway.MerchantActive,
		WebhookURL: p.WebhookURL, ServiceFeeBPS: fee, LogoURL: p.LogoURL, CreatedAt: now, UpdatedAt: now}
	if err := s.store.CreateMerchant(ctx, m); err != nil {
		return nil, fmt.Errorf("create merchant: %w", err)
	}
	return m, nil
}

// Get returns a merchant. ENOTFOUND.
func (s *Service) Get(ctx context.Context, id string) (*rampway.Merchant, error) {
	if !rampway.ValidID(rampway.PrefixMerchant, id) {
		return nil, rampway.Errorf(rampway.ENOTFOUND, "Merchant %q not found", id)
	}
	m, err := s.store.Merchant(ctx, id)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		return nil, rampway.Errorf(rampway.ENOTFOUND, "Merchant %q not found", id)
	}
	return m, err
}

// List returns a page of merchants by id. EINVALID for a malformed cursor or limit.
func (s *Service) List(ctx context.Context, p rampway.Page) ([]*rampway.Merchant, error) {
	if p.After != "" && !rampway.ValidID(rampway.PrefixMerchant, p.After) {
		return nil, rampway.FieldErrorf("starting_after", "starting_after must be a merchant id")
	}
	if p.Limit < 1 || p.Limit > 1000 {
		return nil, rampway.FieldErrorf("limit", "limit must be between 1 and 1000")
	}
	return s.store.Merchants(ctx, p)
}

// UpdateParams change a merchant; nil fields stay as they are.
type UpdateParams struct {
	Name       *string
	WebhookURL *string
	Status     *string
	// LogoURL replaces the merchant's logo ("" removes it).
	LogoURL *string
	// SetServiceFeeBPS replaces the merchant's service fee with ServiceFeeBPS (0 to
	// MaxServiceFeeBPS basis points), or with the configured default when ServiceFeeBPS is nil.
	SetServiceFeeBPS bool
	ServiceFeeBPS    *int64
	// RefundPolicy, when not nil, replaces the merchant's refund policies by currency symbol
	// (an empty map removes them).
	RefundPolicy map[string]rampway.RefundLimits
}

// Update changes a merchant. ENOTFOUND, EINVALID.
func (s *Service) Update(ctx context.Context, id string, p UpdateParams) (*rampway.Merchant, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return nil, err
	}
	u := rampway.MerchantUpdate{UpdatedAt: s.clock()}
	if p.Name != nil {
		name, err := checkName(*p.Name)
		if err != nil {
			return nil, err
		}
		u.Name = &name
	}
	if p.WebhookURL != nil {
		if err := CheckWebhookURL("webhook_url", *p.WebhookURL, s.devMode); err != nil {
			return nil, err
		}
		u.WebhookURL = p.WebhookURL
	}
	if p.Status != nil {
		st := rampway.MerchantStatus(*p.Status)
		if !st.Valid() {
			return nil, rampway.FieldErrorf("status", "status must be \"active\" or \"disabled\"")
		}
		u.Status = &st
	}
	if p.LogoURL != nil {
		if err := rampway.CheckImageURL("logo_url", *p.LogoURL, s.devMode); err != nil {
			return nil, err
		}
		u.LogoURL = p.LogoURL
	}
	if p.SetServiceFeeBPS {
		fee, err := checkServiceFee(p.ServiceFeeBPS)
		if err != nil {
			return nil, err
		}
		u.SetServiceFeeBPS, u.ServiceFeeBPS = true, fee
	}
	if p.RefundPolicy != nil {
		if err := rampway.CheckRefundPolicies(p.RefundPolicy); err != nil {
			return nil, err
		}
		u.RefundPolicies = p.RefundPolicy
	}
	defer s.changed()
	return s.store.UpdateMerchant(ctx, id, u)
}

// DefaultLivemode is the mode of keys and webhook secrets issued without one named: test in dev
// mode (everything there is test), live in production.
func (s *Service) DefaultLivemode() bool { return !s.devMode }

// IssueAPIKey makes a new API key of a mode (rw_live_ or rw_test_) for the merchant and returns
// it with the key in clear, which is never available again. Earlier keys stay valid. ENOTFOUND.
func (s *Service) IssueAPIKey(ctx context.Context, merchantID string, livemode bool) (*rampway.APIKey, string, error) {
	if _, err := s.Get(ctx, merchantID); err != nil {
		return nil, "", err
	}
	for attempt := 0; ; attempt++ {
		var b [keyRandomBytes]byte
		_, _ = rand.Read(b[:])
		body := keyEncoding.EncodeToString(b[:])
		raw := rampway.APIKeyPrefix(livemode) + body
		now := s.clock()
		k := &rampway.APIKey{ID: rampway.NewID(rampway.PrefixAPIKey, now), MerchantID: merchantID,
			Prefix: raw[:len(raw)-keyBodyLen+keyPrefixLen], Hash: s.hash(raw), CreatedAt: now}
		err := s.store.CreateAPIKey(ctx, k)
		if rampway.ErrorCode(err) == rampway.ECONFLICT && attempt < 3 {
			continue // a prefix collision (40 random bits): draw again
		}
		if err != nil {
			return nil, "", fmt.Errorf("issue api key: %w", err)
		}
		return k, raw, nil
	}
}

// APIKeys lists the merchant's keys. ENOTFOUND.
func (s *Service) APIKeys(ctx context.Context, merchantID string) ([]*rampway.APIKey, error) {
	if _, err := s.Get(ctx, merchantID); err != nil {
		return nil, err
	}
	return s.store.APIKeys(ctx, merchantID)
}

// RevokeAPIKey revokes a key at once. ENOTFOUND.
func (s *Service) RevokeAPIKey(ctx context.Context, merchantID, keyID string) (*rampway.APIKey, error) {
	if _, err := s.Get(ctx, merchantID); err != nil {
		return nil, err
	}
	if !rampway.ValidID(rampway.PrefixAPIKey, keyID) {
		return nil, rampway.Errorf(rampway.ENOTFOUND, "API key %q not found", keyID)
	}
	defer s.changed()
	k, err := s.store.RevokeAPIKey(ctx, merchantID, keyID, s.clock())
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		return nil, rampway.Errorf(rampway.ENOTFOUND, "API key %q not found", keyID)
	}
	return k, err
}

// MaxSecretGrace bounds how long a rotated webhook secret stays valid.
const MaxSecretGrace = 7 * 24 * time.Hour

// SetWebhookSecret sets the merchant's webhook secret of a mode (the secrets of test-mode and
// live-mode events are separate) to secret, or to a new random one when secret is "", and
// returns it. With grace > 0 the replaced secret keeps signing deliveries (beside the new one)
// for that long, so the merchant switches without missing an event. ENOTFOUND, EINVALID.
func (s *Service) SetWebhookSecret(ctx context.Context, merchantID string, livemode bool, secret string, grace time.Duration) (string, error) {
	if grace < 0 || grace > MaxSecretGrace {
		return "", rampway.FieldErrorf("grace_period", "grace_period must be between 0s and %s, not %s", MaxSecretGrace, grace)
	}
	if _, err := s.Get(ctx, merchantID); err != nil {
		return "", err
	}
	if secret == "" {
		var b [32]byte
		_, _ = rand.Read(b[:])
		secret = WebhookSecretPrefix + keyEncoding.EncodeToString(b[:])
	} else if len(secret) < 32 || len(secret) > 256 || strings.IndexFunc(secret, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0 {
		return "", rampway.FieldErrorf("webhook_secret", "webhook_secret must be 32 to 256 printable ASCII characters without spaces")
	}
	defer s.changed()
	if err := s.store.SetWebhookSecret(ctx, merchantID, livemode, secret, grace, s.clock()); err != nil {
		return "", fmt.Errorf("set webhook secret: %w", err)
	}
	return secret, nil
}

// WebhookSecrets returns the secrets that sign the merchant's webhook deliveries of a mode now:
// the current one, then the previous one during its grace period; none when the merchant has no
// secret of that mode. It is the webhook dispatcher's webhook.Secrets, and reads the merchant from the store
// at every call, never from a cache: a rotation is one committed write, so every attempt that
// reads after SetWebhookSecret returned is signed with the new secret, by whichever process
// (instance, admin CLI) made the rotation and whichever instance sends it. A disabled
// merchant's deliveries are held: ECONFLICT with rampway.ErrMerchantDisabled in its chain.
func (s *Service) WebhookSecrets(ctx context.Context, merchantID string, livemode bool) ([]string, error) {
	m, err := s.store.Merchant(ctx, merchantID)
	if err != nil {
		return nil, err
	}
	if m.Status == rampway.MerchantDisabled {
		return nil, &rampway.Error{Code: rampway.ECONFLICT, Err: rampway.ErrMerchantDisabled, Message: "Merchant " + merchantID + " is disabled"}
	}
	return m.WebhookSecrets(livemode, s.now()), nil
}

// Authenticate returns the active merchant and key for an API key in clear, of either mode (the
// key's Livemode is the mode of everything it touches). Any failure (malformed, unknown,
// revoked, merchant disabled) is EUNAUTHORIZED with the message "Unauthorized"; the hash
// comparison takes constant time.
func (s *Service) Authenticate(ctx context.Context, raw string) (*rampway.Merchant, *rampway.APIKey, error) {
	unauthorized := rampway.Errorf(rampway.EUNAUTHORIZED, "Unauthorized")
	prefix, ok := s.keyPrefix(raw)
	if !ok {
		return nil, nil, unauthorized
	}
	e, err := s.authEntry(ctx, prefix)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		return nil, nil, unauthorized
	}
	if err != nil {
		return nil, nil, fmt.Errorf("authenticate: %w", err)
	}
	if !hmac.Equal(e.key.Hash, s.hash(raw)) || !e.key.Active() || e.merchant.Status != rampway.MerchantActive {
		return nil, nil, unauthorized
	}
	return e.merchant, e.key, nil
}

// authEntry returns the key of prefix and its merchant, from the cache when it has them.
func (s *Service) authEntry(ctx context.Context, prefix string) (authEntry, error) {
	if s.keys != nil {
		if e, ok := s.keys.Get(prefix); ok {
			return e, nil
		}
	}
	k, err := s.store.APIKeyByPrefix(ctx, prefix)
	if err != nil {
		return authEntry{}, err
	}
	m, err := s.store.Merchant(ctx, k.MerchantID)
	if err != nil {
		return authEntry{}, err
	}
	e := authEntry{key: k, merchant: m}
	if s.keys != nil {
		s.keys.Add(prefix, e)
	}
	return e, nil
}

// keyPrefix checks the shape rw_<test|live>_<32 base32> and returns the visible prefix.
func (s *Service) keyPrefix(raw string) (string, bool) {
	live, ok := rampway.APIKeyLivemode(raw)
	if !ok {
		return "", false
	}
	rest := raw[len(rampway.APIKeyPrefix(live)):]
	if len(rest) != keyBodyLen {
		return "", false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
			return "", false
		}
	}
	return raw[:len(raw)-keyBodyLen+keyPrefixLen], true
}

func (s *Service) hash(raw string) []byte {
	m := hmac.New(sha256.New, s.hashSecret)
	m.Write([]byte(raw))
	return m.Sum(nil)
}

func checkName(name string) (string, error) {
	name, err := rampway.CheckText("name", name, 200)
	if err == nil && name == "" {
		err = rampway.FieldErrorf("name", "name is required")
	}
	return name, err
}

// checkServiceFee validates a merchant's service fee and returns a copy of it; nil (the
// configured default) is valid.
func checkServiceFee(bps *int64) (*int64, error) {
	if bps == nil {
		return nil, nil
	}
	if *bps < 0 || *bps > MaxServiceFeeBPS {
		return nil, rampway.FieldErrorf("service_fee_bps", "service_fee_bps must be between 0 and %d (basis points), not %d", MaxServiceFeeBPS, *bps)
	}
	v := *bps
	return &v, nil
}

// CheckWebhookURL validates a webhook address given in field: "" (none) or an absolute
// http(s) URL with a host, without credentials; outside dev mode https. Its host must pass
// rampway.WebhookHostAllowed, the policy the deliveries' connections are held to as well
// (names are checked again against what they resolve to at every delivery): a public address,
// or in dev mode also a loopback or private one, never a link-local (metadata) or special one.
func CheckWebhookURL(field, raw string, devMode bool) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || len(raw) > 2048 {
		return rampway.FieldErrorf(field, "%s must be an absolute http(s) URL of at most 2048 characters", field)
	}
	if u.User != nil {
		return rampway.FieldErrorf(field, "%s must not carry credentials", field)
	}
	if !devMode && u.Scheme != "https" {
		return rampway.FieldErrorf(field, "%s must use https", field)
	}
	if !rampway.WebhookHostAllowed(u.Hostname(), devMode) {
		if devMode {
			return rampway.FieldErrorf(field, "%s must be a public, loopback or private address (not link-local or reserved)", field)
		}
		return rampway.FieldErrorf(field, "%s must be a public address", field)
	}
	return nil
}
