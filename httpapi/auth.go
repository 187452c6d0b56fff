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
// an active merchant, and puts the merchant in the context. Anything else is 401.
func (s *Server) merchantAuth(next http.Handler) http.Handler {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		m, _, err := s.merchants.Authenticate(r.Context(), r.Header.Get("X-API-KEY"))
		if err != nil {
			return err
		}
		requestInfoFrom(r.Context()).merchantID = m.ID
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), keyMerchant, m)))
		return nil
	})
}

// merchantFrom returns the authenticated merchant.
func merchantFrom(ctx context.Context) *rampway.Merchant {
	m, _ := ctx.Value(keyMerchant).(*rampway.Merchant)
	return m
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
