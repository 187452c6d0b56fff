package httpapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/rampway/rampway"
)

// merchantAuth admits requests whose X-API-KEY (header name in any case) is an active key of
// an active merchant, and puts the merchant and the key in the context: the key's mode (test
// or live) is the mode of everything the request touches. Anything else is 401.
func (s *Server) merchantAuth(next http.Handler) http.Handler {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		m, k, err := s.merchants.Authenticate(r.Context(), r.Header.Get("X-API-KEY"))
		if err != nil {
			return err
		}
		requestInfoFrom(r.Context()).merchantID = m.ID
		ctx := context.WithValue(r.Context(), keyMerchant, authenticated{merchant: m, livemode: k.Livemode()})
		next.ServeHTTP(w, r.WithContext(ctx))
		return nil
	})
}

// authenticated is a merchant API request's merchant and its key's mode.
type authenticated struct {
	merchant *rampway.Merchant
	livemode bool
}

// merchantFrom returns the authenticated merchant.
func merchantFrom(ctx context.Context) *rampway.Merchant {
	a, _ := ctx.Value(keyMerchant).(authenticated)
	return a.merchant
}

// livemodeFrom returns the mode of the request's API key.
func livemodeFrom(ctx context.Context) bool {
	a, _ := ctx.Value(keyMerchant).(authenticated)
	return a.livemode
}

// scopeFrom returns the orders the request's key sees: its merchant's of its mode.
func scopeFrom(ctx context.Context) rampway.Scope {
	a, _ := ctx.Value(keyMerchant).(authenticated)
	if a.merchant == nil {
		return rampway.Scope{}
	}
	return rampway.MerchantScope(a.merchant.ID, a.livemode)
}

// checkMerchantID answers 401 unless the request's merchant_id is the key's merchant. A
// missing merchant_id is a 400 naming the field.
func checkMerchantID(r *http.Request, merchantID *string) error {
	if merchantID == nil || *merchantID == "" {
		return rampway.FieldErrorf("merchant_id", "merchant_id is required")
	}
	m := merchantFrom(r.Context())
	if m == nil || subtle.ConstantTimeCompare([]byte(*merchantID), []byte(m.ID)) != 1 {
		return rampway.Errorf(rampway.EUNAUTHORIZED, "Unauthorized")
	}
	return nil
}

// adminAuth admits requests carrying "Authorization: Bearer <admin token>". Merchant API keys
// never open the admin API.
func (s *Server) adminAuth(next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(s.cfg.AdminToken))
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		h := r.Header.Get("Authorization")
		scheme, token, ok := strings.Cut(h, " ")
		got := sha256.Sum256([]byte(strings.TrimSpace(token)))
		if !ok || !strings.EqualFold(scheme, "Bearer") || s.cfg.AdminToken == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="rampway-admin"`)
			return rampway.Errorf(rampway.EUNAUTHORIZED, "Unauthorized")
		}
		next.ServeHTTP(w, r)
		return nil
	})
}
