package postgres_test

import (
	"testing"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/pgtest"
	"github.com/rampway/rampway/internal/secretbox"
	"github.com/rampway/rampway/postgres"
	"github.com/rampway/rampway/storetest"
)

func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		dsn := pgtest.FreshDSN(t)
		box, err := secretbox.New("test-key")
		if err != nil {
			t.Fatal(err)
		}
		return func(t *testing.T) rampway.Store {
			s, err := postgres.Open(t.Context(), dsn, box, postgres.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}

// Several instances starting at once must apply each migration exactly once.
func TestConcurrentMigrate(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := postgres.Open(t.Context(), dsn, nil, postgres.Options{MaxOpenConns: 2})
			if err == nil {
				err = s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func BenchmarkCreateOrders(b *testing.B) {
	s, err := postgres.Open(b.Context(), pgtest.FreshDSN(b), nil, postgres.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchCreateOrders(b, s)
}
