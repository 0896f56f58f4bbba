#!/usr/bin/env bash
# Runs a command while another runs beside it, then prints the other's output and fails if either
# failed. `make test` runs the browser tests beside the PostgreSQL pass, which spends much of its
# time waiting on the database server and on leases, so the two take about the time of the longer.
#   scripts/beside.sh 'node --test test/browser/*.browser.mjs' scripts/with-postgres.sh bun test
set -uo pipefail
beside=$1
shift
log=$(mktemp)
bash -c "$beside" >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -f "$log"' EXIT
"$@"
status=$?
wait "$pid"
other=$?
echo "--- $beside (ran beside the command above; exit $other) ---"
cat "$log"
exit $(( status != 0 ? status : other ))
