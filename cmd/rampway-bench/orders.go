package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/internal/devworld"
)

// envPostgresDSN names a PostgreSQL server the bench may create a database on (the tests' own).
const envPostgresDSN = "RAMPWAY_TEST_POSTGRES_DSN"

// ordersOptions are the flags of `orders`.
type ordersOptions struct {
	dbs            []string
	apis           []scenario
	fiatSymbol     string
	fiatMethod     string
	fiatAmount     string
	pgDSN          string
	concurrency    int
	warmup         time.Duration
	duration       time.Duration
	rounds         int
	idempotencyKey bool
	profileDir     string
	dataDir        string
	rpcHTTP        bool
	rpcIdleConns   int
	rpcGzip        bool
	noChain        bool
	stubNode       bool
	oneWriter      bool
	// A grown database (rampway-bench fill) instead of a fresh one, by database.
	reuse      bool
	pgDatabase string
	snapshot   bool
	grown      map[string]*grownDB
}

// phase is one measured phase: a handler of an endpoint on a database in a round.
type phase struct {
	db, handler string
	api         scenario
	round       int
	res         *loadResult
	rpc         string // rampway's chain calls per request
}

func runOrders(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("orders", flag.ContinueOnError)
	fs.SetOutput(stdout)
	dbs := fs.String("db", "sqlite,postgres", "databases to run on, comma-separated: sqlite, postgres")
	apis := fs.String("api", "a1", "endpoints to measure, comma-separated, each against its baseline: a1 (order), b1 (fiat order), c1 (on-ramp order) against the one-insert handler; a2 (cryptoQuote), b3 (fiatQuote) against the bare JSON handler")
	var o ordersOptions
	fs.StringVar(&o.fiatSymbol, "fiat-symbol", "EUR", "b1, b3, c1: order_fiat_symbol")
	fs.StringVar(&o.fiatMethod, "fiat-method", "credit_debit_card", "b1, b3, c1: fiat_payment_method")
	fs.StringVar(&o.fiatAmount, "fiat-amount", "100.00", "c1: order_fiat_amount")
	fs.StringVar(&o.pgDSN, "pg-dsn", getenv(envPostgresDSN), "PostgreSQL server to create a fresh database on (env "+envPostgresDSN+")")
	fs.IntVar(&o.concurrency, "concurrency", 16, "concurrent workers (one keep-alive connection each)")
	fs.DurationVar(&o.warmup, "warmup", 3*time.Second, "unmeasured warm-up at the start of each phase")
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "measured time of each phase")
	fs.IntVar(&o.rounds, "rounds", 1, "rounds of (baseline, rampway) phases per database; even rounds run rampway first")
	fs.BoolVar(&o.idempotencyKey, "idempotency-key", false, "send a unique Idempotency-Key with each request (rampway then records it)")
	fs.StringVar(&o.profileDir, "profile", "", "write each measured phase's CPU profile, a wall-clock sample of its handlers (where requests wait) and its allocations (go tool pprof -base NAME-allocs-start.pprof NAME-allocs-end.pprof) into this directory")
	fs.StringVar(&o.dataDir, "data-dir", "", "keep the SQLite database and the logs here (default: a temporary directory, removed)")
	fs.BoolVar(&o.rpcHTTP, "rpc-http", false, "what-if: the order path calls the dev chain over its HTTP endpoint on loopback (rampway dev calls it in process)")
	fs.IntVar(&o.rpcIdleConns, "rpc-idle-conns", 0, "what-if, with -rpc-http: MaxIdleConnsPerHost of the order path's chain client (0: chain.Dial's, 64; Go's default is 2)")
	fs.BoolVar(&o.rpcGzip, "rpc-gzip", false, "what-if, with -rpc-http: the order path's chain client asks the node on loopback for gzip (rampway's does not)")
	fs.BoolVar(&o.noChain, "no-chain", false, "what-if: the order path's chain calls cost nothing (head and tip cached, simulations answered 'would succeed' without the node)")
	fs.BoolVar(&o.stubNode, "stub-node", false, "what-if: the order path's simulations go over HTTP on loopback, batched as to a remote node, to a JSON-RPC server in this process that answers them 'would succeed' without an EVM (a node on another machine)")
	fs.BoolVar(&o.oneWriter, "baseline-one-writer", false, "what-if: on SQLite, the baseline's inserts wait on a Go mutex (as the SQLite store's transactions do)")
	fs.BoolVar(&o.reuse, "reuse", false, "run on the grown database of --data-dir (a rampway dev directory that rampway-bench fill filled: its rampway.db, keys and secrets) instead of a fresh one, and leave it (see --snapshot)")
	fs.StringVar(&o.pgDatabase, "pg-database", "", "postgres: run on this grown database of --pg-dsn's server (filled with --data-dir's keys and secrets) instead of a fresh one, and leave it")
	fs.BoolVar(&o.snapshot, "snapshot", false, "with --reuse or --pg-database: run on a copy, removed afterwards, so that the grown database stays as it was and each run starts from the same state")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("orders: unexpected arguments %v", fs.Args())
	}
	for _, d := range strings.Split(*dbs, ",") {
		if d = strings.TrimSpace(d); d != "" {
			if d != "sqlite" && d != "postgres" {
				return fmt.Errorf("--db: unknown database %q (sqlite or postgres)", d)
			}
			o.dbs = append(o.dbs, d)
		}
	}
	var err error
	if o.apis, err = parseScenarios(*apis); err != nil {
		return err
	}
	if len(o.dbs) == 0 || o.concurrency < 1 || o.duration <= 0 || o.warmup < 0 || o.rounds < 1 {
		return errors.New("orders: --db, --concurrency, --duration and --rounds must be set")
	}
	if o.profileDir != "" {
		if err := os.MkdirAll(o.profileDir, 0o755); err != nil {
			return err
		}
	}
	if err := o.loadGrown(); err != nil {
		return err
	}
	if o.dataDir == "" {
		dir, err := os.MkdirTemp("", "rampway-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o.dataDir = dir
	} else if err := os.MkdirAll(o.dataDir, 0o755); err != nil {
		return err
	}

	var names []string
	for _, sc := range o.apis {
		names = append(names, sc.title+" against "+sc.baselineKind())
	}
	gcPercent := debug.SetGCPercent(-1)
	debug.SetGCPercent(gcPercent)
	fmt.Fprintf(stdout, "# rampway-bench orders: %s, GOMAXPROCS %d, GOGC %d, %d CPUs (%s); %s; concurrency %d, warm-up %s, %s measured per phase, %d round(s); Idempotency-Key: %v; what-ifs: %s\n",
		runtime.Version(), runtime.GOMAXPROCS(0), gcPercent, runtime.NumCPU(), cpuModel(), strings.Join(names, ", "), o.concurrency, o.warmup, o.duration, o.rounds, o.idempotencyKey, o.whatIfs())
	var phases []phase
	var details []string
	for _, db := range o.dbs {
		p, d, err := benchDatabase(ctx, o, db, stdout)
		phases = append(phases, p...)
		details = append(details, d...)
		if err != nil {
			return fmt.Errorf("%s: %w", db, err)
		}
	}

	fmt.Fprintln(stdout)
	fmt.Fprintln(stdout, "| Database | Handler | Round | Requests | Requests/s | p50 ms | p90 ms | p99 ms | Other status | CPU ms/req | rampway/baseline req/s | p99 vs baseline |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	bad := 0
	for _, p := range phases {
		r := p.res
		ratio, p99 := "", ""
		if p.handler == "rampway" {
			for _, b := range phases {
				if b.db == p.db && b.api.name == p.api.name && b.round == p.round && b.handler == "baseline" && b.res.rate() > 0 {
					ratio = fmt.Sprintf("**%.0f%%**", 100*r.rate()/b.res.rate())
					p99 = fmt.Sprintf("%.1f×", float64(r.percentile(0.99))/float64(max(b.res.percentile(0.99), 1)))
				}
			}
		}
		fmt.Fprintf(stdout, "| %s | %s | %d | %d | %.0f | %s | %s | %s | %s | %.3f | %s | %s |\n",
			p.db, p.label(), p.round, r.requests, r.rate(), ms(r.percentile(0.5)), ms(r.percentile(0.9)), ms(r.percentile(0.99)),
			errorSummary(r.errors), float64(r.cpu.Microseconds())/1000/float64(max(r.requests, 1)), ratio, p99)
		bad += r.errorCount()
		for _, n := range r.warmupErrors {
			bad += n
		}
	}
	fmt.Fprintln(stdout)
	for _, d := range details {
		fmt.Fprintln(stdout, d)
	}
	if bad > 0 {
		return fmt.Errorf("%d request(s) were not answered as expected (201 for an order, 200 for a quote; see above)", bad)
	}
	return nil
}

// benchDatabase starts a stack on db and runs each endpoint's rounds of phases.
func benchDatabase(ctx context.Context, o ordersOptions, db string, stdout io.Writer) (phases []phase, details []string, err error) {
	start := time.Now()
	st, err := startStack(ctx, stackOptions{db: db, dataDir: o.dataDir, pgDSN: o.pgDSN, rpcHTTP: o.rpcHTTP || o.rpcIdleConns > 0 || o.rpcGzip, rpcIdleConns: o.rpcIdleConns, rpcGzip: o.rpcGzip, noChain: o.noChain, stubNode: o.stubNode, baselineOneWriter: o.oneWriter,
		grown: o.grown[db]})
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if cerr := st.close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	fmt.Fprintf(stdout, "# %s: %s, chain RPC %s, started in %s\n", db, st.dbName, st.chain.RPCURL(), time.Since(start).Round(time.Millisecond))

	var run [4]byte
	_, _ = rand.Read(run[:])
	runID := hex.EncodeToString(run[:])
	for _, sc := range o.apis {
		p, d, err := benchScenario(ctx, o, st, sc, runID, stdout)
		phases, details = append(phases, p...), append(details, d...)
		if err != nil {
			return phases, details, fmt.Errorf("%s: %w", sc.title, err)
		}
	}
	return phases, details, nil
}

// benchScenario runs one endpoint's rounds of (baseline, rampway) phases on st.
func benchScenario(ctx context.Context, o ordersOptions, st *stack, sc scenario, runID string, stdout io.Writer) (phases []phase, details []string, err error) {
	raw, err := json.Marshal(sc.body(st, o))
	if err != nil {
		return nil, nil, err
	}
	prefix, suffix, marked := bytes.Cut(raw, []byte(txnMark))
	body := func(txn string) []byte {
		if !marked { // a quote: every request the same
			return raw
		}
		b := make([]byte, 0, len(prefix)+len(txn)+len(suffix))
		return append(append(append(b, prefix...), txn...), suffix...)
	}
	header := http.Header{"Content-Type": {"application/json"}, "X-Api-Key": {st.apiKey}}
	rampwayURL, baselineURL := st.rampwayURL+sc.route(st.basePaths), st.baselineURL+sc.baselinePath
	db := st.db

	// One request through each, to check they work (and to size an order's rows).
	if sc.order {
		d, err := probeOrders(ctx, st, sc, rampwayURL, baselineURL, header, body(runID+"-"+sc.name+"-probe"))
		if err != nil {
			return nil, nil, err
		}
		details = append(details, d)
	} else {
		ans, err := probe(ctx, rampwayURL, header, raw, sc.status())
		if err != nil {
			return nil, nil, fmt.Errorf("rampway probe: %w", err)
		}
		var q map[string]any
		if err := json.Unmarshal(ans, &q); err != nil || q["allowed"] != true {
			return nil, nil, fmt.Errorf("rampway probe: %s answered a quote not allowed: %s", rampwayURL, ans)
		}
		baseAns, err := probe(ctx, baselineURL, header, raw, sc.status())
		if err != nil {
			return nil, nil, fmt.Errorf("baseline probe: %w", err)
		}
		var parts []string
		for _, k := range []string{"crypto_amount", "payable_crypto_amount", "network_fee", "service_fee", "fiat_amount", "fiat_symbol"} {
			if v, ok := q[k]; ok {
				parts = append(parts, fmt.Sprintf("%s %v", k, v))
			}
		}
		details = append(details, fmt.Sprintf("- %s, %s: request body %d bytes; rampway's answer %d bytes (%s); the bare JSON handler's %d bytes, no database.",
			db, sc.title, len(raw), len(ans), strings.Join(parts, ", "), len(baseAns)))
	}

	for round := 1; round <= o.rounds; round++ {
		order := []string{"baseline", "rampway"}
		if round%2 == 0 {
			order = []string{"rampway", "baseline"}
		}
		for _, handler := range order {
			spec := loadSpec{url: baselineURL, header: header, status: sc.status(), concurrency: o.concurrency, warmup: o.warmup, duration: o.duration,
				tag: fmt.Sprintf("%s-%s-%s-%s-r%d", runID, db, sc.name, handler, round), body: body}
			if handler == "rampway" {
				spec.url, spec.idempotencyKey = rampwayURL, o.idempotencyKey && sc.order
			}
			p, err := runPhase(ctx, o, st, spec, sc, handler, round, stdout)
			if err != nil {
				return phases, details, err
			}
			phases = append(phases, p)
		}
	}
	for _, p := range phases {
		if p.rpc != "" {
			details = append(details, fmt.Sprintf("- %s, %s round %d: chain JSON-RPC calls per rampway request: %s.", db, sc.title, p.round, p.rpc))
		}
	}
	return phases, details, nil
}

// probeOrders sends one order through rampway and one through the baseline, sizes rampway's
// rows and sets the baseline's row size to the order row's; it returns the details line.
func probeOrders(ctx context.Context, st *stack, sc scenario, rampwayURL, baselineURL string, header http.Header, body []byte) (string, error) {
	ph := "?"
	if st.db == "postgres" {
		ph = "$1"
	}
	ans, err := probe(ctx, rampwayURL, header, body, sc.status())
	if err != nil {
		return "", fmt.Errorf("rampway probe: %w", err)
	}
	ramID, err := orderID(ans)
	if err != nil {
		return "", fmt.Errorf("rampway probe: %s: %w", rampwayURL, err)
	}
	orderRow, err := rowSize(ctx, st.store.DB(), "SELECT * FROM orders WHERE id = "+ph, ramID)
	if err != nil {
		return "", err
	}
	eventRow, err := rowSize(ctx, st.store.DB(), "SELECT * FROM order_events WHERE order_id = "+ph, ramID)
	if err != nil {
		return "", err
	}
	delivery := "no webhook_deliveries row (neither the order nor the merchant has a webhook URL)"
	if n, err := rowSize(ctx, st.store.DB(), "SELECT * FROM webhook_deliveries WHERE order_id = "+ph, ramID); err == nil {
		delivery = fmt.Sprintf("webhook_deliveries row %d bytes", n)
	}
	st.baseline.rowSize.Store(int64(orderRow))
	baseAns, err := probe(ctx, baselineURL, header, body, sc.status())
	if err != nil {
		return "", fmt.Errorf("baseline probe: %w", err)
	}
	baseID, err := orderID(baseAns)
	if err != nil {
		return "", fmt.Errorf("baseline probe: %s: %w", baselineURL, err)
	}
	baseRow, err := rowSize(ctx, st.store.DB(), "SELECT * FROM bench_baseline WHERE id = "+ph, baseID)
	if err != nil {
		return "", err
	}
	pools := fmt.Sprintf("Pool: %d max open connections (the store's, shared by both handlers).", st.store.DB().Stats().MaxOpenConnections)
	if st.baseDB != nil {
		pools = fmt.Sprintf("Pools: the store's, %d max open connections (WAL checkpoints in the background); the baseline's own, %d (SQLite's default checkpoints).",
			st.store.DB().Stats().MaxOpenConnections, st.baseDB.Stats().MaxOpenConnections)
	}
	what := fmt.Sprintf("a reservation of %d deposit indexes every %[1]d orders", checkout.DepositIndexBlock)
	if !strings.HasPrefix(sc.name, "a") {
		var a map[string]any
		_ = json.Unmarshal(ans, &a)
		what = fmt.Sprintf("no deposit address (paid in fiat: order_fiat_amount %v %v)", a["order_fiat_amount"], a["order_fiat_symbol"])
	}
	return fmt.Sprintf("- %s, %s: request body %d bytes; baseline row %d bytes; rampway order row %d bytes + order_events row %d bytes, %s; %s. %s",
		st.db, sc.title, len(body), baseRow, orderRow, eventRow, delivery, what, pools), nil
}

// runPhase runs one phase of load and reports it in a comment line, with what the process
// spent (CPU, pool waits, chain calls) in its measured window.
func runPhase(ctx context.Context, o ordersOptions, st *stack, spec loadSpec, sc scenario, handler string, round int, stdout io.Writer) (phase, error) {
	var (
		cpu0, cpu1   time.Duration
		rpc0, rpc1   rpcCounts
		pool0, pool1 sql.DBStats
		bat0, bat1   [2]int64 // the store's batches and the writes they held
		mach0, mach1 machineCPU
		prof         *os.File
		waits        *waitSampler
		name         = filepath.Join(o.profileDir, fmt.Sprintf("%s-%s-%s-r%d", st.db, sc.name, handler, round))
	)
	spec.onMeasure = func() {
		mach0 = readMachineCPU()
		cpu0, rpc0, pool0 = cpuTime(), st.rpc.snapshot(), st.store.DB().Stats()
		bat0[0], bat0[1] = st.store.BatchStats()
		if o.profileDir != "" {
			if f, err := os.Create(name + ".pprof"); err == nil && pprof.StartCPUProfile(f) == nil {
				prof = f
			}
			waits = startWaitSampler(20 * time.Millisecond)
			writeProfile("allocs", name+"-allocs-start.pprof")
		}
	}
	spec.onDone = func() {
		cpu1, rpc1, pool1 = cpuTime(), st.rpc.snapshot(), st.store.DB().Stats()
		mach1 = readMachineCPU()
		bat1[0], bat1[1] = st.store.BatchStats()
		if prof != nil {
			pprof.StopCPUProfile()
			prof.Close()
		}
		if waits != nil {
			waits.Stop()
			writeProfile("allocs", name+"-allocs-end.pprof")
		}
	}
	r, err := runLoad(ctx, spec)
	if err != nil {
		return phase{}, err
	}
	r.cpu, r.poolWaits, r.poolWaitTotal = cpu1-cpu0, pool1.WaitCount-pool0.WaitCount, pool1.WaitDuration-pool0.WaitDuration
	p := phase{db: st.db, handler: handler, api: sc, round: round, res: r}
	if handler == "rampway" {
		p.rpc = rpc1.perRequest(rpc0, r.requests)
	}
	per := func(v float64) float64 { return v / float64(max(r.requests, 1)) }
	fmt.Fprintf(stdout, "# %s %s round %d: %d requests, %.0f/s, p50 %s ms, p99 %s ms, non-%d: %s (warm-up: %d requests, non-%d: %s), %d connections, pool waits %.2f/req (%.2f ms/req)",
		st.db, p.label(), round, r.requests, r.rate(), ms(r.percentile(0.5)), ms(r.percentile(0.99)), spec.status, errorSummary(r.errors),
		r.warmup, spec.status, errorSummary(r.warmupErrors), r.connections, per(float64(r.poolWaits)), per(float64(r.poolWaitTotal.Microseconds())/1000))
	if p.rpc != "" {
		fmt.Fprintf(stdout, ", chain RPC calls/request %s", p.rpc)
	}
	if batches := bat1[0] - bat0[0]; handler == "rampway" && batches > 0 {
		fmt.Fprintf(stdout, ", store writes per batch %.1f (%d batches)", float64(bat1[1]-bat0[1])/float64(batches), batches)
	}
	fmt.Fprintf(stdout, ", %s\n", machineShare(mach0, mach1))
	for _, s := range r.samples {
		fmt.Fprintf(stdout, "#   answer: %s\n", s)
	}
	if waits != nil {
		if f, err := os.Create(name + "-waits.txt"); err == nil {
			waits.write(f)
			f.Close()
		}
		fmt.Fprintf(stdout, "#   where the handlers' time goes (wall clock; %s.pprof has the CPU profile):\n", name)
		for _, l := range waits.top(8) {
			fmt.Fprintf(stdout, "#     %s\n", l)
		}
	}
	return p, nil
}

// writeProfile writes the named runtime profile into file; the bench goes on without it when
// it cannot.
func writeProfile(profile, file string) {
	if f, err := os.Create(file); err == nil {
		_ = pprof.Lookup(profile).WriteTo(f, 0)
		f.Close()
	}
}

// probe sends one request and returns the answer, which must have status want.
func probe(ctx context.Context, url string, header http.Header, body []byte, want int) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s answered %d (want %d): %s", url, resp.StatusCode, want, b)
	}
	return b, nil
}

