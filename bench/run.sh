#!/usr/bin/env bash
# Load benchmark of trustlist against a raw Bun.serve + bun:sqlite ceiling (`make bench`).
#
#  1. build dist/trustlist if needed; generate bench/data unless present: 100k creators with 300k
#     connections, deals, reviews, vouches, referrals and 1M entries (dataset.jsonl), the keyed
#     check's query list and the keyless query lists (search.txt, directory.txt, badge.txt)
#  2. time `trustlist import` of the whole data set into a fresh database (BENCH_IMPORTS times: the median)
#  2b. the entries alone: `trustlist import` against their raw load (bench/raw-load.ts), alternating
#  3. cold start to the first 200 on /healthz (empty database, then the full database)
#  4. serve trustlist (access log on, stdout to /dev/null, --trust-proxy) and the ceiling
#  5. wrk rounds alternating ceiling, trustlist, ... on GET /v1/blacklist/check
#  5b. same server process: keyless rounds at BENCH_KEYLESS_CONNECTIONS (16), each round the keyed
#     check, then every keyless route (search, directory, deep directory pages, resolve, public
#     trust, vouches, leaderboard, stats, badge); then every query kind timed alone (keyless-probe.ts)
#  6. walk the whole list with limit=100; read the server's peak RSS
#  7. a few pairs of rounds (ceiling, trustlist with --access-log off), for comparison
#  7b. jobs: on a copy of the database, each periodic job run now (POST /v1/admin/jobs/{name})
#     while a stream of cheap requests goes on: the worst request wait behind each (bench/jobs.ts)
#  7c. PostgreSQL (BENCH_POSTGRES=1): import time, keyed check on 1 SQLite, 1 and 2 PostgreSQL
#     instances (bench/postgres.sh)
#  7d. outbox: 10,000 webhook events drained to a loopback receiver, then with a hanging receiver
#     beside it: deliveries/s, commit-to-receipt p99, the keyed check meanwhile (bench/outbox.ts)
#  7d2. moderation: the keyed check beside 10,000 open cases and 100,000 audit events against the
#     same database without them, and the moderation queue's p99 alone and under checks
#     (bench/moderation.ts)
#  7e. serve --workers (BENCH_WORKERS=1): keyed check on 1 and 2 workers, CPU per check and worst
#     latency; resident memory with 1, 2 and 4 workers (bench/workers.sh)
#  8. write bench/results/latest.md (and the raw files in bench/results/run-*/) and print it
#
# Knobs (environment): BENCH_ENTRIES (1000000), BENCH_QUERY_COUNT (200000), BENCH_CREATORS
# (100000; 0 = entries only, no keyless rounds), BENCH_CREATOR_CONNECTIONS (300000), BENCH_ROUNDS
# (5), BENCH_DURATION seconds per round (10), BENCH_WARMUP seconds (3), BENCH_CONNECTIONS (32),
# BENCH_THREADS (2), BENCH_NOLOG_ROUNDS (2), BENCH_IMPORTS (3), BENCH_PORT (18080), BENCH_CEILING_PORT (18081),
# BENCH_NOISE_MAX_S (1.5: other processes' CPU seconds that make a round "noisy"),
# BENCH_EXTRA_ROUNDS (3: pairs run at most beyond BENCH_ROUNDS to replace noisy ones),
# BENCH_KEYLESS_ROUNDS (3), BENCH_KEYLESS_CONNECTIONS (16), BENCH_PROBE_PER_KIND (300 queries of
# each kind timed alone), BENCH_JOBS (1: run step 7b), BENCH_JOBS_DUE (50000 entries made to lapse
# for the expiry job), BENCH_OUTBOX (1: run step 7c), BENCH_OUTBOX_EVENTS (10000), BENCH_DATA (bench/data: where the data set, query lists and database live).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$ROOT/.tools/node_modules/.bin:$PATH"

