# rampway: `make help` lists the targets.
GO ?= go
PKGS := ./...

.PHONY: help test lint unit fuzz run build e2e

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-8s %s\n", $$1, $$2}'

test: lint unit fuzz ## everything CI runs: gofmt, vet, all tests with -race, a short fuzz run

lint: ## gofmt and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "not gofmt-formatted:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) vet -tags e2e ./e2e

# go test's JSON through internal/testsummary: the usual package lines, the output of what
# failed, then the counts of tests passed, failed and skipped, the skips by reason and the
# slowest packages. It fails when go test does or any test fails. NORACE are the tests built
# without the race detector (//go:build !race): one goroutine of domain code each, which the
# detector would only make twenty times slower; a second go test runs them. -parallel 4: most
# parallel tests wait on blocks (one a second) and browsers, not on the two cores. -timeout
# is a hang guard per package: cmd/rampway takes 5-10 minutes here, and went past 25 on a
# machine loaded 8 times over (load 16 on 2 cores) without hanging.
NORACE := -run '^TestExploreOrderMachine$$' .
unit: ## all tests with the race detector, then how many passed, failed and skipped (and why)
	$(GO) run ./internal/testsummary $(GO) test -race -count=1 -parallel 4 -timeout 45m -json $(PKGS) \; \
	  $(GO) test -count=1 -timeout 10m -json $(NORACE)

# A count, not a duration: when a -fuzztime duration runs out while a worker is minimizing, Go's
# fuzzer can fail the run with "context deadline exceeded" (seen here); a count has no deadline.
fuzz: ## a short run of each fuzz test
	$(GO) test -run='^$$' -fuzz='^FuzzEncode$$' -fuzztime=100000x -fuzzminimizetime=2s ./contract
	$(GO) test -run='^$$' -fuzz='^FuzzParseFunction$$' -fuzztime=100000x -fuzzminimizetime=2s ./contract

# The binary, not `go run`: go run does not pass SIGTERM on to its child. exec leaves the
# binary as make's own child, so a signal sent to the rampway process stops it cleanly.
run: ## the dev environment (API, embedded chain, demo merchant), as bin/rampway dev
	$(GO) build -o bin/rampway ./cmd/rampway
	exec ./bin/rampway dev

# The seeded simulation of the whole pipeline (package sim, docs/RELIABILITY.md): SEEDS seeds
# from SEED_FIRST, split over SIM_PROCS processes (without -race: the CI seeds of go test run
# with it). Each process prints its seeds run and failed; the target prints the totals and the
# failing seeds, and fails when any seed did. Replay one with go test ./sim -seed N.
SEEDS ?= 1000
SEED_FIRST ?= 1
SIM_PROCS ?= 2
SIM_LOGS ?= $(or $(TMPDIR),/tmp)/rampway-sim
.PHONY: sim
sim: ## many seeds of the simulation (make sim SEEDS=10000), their failures and the failing seeds
	@mkdir -p $(SIM_LOGS) && rm -f $(SIM_LOGS)/run.*.log
	$(GO) test -c -o $(SIM_LOGS)/sim.test ./sim
	@per=$$(( ($(SEEDS) + $(SIM_PROCS) - 1) / $(SIM_PROCS) )); start=$$(date +%s); \
	for i in $$(seq 0 $$(( $(SIM_PROCS) - 1 ))); do \
	  first=$$(( $(SEED_FIRST) + i * per )); n=$$(( $(SEEDS) - i * per )); [ $$n -gt $$per ] && n=$$per; \
	  [ $$n -gt 0 ] || continue; \
	  (cd sim && $(SIM_LOGS)/sim.test -test.run '^TestSeeds$$' -test.v -test.timeout 0 -first $$first -seeds $$n > $(SIM_LOGS)/run.$$i.log 2>&1) & \
	done; wait; \
	grep -h '^sim: seeds' $(SIM_LOGS)/run.*.log; \
	awk '/^sim: seeds/ { run += $$4; failed += $$6 } /replay with/ { n = split($$0, f, " "); seeds = seeds " " f[n] } \
	  END { printf "sim: %d seeds run, %d failed, in %d s; failing seeds:%s\n", run, failed, '"$$(( $$(date +%s) - start ))"', (seeds == "" ? " none" : seeds); \
	        if (failed > 0 || run != $(SEEDS)) exit 1 }' $(SIM_LOGS)/run.*.log

# The release's version, as `rampway version` prints it: the tag (v1.2.3), else dev- and the
# commit, with -dirty for uncommitted changes.
VERSION ?= $(shell git describe --tags --match 'v*' --dirty 2>/dev/null || echo "dev-$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$$(git diff --quiet HEAD 2>/dev/null || echo -dirty)")

build: ## the binary, in ./bin, reporting its version (VERSION=v1.2.3 make build for a release)
	$(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o bin/rampway ./cmd/rampway

# The production path end to end: geth --dev in its own process, PostgreSQL, 2-3
# `rampway serve` processes SIGKILLed and restarted in a loop, the fault proxy between them and
# the node, the first RPC URL killed half-way. One "E2E" summary line per scenario. .ci/run runs
# it with E2E_ORDERS=200. Process logs stay in E2E_LOGS.
E2E_ORDERS ?= 500
E2E_RATE ?= 10
E2E_LOGS ?= $(or $(TMPDIR),/tmp)/rampway-e2e
e2e: ## end to end: geth, PostgreSQL, 2-3 instances with kills and RPC faults (E2E_ORDERS per scenario)
	RAMPWAY_TEST_POSTGRES_DSN="$${RAMPWAY_TEST_POSTGRES_DSN:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}" \
	  $(GO) test -tags e2e -count=1 -timeout 45m -v -run '^TestEndToEnd$$' ./e2e \
	  -args -orders=$(E2E_ORDERS) -rate=$(E2E_RATE) -logs=$(E2E_LOGS)

# The TypeScript SDK (sdk/js): a clean install of its one pinned devDependency
# (typescript), then its tests: unit tests, the cross-check with the Go client (go run) and the
# journeys against a rampway dev built from this checkout (or $RAMPWAY_BIN).
.PHONY: sdk-js
sdk-js: ## the TypeScript SDK: npm ci and npm test in sdk/js
	cd sdk/js && npm ci --no-audit --no-fund && npm test

# The screenshots of docs/dashboard.md and README.md: the dashboard's Chromium tests take them
# (the shared test world of dashboard/site_test.go), and these are copied to docs/images.
DASHBOARD_SHOTS := TestOverviewInChromium/dashboard-overview TestOrdersInChromium/orders-list \
	TestOrdersInChromium/order-page TestDevelopersCatalogueBrowser/developers-new-key \
	TestDevelopersCatalogueBrowser/catalogue-pick-a-function TestRefundsQueueInChromium/dashboard-refunds \
	TestUsersPagesInChromium/users
.PHONY: dashboard-screenshots
dashboard-screenshots: ## the dashboard's screenshots in docs/images (needs Chromium)
	rm -rf .screenshots
	RAMPWAY_SCREENSHOTS=$(CURDIR)/.screenshots $(GO) test -count=1 -run 'InChromium|Browser' ./dashboard/
	mkdir -p docs/images
	for s in $(DASHBOARD_SHOTS); do cp .screenshots/$$s.png docs/images/$$(basename $$s | sed 's/^dashboard-//; s/^/dashboard-/').png; done
	rm -rf .screenshots
