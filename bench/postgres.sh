#!/usr/bin/env bash
# The keyed check on SQLite against PostgreSQL (`make bench-postgres`, and step 7c of `make bench`).
# Runs beside a throwaway PostgreSQL cluster (scripts/with-postgres.sh: fsync off, as a test
# cluster; the check's reads do not touch the disk either way):
#
#  1. import the bench data set into a fresh PostgreSQL database: the import time
#  2. one SQLite instance and one PostgreSQL instance, rounds alternating between them
#  3. two PostgreSQL instances on the same database, one wrk each at once, their rates summed
#
# Every instance runs with --access-log off; the same key list and query file for both.
# Inputs (environment, as run.sh sets them): BENCH_BIN, BENCH_DB (the imported SQLite file),
# BENCH_DATA, BENCH_RUN (where results go), BENCH_ROUNDS_PG (3), BENCH_DURATION (10),
# BENCH_CONNECTIONS (32), BENCH_THREADS (2), BENCH_PORT (18080).
# Without them it uses dist/trustlist and bench/data (`make bench` must have imported it once).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$ROOT/.tools/node_modules/.bin:$PATH"

if [ -z "${TRUSTLIST_TEST_POSTGRES_URL:-}" ]; then
  exec scripts/with-postgres.sh bash "$0" "$@"
fi

