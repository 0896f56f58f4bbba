#!/usr/bin/env bash
# Compiles trustlist into one executable with its worker threads' entry points:
#   scripts/build-binary.sh OUTFILE [more `bun build` flags, e.g. --target=bun-linux-arm64]
# `make build`, `make release` and the tests' binary (test/cli-helpers.ts) all build here, so the
# tests run what operators run. env: BUN (the bun to build with), TRUSTLIST_COMMIT (the commit
# `trustlist --version` names; default: the checkout's).
#
# --bytecode (with --format=esm, which it needs for top-level await): the parsed code ships in the
# binary, so a command starts in about half the time (`trustlist help` 0.15 s against 0.30 s on the
# 2-core dev machine; the CLI tests took 24 s against 53 s from source) for 9 MB more file. The
# keyed check's server CPU was the same within its spread (42.0 against 41.6 µs, three alternated
# passes, bench database). Not minified: Elysia reads its handlers' and hooks' source to decide what
# each route compiles to, and minified source misleads it (about 8 % more CPU per keyed check).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/build-binary.sh OUTFILE [bun build flags]" >&2; exit 2; }
out=$1
shift
commit=${TRUSTLIST_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
exec "${BUN:-bun}" build --compile --bytecode --format=esm --define "TRUSTLIST_COMMIT=\"$commit\"" "$@" \
  src/main.ts src/db/checkpoint-worker.ts src/modules/transfer/line-check-worker.ts src/modules/federation/crypto-worker.ts \
  --outfile "$out"
