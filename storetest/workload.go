package storetest

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/provider"
	"github.com/rampway/rampway/provider/sandbox"
)

// Workload runs every statement a store runs, for a caller that records them (to read their
// plans): the contract suite on fresh stores, then the sandbox provider's books in one.
func Workload(t *testing.T, fresh Fresh) {
	t.Run("store contract", func(t *testing.T) { Run(t, fresh) })
	t.Run("sandbox books", func(t *testing.T) {
		s := mustOpen(t, fresh(t))
		db, ok := s.(provider.Books)
		if !ok {
			t.Fatal("the store does not keep a provider's books (provider.Books)")
		}
		sandboxBooks(t, db)
	})
}

// SmallTables are the tables whose rows do not grow with the orders: a statement may read them
// whole (dashboard_users: the people of each merchant, as its API keys; dashboard_invitations:
// the people invited to be; ledger_held: one row per asset; ledger_drifts: the accounts whose
// chain balance differs from the ledger's, none while all is well; ledger_reconciled: one row
// per network; deposit_index_seq: PostgreSQL's sequence of deposit indexes, one row).
var SmallTables = map[string]bool{
	"api_keys": true, "contract_functions": true, "deposit_index_seq": true, "dashboard_invitations": true, "dashboard_users": true, "goose_db_version": true, "merchant_deposit_addresses": true,
	"ledger_drifts": true, "ledger_held": true, "ledger_reconciled": true, "merchants": true, "sequences": true, "wallet_nonces": true, "watch_cursors": true, "worker_leases": true,
}

// WorkloadStatements runs Workload while record has the store's statements seen, and returns
// them, each once, sorted, less those of the migrations in the folder migrations (run once at
// start, not the store's own): the statements whose plans a dialect's test reads.
func WorkloadStatements(t *testing.T, fresh Fresh, record func(func(query string)) (stop func()), migrations string) []string {
	var (
		mu   sync.Mutex
		seen = map[string]bool{}
	)
	stop := record(func(q string) {
		mu.Lock()
		seen[q] = true
		mu.Unlock()
	})
	defer stop()
	Workload(t, fresh)
	stop()
	if t.Failed() {
		t.FailNow()
	}
	var migrated strings.Builder
	files, err := os.ReadDir(migrations)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(migrations, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		migrated.WriteString(Normalize(string(b)))
	}
	var out []string
	for q := range seen {
		if !strings.Contains(migrated.String(), Normalize(q)) {
			out = append(out, q)
		}
	}
	slices.Sort(out)
	if len(out) < 100 {
		t.Fatalf("only %d statements recorded: does the recorder see the store's statements?", len(out))
	}
	return out
}

// Normalize writes a statement's whitespace as single spaces.
func Normalize(q string) string { return strings.Join(strings.Fields(q), " ") }

// sandboxBooks runs every statement of the sandbox provider's books.
func sandboxBooks(t *testing.T, db provider.Books) {
	b := sandbox.NewBooks(db, "sandbox")
	at := time.Unix(1_800_000_000, 0)
	p, err := b.SandboxCreate(t.Context(), &sandbox.Payment{ID: "sp_1", IdemKey: "fp_1", OrderID: "o_1", Method: "bank_transfer",
		Currency: "EUR", Decimals: 2, Amount: big.NewInt(1000), Received: new(big.Int), Captured: new(big.Int), Refunded: new(big.Int),
		Status: rampway.FiatPending, Reference: "RW-1", ReturnURL: "http://x/", CreatedAt: at, UpdatedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	for _, byRef := range []bool{false, true} {
		key := map[bool]string{false: p.ID, true: p.Reference}[byRef]
		if _, err := b.SandboxPayment(t.Context(), key, byRef); err != nil {
			t.Fatal(err)
		}
	}
	p.Status = rampway.FiatAuthorized
	if err := b.SandboxUpdate(t.Context(), p, rampway.FiatPending, []sandbox.Event{{ID: "se_1", Body: []byte(`{}`)}},
		&sandbox.Call{Key: "fa_1", PaymentID: p.ID, Kind: "capture"}); err != nil {
		t.Fatal(err)
	}
	if c, err := b.SandboxCall(t.Context(), "fa_1"); err != nil || c == nil {
		t.Fatal(c, err)
	}
	evs, err := b.SandboxDueEvents(t.Context(), at.Add(time.Minute), 10)
	if err != nil || len(evs) != 1 {
		t.Fatal(evs, err)
	}
	for i, delivered := range []bool{false, true} {
		if err := b.SandboxEventSent(t.Context(), evs[0].ID, delivered, at.Add(time.Duration(i)*time.Minute), at); err != nil {
			t.Fatal(fmt.Errorf("event sent: %w", err))
		}
	}
}
