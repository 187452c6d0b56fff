package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/secretbox"
	"github.com/rampway/rampway/sqlite"
	"github.com/rampway/rampway/storetest"
)

func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		path := filepath.Join(t.TempDir(), "rampway.db")
		box, err := secretbox.New("test-key")
		if err != nil {
			t.Fatal(err)
		}
		return func(t *testing.T) rampway.Store {
			s, err := sqlite.Open(t.Context(), path, box)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}

func TestMigrateIsIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rampway.db")
	s, err := sqlite.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := sqlite.Migrate(t.Context(), s.DB())
	if err != nil || n != 0 {
		t.Fatalf("second Migrate applied %d, %v; want 0, nil", n, err)
	}
}
