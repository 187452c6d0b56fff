package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rampway/rampway/internal/pgtest"
)

// orderLog is what the writers made while a backup was taken: each order with when its
// creation was answered, in the order of the answers.
type orderLog struct {
	mu     sync.Mutex
	orders []made
}

type made struct {
	id, amount, gateway string // the order's id, crypto_amount and gateway_url
	at                  time.Time
}

func (l *orderLog) add(m made) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.orders = append(l.orders, m)
}

// split returns the orders answered before t0 and those whose creation began after t1.
func (l *orderLog) split(t0, t1 time.Time) (before, after []made) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.orders {
		switch {
		case m.at.Before(t0):
			before = append(before, m)
		case m.at.After(t1):
			after = append(after, m)
		}
	}
	return before, after
}

// tryCreate is createOrder for a goroutine other than the test's: it returns errors instead of
// failing the test.
func (s *shop) tryCreate(c *http.Client, base, txn string) (made, error) {
	body := map[string]any{"merchant_txn_id": txn}
	for k, v := range s.order {
		body[k] = v
	}
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", base+"/mint/merchant/hosted/nftCheckout/order", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-KEY", s.key)
	res, err := c.Do(req)
	if err != nil {
		return made{}, err
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil || res.StatusCode != http.StatusCreated {
		return made{}, fmt.Errorf("create order: %d %s", res.StatusCode, data)
	}
	id, _ := v["order_id"].(string)
	amount, _ := v["crypto_amount"].(string)
	gateway, _ := v["gateway_url"].(string)
	return made{id: id, amount: amount, gateway: gateway, at: time.Now()}, nil
}

// backupRoundTrip runs a production `rampway serve` on cfgPath, with merchants' orders being
// created on it without pause by 4 writers while backup runs; then stops it (SIGTERM, exit 0),
// has restore put the backup in place and return the configuration of the restored database,
// and serves that. Every order answered before the backup began is there, with its status and
// checkout link; none begun after it ended is (so the restored service is the backup's); and
// the restored service takes new orders.
func backupRoundTrip(t *testing.T, w *world, cfgPath string, backup func(), restore func() string) {
	t.Helper()
	srv := serve(t, cfgPath, w.env())
	c := &http.Client{Timeout: 30 * time.Second}
	s := newShop(t, c, srv.base, w)
	var log orderLog
	for i := range 20 {
		m, err := s.tryCreate(c, srv.base, fmt.Sprintf("first-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		log.add(m)
	}
	var stopping sync.WaitGroup
	quit := make(chan struct{})
	errs := make(chan error, 4)
	for g := range 4 {
		stopping.Add(1)
		go func() {
			defer stopping.Done()
			for i := 0; ; i++ {
				select {
				case <-quit:
					return
				default:
				}
				m, err := s.tryCreate(c, srv.base, fmt.Sprintf("w%d-%d", g, i))
				if err != nil {
					errs <- err
					return
				}
				log.add(m)
			}
		}()
	}
	stop := func() {
		close(quit)
		stopping.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("a writer: %v", err)
		}
	}
	// waitFor waits until n orders are logged since t0, or a writer fails.
	waitFor := func(n int, since time.Time) {
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
			_, got := log.split(since, since)
			if len(got) >= n {
				return
			}
			if len(errs) > 0 || time.Now().After(deadline) {
				stop()
				t.Fatalf("the writers made %d orders in a minute", len(got))
			}
		}
	}
	// The backup starts once the writers are writing, and they go on after it ends.
	waitFor(8, time.Now())
	t0 := time.Now()
	backup()
	t1 := time.Now()
	waitFor(8, t1)
	stop()
	before, after := log.split(t0, t1)
	during := len(log.orders) - len(before) - len(after)
	t.Logf("backup in %s; orders answered before it: %d, during it: %d, begun after it: %d", t1.Sub(t0).Round(time.Millisecond), len(before), during, len(after))
	took := srv.stop(t)
	t.Logf("rampway serve stopped in %s after SIGTERM", took.Round(time.Millisecond))
	lost := depositIndex(t, w, cfgPath, "show")["next"]

	// The restored database's deposit counter is the backup's: behind the orders made since
	// (on SQLite; PostgreSQL's dump reads the sequence as it is when the dump gets to it, and
	// the instances reserve indexes ahead, so it may not be), whose addresses it would hand
	// out again. The step after a restore moves it past them.
	restoredCfg := restore()
	back := depositIndex(t, w, restoredCfg, "show")["next"]
	moved := depositIndex(t, w, restoredCfg, "advance", "--by", "1000000")
	t.Logf("deposit index: %d before the restore, %d after it; advance --by 1000000: %v", lost, back, moved)
	if back > lost || moved["before"] != back || moved["next"] != back+1000000 || moved["next"] < lost {
		t.Fatalf("deposit index: %v before the restore, %v after it, advance --by 1000000: %v", lost, back, moved)
	}
	restored := serve(t, restoredCfg, w.env())
	for _, m := range before {
		got := must(t, c, "GET", restored.base+"/mint/merchant/hosted/nftCheckout/order/"+m.id, s.key, nil)
		if got["order_id"] != m.id || got["status"] != "CREATED" || got["crypto_amount"] != m.amount || got["gateway_url"] != m.gateway {
			t.Fatalf("restored order %s: %v, want it as created (%s, %s)", m.id, got, m.amount, m.gateway)
		}
	}
	for _, m := range after {
		if status, v := api(t, c, "GET", restored.base+"/mint/merchant/hosted/nftCheckout/order/"+m.id, s.key, nil); status != 404 {
			t.Fatalf("order %s, begun after the backup ended, is in the restored database: %d %v", m.id, status, v)
		}
	}
	// The restored service works: a new order, its checkout page.
	o := s.createOrder(t, c, restored.base, "after-restore")
	res, err := c.Get(strings.Replace(o["gateway_url"].(string), "https://pay.example.com", restored.base, 1))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("the new order's checkout page: %d", res.StatusCode)
	}
}

