#!/usr/bin/env bash
# Load benchmark of trustlist against a raw Bun.serve + bun:sqlite ceiling (`make bench`).
#
#  1. build dist/trustlist if needed; generate bench/data (1M entries + query list) unless present
#  2. time `trustlist import` of the entries into a fresh database
#  3. cold start to the first 200 on /healthz (empty database, then the 1M database)
#  4. serve trustlist (access log on, stdout to /dev/null) and the ceiling on loopback ports
#  5. wrk rounds alternating ceiling, trustlist, ... on GET /v1/blacklist/check
#  6. walk the whole list with limit=100; read the server's peak RSS
#  7. a few pairs of rounds (ceiling, trustlist with --access-log off), for comparison
#  8. write bench/results/latest.md (and the raw files in bench/results/run-*/) and print it
#
# Knobs (environment): BENCH_ENTRIES (1000000), BENCH_QUERY_COUNT (200000), BENCH_ROUNDS (5),
# BENCH_DURATION seconds per round (10), BENCH_WARMUP seconds (3), BENCH_CONNECTIONS (32),
# BENCH_THREADS (2), BENCH_NOLOG_ROUNDS (2), BENCH_PORT (18080), BENCH_CEILING_PORT (18081),
# BENCH_NOISE_MAX_S (1.5: other processes' CPU seconds that make a round "noisy"),
# BENCH_EXTRA_ROUNDS (3: pairs run at most beyond BENCH_ROUNDS to replace noisy ones).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$ROOT/.tools/node_modules/.bin:$PATH"

ENTRIES=${BENCH_ENTRIES:-1000000}
QUERY_COUNT=${BENCH_QUERY_COUNT:-200000}
ROUNDS=${BENCH_ROUNDS:-5}
DURATION=${BENCH_DURATION:-10}
WARMUP=${BENCH_WARMUP:-3}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
THREADS=${BENCH_THREADS:-2}
NOLOG_ROUNDS=${BENCH_NOLOG_ROUNDS:-2}
NOISE_MAX=${BENCH_NOISE_MAX_S:-1.5}
EXTRA_ROUNDS=${BENCH_EXTRA_ROUNDS:-3}
TL_PORT=${BENCH_PORT:-18080}
CE_PORT=${BENCH_CEILING_PORT:-18081}
COLD_PORT=$((TL_PORT + 10))
HOST=127.0.0.1

DATA=bench/data
DB=$DATA/bench.db
RUN=bench/results/run-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$DATA" "$RUN"
FACTS=$RUN/facts.txt
: >"$FACTS"
fact() { echo "$1=$2" >>"$FACTS"; }
say() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
T_START=$(now)
fact started_at "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
fact loadavg_before "$(cut -d' ' -f1-3 /proc/loadavg)"

command -v wrk >/dev/null || { say "wrk is not installed (apt-get install -y wrk)"; exit 1; }

# Every server this script starts is listed here and stopped on exit, whatever happens.
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]:-}"; do
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]:-}"; do
    [ -n "$pid" ] && wait "$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

stop_pid() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

port_free() { ! curl -s -o /dev/null --max-time 0.5 "http://$HOST:$1/" 2>/dev/null; }
wait_healthy() { # url pid
  local i
  for i in $(seq 1 400); do
    curl -sf -o /dev/null --max-time 1 "$1/healthz" && return 0
    kill -0 "$2" 2>/dev/null || { say "server $2 exited before answering $1/healthz"; return 1; }
    sleep 0.025
  done
  say "no answer from $1/healthz in 10 s"; return 1
}
vm() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

for p in "$TL_PORT" "$CE_PORT" "$COLD_PORT"; do
  port_free "$p" || { say "port $p on $HOST is in use; set BENCH_PORT / BENCH_CEILING_PORT"; exit 1; }
done

# ---- 1. build and data --------------------------------------------------------------------
say "build (make build)"
make -s build >&2
BIN=$ROOT/dist/trustlist
fact bun "$(bun --version)"
fact wrk "$(wrk -v 2>&1 | head -1 | awk '{print $1, $2}')"
fact cpu "$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
fact cores "$(nproc)"
fact git "$(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git status --porcelain -- src 2>/dev/null | grep -q . && echo " + uncommitted changes in $(git status --porcelain -- src | awk '{print $2}' | paste -sd, -)" || true)"
fact noise_max_s "$NOISE_MAX"; fact threads "$THREADS"; fact connections "$CONNECTIONS"; fact duration "$DURATION"; fact rounds "$ROUNDS"; fact warmup "$WARMUP"

