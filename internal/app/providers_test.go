package app_test

import (
	"io"
	"log/slog"
	"math/big"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/internal/app"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/storetest"
)

// A payment provider that still holds open payments cannot be taken out of the configuration:
// the start is refused, naming it and how many (issue 29, 3). Once its payments are settled, it
// may go.
func TestStartRefusesRemovingAProviderWithOpenPayments(t *testing.T) {
	cfg := config.Default()
	cfg.Mode = config.ModeDev // the sandbox only
	cfg.HTTP.Addr, cfg.HTTP.PublicURL = "127.0.0.1:0", "http://127.0.0.1"
	cfg.Database.Path = filepath.Join(t.TempDir(), "rampway.db")
	cfg.Admin.Token, cfg.Secrets.HashSecret = "dev-admin-token-0123456789abcdef0123", "dev-hash-secret-0123456789abcdef0123"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := app.Start(t.Context(), cfg, log, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := a.Merchants.Create(t.Context(), merchant.CreateParams{Name: "Shop"})
	if err != nil {
		t.Fatal(err)
	}
	// An order paid through "stripe", which an earlier configuration had, its payment still
	// authorised.
	o := storetest.NewOrder(m.ID, 1)
	o.Area, o.FiatSymbol, o.FiatMethod, o.FiatAmount, o.FiatDecimals = rampway.AreaNFTRamp, "EUR", rampway.MethodCard, big.NewInt(2500), 2
	if err := a.Store.CreateOrder(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	p := &rampway.FiatPayment{ID: rampway.NewID(rampway.PrefixFiatPayment, now), OrderID: o.ID, Provider: "stripe", Method: rampway.MethodCard,
		Currency: "EUR", Amount: big.NewInt(2500), Received: new(big.Int), Decimals: 2, Status: rampway.FiatAuthorized, CreatedAt: now, UpdatedAt: now}
	if err := a.Store.CreateFiatPayment(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	a.Close()

	_, err = app.Start(t.Context(), cfg, log, app.Options{})
	if err == nil || !strings.Contains(err.Error(), `payment provider "stripe" still holds 1 open payment(s)`) {
		t.Fatalf("start without the provider of an open payment: %v", err)
	}
	// Settled (voided): it may go.
	st, err := app.OpenStore(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().ExecContext(t.Context(), "UPDATE fiat_payments SET status = 'voided' WHERE id = $1", p.ID); err != nil {
		t.Fatal(err)
	}
	st.Close()
	b, err := app.Start(t.Context(), cfg, log, app.Options{})
	if err != nil {
		t.Fatalf("start once its payments are settled: %v", err)
	}
	b.Close()
}
