package webhook_test

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/pgtest"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/postgres"
	"github.com/rampway/rampway/sqlite"
	"github.com/rampway/rampway/webhook"
)

const (
	// dbBatch is the pending events of the target (docs/BENCHMARKS.md): one order.created
	// event of each of dbBatch orders, spread evenly over dbMerchants merchants.
	dbBatch     = 1000
	dbMerchants = 10
	// dbHung is the pending events of the 11th merchant, whose endpoint never answers.
	dbHung = 200
	// dbTarget is the target rate to the healthy merchants, in deliveries/s.
	dbTarget = 1000
	// dbLimit bounds one batch: far beyond the target, short of hanging the run.
	dbLimit = 2 * time.Minute
)

// BenchmarkDeliveries measures the target "deliveries/s to a local receiver with 1,000 pending
// events (>= 1,000/s on 2 cores with SQLite and with PostgreSQL) and the effect of one hanging
// endpoint on the others (< 10% drop)" (docs/BENCHMARKS.md), on SQLite and, when
// RAMPWAY_TEST_POSTGRES_DSN is set, on PostgreSQL (skipped without it, failing in CI).
//
//	go test -run='^$' -bench=Deliveries -benchtime=10x ./webhook
//
// Each op runs two batches, each on a new store (a fresh database): healthy, and the same with
// a hanging endpoint; odd ops run the hanging one first, so that both meet the same drift of
// the machine. In each batch 10 merchants, each with its own httptest receiver that answers
// 200 at once, have 100 orders each, whose 1,000 order.created deliveries are pending before
// the dispatcher starts. The dispatcher runs as in the app (Run, default config: 64 workers,
// 4 per merchant, 10 s timeout; the merchant's secrets read from the store at every attempt by
// a merchant.Service, as cmd/rampway does). The timer runs from Run's start until the 1,000th
// attempt is recorded as delivered. In the hanging batch an 11th
// merchant has 200 pending deliveries of its own, created interleaved with the others, to an
// endpoint that never answers until the batch is over: its attempts hold their share of
// workers (at most PerMerchant) for the whole batch.
//
// Metrics: healthy-del/s and hanging-del/s, the median over the ops of the deliveries/s to the
// 10 healthy merchants in each batch (the target); drop-%, how much lower the hanging batch's
// median is (negative: it was faster); hung-max, the most attempts held at once by the
// hanging endpoint; and, to show where the time goes, per delivered event over both batches:
// claims/delivery and releases/delivery (ClaimDeliveries and ReleaseDelivery calls), ms/claim, ms/record and ms/post (the mean wall time
// of one ClaimDeliveries, one RecordAttempt and one attempt's POST as the dispatcher records
// its latency, which includes reading the merchant's secrets: attempts overlap, so these are
// latencies, not shares of the batch time), secret-reads/delivery and ms/secrets (the reads of
// a merchant's webhook secrets, one for the attempts of a merchant a Step starts together, and
// the mean wall time of one), and
// claim-busy, the share of the batches the dispatcher's loop spent inside ClaimDeliveries.
// CPU profiles tell the phases apart by the label phase=setup|deliver (go tool pprof
// -tagfocus=phase=deliver).
func BenchmarkDeliveries(b *testing.B) {
	for _, db := range dbStores {
		b.Run("db="+db.name, func(b *testing.B) {
			if db.name == "postgres" {
				pgtest.BaseDSN(b) // skips without a server (fails in CI)
			}
			var (
				healthy, hanging []float64 // deliveries/s per batch
				took             time.Duration
				hungMax          int64
				s                dbStats
			)
			for i := range b.N {
				b.StopTimer()
				for _, hang := range []bool{i%2 == 1, i%2 == 0} {
					r := dbRunBatch(b, db.name, db.open(b), hang)
					rate := dbBatch / r.took.Seconds()
					if hang {
						hanging = append(hanging, rate)
						hungMax = max(hungMax, r.hungMax)
					} else {
						healthy = append(healthy, rate)
					}
					took += r.took
					s.add(r.stats)
				}
			}
			b.StopTimer()
			mh, mg := dbMedian(healthy), dbMedian(hanging)
			b.ReportMetric(mh, "healthy-del/s")
			b.ReportMetric(mg, "hanging-del/s")
			b.ReportMetric(100*(1-mg/mh), "drop-%")
			b.ReportMetric(float64(hungMax), "hung-max")
			perDelivery := func(n int64) float64 { return float64(n) / float64(2*dbBatch*b.N) }
			b.ReportMetric(perDelivery(s.claims.Load()), "claims/delivery")
			b.ReportMetric(perDelivery(s.releases.Load()), "releases/delivery")
			b.ReportMetric(dbMean(s.claimTime.Load(), s.claims.Load()), "ms/claim")
			b.ReportMetric(dbMean(s.recordTime.Load(), s.records.Load()), "ms/record")
			b.ReportMetric(dbMean(s.postTime.Load(), s.records.Load()), "ms/post")
			b.ReportMetric(perDelivery(s.secretReads.Load()), "secret-reads/delivery")
			b.ReportMetric(dbMean(s.secretTime.Load(), s.secretReads.Load()), "ms/secrets")
			b.ReportMetric(float64(s.claimTime.Load())/float64(took), "claim-busy")
			b.Logf("deliveries/s healthy %v, hanging %v", dbRound0(healthy), dbRound0(hanging))
			if mh < dbTarget || mg < dbTarget {
				b.Logf("median deliveries/s %.0f healthy, %.0f hanging: below the target of %d/s", mh, mg, dbTarget)
			}
		})
	}
}