if [ -s "$DATA/entries.jsonl" ] && [ -s "$DATA/queries.txt" ] && [ -s "$DATA/meta.json" ] &&
  [ "$(jq -r '.entries' "$DATA/meta.json")" = "$ENTRIES" ] && [ "$(jq -r '.queries' "$DATA/meta.json")" = "$QUERY_COUNT" ]; then
  say "data: reusing $DATA ($(jq -r .entries "$DATA/meta.json") entries)"
  fact generated reused
else
  say "data: generating $ENTRIES entries and $QUERY_COUNT queries into $DATA"
  bun bench/generate.ts --entries "$ENTRIES" --queries "$QUERY_COUNT" --out "$DATA"
  fact generated fresh
fi
cp "$DATA/meta.json" "$RUN/meta.json"

# ---- 2. import into a fresh database ------------------------------------------------------
rm -f "$DB" "$DB-wal" "$DB-shm"
say "import: $DATA/entries.jsonl -> $DB"
T0=$(now)
"$BIN" import "$DATA/entries.jsonl" --db "$DB" --json >"$RUN/import.json" 2>"$RUN/import.err"
T1=$(now)
fact import_wall_s "$(elapsed "$T0" "$T1")"
fact db_bytes "$(stat -c %s "$DB")"
say "import: $(elapsed "$T0" "$T1") s wall; $(cat "$RUN/import.json")"

"$BIN" accounts create --name bench --tier enterprise --daily-quota 1000000000 --json --db "$DB" >"$RUN/account.json"
"$BIN" keys create --account bench --burst 1000000 --rate-tier partner --json --db "$DB" >"$RUN/key.json"
KEY_FILE=$RUN/bench.key
(umask 077 && jq -r .key "$RUN/key.json" >"$KEY_FILE")
jq 'del(.key)' "$RUN/key.json" >"$RUN/key.public.json" && rm -f "$RUN/key.json"
export BENCH_KEY_FILE=$ROOT/$KEY_FILE BENCH_QUERIES=$ROOT/$DATA/queries.txt WRK_THREADS=$THREADS

# ---- 3. cold start ------------------------------------------------------------------------
say "cold start: empty database, then the 1M database"
bun bench/coldstart.ts --bin "$BIN" --db "$RUN/cold-empty" --fresh --runs 3 --port "$COLD_PORT" >"$RUN/coldstart-empty.json"
bun bench/coldstart.ts --bin "$BIN" --db "$DB" --runs 3 --port "$COLD_PORT" >"$RUN/coldstart-1m.json"
say "cold start: empty $(jq -r .median_ms "$RUN/coldstart-empty.json") ms, 1M $(jq -r .median_ms "$RUN/coldstart-1m.json") ms"

# ---- 4. servers ---------------------------------------------------------------------------
start_trustlist() { # access-log on|off
  "$BIN" serve --db "$DB" --port "$TL_PORT" --host "$HOST" --access-log "$1" >/dev/null 2>>"$RUN/trustlist.err" &
  TL_PID=$!
  PIDS+=("$TL_PID")
  wait_healthy "http://$HOST:$TL_PORT" "$TL_PID"
}
say "serve: trustlist on $HOST:$TL_PORT (access log on, stdout to /dev/null), ceiling on $HOST:$CE_PORT"
start_trustlist on
bun bench/ceiling.ts --db "$DB" --port "$CE_PORT" --host "$HOST" --key-file "$KEY_FILE" >/dev/null 2>"$RUN/ceiling.err" &
CE_PID=$!
PIDS+=("$CE_PID")
wait_healthy "http://$HOST:$CE_PORT" "$CE_PID"

# CPU accounting per round, in clock ticks: the whole machine (/proc/stat), the server process
# (/proc/PID/stat utime+stime, all threads) and wrk (via /usr/bin/time). What is left is other work
# on the machine, which makes a round less trustworthy.
TICKS=$(getconf CLK_TCK)
machine_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
proc_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
load() { # name url seconds outfile server-pid
  local m0 s0 m1 s1 line
  m0=$(machine_ticks); s0=$(proc_ticks "$5")
  /usr/bin/time -f "WRKCPU %U %S" -o "$4.time" \
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$3"s --timeout 2s -s bench/check.lua "$2" -- "$THREADS" >"$4" 2>&1 || true
  m1=$(machine_ticks); s1=$(proc_ticks "$5")
  awk -v m="$((m1 - m0))" -v s="$((s1 - s0))" -v hz="$TICKS" '/^WRKCPU/ {
      w = ($2 + $3) * hz
      printf "CPU server_s=%.2f wrk_s=%.2f machine_s=%.2f other_s=%.2f\n", s / hz, w / hz, m / hz, (m - s - w) / hz
    }' "$4.time" >>"$4"
  rm -f "$4.time"
  line=$(grep '^RESULT' "$4" || echo "RESULT (none: wrk failed)")
  say "  $1: $(echo "${line#RESULT }" | awk '{print $3, $4, $6, $8}') $(grep '^CPU' "$4" | cut -d' ' -f2-)"
}
TL_URL=http://$HOST:$TL_PORT
CE_URL=http://$HOST:$CE_PORT