BIN=${BENCH_BIN:-$ROOT/dist/trustlist}
DATA=${BENCH_DATA:-$ROOT/bench/data}
SQLITE_DB=${BENCH_DB:-$DATA/bench.db}
RUN=${BENCH_RUN:-bench/results/postgres-$(date -u +%Y%m%dT%H%M%SZ)}
ROUNDS=${BENCH_ROUNDS_PG:-3}
DURATION=${BENCH_DURATION:-10}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
THREADS=${BENCH_THREADS:-2}
BASE_PORT=$((${BENCH_PORT:-18080} + 20))
HOST=127.0.0.1
mkdir -p "$RUN"
FACTS=$RUN/facts.txt
touch "$FACTS"
fact() { echo "$1=$2" >>"$FACTS"; }
say() { printf '[bench-pg %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

[ -s "$DATA/dataset.jsonl" ] || { say "no $DATA/dataset.jsonl: run make bench first (it generates the data)"; exit 1; }
[ -s "$SQLITE_DB" ] || { say "no $SQLITE_DB: run make bench first (it imports the data into SQLite)"; exit 1; }

PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

PG_URL="${TRUSTLIST_TEST_POSTGRES_URL%/*}/trustlist_bench"
bun -e "const { SQL } = require('bun'); const s = new SQL(process.env.TRUSTLIST_TEST_POSTGRES_URL); await s.unsafe('DROP DATABASE IF EXISTS trustlist_bench'); await s.unsafe('CREATE DATABASE trustlist_bench'); await s.close();"

# ---- 1. import ----------------------------------------------------------------------------
say "import: $DATA/dataset.jsonl -> PostgreSQL"
T0=$(now)
"$BIN" import "$DATA/dataset.jsonl" --db "$PG_URL" --json >"$RUN/pg-import.json" 2>"$RUN/pg-import.err"
T1=$(now)
fact pg_import_wall_s "$(elapsed "$T0" "$T1")"
say "import: $(elapsed "$T0" "$T1") s; $(cat "$RUN/pg-import.json")"

key_for() { # db -> file holding a new partner key of a new enterprise account
  local file=$RUN/key-$1.key name="bench-pg-$1-$(date +%s%N)"
  "$BIN" accounts create --name "$name" --tier enterprise --daily-quota 1000000000 --json --db "$2" >/dev/null
  (umask 077 && "$BIN" keys create --account "$name" --burst 1000000 --rate-tier partner --json --db "$2" | jq -r .key >"$file")
  echo "$ROOT/$file"
}
SQLITE_KEY=$(key_for sqlite "$SQLITE_DB")
PG_KEY=$(key_for postgres "$PG_URL")

wait_healthy() { # url pid
  local i
  for i in $(seq 1 600); do
    curl -sf -o /dev/null --max-time 1 "$1/healthz" && return 0
    kill -0 "$2" 2>/dev/null || { say "server $2 exited"; return 1; }
    sleep 0.05
  done
  return 1
}
start() { # db port: sets STARTED_PID (not echoed: PIDS must grow in this shell, not a subshell)
  "$BIN" serve --db "$1" --port "$2" --host "$HOST" --access-log off >/dev/null 2>>"$RUN/pg-servers.err" &
  STARTED_PID=$!
  PIDS+=("$STARTED_PID")
  wait_healthy "http://$HOST:$2" "$STARTED_PID"
  # The subject filter and the indexes are built after "listening": let them finish.
  sleep 5
}
TICKS=$(getconf CLK_TCK)
proc_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
load() { # outfile url key-file connections pids...
  local out=$1 url=$2 key=$3 conns=$4
  shift 4
  local before=0 after=0 pid
  for pid in "$@"; do before=$((before + $(proc_ticks "$pid"))); done
  BENCH_KEY_FILE=$key BENCH_QUERIES=$DATA/queries.txt WRK_THREADS=$THREADS \
    wrk -t"$THREADS" -c"$conns" -d"$DURATION"s --timeout 2s --latency -s bench/check.lua "$url" -- "$THREADS" >"$out" 2>&1 || true
  for pid in "$@"; do after=$((after + $(proc_ticks "$pid"))); done
  awk -v t="$((after - before))" -v hz="$TICKS" 'BEGIN { printf "CPU server_s=%.2f\n", t / hz }' >>"$out"
}
result() { sed -n "s/^RESULT .*$2=\([0-9.]*\).*/\1/p" "$1" | head -1; }

# ---- 2. one SQLite instance against one PostgreSQL instance ------------------------------
SQ_PORT=$BASE_PORT
PA_PORT=$((BASE_PORT + 1))
PB_PORT=$((BASE_PORT + 2))
say "serve: SQLite on $SQ_PORT, PostgreSQL A on $PA_PORT"
start "$SQLITE_DB" "$SQ_PORT"; SQ_PID=$STARTED_PID
start "$PG_URL" "$PA_PORT"; PA_PID=$STARTED_PID
load "$RUN/pg-warmup-sqlite.txt" "http://$HOST:$SQ_PORT" "$SQLITE_KEY" "$CONNECTIONS" "$SQ_PID"
load "$RUN/pg-warmup-postgres.txt" "http://$HOST:$PA_PORT" "$PG_KEY" "$CONNECTIONS" "$PA_PID"
for n in $(seq 1 "$ROUNDS"); do
  load "$RUN/pg-round-$n-sqlite.txt" "http://$HOST:$SQ_PORT" "$SQLITE_KEY" "$CONNECTIONS" "$SQ_PID"
  load "$RUN/pg-round-$n-postgres.txt" "http://$HOST:$PA_PORT" "$PG_KEY" "$CONNECTIONS" "$PA_PID"
  say "  round $n: sqlite $(result "$RUN/pg-round-$n-sqlite.txt" rps)/s p99 $(result "$RUN/pg-round-$n-sqlite.txt" p99_ms) ms;" \
    "postgres $(result "$RUN/pg-round-$n-postgres.txt" rps)/s p99 $(result "$RUN/pg-round-$n-postgres.txt" p99_ms) ms"
done
kill -TERM "$SQ_PID" 2>/dev/null || true

# ---- 3. two PostgreSQL instances at once -------------------------------------------------
say "serve: PostgreSQL B on $PB_PORT; one wrk per instance at once"
start "$PG_URL" "$PB_PORT"; PB_PID=$STARTED_PID
for n in $(seq 1 "$ROUNDS"); do
  load "$RUN/pg-round-$n-pair-a.txt" "http://$HOST:$PA_PORT" "$PG_KEY" "$((CONNECTIONS / 2))" "$PA_PID" &
  WA=$!
  load "$RUN/pg-round-$n-pair-b.txt" "http://$HOST:$PB_PORT" "$PG_KEY" "$((CONNECTIONS / 2))" "$PB_PID" &
  WB=$!
  wait "$WA" "$WB"
  say "  round $n: A $(result "$RUN/pg-round-$n-pair-a.txt" rps)/s + B $(result "$RUN/pg-round-$n-pair-b.txt" rps)/s;" \
    "p99 $(result "$RUN/pg-round-$n-pair-a.txt" p99_ms) / $(result "$RUN/pg-round-$n-pair-b.txt" p99_ms) ms"
done
fact postgres_server_cpu_cores "$(nproc)"

# ---- report -------------------------------------------------------------------------------
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) print "n/a"; else print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
col() { for n in $(seq 1 "$ROUNDS"); do result "$RUN/pg-round-$n-$1.txt" "$2"; done | median; }
pair_sum() { for n in $(seq 1 "$ROUNDS"); do echo "$(result "$RUN/pg-round-$n-pair-a.txt" rps) $(result "$RUN/pg-round-$n-pair-b.txt" rps)" | awk '{ print $1 + $2 }'; done | median; }
SQ_RPS=$(col sqlite rps); PG_RPS=$(col postgres rps)
SQ_P99=$(col sqlite p99_ms); PG_P99=$(col postgres p99_ms)
PAIR=$(pair_sum)
{
  echo "## Keyed check: SQLite against PostgreSQL (medians of $ROUNDS rounds, ${THREADS}t/${CONNECTIONS}c, ${DURATION}s)"
  echo
  echo "| instance(s) | checks/s | p99 ms |"
  echo "|---|---|---|"
  echo "| 1 SQLite | $SQ_RPS | $SQ_P99 |"
  echo "| 1 PostgreSQL | $PG_RPS | $PG_P99 |"
  echo "| 2 PostgreSQL (summed) | $PAIR | $(col pair-a p99_ms) / $(col pair-b p99_ms) |"
  echo
  awk -v s="$SQ_RPS" -v p="$PG_RPS" -v sp="$SQ_P99" -v pp="$PG_P99" 'BEGIN { printf "PostgreSQL/SQLite: %.2fx the checks per second, p99 %.2fx (targets: at least 0.8x, under 2x)\n", p / s, pp / sp }'
  echo
  echo "Import of the data set into PostgreSQL: $(sed -n 's/^pg_import_wall_s=//p' "$FACTS") s ($(cat "$RUN/pg-import.json"))."
  # Against the SQLite import of the same run (run.sh's median), when there is one: target at most 3x.
  SQ_IMPORT=$(sed -n 's/^import_wall_s=//p' "$FACTS")
  if [ -n "$SQ_IMPORT" ]; then
    awk -v p="$(sed -n 's/^pg_import_wall_s=//p' "$FACTS")" -v s="$SQ_IMPORT" 'BEGIN { printf "PostgreSQL import / SQLite import: %.1fx (%.1f s against %.1f s; target at most 3x)\n", p / s, p, s }'
  fi
} >"$RUN/postgres.md"
cat "$RUN/postgres.md"
