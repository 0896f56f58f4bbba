#!/usr/bin/env bash
# Puts each server variant of bench/variants.ts under the same wrk load as run.sh and prints
# requests/s, p99 and the server's CPU per request: what each layer between the raw ceiling and
# trustlist's full app costs. Needs the database and key of a previous `bench/run.sh`.
#
#   bash bench/variants.sh [VARIANT ...]     (default: all, two passes in alternating order)
#   variants: those of bench/variants.ts, plus `binary` (dist/trustlist serve) and `source`
#   (bun src/main.ts serve), both with the access log on and stdout to /dev/null, and `bin:PATH`
#   (another build's `serve`, access log off, --trust-proxy: two builds compared on the same data)
#   env: VARIANTS_DURATION (6), VARIANTS_PASSES (2), VARIANTS_PORT (18082), BENCH_KEY_FILE,
#   VARIANTS_ROUTES (check: the wrk scripts bench/ROUTE.lua each variant takes in turn; keyless
#   routes for `bin:` variants only, which trust X-Forwarded-For)
# Each run also prints the server's memory at its end (RssAnon, RssFile).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$ROOT/.tools/node_modules/.bin:$PATH"
DB=bench/data/bench.db
DURATION=${VARIANTS_DURATION:-6}
ROUTES=${VARIANTS_ROUTES:-check}
PASSES=${VARIANTS_PASSES:-2}
PORT=${VARIANTS_PORT:-18082}
HOST=127.0.0.1
KEY_FILE=${BENCH_KEY_FILE:-$(ls -t bench/results/run-*/bench.key 2>/dev/null | head -1)}
[ -s "$DB" ] && [ -n "$KEY_FILE" ] && [ -s "$KEY_FILE" ] || { echo "run bench/run.sh first (needs $DB and a bench.key)" >&2; exit 1; }
BENCH_KEY_FILE=$(realpath "$KEY_FILE")
export BENCH_KEY_FILE BENCH_QUERIES=$ROOT/bench/data/queries.txt WRK_THREADS=2

VARIANTS=("$@")
[ ${#VARIANTS[@]} -gt 0 ] || VARIANTS=(ceiling ceiling-headers elysia-bare elysia-schema elysia-auth elysia-after hook-reqid hook-onrequest hook-onerror hook-after conv conv-routes app app-log app-jobs)
OUT=$(mktemp -d /tmp/trustlist-variants.XXXXXX)
PID=
cleanup() { [ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

TICKS=$(getconf CLK_TCK)
machine_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
proc_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

measure() { # variant pass route file: one wrk round, its line in the summary ("variant" for the check, "variant/route" otherwise)
  local label=$1 m0 s0 m1 s1
  [ "$3" = check ] || label="$1/$3"
  m0=$(machine_ticks); s0=$(proc_ticks "$PID")
  /usr/bin/time -f "%U %S" -o "$4.time" wrk -t2 -c32 -d"${DURATION}"s --timeout 2s -s "bench/$3.lua" "http://$HOST:$PORT" -- 2 >"$4" 2>&1 || true
  m1=$(machine_ticks); s1=$(proc_ticks "$PID")
  grep -q '^RESULT' "$4" || { echo "$label: no result" >&2; tail -5 "${4%.$3}.err" >&2; return 0; }
  awk -v m="$((m1 - m0))" -v s="$((s1 - s0))" -v hz="$TICKS" -v v="$label" -v pass="$2" '
    NR == FNR { w = ($1 + $2) * hz; next }
    /^RESULT/ {
      for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] }
      printf "%-16s pass %d  rps %8.0f  p50 %6.3f ms  p99 %6.3f ms  non2xx %d  server CPU %6.2f us/req  other CPU %5.2f s\n",
        v, pass, r["rps"], r["p50_ms"], r["p99_ms"], r["non2xx"], s / hz * 1e6 / r["requests"], (m - s - w) / hz
    }' "$4.time" "$4" | tee -a "$OUT/summary"
}

run_variant() { # variant pass
  local v=$1 file="$OUT/${1//\//_}.$2" i route
  case "$v" in
    # `serve` itself, compiled and from source (access log on, stdout to /dev/null as in run.sh)
    binary) dist/trustlist serve --db "$DB" --port "$PORT" --host "$HOST" >/dev/null 2>"$file.err" & ;;
    source) bun src/main.ts serve --db "$DB" --port "$PORT" --host "$HOST" >/dev/null 2>"$file.err" & ;;
    bin:*) "${v#bin:}" serve --db "$DB" --port "$PORT" --host "$HOST" --access-log off --trust-proxy >/dev/null 2>"$file.err" & ;;
    *) bun bench/variants.ts "$v" --db "$DB" --key-file "$BENCH_KEY_FILE" --port "$PORT" >/dev/null 2>"$file.err" & ;;
  esac
  PID=$!
  for i in $(seq 1 400); do curl -sf -o /dev/null "http://$HOST:$PORT/healthz" && break; sleep 0.025; done
  for route in $ROUTES; do wrk -t2 -c32 -d2s -s "bench/$route.lua" "http://$HOST:$PORT" -- 2 >/dev/null 2>&1 || true; done
  for route in $ROUTES; do measure "$v" "$2" "$route" "$file.$route"; done
  echo "$v pass $2 memory at the end: $(grep -E '^(RssAnon|RssFile)' "/proc/$PID/status" | tr -s ' \t' ' ' | tr '\n' ' ')" >&2
  kill -TERM "$PID" 2>/dev/null || echo "$v: the server had exited; see below" >&2
  wait "$PID" 2>/dev/null || true
  PID=
}

for pass in $(seq 1 "$PASSES"); do
  if [ $((pass % 2)) -eq 1 ]; then order=("${VARIANTS[@]}"); else order=(); for ((i = ${#VARIANTS[@]} - 1; i >= 0; i--)); do order+=("${VARIANTS[$i]}"); done; fi
  for v in "${order[@]}"; do run_variant "$v" "$pass"; done
done
echo
echo "# mean over passes (server CPU µs per request is the figure to compare; rps also depends on wrk sharing the 2 cores)"
awk '{ n[$1]++; rps[$1] += $5; p99[$1] += $10; cpu[$1] += $16; if (!($1 in order)) { order[$1] = ++k; name[k] = $1 } }
  END { for (i = 1; i <= k; i++) { v = name[i]; printf "%-16s rps %8.0f  p99 %6.3f ms  server CPU %6.2f us/req\n", v, rps[v] / n[v], p99[v] / n[v], cpu[v] / n[v] } }' "$OUT/summary"
rm -rf "$OUT"