ENTRIES=${BENCH_ENTRIES:-1000000}
QUERY_COUNT=${BENCH_QUERY_COUNT:-200000}
CREATORS=${BENCH_CREATORS:-100000}
CREATOR_LINKS=${BENCH_CREATOR_CONNECTIONS:-$((3 * CREATORS))}
KEYLESS_ROUNDS=${BENCH_KEYLESS_ROUNDS:-3}
KEYLESS_CONNECTIONS=${BENCH_KEYLESS_CONNECTIONS:-16}
PROBE_PER_KIND=${BENCH_PROBE_PER_KIND:-300}
ROUNDS=${BENCH_ROUNDS:-5}
IMPORTS=${BENCH_IMPORTS:-3}
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
JOBS_PORT=$((TL_PORT + 15))
RUN_JOBS=${BENCH_JOBS:-1}
JOBS_DUE=${BENCH_JOBS_DUE:-50000}
RUN_OUTBOX=${BENCH_OUTBOX:-1}
OUTBOX_EVENTS=${BENCH_OUTBOX_EVENTS:-10000}
OUTBOX_PORT=$((TL_PORT + 30))
HOST=127.0.0.1

DATA=${BENCH_DATA:-bench/data}
DB=$DATA/bench.db
RUN=bench/results/run-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$DATA" "$RUN"
DATA_ABS=$(cd "$DATA" && pwd)
FACTS=$RUN/facts.txt
: >"$FACTS"
fact() { echo "$1=$2" >>"$FACTS"; }
say() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
median_of() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
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

for p in "$TL_PORT" "$CE_PORT" "$COLD_PORT" "$JOBS_PORT"; do
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
fact keyless_connections "$KEYLESS_CONNECTIONS"; fact keyless_rounds "$KEYLESS_ROUNDS"

# The data is reused when meta.json says it was written by this generator format with these counts.
meta_is() { [ "$(jq -r ".$1" "$DATA/meta.json" 2>/dev/null)" = "$2" ]; }
if [ -s "$DATA/dataset.jsonl" ] && [ -s "$DATA/queries.txt" ] && [ -s "$DATA/meta.json" ] &&
  meta_is format 2 && meta_is entries "$ENTRIES" && meta_is queries "$QUERY_COUNT" && meta_is creators "$CREATORS" &&
  meta_is connections "$CREATOR_LINKS"; then
  say "data: reusing $DATA ($(jq -r .creators "$DATA/meta.json") creators, $(jq -r .entries "$DATA/meta.json") entries)"
  fact generated reused
else
  say "data: generating $CREATORS creators, $CREATOR_LINKS connections, $ENTRIES entries and the query lists into $DATA"
  rm -f "$DATA/entries.jsonl" # the entries-only file of the foundation generator
  bun bench/generate.ts --entries "$ENTRIES" --queries "$QUERY_COUNT" --creators "$CREATORS" --connections "$CREATOR_LINKS" --out "$DATA"
  fact generated fresh
fi
cp "$DATA/meta.json" "$RUN/meta.json"

# ---- 2. import into a fresh database ------------------------------------------------------
# IMPORTS times, each into a fresh file: one run on this 2-core machine varied by 2 s from the
# next with nothing else running, so the median is the figure and the runs stand beside it. The
# last run's database is the one the rest of the bench reads.
WALLS=()
for i in $(seq 1 "$IMPORTS"); do
  rm -f "$DB" "$DB-wal" "$DB-shm"
  say "import $i/$IMPORTS: $DATA/dataset.jsonl ($(jq -r .dataset_lines "$DATA/meta.json") lines) -> $DB"
  T0=$(now)
  "$BIN" import "$DATA/dataset.jsonl" --db "$DB" --json >"$RUN/import.json" 2>"$RUN/import.err"
  T1=$(now)
  WALLS+=("$(elapsed "$T0" "$T1")")
  say "import $i/$IMPORTS: $(elapsed "$T0" "$T1") s wall; $(cat "$RUN/import.json")"
done
fact import_walls_s "$(printf '%s\n' "${WALLS[@]}" | paste -sd, -)"
fact import_wall_s "$(median_of "${WALLS[@]}")"
fact db_bytes "$(stat -c %s "$DB")"
fact db_wal_bytes "$(stat -c %s "$DB-wal" 2>/dev/null || echo 0)"

# ---- 2b. the import against the raw load of the same file ----------------------------------
# The entries alone (without the creators they may name), imported and loaded raw (bench/raw-load.ts:
# parsed and inserted the fastest way SQLite offers, nothing checked or derived), alternating,
# IMPORTS times each into fresh files; the medians' ratio is the import's target (at most 1.5x).
ENTRIES_FILE=$DATA/entries.jsonl
if [ ! -s "$ENTRIES_FILE" ]; then
  say "entries-only file: $ENTRIES_FILE"
  jq -c 'select(.type == "entry") | del(.creator)' "$DATA/dataset.jsonl" >"$ENTRIES_FILE.tmp" && mv "$ENTRIES_FILE.tmp" "$ENTRIES_FILE"