# ---- 5. alternating rounds ----------------------------------------------------------------
say "warm-up: ${WARMUP}s each"
load warmup-ceiling "$CE_URL" "$WARMUP" "$RUN/warmup-ceiling.txt" "$CE_PID"
load warmup-trustlist "$TL_URL" "$WARMUP" "$RUN/warmup-trustlist.txt" "$TL_PID"
# A round is "noisy" when other processes used more than NOISE_MAX CPU seconds during it (other
# sessions' test runs, builds): such pairs are kept and reported but do not count towards ROUNDS,
# and another pair is run, up to EXTRA_ROUNDS more.
other_s() { sed -n 's/^CPU .*other_s=\([-0-9.]*\).*/\1/p' "$1" | head -1; }
quiet() { awk -v o="$(other_s "$1")" -v m="$NOISE_MAX" 'BEGIN { exit !(o != "" && o + 0 <= m + 0) }'; }
clean=0
n=0
while [ "$clean" -lt "$ROUNDS" ] && [ "$n" -lt $((ROUNDS + EXTRA_ROUNDS)) ]; do
  n=$((n + 1))
  say "round $n (clean pairs so far: $clean of $ROUNDS)"
  load ceiling "$CE_URL" "$DURATION" "$RUN/round-$n-ceiling.txt" "$CE_PID"
  load trustlist "$TL_URL" "$DURATION" "$RUN/round-$n-trustlist.txt" "$TL_PID"
  if quiet "$RUN/round-$n-ceiling.txt" && quiet "$RUN/round-$n-trustlist.txt"; then
    clean=$((clean + 1))
  else
    say "  round $n is noisy (other CPU over ${NOISE_MAX}s): not counted"
  fi
done
fact rounds_run "$n"
fact clean_pairs "$clean"

# ---- 6. list walk and memory --------------------------------------------------------------
say "walk: GET /v1/blacklist?limit=100 to the end"
bun bench/walk.ts --url "$TL_URL" --db "$DB" --limit 100 --expect "$(jq -r .active_confirmed "$DATA/meta.json")" >"$RUN/walk.json" 2>"$RUN/walk.err" || true
say "walk: $(cat "$RUN/walk.json" 2>/dev/null)"
fact trustlist_vmhwm_kb "$(vm "$TL_PID" VmHWM)"
fact trustlist_vmrss_kb "$(vm "$TL_PID" VmRSS)"
fact ceiling_vmhwm_kb "$(vm "$CE_PID" VmHWM)"
stop_pid "$TL_PID"

# ---- 7. access log off --------------------------------------------------------------------
if [ "$NOLOG_ROUNDS" -gt 0 ]; then
  say "trustlist with --access-log off: $NOLOG_ROUNDS pair(s) of rounds, alternating with the ceiling"
  start_trustlist off
  load warmup-trustlist-nolog "$TL_URL" 2 "$RUN/warmup-trustlist-nolog.txt" "$TL_PID"
  for n in $(seq 1 "$NOLOG_ROUNDS"); do
    load ceiling "$CE_URL" "$DURATION" "$RUN/round-$n-ceiling-for-nolog.txt" "$CE_PID"
    load trustlist-nolog "$TL_URL" "$DURATION" "$RUN/round-$n-trustlist-nolog.txt" "$TL_PID"
  done
  stop_pid "$TL_PID"
fi
stop_pid "$CE_PID"

# ---- 8. report ----------------------------------------------------------------------------
fact loadavg_after "$(cut -d' ' -f1-3 /proc/loadavg)"
fact total_seconds "$(elapsed "$T_START" "$(now)" | cut -d. -f1)"
bun bench/report.ts "$RUN" >"$RUN/summary.md"
cp "$RUN/summary.md" bench/results/latest.md
echo
cat bench/results/latest.md
echo "(raw files: $RUN)"
