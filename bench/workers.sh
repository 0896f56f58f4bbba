#!/usr/bin/env bash
# `serve --workers N` on the bench database (`make bench-workers`, and step 7d of `make bench`):
#
#  0. the machine's CPUs: cores of their own or hyperthreads of one core (bench/cores.ts)
#  1. the keyed check (bench/check.lua) on 1 and 2 workers, rounds alternating between them:
#     checks per second, the CPU seconds all the processes of each server (supervisor and workers)
#     used per 100,000 checks, and the worst request latency (target under 100 ms: no worker may
#     stall on another's lock). Linear scaling means each worker spends on a check what one worker
#     alone spends (target within 10 %), so the CPU per check is judged where each worker is
#     offered the same load: every connection waits BENCH_PACE_MS before each request, one worker
#     gets CONNECTIONS connections and two workers twice as many (about CONNECTIONS x 1000 / PACE
#     checks per second per worker). Reported beside it: at saturation two workers and wrk compete
#     for the bench machine's cores, so the CPU per check measured there includes that contention
#     (preemption, caches shared by more busy processes); and two workers sharing the rate one
#     worker was offered each serve half as many requests per turn of their event loop, so each
#     request carries more of a turn's fixed cost (waking up, polling the sockets).
#     Each paced round runs on the server of the saturation round just before it (its code
#     compiled by then), and its checks/s show the rate each server was actually offered.
#  1b. after the rounds, a single serve paced alone, then beside a second single serve on a copy of
#     the file taking the same paced load: what this machine charges a second busy process when the
#     two share nothing. The 2-worker figure above that is the workers' own cost.
#  2. memory of the whole server (supervisor + workers: PSS summed, which counts pages the
#     processes share once, the figure the target is judged on; and VmRSS summed, which counts them
#     once per process) with 1, 2 and 4 workers, once each has answered a round
#
# Inputs (environment, as run.sh sets them): BENCH_BIN, BENCH_DB (the imported SQLite file),
# BENCH_DATA, BENCH_RUN (where results go), BENCH_ROUNDS_WORKERS (3), BENCH_DURATION (10),
# BENCH_CONNECTIONS (32), BENCH_THREADS (2), BENCH_PORT (18080), BENCH_SETTLE_S (5: seconds after
# "listening" for the subject filter and indexes), BENCH_PACE_MS (8: with 32 connections about
# 4,000 checks/s, a fifth of what one worker answers at saturation). Without them it uses dist/trustlist and
# bench/data (`make bench` must have imported it once).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$ROOT/.tools/node_modules/.bin:$PATH"

BIN=${BENCH_BIN:-$ROOT/dist/trustlist}
DATA=${BENCH_DATA:-$ROOT/bench/data}
DB=${BENCH_DB:-$DATA/bench.db}
RUN=${BENCH_RUN:-bench/results/workers-$(date -u +%Y%m%dT%H%M%SZ)}
ROUNDS=${BENCH_ROUNDS_WORKERS:-3}
DURATION=${BENCH_DURATION:-10}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
THREADS=${BENCH_THREADS:-2}
SETTLE=${BENCH_SETTLE_S:-5}
PACE=${BENCH_PACE_MS:-8}
PORT=$((${BENCH_PORT:-18080} + 40))
HOST=127.0.0.1
mkdir -p "$RUN"
FACTS=$RUN/facts.txt
touch "$FACTS"
fact() { echo "$1=$2" >>"$FACTS"; }
say() { printf '[bench-workers %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

[ -s "$DATA/queries.txt" ] || { say "no $DATA/queries.txt: run make bench first (it generates the data)"; exit 1; }
[ -s "$DB" ] || { say "no $DB: run make bench first (it imports the data into SQLite)"; exit 1; }
command -v wrk >/dev/null || { say "wrk is not installed (apt-get install -y wrk)"; exit 1; }

PIDS=()
COPY=
cleanup() {
  local pid
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && wait "$pid" 2>/dev/null || true; done
  [ -z "$COPY" ] || rm -rf "$(dirname "$COPY")"
}
trap cleanup EXIT

KEY_FILE=$(cd "$RUN" && pwd)/workers.key
NAME="bench-workers-$(date +%s%N)"
"$BIN" accounts create --name "$NAME" --tier enterprise --daily-quota 1000000000 --json --db "$DB" >/dev/null
(umask 077 && "$BIN" keys create --account "$NAME" --burst 1000000 --rate-tier partner --json --db "$DB" | jq -r .key >"$KEY_FILE")

wait_healthy() { # url pid
  local i
  for i in $(seq 1 600); do
    curl -sf -o /dev/null --max-time 1 "$1/healthz" && return 0
    kill -0 "$2" 2>/dev/null || { say "server $2 exited"; return 1; }
    sleep 0.05
  done
  return 1
}
# The server's processes: the supervisor (or the single serve) and its children.
tree() { echo "$1"; pgrep -P "$1" || true; }
TICKS=$(getconf CLK_TCK)
ticks() { local pid t=0; for pid in $(tree "$1"); do t=$((t + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0))); done; echo "$t"; }
rss_kb() { local pid k=0; for pid in $(tree "$1"); do k=$((k + $(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0))); done; echo "$k"; }
# Proportional set size: pages shared by the processes (the binary's code, the database's mapped
# pages) count once in the sum, where VmRSS counts them in every process.
pss_kb() { local pid k=0; for pid in $(tree "$1"); do k=$((k + $(awk '/^Pss:/ { print $2 }' "/proc/$pid/smaps_rollup" 2>/dev/null || echo 0))); done; echo "$k"; }