fi
SCRATCH_DB=$RUN/entries-only.db
EWALLS=()
RWALLS=()
for i in $(seq 1 "$IMPORTS"); do
  rm -f "$SCRATCH_DB" "$SCRATCH_DB-wal" "$SCRATCH_DB-shm"
  T0=$(now)
  "$BIN" import "$ENTRIES_FILE" --db "$SCRATCH_DB" --json >"$RUN/import-entries.json" 2>"$RUN/import-entries.err"
  T1=$(now)
  EWALLS+=("$(elapsed "$T0" "$T1")")
  rm -f "$SCRATCH_DB" "$SCRATCH_DB-wal" "$SCRATCH_DB-shm"
  "$BIN" migrate --db "$SCRATCH_DB" >/dev/null
  T0=$(now)
  bun bench/raw-load.ts "$ENTRIES_FILE" --db "$SCRATCH_DB" >"$RUN/raw-load.json"
  T1=$(now)
  RWALLS+=("$(elapsed "$T0" "$T1")")
  say "entries only $i/$IMPORTS: import ${EWALLS[-1]} s, raw load ${RWALLS[-1]} s"
done
rm -f "$SCRATCH_DB" "$SCRATCH_DB-wal" "$SCRATCH_DB-shm"
fact import_entries_walls_s "$(printf '%s\n' "${EWALLS[@]}" | paste -sd, -)"
fact raw_load_walls_s "$(printf '%s\n' "${RWALLS[@]}" | paste -sd, -)"
fact import_entries_wall_s "$(median_of "${EWALLS[@]}")"
fact raw_load_wall_s "$(median_of "${RWALLS[@]}")"

"$BIN" accounts create --name bench --tier enterprise --daily-quota 1000000000 --json --db "$DB" >"$RUN/account.json"
"$BIN" keys create --account bench --burst 1000000 --rate-tier partner --json --db "$DB" >"$RUN/key.json"
KEY_FILE=$RUN/bench.key
(umask 077 && jq -r .key "$RUN/key.json" >"$KEY_FILE")
jq 'del(.key)' "$RUN/key.json" >"$RUN/key.public.json" && rm -f "$RUN/key.json"
export BENCH_KEY_FILE=$ROOT/$KEY_FILE BENCH_QUERIES=$DATA_ABS/queries.txt BENCH_DATA=$DATA_ABS WRK_THREADS=$THREADS

# ---- 3. cold start ------------------------------------------------------------------------
say "cold start: empty database, then the full database"
bun bench/coldstart.ts --bin "$BIN" --db "$RUN/cold-empty" --fresh --runs 3 --port "$COLD_PORT" >"$RUN/coldstart-empty.json"
bun bench/coldstart.ts --bin "$BIN" --db "$DB" --runs 3 --port "$COLD_PORT" >"$RUN/coldstart-1m.json"
say "cold start: empty $(jq -r .median_ms "$RUN/coldstart-empty.json") ms, 1M $(jq -r .median_ms "$RUN/coldstart-1m.json") ms"

