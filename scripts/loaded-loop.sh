#!/bin/bash
# The test suite on a loaded machine: a clean clone of this repository's HEAD in DIR, then
# `CI=true make test` N times in a row while a CPU burner runs beside it: the seeded
# simulation's seeds in one process (a core busy the whole time, and its seeds count too).
# Each run's result goes to LOG, its output to LOG.runI; the burner's chunks to SIM_DIR.
#
#   bash scripts/loaded-loop.sh [N=5] [DIR=/tmp/rampway-loop] [LOG=/tmp/rampway-loop.log]
#   SIM_FIRST=70001 bash scripts/loaded-loop.sh 5     # the burner's first seed
#
# docs/testing.md ("Time in tests") says why: no test may depend on how fast the machine is.
set -u
N=${1:-5}; DIR=${2:-/tmp/rampway-loop}; LOG=${3:-/tmp/rampway-loop.log}
SIM_DIR=${SIM_DIR:-/tmp/rampway-loop-sim}
export RAMPWAY_TEST_POSTGRES_DSN=${RAMPWAY_TEST_POSTGRES_DSN:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
repo=$(git rev-parse --show-toplevel) || exit 1
rm -rf "$DIR"; git clone -q "$repo" "$DIR" && cd "$DIR" || exit 1
echo "loop on $(git rev-parse --short HEAD), $N runs, started $(date -u +%T)" > "$LOG"
mkdir -p "$SIM_DIR"
( f=${SIM_FIRST:-60001}; while true; do
    make sim SEEDS=200 SEED_FIRST=$f SIM_PROCS=1 SIM_LOGS="$SIM_DIR/$f" > "$SIM_DIR/make.$f.log" 2>&1; f=$((f+200))
  done ) &
burner=$!
trap 'kill $burner 2>/dev/null; pkill -f "$SIM_DIR/.*/sim.test"' EXIT
sleep 60 # the burner's test binary built, its seeds running
failed=0
for i in $(seq 1 "$N"); do
  s=$(date +%s)
  CI=true make test > "$LOG.run$i" 2>&1
  rc=$?
  echo "run $i: exit $rc in $(( $(date +%s) - s )) s, load $(cut -d' ' -f1-3 /proc/loadavg); $(grep '^== tests' "$LOG.run$i")" >> "$LOG"
  if [ $rc -ne 0 ]; then failed=$((failed+1)); grep -E -- '--- FAIL' "$LOG.run$i" | head >> "$LOG"; fi
done
echo "done $(date -u +%T): $((N-failed)) of $N passed; the burner's seeds: $(grep -h '^sim: [0-9]' "$SIM_DIR"/make.*.log 2>/dev/null | tr '\n' ';')" >> "$LOG"
exit $((failed > 0))
