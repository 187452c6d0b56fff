package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/internal/app"
	"github.com/rampway/rampway/internal/devworld"
	"github.com/rampway/rampway/internal/pgtest"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/sqlite"
	"github.com/rampway/rampway/storetest"
)

// A small fill on SQLite reads back through the store as the service reads it.
func TestFillSQLite(t *testing.T) {
	t.Parallel()
	dir := testDevDir(t)
	// The database a first `rampway dev` run leaves: migrated.
	s, err := sqlite.Open(t.Context(), filepath.Join(dir, devDBFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	checkFill(t, fillOptions{db: "sqlite", dataDir: dir})
}

// The same on PostgreSQL (RAMPWAY_TEST_POSTGRES_DSN; skipped without it, failed in CI).
func TestFillPostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.FreshDSN(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	checkFill(t, fillOptions{db: "postgres", dataDir: testDevDir(t), pgDSN: pgtest.BaseDSN(t), pgDatabase: strings.TrimPrefix(u.Path, "/")})
}

// testDevDir makes what a first `rampway dev` run leaves in its data directory that the fill
// reads: dev-state.json with its secrets and keys.
func testDevDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	key := func() string {
		k, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		return hex.EncodeToString(crypto.FromECDSA(k))
	}
	secret := func() string {
		var b [24]byte
		_, _ = rand.Read(b[:])
		return config.DevSecretPrefix + hex.EncodeToString(b[:])
	}
	mnemonic, err := hd.NewMnemonic()
	if err != nil {
		t.Fatal(err)
	}
	st := devworld.State{AdminToken: secret(), HashSecret: secret(), EncryptionKey: secret(), DeployerKey: key(), PayerKey: key(),
		HotWalletKey: key(), DepositMnemonic: mnemonic, MerchantDepositKey: key()}
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, devStateFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkFill fills 2,000 orders (200 open) and checks them through the store's own API: every
// order reads back with its records; each merchant's pages list its orders; the counts by
// status are the fill's; the open orders are what the expiry worker and the deposit watcher
// look for, at the fill's time (no wall clock); orders move on from where the fill left them;
// and a new order is stored after the fill.
func checkFill(t *testing.T, o fillOptions) {
	ctx := t.Context()
	o.orders, o.open, o.merchants, o.disabled, o.inFlight, o.pendingDeliveries = 2000, 200, 3, 1, 2, 25
	o.seed, o.days, o.openFor, o.webhookURL, o.chunk, o.workers, o.pgWriters = 7, 30, 24*time.Hour, "http://127.0.0.1:9/webhooks", 300, 2, 2
	o.quiet = true
	rep, err := fill(ctx, o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range rep.ByStatus {
		total += n
	}
	if total != o.orders || rep.ByStatus["CREATED"]+rep.ByStatus["UNDERPAID"]+rep.ByStatus["ONRAMP_PROCESSING"] != o.open {
		t.Fatalf("fill made %d orders (%v), want %d of which %d open", total, rep.ByStatus, o.orders, o.open)
	}
	for _, s := range rampway.OrderStatuses {
		if rep.ByStatus[string(s)] == 0 {
			t.Errorf("no order in %s", s)
		}
		if rep.ByStatus[string(s)] != rep.InDatabase[string(s)] {
			t.Errorf("%s: the fill made %d, the database holds %d", s, rep.ByStatus[string(s)], rep.InDatabase[string(s)])
		}
	}
	if got := len(rep.Merchants); got != o.merchants+o.disabled {
		t.Fatalf("%d merchants, want %d", got, o.merchants+o.disabled)
	}

	st, err := readDevState(o.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	contracts, err := st.contracts()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := devConfig(st, contracts)
	if err != nil {
		t.Fatal(err)
	}
	if o.db == "sqlite" {
		cfg.Database.Driver, cfg.Database.Path = "sqlite", filepath.Join(o.dataDir, devDBFile)
	} else {
		cfg.Database.Driver, cfg.Database.DSN = "postgres", withDatabase(o.pgDSN, o.pgDatabase)
	}
	store, err := app.OpenStore(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()

	// Every order, with what the API and the workers read of it.
	ids := queryStrings(t, store, `SELECT id FROM orders`)
	if len(ids) != o.orders {
		t.Fatalf("%d orders in the database, want %d", len(ids), o.orders)
	}
	byStatus := map[string]int{}
	byMerchant := map[string]int{}
	var open, underpaid []*rampway.Order
	for _, id := range ids {
		ord, err := store.Order(ctx, id)
		if err != nil {
			t.Fatalf("order %s: %v", id, err)
		}
		byStatus[string(ord.Status)]++
		byMerchant[ord.MerchantID]++
		if _, err := store.OrderEvents(ctx, id); err != nil {
			t.Fatalf("events of %s: %v", id, err)
		}
		if _, err := store.Deliveries(ctx, id); err != nil {
			t.Fatalf("deliveries of %s: %v", id, err)
		}
		if _, err := store.Refunds(ctx, id); err != nil {
			t.Fatalf("refunds of %s: %v", id, err)
		}
		if _, err := store.OrderTransfers(ctx, id); err != nil {
			t.Fatalf("transfers of %s: %v", id, err)
		}
		if _, err := store.FiatPayments(ctx, id); err != nil {
			t.Fatalf("fiat payments of %s: %v", id, err)
		}
		if _, err := store.FiatActions(ctx, id); err != nil {
			t.Fatalf("fiat actions of %s: %v", id, err)
		}
		if ord.ExecutionTxHash != "" {
			if _, _, err := store.Execution(ctx, id); err != nil {
				t.Fatalf("execution of %s: %v", id, err)
			}
		}
		switch {
		case ord.Status == rampway.StatusCreated && ord.Area == rampway.AreaMint:
			open = append(open, ord)
		case ord.Status == rampway.StatusUnderpaid:
			underpaid = append(underpaid, ord)
		}
	}
	for s, n := range rep.ByStatus {
		if byStatus[s] != n {
			t.Errorf("%s: %d orders read back, the fill made %d", s, byStatus[s], n)
		}
	}

	// Each merchant's pages, newest first, as GET .../orders lists them.
	test := false
	for _, m := range rep.Merchants {
		seen := map[string]bool{}
		for _, area := range []rampway.Area{rampway.AreaMint, rampway.AreaNFTRamp, rampway.AreaDeposit} {
			before := ""
			var last time.Time
			for {
				page, err := store.Orders(ctx, rampway.OrderFilter{MerchantID: m.ID, Livemode: test, Area: area, Limit: 100, Before: before})
				if err != nil {
					t.Fatal(err)
				}
				if len(page) == 0 {
					break
				}
				for _, ord := range page {
					if seen[ord.ID] || (!last.IsZero() && ord.CreatedAt.After(last)) || ord.Area != area {
						t.Fatalf("merchant %s: order %s twice, out of order or of another area", m.Name, ord.ID)
					}
					seen[ord.ID], last = true, ord.CreatedAt
				}
				before = page[len(page)-1].ID
			}
		}
		if len(seen) != byMerchant[m.ID] || len(seen) == 0 {
			t.Errorf("merchant %s: %d orders listed, %d stored", m.Name, len(seen), byMerchant[m.ID])
		}
	}

	// The expiry worker: nothing due at the fill's time; every order awaiting payment due once
	// the open ones have expired.
	expiring := rampway.StatusesTakingAny(rampway.CauseExpired)
	if due, err := store.DueOrders(ctx, expiring, rep.At, 1000); err != nil || len(due) != 0 {
		t.Fatalf("due at the fill's time: %d orders (%v), want none", len(due), err)
	}
	awaiting := 0
	for _, s := range expiring {
		awaiting += byStatus[string(s)]
	}
	if due, err := store.DueOrders(ctx, expiring, rep.OpenUntil.Add(2*time.Hour), 1000); err != nil || len(due) != awaiting {
		t.Fatalf("due after the open ones expired: %d orders (%v), want %d", len(due), err, awaiting)
	}
	// The watcher: every open order of area A among the watched deposits.
	watched, err := store.WatchedDeposits(ctx, devworld.Network, rep.At)
	if err != nil {
		t.Fatal(err)
	}
	w := map[string]bool{}
	for _, d := range watched {
		w[d.OrderID] = true
	}
	for _, ord := range append(slices.Clone(open), underpaid...) {
		if !w[ord.ID] {
			t.Fatalf("open order %s (%s) is not watched", ord.ID, ord.Status)
		}
	}
	// The executor: the in-flight paid orders.
	if paid, err := store.PaidOrders(ctx, devworld.Network, 100); err != nil ||
		len(paid) != rep.ByStatus["DEPOSIT_SUCCESS"]+rep.ByStatus["ONRAMP_SUCCESS"] {
		t.Fatalf("paid orders: %d (%v), want %d", len(paid), err, rep.ByStatus["DEPOSIT_SUCCESS"]+rep.ByStatus["ONRAMP_SUCCESS"])
	}
	// The webhook log: the pending deliveries asked for, and the held ones, are pending.
	var pending int64
	if err := store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending'`).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	if pending < int64(o.pendingDeliveries) {
		t.Fatalf("%d pending deliveries, want at least %d", pending, o.pendingDeliveries)
	}

	// Filled orders move on through the store: an open one paid and executed, an underpaid
	// one failed at its expiry with a refund of what came in.
	if len(open) == 0 || len(underpaid) == 0 {
		t.Fatalf("%d open and %d underpaid orders of area A", len(open), len(underpaid))
	}
	if got := storetest.Drive(t, store, open[0].ID, rampway.StatusSuccess); got.Status != rampway.StatusSuccess {
		t.Fatalf("driven to %s", got.Status)
	}
	if got := storetest.Drive(t, store, underpaid[0].ID, rampway.StatusFailed); got.Status != rampway.StatusFailed {
		t.Fatalf("driven to %s", got.Status)
	} else if rs, err := store.Refunds(ctx, got.ID); err != nil || len(rs) == 0 {
		t.Fatalf("the failed order's refunds: %v, %v", rs, err)
	}

	// A new order after the fill: its deposit index reserved after the fill's, its address
	// derived as checkout does: no collision with the filled ones.
	idx, err := store.ReserveDepositIndexes(ctx, 64)
	if err != nil {
		t.Fatal(err)
	}
	var maxIdx int64
	if err := store.DB().QueryRowContext(ctx, `SELECT MAX(deposit_index) FROM orders`).Scan(&maxIdx); err != nil {
		t.Fatal(err)
	}
	if int64(idx[0]) <= maxIdx {
		t.Fatalf("reserved index %d, the filled orders use up to %d", idx[0], maxIdx)
	}
	d, err := hd.FromXPub(cfg.Checkout.DepositXPub)
	if err != nil {
		t.Fatal(err)
	}
	nw := storetest.NewOrder(rep.Merchants[0].ID, idx[0])
	if nw.DepositAddress, err = d.Address(idx[0]); err != nil {
		t.Fatal(err)
	}
	if err := store.CreateOrder(ctx, nw); err != nil {
		t.Fatalf("a new order after the fill: %v", err)
	}
	if got, err := store.Order(ctx, nw.ID); err != nil || got.DepositAddress != nw.DepositAddress {
		t.Fatalf("the new order read back: %v, %v", got, err)
	}
	if amount := new(big.Int).Set(nw.CryptoAmount); amount.Sign() > 0 {
		storetest.Pay(t, store, nw, amount)
	}
}

func queryStrings(t *testing.T, store *sqlstore.Store, q string) []string {
	t.Helper()
	rows, err := store.DB().QueryContext(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