start() { # workers [db] [port]: sets PID to the supervisor's (or single serve's); not echoed, so PIDS grows in this shell
  "$BIN" serve --db "${2:-$DB}" --port "${3:-$PORT}" --host "$HOST" --access-log off --workers "$1" >/dev/null 2>>"$RUN/workers-servers.err" &
  PID=$!
  PIDS+=("$PID")
  wait_healthy "http://$HOST:${3:-$PORT}" "$PID"
  sleep "$SETTLE"
}
stop() { kill -TERM "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
run_wrk() { # outfile port [pace_ms] [connections]
  BENCH_PACE_MS=${3:-} BENCH_KEY_FILE=$KEY_FILE BENCH_QUERIES=$DATA/queries.txt WRK_THREADS=$THREADS \
    wrk -t"$THREADS" -c"${4:-$CONNECTIONS}" -d"$DURATION"s --timeout 2s --latency -s bench/check.lua "http://$HOST:$2" -- "$THREADS" >"$1" 2>&1 || true
}
load() { # outfile pid [pace_ms] [connections]
  local before after
  before=$(ticks "$2")
  run_wrk "$1" "$PORT" "${3:-}" "${4:-}"
  after=$(ticks "$2")
  awk -v t="$((after - before))" -v hz="$TICKS" 'BEGIN { printf "CPU server_s=%.2f\n", t / hz }' >>"$1"
}
# Two single serves side by side (the second on PORT + 1), each offered one worker's paced load:
# what a second busy process costs the first on this machine with nothing shared between them.
pair() { # outfile pid pid2
  local a0 b0 a1 b1 w
  a0=$(ticks "$2"); b0=$(ticks "$3")
  run_wrk "$1.a" "$PORT" "$PACE" "$CONNECTIONS" &
  w=$!
  run_wrk "$1.b" "$((PORT + 1))" "$PACE" "$CONNECTIONS"
  wait "$w" || true
  a1=$(ticks "$2"); b1=$(ticks "$3")
  echo "RESULT requests=$(( $(result "$1.a" requests) + $(result "$1.b" requests) ))" >"$1"
  awk -v t="$((a1 - a0 + b1 - b0))" -v hz="$TICKS" 'BEGIN { printf "CPU server_s=%.2f\n", t / hz }' >>"$1"
}
result() { sed -n "s/^RESULT .*$2=\([0-9.]*\).*/\1/p" "$1" | head -1; }
cpu() { sed -n 's/^CPU server_s=\([0-9.]*\)/\1/p' "$1" | head -1; }
per100k() { awk -v c="$(cpu "$1")" -v n="$(result "$1" requests)" 'BEGIN { if (n > 0) printf "%.2f\n", c / n * 100000; else print "n/a" }'; }

# ---- 0. the machine's CPUs ----------------------------------------------------------------
# Cores of their own, or hyperthreads of one core (bench/cores.ts): on hyperthreads a second
# worker slows the first, and the CPU per check of two workers grows with it.
say "cores: one pinned loop per CPU, alone and together"
bun bench/cores.ts >"$RUN/cores.json" 2>"$RUN/cores.err" || echo '{}' >"$RUN/cores.json"
say "  $(cat "$RUN/cores.json")"

# ---- 1. the keyed check on 1 and 2 workers ------------------------------------------------
for n in $(seq 1 "$ROUNDS"); do
  for w in 1 2; do
    start "$w"
    load "$RUN/workers-warmup-$n-$w.txt" "$PID"
    load "$RUN/workers-round-$n-$w.txt" "$PID"
    load "$RUN/workers-paced-$n-$w.txt" "$PID" "$PACE" $((CONNECTIONS * w))
    # Two workers sharing the rate one worker was offered: what splitting a light load costs.
    [ "$w" -eq 1 ] || load "$RUN/workers-shared-$n-$w.txt" "$PID" "$PACE" "$CONNECTIONS"
    stop "$PID"
    f=$RUN/workers-round-$n-$w.txt
    say "  round $n, $w worker(s): $(result "$f" rps)/s, $(per100k "$f") CPU s per 100k checks, max $(result "$f" max_ms) ms"
    f=$RUN/workers-paced-$n-$w.txt
    say "  round $n, $w worker(s), paced: $(result "$f" rps)/s, $(per100k "$f") CPU s per 100k checks, max $(result "$f" max_ms) ms"
    f=$RUN/workers-shared-$n-$w.txt
    [ ! -f "$f" ] || say "  round $n, $w worker(s), one worker's rate: $(result "$f" rps)/s, $(per100k "$f") CPU s per 100k checks"
  done
done

# ---- 1b. two single serves side by side -----------------------------------------------------
# After the rounds, which the copy's writes and page cache could otherwise disturb: each pair is a
# single serve paced alone, then beside a second single serve on a copy of the file (a serve holds
# its file's serve lock), both paced as one worker.
COPY=$(mktemp -d /tmp/trustlist-workers-copy.XXXXXX)/bench.db
cp "$DB" "$COPY"
for n in $(seq 1 "$ROUNDS"); do
  start 1
  first=$PID
  load "$RUN/workers-warmup-alone-$n.txt" "$first"
  load "$RUN/workers-alone-$n-1.txt" "$first" "$PACE" "$CONNECTIONS"
  start 1 "$COPY" $((PORT + 1))
  run_wrk "$RUN/workers-warmup-copy-$n.txt" $((PORT + 1))
  pair "$RUN/workers-pair-$n-1.txt" "$first" "$PID"
  stop "$PID"
  stop "$first"
  say "  pair $n: one single serve paced alone $(per100k "$RUN/workers-alone-$n-1.txt"), two side by side $(per100k "$RUN/workers-pair-$n-1.txt") CPU s per 100k checks"
done
rm -rf "$(dirname "$COPY")"
COPY=

# ---- 2. memory ----------------------------------------------------------------------------
for w in 1 2 4; do
  start "$w"
  load "$RUN/workers-memory-$w.txt" "$PID"
  fact "rss_kb_$w" "$(rss_kb "$PID")"
  fact "pss_kb_$w" "$(pss_kb "$PID")"
  say "  $w worker(s): $(rss_kb "$PID") kB resident, $(pss_kb "$PID") kB proportional (all processes)"
  stop "$PID"
done

# ---- report -------------------------------------------------------------------------------
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) print "n/a"; else print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
# $3: the rounds' kind (round: saturation, the default; paced: the fixed offered rate).
col() { for n in $(seq 1 "$ROUNDS"); do result "$RUN/workers-${3:-round}-$n-$1.txt" "$2"; done | median; }
worst() { for n in $(seq 1 "$ROUNDS"); do result "$RUN/workers-${2:-round}-$n-$1.txt" max_ms; done | sort -n | tail -1; }
cpucol() { for n in $(seq 1 "$ROUNDS"); do per100k "$RUN/workers-${2:-round}-$n-$1.txt"; done | median; }
# The checks table of one kind of round (round: saturation, paced: the fixed rate).
table() {
  echo "| workers | checks/s | CPU s per 100k checks (all processes) | p99 ms | worst ms |"
  echo "|---|---|---|---|---|"
  for w in 1 2; do echo "| $w | $(col "$w" rps "$1") | $(cpucol "$w" "$1") | $(col "$w" p99_ms "$1") | $(worst "$w" "$1") |"; done
  echo
}
RSS1=$(sed -n 's/^rss_kb_1=//p' "$FACTS"); RSS2=$(sed -n 's/^rss_kb_2=//p' "$FACTS"); RSS4=$(sed -n 's/^rss_kb_4=//p' "$FACTS")
PSS1=$(sed -n 's/^pss_kb_1=//p' "$FACTS"); PSS2=$(sed -n 's/^pss_kb_2=//p' "$FACTS"); PSS4=$(sed -n 's/^pss_kb_4=//p' "$FACTS")
{
  echo "## serve --workers: the keyed check on 1 and 2 workers (medians of $ROUNDS rounds, ${THREADS}t/${CONNECTIONS}c, ${DURATION}s, $(nproc) cores)"
  echo
  table round
  awk -v a="$(cpucol 1)" -v b="$(cpucol 2)" 'BEGIN { if (a > 0) printf "CPU per check at saturation, 2 workers against 1: %.2fx (wrk and the workers compete for the 2 cores)\n", b / a }'
  echo
  echo "Each worker offered the same load (every connection waits ${PACE} ms before each request, ${CONNECTIONS} connections per worker; medians of $ROUNDS rounds, the same servers):"
  echo
  table paced
  awk -v a="$(cpucol 1 paced)" -v b="$(cpucol 2 paced)" 'BEGIN { if (a > 0) printf "CPU per check, each worker offered the same load, 2 workers against 1: %.2fx (target: within 1.10x)\n", b / a }'
  awk -v a="$(cpucol 1 paced)" -v b="$(cpucol 2 shared)" -v r="$(col 2 rps shared)" -v c="$CONNECTIONS" 'BEGIN { if (a > 0) printf "Two workers sharing the rate of one (%s checks/s over %s connections): %.2fx the CPU per check of one worker; each serves half as many requests per turn of its event loop\n", r, c, b / a }'
  awk -v a="$(cpucol 1 alone)" -v b="$(cpucol 1 pair)" 'BEGIN { if (a > 0) printf "Two single serves side by side, each on its own copy of the file and paced as one worker: %.2fx the CPU per check of one paced alone (medians of %d pairs after the rounds: what this machine charges a second busy process sharing nothing; above it, the workers'"'"' own cost)\n", b / a, '"$ROUNDS"' }'
  echo
  echo "The CPUs (bench/cores.ts, work of a loop pinned to each CPU when all run at once, against alone; near 1: cores of their own, 0.5-0.7: hyperthreads of one core):" \
    "arithmetic $(jq -r '.arithmetic.together_over_alone // "n/a"' "$RUN/cores.json"), random reads over 64 MiB $(jq -r '.memory.together_over_alone // "n/a"' "$RUN/cores.json")."
  echo
  # The target is judged on the proportional size: what the machine holds for the whole serve. The
  # resident sizes summed count every page the processes share (the binary's code, the directory
  # snapshot the workers map) once per process that touched it.
  echo "Proportional (shared pages counted once), all processes: 1 worker $((PSS1 / 1024)) MB, 2 workers $((PSS2 / 1024)) MB, 4 workers $((PSS4 / 1024)) MB" \
    "($(awk -v a="$PSS1" -v b="$PSS4" 'BEGIN { if (a > 0) printf "%.2f", b / a }')x for 4; target at most 2x)."
  echo "Resident, summed over the processes (shared pages once per process): 1 worker $((RSS1 / 1024)) MB, 2 workers $((RSS2 / 1024)) MB, 4 workers $((RSS4 / 1024)) MB" \
    "($(awk -v a="$RSS1" -v b="$RSS4" 'BEGIN { if (a > 0) printf "%.2f", b / a }')x for 4)."
} >"$RUN/workers.md"
cat "$RUN/workers.md"
