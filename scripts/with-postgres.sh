#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL cluster: initdb into a temporary directory (as the
# unprivileged `postgres` user when run as root, since PostgreSQL refuses to run as root), start it
# on a free loopback port with fsync off, export TRUSTLIST_TEST_DB=postgres and
# TRUSTLIST_TEST_POSTGRES_URL, run the command, then stop the cluster and delete it whatever happened.
#   scripts/with-postgres.sh bun test test/db/database.test.ts
set -euo pipefail
bin=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "with-postgres: no PostgreSQL server binaries (install Debian's postgresql package)" >&2
  exit 1
fi
dir=$(mktemp -d /tmp/trustlist-pg-XXXXXX)
as_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir"; fi
cleanup() {
  as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
as_owner "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 >/dev/null
as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
  start >/dev/null
export TRUSTLIST_TEST_DB=postgres
export TRUSTLIST_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres"
"$@"
