package rampway

import (
	"errors"
	"strings"
)

// Test and live mode, as payment APIs commonly have them: every merchant has test keys (rw_test_) and live keys
// (rw_live_), and the key decides the mode of every order, lookup, webhook and refund it
// touches. Networks are configured test or live, and each payment provider serves one mode.
// Test money never reaches a live network, hot wallet or provider: the mode is checked where an
// order is created and again where money moves (ModeMatches).

// Mode names.
const (
	ModeTest = "test"
	ModeLive = "live"
)

// ModeName is "live" for livemode, "test" otherwise.
func ModeName(livemode bool) string {
	if livemode {
		return ModeLive
	}
	return ModeTest
}

// ParseMode reads "test" or "live" (field names the input in the error). EINVALID otherwise.
func ParseMode(field, s string) (livemode bool, err error) {
	switch s {
	case ModeTest:
		return false, nil
	case ModeLive:
		return true, nil
	}
	return false, FieldErrorf(field, "%s must be \"test\" or \"live\", not %q", field, s)
}

// API key prefixes: the mode of a key is in its text.
const (
	APIKeyPrefixTest = "rw_test_"
	APIKeyPrefixLive = "rw_live_"
)

// APIKeyPrefix is the start of every API key of a mode.
func APIKeyPrefix(livemode bool) string {
	if livemode {
		return APIKeyPrefixLive
	}
	return APIKeyPrefixTest
}

// APIKeyLivemode reports the mode of a key (or of its visible prefix) from its text; ok is false
// for text of neither mode.
func APIKeyLivemode(key string) (livemode, ok bool) {
	switch {
	case strings.HasPrefix(key, APIKeyPrefixLive):
		return true, true
	case strings.HasPrefix(key, APIKeyPrefixTest):
		return false, true
	}
	return false, false
}

// ErrModeMismatch is in the chain of every refusal to move money across modes: a test order on
// a live network or with a live provider, or the reverse.
var ErrModeMismatch = errors.New("test and live mode do not mix")

// ModeMatches returns nil when an order of mode orderLive may move money on something (a
// network, a hot wallet on it, a payment provider) of mode targetLive; otherwise an EINTERNAL
// error with ErrModeMismatch in its chain that names both. It is the last guard where money
// moves: an order that reaches it with the wrong mode was never created by the API (a forged or
// corrupted row, a configuration changed under open orders), so nothing is sent.
func ModeMatches(what string, orderLive, targetLive bool) error {
	if orderLive == targetLive {
		return nil
	}
	return &Error{Code: EINTERNAL, Err: ErrModeMismatch,
		Message: "a " + ModeName(orderLive) + "-mode order cannot move money on " + what + ", which is " + ModeName(targetLive) + " mode"}
}

// Scope is whose orders a caller sees: one merchant's of its key's mode (Livemode set: the
// merchant API), or one merchant's of both modes (Livemode nil: the admin API). An order out of
// scope is answered as one that does not exist.
type Scope struct {
	MerchantID string
	Livemode   *bool
}

// MerchantScope is the scope of a merchant's API key of a mode.
func MerchantScope(merchantID string, livemode bool) Scope {
	return Scope{MerchantID: merchantID, Livemode: &livemode}
}

// AdminScope is the admin API's scope over a merchant: both modes.
func AdminScope(merchantID string) Scope { return Scope{MerchantID: merchantID} }

// Sees reports whether o is in the scope.
func (s Scope) Sees(o *Order) bool {
	return o.MerchantID == s.MerchantID && (s.Livemode == nil || *s.Livemode == o.Livemode)
}