// dbStores are the stores the benchmarks run on, each opened fresh.
var dbStores = []struct {
	name string
	open func(*testing.B) *sqlstore.Store
}{
	{"sqlite", func(b *testing.B) *sqlstore.Store {
		s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "d.db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}},
	{"postgres", func(b *testing.B) *sqlstore.Store {
		s, err := postgres.Open(b.Context(), pgtest.FreshDSN(b), nil, postgres.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}},
}

// dbMedian returns the median of xs.
func dbMedian(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// dbRound0 rounds xs to whole numbers, for the log.
func dbRound0(xs []float64) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(math.Round(x))
	}
	return out
}

// dbRound is what one batch measured.
type dbRound struct {
	took    time.Duration
	hungMax int64
	stats   *dbStats
}

// dbRunBatch makes the merchants, receivers and pending deliveries of one batch on store,
// then runs a dispatcher with the timer on until all dbBatch healthy deliveries are recorded.
func dbRunBatch(b *testing.B, dbName string, store *sqlstore.Store, hanging bool) dbRound {
	b.Helper()
	defer store.Close()

	var hits atomic.Int64
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) })
	var merchants []*rampway.Merchant
	for range dbMerchants {
		srv := httptest.NewServer(ok)
		defer srv.Close()
		merchants = append(merchants, dbMerchant(b, store, srv.URL, "whsec_bench"))
	}
	perMerchant := map[string]int{}
	for _, m := range merchants {
		perMerchant[m.ID] = dbBatch / dbMerchants
	}

	release := make(chan struct{})
	var hung gauge
	if hanging {
		slow := hangingReceiver(&hung, release)
		defer slow.Close() // after release is closed below: Close waits for the handlers
		m := dbMerchant(b, store, slow.URL, "whsec_bench")
		merchants = append(merchants, m)
		perMerchant[m.ID] = dbHung
	}
	pprof.Do(b.Context(), pprof.Labels("phase", "setup"), func(context.Context) { dbCreateOrders(b, store, merchants, perMerchant) })
	// Both batches start from a settled database. SQLite: an empty write-ahead log, or the
	// setup's writes (more of them in the hanging batch) are checkpointed during one batch and
	// not the other. PostgreSQL: planner statistics, as autovacuum keeps them in service (on
	// the just-filled table the planner guessed a handful of pending rows and sorted them all).
	dbSettle(b, dbName, store)

	stats := &dbStats{}
	counted := &dbCountingStore{DeliveryStore: store, stats: stats, done: make(chan struct{})}
	var errLog dbErrorLog // the dispatcher's errors (store failures): there must be none
	d := webhook.New(webhook.Config{AllowPrivate: true, UserAgent: "rampway/bench"}, counted,
		&dbTimedSecrets{merchant.NewService(store, merchant.Options{HashSecret: "bench"}), stats}, slog.New(slog.NewTextHandler(&errLog, &slog.HandlerOptions{Level: slog.LevelError})), nil)
	runCtx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})

	b.StartTimer()
	start := time.Now()
	go pprof.Do(runCtx, pprof.Labels("phase", "deliver"), func(ctx context.Context) { d.Run(ctx); close(stopped) })
	select {
	case <-counted.done:
	case <-time.After(dbLimit):
	}
	took := time.Since(start)
	b.StopTimer()
	measured := stats.snapshot() // not what the hanging attempts record once released

	cancel()
	close(release)
	<-stopped
	if n := stats.delivered.Load(); n < dbBatch {
		b.Fatalf("%d of %d deliveries made within %s", n, dbBatch, dbLimit)
	}
	if n := hits.Load(); n < dbBatch {
		b.Fatalf("the receivers got %d requests, want %d", n, dbBatch)
	}
	if n, last := errLog.get(); n > 0 {
		b.Fatalf("the dispatcher logged %d errors, the last: %s", n, last)
	}
	return dbRound{took: took, hungMax: hung.most.Load(), stats: measured}
}