// orderID is the order_id of an order's answer.
func orderID(answer []byte) (string, error) {
	var out struct {
		OrderID string `json:"order_id"`
	}
	if err := json.Unmarshal(answer, &out); err != nil || out.OrderID == "" {
		return "", fmt.Errorf("answered without an order_id: %s", answer)
	}
	return out.OrderID, nil
}

// label names the phase's handler in the report: "B1 rampway", "B1 baseline (one insert)".
func (p phase) label() string {
	if p.handler == "baseline" {
		return p.api.title + " baseline (" + p.api.baselineKind() + ")"
	}
	return p.api.title + " " + p.handler
}

// cpuTime is the CPU time this process has used (user + system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuModel is the CPU's model name from /proc/cpuinfo, or "unknown CPU".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// ms formats a duration in milliseconds.
func ms(d time.Duration) string {
	v := float64(d.Microseconds()) / 1000
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// loadGrown reads, for --reuse and --pg-database, the dev directory a grown database was
// filled with: its keys and secrets, and its demo merchant's credentials (the fill's report).
func (o *ordersOptions) loadGrown() error {
	if !o.reuse && o.pgDatabase == "" {
		if o.snapshot {
			return errors.New("--snapshot goes with --reuse or --pg-database")
		}
		return nil
	}
	if o.dataDir == "" {
		return errors.New("--reuse and --pg-database need --data-dir: the `rampway dev` directory the database was filled with")
	}
	world, err := readDevState(o.dataDir)
	if err != nil {
		return err
	}
	o.grown = map[string]*grownDB{}
	for _, db := range o.dbs {
		g := &grownDB{world: world, snapshot: o.snapshot, demo: devworld.Merchant{ID: world.MerchantID, APIKey: world.APIKey, WebhookSecret: world.WebhookSecret}}
		report := filepath.Join(o.dataDir, "fill.json")
		switch db {
		case "sqlite":
			if !o.reuse {
				continue // a fresh SQLite database beside the grown PostgreSQL one
			}
			g.sqlitePath = filepath.Join(o.dataDir, devDBFile)
			if _, err := os.Stat(g.sqlitePath); err != nil {
				return fmt.Errorf("--reuse: %w", err)
			}
		case "postgres":
			if o.pgDatabase == "" {
				return errors.New("--reuse on PostgreSQL: name the grown database with --pg-database")
			}
			g.pgDatabase = o.pgDatabase
			report = filepath.Join(o.dataDir, "fill-"+o.pgDatabase+".json")
			g.demo = devworld.Merchant{}
		}
		// The fill's report names the demo merchant with a key and secret that work there.
		if data, err := os.ReadFile(report); err == nil {
			var rep fillReport
			if err := json.Unmarshal(data, &rep); err != nil {
				return fmt.Errorf("%s: %w", report, err)
			}
			if len(rep.Merchants) > 0 {
				m := rep.Merchants[0]
				g.demo = devworld.Merchant{ID: m.ID, APIKey: m.APIKey, WebhookSecret: m.WebhookSecret}
			}
		}
		o.grown[db] = g
	}
	return nil
}

// whatIfs describes the what-ifs in force, or "none".
func (o ordersOptions) whatIfs() string {
	var w []string
	if o.rpcHTTP || o.rpcIdleConns > 0 || o.rpcGzip {
		w = append(w, "the order path calls the chain over HTTP on loopback")
	}
	if o.rpcIdleConns > 0 {
		w = append(w, fmt.Sprintf("%d idle connections", o.rpcIdleConns))
	}
	if o.rpcGzip {
		w = append(w, "gzip from the node on loopback")
	}
	if o.noChain {
		w = append(w, "no chain calls (head and tip cached, simulations not sent)")
	}
	if o.stubNode {
		w = append(w, "simulations answered by a stub node over HTTP (no EVM)")
	}
	if o.oneWriter {
		w = append(w, "baseline inserts one at a time (Go mutex)")
	}
	if len(w) == 0 {
		return "none"
	}
	return "WHAT-IF " + strings.Join(w, ", ")
}