// depositIndex runs `rampway admin deposit-index ARGS` on the database of cfgPath.
func depositIndex(t *testing.T, w *world, cfgPath string, args ...string) map[string]int64 {
	t.Helper()
	cmd := exec.Command(rampwayBin(t), append([]string{"admin", "--config", cfgPath, "deposit-index"}, args...)...)
	cmd.Env = w.env()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rampway admin deposit-index %v: %v\n%s", args, err, out)
	}
	var v map[string]int64
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("rampway admin deposit-index %v: %v\n%s", args, err, out)
	}
	return v
}

// `rampway backup` copies the SQLite database of a running `rampway serve` that is taking
// orders, with only the configuration file (no secrets in its environment); the copy, put in
// a fresh data directory, serves every order answered before the backup began.
func TestBackupRestoreSQLite(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := t.TempDir()
	httpSection := `{addr: "127.0.0.1:0", public_url: "https://pay.example.com", rate_limit: {requests_per_second: 0}}`
	cfgPath := w.config(t, httpSection, fmt.Sprintf(`{driver: sqlite, path: %q}`, filepath.Join(dir, "rampway.db")))
	file := filepath.Join(dir, "backup.db")
	backupRoundTrip(t, w, cfgPath, func() {
		cmd := exec.Command(rampwayBin(t), "backup", "--to", file)
		cmd.Env = append(cleanEnv(), "RAMPWAY_CONFIG="+cfgPath)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "backed up ") {
			t.Fatalf("rampway backup: %v\n%s", err, out)
		}
		t.Logf("%s", bytes.TrimSpace(out))
		// A second backup to the same file is refused; the first is kept.
		cmd = exec.Command(rampwayBin(t), "backup", "--config", cfgPath, "--to", file)
		cmd.Env = cleanEnv()
		if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "exists") {
			t.Fatalf("rampway backup over an existing file: %v\n%s", err, out)
		}
	}, func() string {
		// The restore of docs/production.md: the backup file as the new database.path.
		fresh := filepath.Join(t.TempDir(), "rampway.db")
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fresh, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return w.config(t, httpSection, fmt.Sprintf(`{driver: sqlite, path: %q}`, fresh))
	})
}

// PostgreSQL: pg_dump of a running `rampway serve`'s database while it takes orders, and
// pg_restore into a new database, serve the orders answered before the dump began; `rampway
// backup` refuses PostgreSQL, naming pg_dump.
func TestBackupRestorePostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.FreshDSN(t)
	pgDump, pgRestore := need(t, "pg_dump"), need(t, "pg_restore")
	w := newWorld(t)
	httpSection := `{addr: "127.0.0.1:0", public_url: "https://pay.example.com", rate_limit: {requests_per_second: 0}}`
	cfgPath := w.config(t, httpSection, fmt.Sprintf(`{driver: postgres, dsn: %q}`, dsn))
	cmd := exec.Command(rampwayBin(t), "backup", "--config", cfgPath, "--to", filepath.Join(t.TempDir(), "x.db"))
	cmd.Env = cleanEnv()
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "pg_dump") {
		t.Fatalf("rampway backup of PostgreSQL: %v\n%s", err, out)
	}
	file := filepath.Join(t.TempDir(), "rampway.dump")
	backupRoundTrip(t, w, cfgPath, func() {
		// The commands of docs/production.md.
		if out, err := exec.Command(pgDump, "--format=custom", "--file="+file, dsn).CombinedOutput(); err != nil {
			t.Fatalf("pg_dump: %v\n%s", err, out)
		}
	}, func() string {
		fresh := pgtest.FreshDSN(t)
		if out, err := exec.Command(pgRestore, "--no-owner", "--exit-on-error", "--dbname="+fresh, file).CombinedOutput(); err != nil {
			t.Fatalf("pg_restore: %v\n%s", err, out)
		}
		return w.config(t, httpSection, fmt.Sprintf(`{driver: postgres, dsn: %q}`, fresh))
	})
}