// dbSettle checkpoints SQLite's write-ahead log or analyses PostgreSQL's outbox after a setup.
func dbSettle(b *testing.B, dbName string, store *sqlstore.Store) {
	b.Helper()
	settle := map[string]string{"sqlite": "PRAGMA wal_checkpoint(TRUNCATE)", "postgres": "ANALYZE webhook_deliveries"}[dbName]
	if _, err := store.DB().ExecContext(b.Context(), settle); err != nil {
		b.Fatal(err)
	}
}

// obBacklog is the pending deliveries of BenchmarkOneMerchantBacklog's one merchant.
const obBacklog = 3000

// BenchmarkOneMerchantBacklog measures how fast one merchant's backlog drains to a receiver
// that answers at once, by how many of its deliveries may be in flight
// (webhooks.per_merchant), on SQLite and, when RAMPWAY_TEST_POSTGRES_DSN is set, PostgreSQL:
//
//	go test -run='^$' -bench=OneMerchantBacklog -benchtime=3x ./webhook
//
// Each op: a fresh database, one merchant with 3,000 pending order.created deliveries, a
// dispatcher as in the app but for per=N; the timer runs from Run until the last is recorded
// delivered. del/s is the median over the ops.
func BenchmarkOneMerchantBacklog(b *testing.B) {
	for _, db := range dbStores {
		for _, per := range []int{4, 8, 16, 32} {
			b.Run(fmt.Sprintf("db=%s/per=%d", db.name, per), func(b *testing.B) {
				if db.name == "postgres" {
					pgtest.BaseDSN(b)
				}
				var rates []float64
				for range b.N {
					b.StopTimer()
					store := db.open(b)
					srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
					m := dbMerchant(b, store, srv.URL, "whsec_bench")
					dbCreateOrders(b, store, []*rampway.Merchant{m}, map[string]int{m.ID: obBacklog})
					dbSettle(b, db.name, store)
					stats := &dbStats{}
					counted := &dbCountingStore{DeliveryStore: store, stats: stats, done: make(chan struct{}), want: obBacklog}
					var errLog dbErrorLog
					d := webhook.New(webhook.Config{AllowPrivate: true, UserAgent: "rampway/bench", PerMerchant: per}, counted,
						merchant.NewService(store, merchant.Options{HashSecret: "bench"}), slog.New(slog.NewTextHandler(&errLog, &slog.HandlerOptions{Level: slog.LevelError})), nil)
					ctx, cancel := context.WithCancel(context.Background())
					stopped := make(chan struct{})
					b.StartTimer()
					start := time.Now()
					go func() { d.Run(ctx); close(stopped) }()
					select {
					case <-counted.done:
					case <-time.After(dbLimit):
					}
					took := time.Since(start)
					b.StopTimer()
					cancel()
					<-stopped
					srv.Close()
					store.Close()
					if n := stats.delivered.Load(); n < obBacklog {
						b.Fatalf("%d of %d deliveries made within %s", n, obBacklog, dbLimit)
					}
					if n, last := errLog.get(); n > 0 {
						b.Fatalf("the dispatcher logged %d errors, the last: %s", n, last)
					}
					rates = append(rates, obBacklog/took.Seconds())
				}
				b.ReportMetric(dbMedian(rates), "del/s")
				b.Logf("deliveries/s %v", dbRound0(rates))
			})
		}
	}
}

// dbErrorLog counts the log lines written to it and keeps the last.
type dbErrorLog struct {
	mu   sync.Mutex
	n    int
	last string
}

func (l *dbErrorLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	l.last = string(p)
	return len(p), nil
}

func (l *dbErrorLog) get() (int, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n, l.last
}

// dbStats counts the dispatcher's store calls and their time (nanoseconds).
type dbStats struct {
	claims, releases, records, delivered, secretReads atomic.Int64
	claimTime, recordTime, postTime, secretTime       atomic.Int64
}

func (s *dbStats) snapshot() *dbStats {
	c := &dbStats{}
	c.add(s)
	return c
}

func (s *dbStats) add(o *dbStats) {
	s.claims.Add(o.claims.Load())
	s.releases.Add(o.releases.Load())
	s.records.Add(o.records.Load())
	s.delivered.Add(o.delivered.Load())
	s.claimTime.Add(o.claimTime.Load())
	s.recordTime.Add(o.recordTime.Load())
	s.postTime.Add(o.postTime.Load())
	s.secretReads.Add(o.secretReads.Load())
	s.secretTime.Add(o.secretTime.Load())
}

// dbMean returns total/n nanoseconds in milliseconds.
func dbMean(total, n int64) float64 {
	if n == 0 {
		return 0
	}
	return float64(total) / float64(n) / 1e6
}

