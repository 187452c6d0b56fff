package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/dashboard"
	"github.com/rampway/rampway/internal/secretbox"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/postgres"
	"github.com/rampway/rampway/sqlite"
)

// dashSample is one order the dashboard benchmark looks up, with every key it can be searched by
// ("" for a key the order has none of).
type dashSample struct {
	ID, TxnID, UserID, DepositAddress, TxHash, ProviderRef string
}

// dashKinds are the requests the dashboard benchmark times, in the order it reports them.
var dashKinds = []string{"list", "list-filtered", "list-older", "search-id", "search-txn", "search-user", "search-address", "search-tx", "search-provider", "order-page"}

// runDashboard measures the dashboard's orders pages from outside, as a signed-in browser
// would, against a running rampway on a (grown) database: the orders list (first page, a
// filtered one, an older page by its cursor), a search by each key, and an order's page. It
// samples orders spread over the merchant's history from the database, signs up a viewer for
// the run, and reports latency percentiles per kind of request.
func runDashboard(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("dashboard", flag.ContinueOnError)
	fs.SetOutput(stdout)
	base := fs.String("url", "http://127.0.0.1:8080", "the running rampway's base URL")
	db := fs.String("db", "sqlite", "the database the running rampway serves: sqlite or postgres")
	dataDir := fs.String("data-dir", "", "the dev data directory (its dev-state.json; SQLite: its rampway.db)")
	pgDSN := fs.String("pg-dsn", getenv(envPostgresDSN), "PostgreSQL: the server's DSN")
	pgDatabase := fs.String("pg-database", "", "PostgreSQL: the database")
	merchantID := fs.String("merchant", "", "the merchant whose orders are looked up (default: the one with the most orders)")
	samples := fs.Int("samples", 100, "orders sampled over the merchant's history")
	rounds := fs.Int("rounds", 3, "how many times each request of each sample is made")
	seed := fs.Uint64("seed", 1, "the sampling's random seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dataDir == "" {
		return errors.New("dashboard: --data-dir is required")
	}
	st, err := readDevState(*dataDir)
	if err != nil {
		return err
	}
	box, err := secretbox.New(st.EncryptionKey)
	if err != nil {
		return err
	}
	var store *sqlstore.Store
	switch *db {
	case "sqlite":
		store, err = sqlite.Open(ctx, filepath.Join(*dataDir, devDBFile), box)
	case "postgres":
		if *pgDSN == "" || *pgDatabase == "" {
			return fmt.Errorf("--db postgres needs --pg-dsn (or %s) and --pg-database", envPostgresDSN)
		}
		store, err = postgres.Open(ctx, withDatabase(*pgDSN, *pgDatabase), box, postgres.Options{})
	default:
		return fmt.Errorf("--db: unknown database %q (sqlite or postgres)", *db)
	}
	if err != nil {
		return err
	}
	defer store.Close()
	mid := *merchantID
	if mid == "" {
		if err := store.DB().QueryRowContext(ctx, `SELECT merchant_id FROM orders GROUP BY merchant_id ORDER BY COUNT(*) DESC LIMIT 1`).Scan(&mid); err != nil {
			return fmt.Errorf("the merchant with the most orders: %w", err)
		}
	}
	rng := rand.New(rand.NewPCG(*seed, 0))
	picked, err := sampleOrders(ctx, store, mid, *samples, rng)
	if err != nil {
		return err
	}
	// A viewer of the merchant, made for this run (its password never leaves the process).
	email := fmt.Sprintf("bench-%d@bench.example", time.Now().UnixNano())
	password := dashboard.GeneratePassword()
	if _, err := dashboard.NewAccounts(store, dashboard.Config{}, nil).CreateUser(ctx, dashboard.NewUser{MerchantID: mid, Email: email, Role: rampway.RoleViewer, Password: password}); err != nil {
		return fmt.Errorf("sign up a viewer: %w", err)
	}
	c, err := dashSignIn(ctx, *base, email, password)
	if err != nil {
		return err
	}
	times := map[string][]time.Duration{}
	misses := map[string]int{}
	get := func(kind, path, want string) error {
		start := time.Now()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, *base+path, nil)
		res, err := c.Do(req)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		d := time.Since(start)
		if err != nil {
			return err
		}
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %d", path, res.StatusCode)
		}
		times[kind] = append(times[kind], d)
		if want != "" && !strings.Contains(string(b), want) {
			misses[kind]++
		}
		return nil
	}
	olderCursor := ""
	for round := 0; round < *rounds; round++ {
		for i, s := range picked {
			if err := get("list", "/dashboard/orders", ""); err != nil {
				return err
			}
			status := []string{"SUCCESS", "CREATED", "REFUNDED", "EXPIRED"}[i%4]
			area := []string{"mint", "nft_ramp", "deposit"}[i%3]
			if err := get("list-filtered", "/dashboard/orders?"+url.Values{"area": {area}, "status": {status}}.Encode(), ""); err != nil {
				return err
			}
			if olderCursor == "" || i%10 == 0 {
				olderCursor = s.ID
			}
			if err := get("list-older", "/dashboard/orders?"+url.Values{"before": {olderCursor}}.Encode(), ""); err != nil {
				return err
			}
			for _, k := range []struct{ kind, key string }{{"search-id", s.ID}, {"search-txn", s.TxnID}, {"search-user", s.UserID},
				{"search-address", s.DepositAddress}, {"search-tx", s.TxHash}, {"search-provider", s.ProviderRef}} {
				if k.key == "" {
					continue
				}
				if err := get(k.kind, "/dashboard/orders?"+url.Values{"q": {k.key}}.Encode(), s.ID); err != nil {
					return err
				}
			}
			if err := get("order-page", "/dashboard/orders/"+s.ID, s.ID); err != nil {
				return err
			}
		}
	}
	orders, _ := scalar(ctx, store.DB(), `SELECT COUNT(*) FROM orders`)
	fmt.Fprintf(stdout, "# dashboard: %s, %d orders in the database, %d sampled of merchant %s, %d rounds, one request at a time\n",
		*db, orders, len(picked), mid, *rounds)
	fmt.Fprintln(stdout, "| request | n | p50 ms | p95 ms | p99 ms | max ms | not found |")
	fmt.Fprintln(stdout, "|---|---:|---:|---:|---:|---:|---:|")
	var failed []string
	for _, k := range dashKinds {
		ts := times[k]
		if len(ts) == 0 {
			continue
		}
		slices.Sort(ts)
		r := loadResult{latencies: ts}
		fmt.Fprintf(stdout, "| %s | %d | %s | %s | %s | %s | %d |\n", k, len(ts), ms(r.percentile(.5)), ms(r.percentile(.95)), ms(r.percentile(.99)), ms(ts[len(ts)-1]), misses[k])
		if misses[k] > 0 {
			failed = append(failed, k)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("dashboard: the searched order was not on the answer of %s", strings.Join(failed, ", "))
	}
	return nil
}

