#!/usr/bin/env bash
# Two builds of trustlist on the same database, alternated: each serves in turn (access log off,
# --trust-proxy), warms up, and takes wrk rounds of the routes named; pairs repeat. Prints one line
# per route and round with requests a second, p99 and the server's CPU per request, then each
# server's memory at its end (VmHWM, RssAnon, RssFile). For a change whose effect is smaller than
# the difference between two sittings (docs/performance.md, "Tenth and eleventh sittings").
#
# Usage: bash bench/builds.sh BIN_A BIN_B [routes (check search directory)]
#   BENCH_DB (bench/data/bench.db), BENCH_KEY_FILE (the key make bench left in bench/results),
#   BENCH_PAIRS (3), BENCH_SECONDS (8), BENCH_PORT (18190)
# Build the other binary from a worktree: git worktree add /tmp/before HEAD~1 && (cd /tmp/before &&
# ln -s "$PWD/node_modules" node_modules && make dist/trustlist).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bash bench/builds.sh BIN_A BIN_B [routes]" >&2; exit 2; }
A=$1 B=$2
shift 2
ROUTES=${*:-check search directory}
DB=${BENCH_DB:-bench/data/bench.db}
PAIRS=${BENCH_PAIRS:-3}
SECONDS_EACH=${BENCH_SECONDS:-8}
PORT=${BENCH_PORT:-18190}
export BENCH_KEY_FILE=${BENCH_KEY_FILE:-$(ls -d bench/results/run-* 2>/dev/null | tail -1)/bench.key}
[ -f "$BENCH_KEY_FILE" ] || { echo "no key file: run make bench first or set BENCH_KEY_FILE" >&2; exit 1; }
HZ=$(getconf CLK_TCK)

round() { # label pid route seconds
  local s0 s1 result
  s0=$(awk '{ print $14 + $15 }' "/proc/$2/stat")
  result=$(wrk -t2 -c16 -d"$4"s --timeout 2s --latency -s "bench/$3.lua" "http://127.0.0.1:$PORT" -- 2 2>&1 | grep '^RESULT' || true)
  s1=$(awk '{ print $14 + $15 }' "/proc/$2/stat")
  echo "$result" | awk -v label="$1" -v ticks=$((s1 - s0)) -v hz="$HZ" '{
      for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      printf "%-28s rps=%8.0f p99=%7.2f ms cpu_us=%7.1f\n", label, v["rps"], v["p99_ms"], v["requests"] ? ticks / hz * 1e6 / v["requests"] : 0
    }'
}

for pair in $(seq 1 "$PAIRS"); do
  # A first in odd pairs, B first in even ones.
  order="A B"; [ $((pair % 2)) -eq 0 ] && order="B A"
  for which in $order; do
    bin=$A; [ "$which" = B ] && bin=$B
    "$bin" serve --db "$DB" --port "$PORT" --host 127.0.0.1 --access-log off --trust-proxy >/dev/null 2>>"/tmp/trustlist-builds-$which.err" &
    pid=$!
    for _ in $(seq 1 200); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.05; done
    sleep 3 # the warm-up's indexes
    for route in $ROUTES; do round "warm-up" "$pid" "$route" 3 >/dev/null; done
    for route in $ROUTES; do round "$pair $which $route" "$pid" "$route" "$SECONDS_EACH"; done
    echo "$pair $which memory: $(grep -E '^(VmHWM|RssAnon|RssFile)' "/proc/$pid/status" | tr -s ' \t' ' ' | tr '\n' ' ')"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
  done
done
