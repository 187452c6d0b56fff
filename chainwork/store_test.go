package chainwork_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/sqlite"
)

// openStore opens a SQLite store in a temporary directory, closed when the test ends.
func openStore(tb testing.TB) *sqlstore.Store {
	tb.Helper()
	s, err := sqlite.Open(tb.Context(), filepath.Join(tb.TempDir(), "x.db"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// newMerchant stores an active merchant without webhooks.
func newMerchant(tb testing.TB, store rampway.MerchantStore) *rampway.Merchant {
	tb.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	m := &rampway.Merchant{ID: rampway.NewID(rampway.PrefixMerchant, now), Name: "m", Status: rampway.MerchantActive, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateMerchant(tb.Context(), m); err != nil {
		tb.Fatal(err)
	}
	return m
}