// sampleOrders picks n orders of the merchant (test mode) spread over its history: each the
// newest order of a random area created before a random time of the last 180 days.
func sampleOrders(ctx context.Context, store *sqlstore.Store, merchantID string, n int, rng *rand.Rand) ([]dashSample, error) {
	areas := []rampway.Area{rampway.AreaMint, rampway.AreaNFTRamp, rampway.AreaDeposit}
	seen := map[string]bool{}
	var out []dashSample
	now := time.Now()
	for tries := 0; len(out) < n && tries < 20*n; tries++ {
		before := now.Add(-time.Duration(rng.Int64N(int64(180 * 24 * time.Hour))))
		os, err := store.Orders(ctx, rampway.OrderFilter{MerchantID: merchantID, Area: areas[rng.IntN(len(areas))], CreatedTo: before, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(os) == 0 || seen[os[0].ID] {
			continue
		}
		o := os[0]
		seen[o.ID] = true
		s := dashSample{ID: o.ID, TxnID: o.MerchantTxnID, UserID: o.MerchantUserID}
		if o.DepositAddress != (common.Address{}) {
			s.DepositAddress = o.DepositAddress.Hex()
		}
		ts, err := store.OrderTransfers(ctx, o.ID)
		if err != nil {
			return nil, err
		}
		if len(ts) > 0 {
			s.TxHash = ts[0].TxHash.Hex()
		} else if _, txs, err := store.Execution(ctx, o.ID); err == nil && len(txs) > 0 {
			s.TxHash = txs[0].Hash.Hex()
		}
		ps, err := store.FiatPayments(ctx, o.ID)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if p.ProviderRef != "" {
				s.ProviderRef = p.ProviderRef
				break
			}
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("merchant %s has no orders to sample", merchantID)
	}
	return out, nil
}

var dashCSRF = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// dashSignIn signs in to the dashboard through its form and returns a client with the session.
func dashSignIn(ctx context.Context, base, email, password string) (*http.Client, error) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: time.Minute, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/dashboard/login", nil)
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := dashCSRF.FindSubmatch(b)
	if m == nil {
		return nil, fmt.Errorf("GET %s/dashboard/login: %d, no sign-in form (is the dashboard enabled?)", base, res.StatusCode)
	}
	form := url.Values{"csrf_token": {string(m[1])}, "email": {email}, "password": {password}}
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, base+"/dashboard/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if res, err = c.Do(req); err != nil {
		return nil, err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		return nil, fmt.Errorf("sign in: %d", res.StatusCode)
	}
	return c, nil
}