# ---- 4. servers ---------------------------------------------------------------------------
start_trustlist() { # access-log on|off
  "$BIN" serve --db "$DB" --port "$TL_PORT" --host "$HOST" --access-log "$1" --trust-proxy >/dev/null 2>>"$RUN/trustlist.err" &
  TL_PID=$!
  PIDS+=("$TL_PID")
  wait_healthy "http://$HOST:$TL_PORT" "$TL_PID"
}
# --trust-proxy: the keyless rounds give every request its own X-Forwarded-For, so the per-IP
# limit of /v1/public/* (10/s, burst 60) is not what they measure. Keyed routes never read it.
say "serve: trustlist on $HOST:$TL_PORT (access log on, stdout to /dev/null, --trust-proxy), ceiling on $HOST:$CE_PORT"
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
load() { # name url seconds outfile server-pid [script (bench/check.lua)] [connections (BENCH_CONNECTIONS)]
  local m0 s0 m1 s1 line
  m0=$(machine_ticks); s0=$(proc_ticks "$5")
  /usr/bin/time -f "WRKCPU %U %S" -o "$4.time" \
    wrk -t"$THREADS" -c"${7:-$CONNECTIONS}" -d"$3"s --timeout 2s --latency -s "${6:-bench/check.lua}" "$2" -- "$THREADS" >"$4" 2>&1 || true
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

# ---- 5b. keyless routes, same server process and data -------------------------------------
# Each round: the keyed check at the keyless connection count (the badge's yardstick), then each
# keyless route (bench/<route>.lua). Noisy rounds are kept and marked; the report takes medians.
KEYLESS_ROUTES="search directory directory-deep resolve trust vouches leaderboard stats badge"
if [ "$CREATORS" -gt 0 ] && [ "$KEYLESS_ROUNDS" -gt 0 ]; then
  # One request per route first: a route that is not there (404) shows up here, not only as an
  # INVALID round.
  for probe in "search /v1/public/blacklist/check?q=bench" "directory /v1/public/directory?q=bench" \
    "directory-deep /v1/public/directory?page=10&limit=100" "resolve /v1/public/resolve?username=bench" \
    "trust /v1/public/trust/bench" "vouches /v1/public/users/$(sed -n 's/^known\t\([^\t]*\).*/\1/p' "$DATA/badge.txt" | head -1)/vouches" \
    "leaderboard /referrals/leaderboard" "stats /v1/stats/public" "badge /badge/bench"; do
    code=$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Forwarded-For: 10.255.0.1' "$TL_URL${probe#* }")
    fact "route_status_${probe%% *}" "$code"
    [ "$code" = 200 ] || say "  WARNING: ${probe#* } answered $code; its rounds will be INVALID"
  done
  say "keyless: ${KEYLESS_ROUNDS} round(s) of check, ${KEYLESS_ROUTES// /, } at ${THREADS}t/${KEYLESS_CONNECTIONS}c, ${DURATION}s each"
  load warmup-keyless-check "$TL_URL" 2 "$RUN/warmup-keyless-check.txt" "$TL_PID" bench/check.lua "$KEYLESS_CONNECTIONS"
  for route in $KEYLESS_ROUTES; do
    load "warmup-$route" "$TL_URL" 2 "$RUN/warmup-$route.txt" "$TL_PID" "bench/$route.lua" "$KEYLESS_CONNECTIONS"
  done
  for n in $(seq 1 "$KEYLESS_ROUNDS"); do
    say "keyless round $n"
    load check "$TL_URL" "$DURATION" "$RUN/keyless-$n-check.txt" "$TL_PID" bench/check.lua "$KEYLESS_CONNECTIONS"
    for route in $KEYLESS_ROUTES; do
      load "$route" "$TL_URL" "$DURATION" "$RUN/keyless-$n-$route.txt" "$TL_PID" "bench/$route.lua" "$KEYLESS_CONNECTIONS"
    done
  done
  say "probe: each query kind timed alone, $PROBE_PER_KIND per kind, one connection"
  bun bench/keyless-probe.ts --url "$TL_URL" --data "$DATA" --per-kind "$PROBE_PER_KIND" >"$RUN/probe.json" 2>"$RUN/probe.err" || say "  probe failed (see probe.err)"
  fact creators_blacklisted_db "$(bun -e "
    import { Database } from 'bun:sqlite';
    const db = new Database('$DB', { readonly: true });
    console.log(db.query('SELECT count(*) AS n FROM creators WHERE blacklisted').get().n);")"
fi

# ---- 6. list walk and memory --------------------------------------------------------------
say "walk: GET /v1/blacklist?limit=100 to the end"
bun bench/walk.ts --url "$TL_URL" --db "$DB" --limit 100 --expect "$(jq -r .active_confirmed "$DATA/meta.json")" >"$RUN/walk.json" 2>"$RUN/walk.err" || true
say "walk: $(cat "$RUN/walk.json" 2>/dev/null)"
fact trustlist_vmhwm_kb "$(vm "$TL_PID" VmHWM)"
fact trustlist_vmrss_kb "$(vm "$TL_PID" VmRSS)"
fact ceiling_vmhwm_kb "$(vm "$CE_PID" VmHWM)"
# What the resident memory is made of now: the process's own, and file pages (the binary's code,
# the database's mapped pages: the operating system's cache of the file, shared by every process).
fact trustlist_rssanon_kb "$(vm "$TL_PID" RssAnon)"
fact trustlist_rssfile_kb "$(vm "$TL_PID" RssFile)"
fact ceiling_rssanon_kb "$(vm "$CE_PID" RssAnon)"
fact ceiling_rssfile_kb "$(vm "$CE_PID" RssFile)"
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

# ---- 7b. jobs -----------------------------------------------------------------------------
# Its own copy of the imported database (the expiry step makes JOBS_DUE entries lapse in it) and
# its own server; the copy is removed afterwards.
if [ "$RUN_JOBS" = 1 ]; then
  say "jobs: each job run now on a copy of the database while requests stream (about 2 minutes)"
  bun bench/jobs.ts --bin "$BIN" --db "$DB" --data "$DATA" --port "$JOBS_PORT" --due "$JOBS_DUE" >"$RUN/jobs.json" 2>"$RUN/jobs.err" ||
    say "  jobs bench failed (see jobs.err)"
fi

# ---- 7c. PostgreSQL ------------------------------------------------------------------------
# The keyed check on one SQLite instance, one PostgreSQL instance and two PostgreSQL instances,
# and the import into PostgreSQL (bench/postgres.sh, beside a throwaway cluster).
if [ "${BENCH_POSTGRES:-1}" = 1 ]; then
  say "postgres: import into PostgreSQL, then the keyed check on SQLite, PostgreSQL and two PostgreSQL instances"
  BENCH_BIN=$BIN BENCH_DB=$DB BENCH_DATA=$DATA_ABS BENCH_RUN=$RUN bash bench/postgres.sh >"$RUN/postgres.out" 2>&1 ||
    say "  postgres bench failed (see postgres.out)"
fi

# ---- 7d. webhook outbox ---------------------------------------------------------------------
# A fresh database of its own and a receiver on loopback: BENCH_OUTBOX_EVENTS events drained to a
# healthy receiver, then again with a hanging receiver registered beside it.
if [ "$RUN_OUTBOX" = 1 ]; then
  say "outbox: $OUTBOX_EVENTS events to a loopback receiver, then with a hanging one beside it"
  bun bench/outbox.ts --bin "$BIN" --events "$OUTBOX_EVENTS" --port "$OUTBOX_PORT" --work "$DATA/outbox-bench" >"$RUN/outbox.json" 2>"$RUN/outbox.err" ||
    say "  outbox bench failed (see outbox.err)"
fi

# ---- 7d2. moderation -------------------------------------------------------------------------
# Two copies of the bench database, one holding BENCH_MODERATION_CASES open cases and
# BENCH_MODERATION_AUDIT audit events: the keyed check on each in alternating rounds, then the
# moderation queue's pages alone and while checks run (bench/moderation.ts).
if [ "${BENCH_MODERATION:-1}" = 1 ]; then
  say "moderation: the keyed check beside ${BENCH_MODERATION_CASES:-10000} open cases and ${BENCH_MODERATION_AUDIT:-100000} audit events; the queue's pages"
  bun bench/moderation.ts --bin "$BIN" --source "$DB" --queries "$DATA/queries.txt" --cases "${BENCH_MODERATION_CASES:-10000}" --audit "${BENCH_MODERATION_AUDIT:-100000}" \
    --port $((TL_PORT + 40)) --work "$DATA/moderation-bench" >"$RUN/moderation.json" 2>"$RUN/moderation.err" ||
    say "  moderation bench failed (see moderation.err)"
fi

# ---- 7e. workers ----------------------------------------------------------------------------
# serve --workers: the keyed check on 1 and 2 workers (CPU per check of all processes, worst
# latency) and the resident memory with 1, 2 and 4 workers (bench/workers.sh).
if [ "${BENCH_WORKERS:-1}" = 1 ]; then
  say "workers: the keyed check on 1 and 2 workers, memory with 1, 2 and 4"
  BENCH_BIN=$BIN BENCH_DB=$DB BENCH_DATA=$DATA_ABS BENCH_RUN=$RUN bash bench/workers.sh >"$RUN/workers.out" 2>&1 ||
    say "  workers bench failed (see workers.out)"
fi

# ---- 8. report ----------------------------------------------------------------------------
fact loadavg_after "$(cut -d' ' -f1-3 /proc/loadavg)"
fact total_seconds "$(elapsed "$T_START" "$(now)" | cut -d. -f1)"
bun bench/report.ts "$RUN" >"$RUN/summary.md"
if [ -s "$RUN/postgres.md" ]; then (echo; cat "$RUN/postgres.md") >>"$RUN/summary.md"; fi
if [ -s "$RUN/workers.md" ]; then (echo; cat "$RUN/workers.md") >>"$RUN/summary.md"; fi
cp "$RUN/summary.md" bench/results/latest.md
echo
cat bench/results/latest.md
echo "(raw files: $RUN)"