// dbCountingStore is the store as the dispatcher sees it, timing its calls and closing done
// when dbBatch attempts are recorded as delivered (only the healthy receivers answer 2xx
// while the batch runs).
type dbCountingStore struct {
	rampway.DeliveryStore
	stats *dbStats
	done  chan struct{}
	want  int64 // deliveries that close done; 0: dbBatch
}

func (c *dbCountingStore) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit, perMerchant int, skip []string) ([]*rampway.Delivery, error) {
	t := time.Now()
	ds, err := c.DeliveryStore.ClaimDeliveries(ctx, now, lease, limit, perMerchant, skip)
	c.stats.claims.Add(1)
	c.stats.claimTime.Add(int64(time.Since(t)))
	return ds, err
}

func (c *dbCountingStore) ReleaseDelivery(ctx context.Context, eventID string) error {
	c.stats.releases.Add(1)
	return c.DeliveryStore.ReleaseDelivery(ctx, eventID)
}

func (c *dbCountingStore) RecordAttempt(ctx context.Context, a *rampway.DeliveryAttempt, status rampway.DeliveryStatus, next time.Time) error {
	t := time.Now()
	err := c.DeliveryStore.RecordAttempt(ctx, a, status, next)
	c.stats.records.Add(1)
	c.stats.recordTime.Add(int64(time.Since(t)))
	c.stats.postTime.Add(int64(a.Latency))
	want := c.want
	if want == 0 {
		want = dbBatch
	}
	if err == nil && status == rampway.DeliveryDelivered && c.stats.delivered.Add(1) == want {
		close(c.done)
	}
	return err
}

// dbTimedSecrets counts and times the reads of merchants' secrets.
type dbTimedSecrets struct {
	webhook.Secrets
	stats *dbStats
}

func (s *dbTimedSecrets) WebhookSecrets(ctx context.Context, merchantID string, live bool) ([]string, error) {
	t := time.Now()
	secrets, err := s.Secrets.WebhookSecrets(ctx, merchantID, live)
	s.stats.secretReads.Add(1)
	s.stats.secretTime.Add(int64(time.Since(t)))
	return secrets, err
}

// dbMerchant makes a merchant whose events go to url, signed with secret.
func dbMerchant(tb testing.TB, store *sqlstore.Store, url, secret string) *rampway.Merchant {
	tb.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	m := &rampway.Merchant{ID: rampway.NewID(rampway.PrefixMerchant, now), Name: "m", Status: rampway.MerchantActive, WebhookURL: url,
		WebhookSecret: secret, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateMerchant(tb.Context(), m); err != nil {
		tb.Fatal(err)
	}
	return m
}

// dbCreateOrders creates n[m.ID] orders of each merchant, interleaved (one of each merchant in
// turn, so that no merchant's deliveries are all due first), by a few writers at once.
func dbCreateOrders(tb testing.TB, store *sqlstore.Store, merchants []*rampway.Merchant, n map[string]int) {
	tb.Helper()
	jobs := make(chan *rampway.Merchant)
	go func() {
		defer close(jobs)
		left := map[string]int{}
		for id, k := range n {
			left[id] = k
		}
		for more := true; more; {
			more = false
			for _, m := range merchants {
				if left[m.ID] > 0 {
					left[m.ID]--
					more = true
					jobs <- m
				}
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for m := range jobs {
				if err := dbOrder(tb.Context(), store, m); err != nil {
					errs <- err
					for range jobs { // drain, so that the feeder ends
					}
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		tb.Fatal(err)
	}
}

// dbOrder creates an order of m; its order.created event is a pending delivery.
func dbOrder(ctx context.Context, store *sqlstore.Store, m *rampway.Merchant) error {
	now := time.Now().UTC().Truncate(time.Microsecond)
	i, err := store.NextDepositIndex(ctx)
	if err != nil {
		return err
	}
	o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: m.ID, Area: rampway.AreaMint, Status: rampway.StatusCreated,
		MerchantUserID: "u", MerchantTxnID: fmt.Sprintf("txn-%d", i), MerchantRedirectURL: "https://x.example", Network: "devnet",
		Asset: rampway.Asset{Symbol: "ETH", Network: "devnet", Decimals: 18}, CryptoAmount: big.NewInt(1e16), CryptoReceived: new(big.Int),
		PaymentValue: new(big.Int), NetworkFee: new(big.Int), ServiceFee: new(big.Int), FunctionArgs: []byte(`{}`),
		DepositAddress: common.BigToAddress(big.NewInt(int64(i) + 1)), DepositIndex: i, ExpiresAt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now}
	if err := store.CreateOrder(ctx, o); err != nil {
		return fmt.Errorf("create order: %w", err)
	}
	return nil
}
