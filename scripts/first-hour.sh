#!/usr/bin/env bash
# The first hour, timed as a newcomer meets it: a fresh clone with empty Go module and build
# caches, the README's `go run ./cmd/rampway dev` (first build and start), then
# docs/quickstart.md's Go server run to a paid order (area A, paid with `rampway dev pay`),
# then the warm start and `make run` after it. Prints one line per step and a summary.
#
#   bash scripts/first-hour.sh [REPO]     (REPO: what to clone; default: this checkout)
#
# It downloads every module (GOPROXY must be reachable) and leaves nothing behind but its
# work directory, whose path it prints. Ports 8080 and 8545 (rampway dev's defaults) and 3000
# (the quickstart server's) must be free.
set -euo pipefail
repo="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
work="$(mktemp -d "${TMPDIR:-/tmp}/rampway-first-hour.XXXXXX")"
export GOCACHE="$work/gocache" GOMODCACHE="$work/gomodcache" GOFLAGS="${GOFLAGS:-}"
echo "work directory: $work (empty GOCACHE and GOMODCACHE in it)"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version)"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.1f s", b - a}'; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

# wait_for FILE REGEX SECONDS: until a line of FILE matches (or fail, showing FILE).
wait_for() {
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    if grep -Eq "$2" "$1" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "no line matching /$2/ in $1 within $3 s:" >&2
  tail -n 30 "$1" >&2
  return 1
}

t0=$(now)
git clone -q "$repo" "$work/rampway"
echo "clone: $(since "$t0")"

# 1. The README's first command, cold.
cd "$work/rampway"
t=$(now)
go run ./cmd/rampway dev >"$work/dev.log" 2>&1 &
pids+=($!)
wait_for "$work/dev.log" '^rampway dev is running at' 1800
echo "go run ./cmd/rampway dev, first time (download, build, start): $(since "$t")"
grep -E '^  started:' "$work/dev.log" | sed 's/^ */  rampway dev says: /'

# 2. The quickstart's Go server, as docs/quickstart.md writes it.
t=$(now)
mkdir "$work/shop" && cd "$work/shop"
# Every module the shop needs is in the cache since step 1. Where the module proxy answers 403
# rather than proxy.golang.org's 404 for a module that does not exist (as this workplace's
# does for github.com/rampway/rampway/client), go get takes the answer for an error: set
# FIRST_HOUR_OFFLINE=1 to build the shop from the cache alone, with rampway's go.sum, as
# internal/quickstart's test does.
if [ -n "${FIRST_HOUR_OFFLINE:-}" ]; then
  export GOPROXY=off GOFLAGS=-mod=mod
  cp "$work/rampway/go.sum" .
fi
go mod init shop >/dev/null 2>&1
go mod edit -replace github.com/rampway/rampway=../rampway
go get github.com/rampway/rampway/client
for f in main.go hooks.go; do
  awk -v f="$f" '
    /^```go$/ { inblock = 1; n = 0; buf = ""; next }
    /^```$/   { if (keep) { printf "%s", buf; exit } inblock = 0; keep = 0; next }
    inblock   { n++; if (n == 1 && $0 == "// quickstart: " f) { keep = 1; next } buf = buf $0 "\n" }
  ' "$work/rampway/docs/quickstart.md" >"$f"
  [ -s "$f" ] || { echo "no $f block in docs/quickstart.md" >&2; exit 1; }
done
go run . >"$work/shop.log" 2>&1 &
pids+=($!)
wait_for "$work/shop.log" '^order ord_\S+ created' 900
echo "quickstart server, go get + go run . to its order: $(since "$t")"
order=$(grep -Eo '^order ord_[0-9a-z]+' "$work/shop.log" | head -1 | cut -d' ' -f2)

# 3. Pay it, as the server says.
t=$(now)
(cd "$work/rampway" && go run ./cmd/rampway dev pay "$order" >"$work/pay.log" 2>&1)
wait_for "$work/shop.log" "^order $order is SUCCESS" 300
echo "go run ./cmd/rampway dev pay to SUCCESS at the server: $(since "$t")"
curl -fsS "http://127.0.0.1:3000/thanks?order_id=$order&status=SUCCESS" >/dev/null
wait_for "$work/shop.log" '^done$' 60
echo "first paid order, from git clone: $(since "$t0")"

# 4. The next starts: go run warm, then make run (the same build cache, and a link).
kill "${pids[0]}"
wait "${pids[0]}" 2>/dev/null || true
cd "$work/rampway"
# Killing go run stops rampway too (it asks the kernel for a SIGTERM when go run ends); its
# clean shutdown removes dev.json and frees the directory for the next start.
for ((i = 0; i < 300; i++)); do [ -e .rampway-dev/dev.json ] || break; sleep 0.1; done
t=$(now)
go run ./cmd/rampway dev >"$work/dev2.log" 2>&1 &
pid=$!
wait_for "$work/dev2.log" '^rampway dev is running at' 600
echo "go run ./cmd/rampway dev, warm: $(since "$t")"
grep -E '^  started:' "$work/dev2.log" | sed 's/^ */  rampway dev says: /'
kill "$pid"
wait "$pid" 2>/dev/null || true
t=$(now)
make run >"$work/run.log" 2>&1 &
pid=$!
wait_for "$work/run.log" '^rampway dev is running at' 600
echo "make run after go run (go build, then start): $(since "$t")"
grep -E '^  started:' "$work/run.log" | sed 's/^ */  rampway dev says: /'
pkill -TERM -P "$pid" || true # make's recipe exec'd bin/rampway: make's child
wait "$pid" 2>/dev/null || true
