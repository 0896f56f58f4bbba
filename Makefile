# trustlist: `make run` and `make test` work on a machine with only Node and npm.
# Bun itself comes from the npm registry (the `bun` package ships the binary), pinned here.
BUN_VERSION := 1.4.5
TOOLS := $(CURDIR)/.tools
BUN := $(TOOLS)/node_modules/.bin/bun
export PATH := $(TOOLS)/node_modules/.bin:$(PATH)

PORT ?= 8080
HOST ?= 127.0.0.1
DB ?= ./data/trustlist.db
CHROMIUM ?= /usr/bin/chromium
export CHROMIUM
SOURCES := $(shell find src migrations -type f) package.json bun.lock

.PHONY: file-command run test build release deps migrations bench bench-postgres bench-workers clean sdk postgres-server fuzz

# The whole suite runs twice: on SQLite files, then on PostgreSQL (a throwaway cluster started and
# removed by scripts/with-postgres.sh). Tests of SQLite's own behaviour skip themselves there.
# PostgreSQL's round trips make a few tests slower than bun's 5 s default allows, and so does a
# machine busy with other work (tests that start servers and CLI processes). bunfig.toml cannot
# set it: bun reads the per-test timeout only from --timeout (or setDefaultTimeout, per file).
TEST_TIMEOUT_MS := 30000
POSTGRES_TEST_TIMEOUT_MS := 30000
# Files whose tests run the command line on SQLite files of their own, whatever the pass: the
# PostgreSQL pass would run them again unchanged (86 s of its 536), so it leaves them out.
# test/architecture/layout.test.ts checks that none of them opens the pass's database.
SAME_IN_BOTH_PASSES := test/cli/cli.test.ts test/cli/help.test.ts test/console/members.cli.test.ts \
	test/server/admin-key-file.test.ts test/server/deploy.test.ts test/server/operator-safety.test.ts

run: dist/trustlist
	./dist/trustlist serve --port $(PORT) --host $(HOST) --db $(DB)

# The Discord bot's tests run under Node, as its users run it (`npm test` in its folder); they
# start a server from the source with the Bun above, and use the SDK `sdk` built.
test: deps sdk $(CHROMIUM) postgres-server file-command
	$(BUN) x tsc --noEmit -p .
	$(BUN) x tsc --noEmit -p sdk
	$(BUN) test --timeout $(TEST_TIMEOUT_MS)
	scripts/with-postgres.sh $(BUN) test --timeout $(POSTGRES_TEST_TIMEOUT_MS) $(SAME_IN_BOTH_PASSES:%=--path-ignore-patterns=%)
	node --test test/browser/*.browser.mjs
	cd examples/discord-bot && npm test

build: dist/trustlist

# The fuzzer (test/http/fuzz.test.ts) at 300 requests per operation under five seeds, on SQLite then on
# PostgreSQL; `make test` runs it at 40 under one. TRUSTLIST_FUZZ_SEEDS and TRUSTLIST_FUZZ_RUNS override.
fuzz: deps postgres-server
	TRUSTLIST_FUZZ_SEEDS=$${TRUSTLIST_FUZZ_SEEDS:-1,2,3,4,5} TRUSTLIST_FUZZ_RUNS=$${TRUSTLIST_FUZZ_RUNS:-300} $(BUN) test --timeout 600000 test/http/fuzz.test.ts
	TRUSTLIST_FUZZ_SEEDS=$${TRUSTLIST_FUZZ_SEEDS:-1,2,3,4,5} TRUSTLIST_FUZZ_RUNS=$${TRUSTLIST_FUZZ_RUNS:-300} scripts/with-postgres.sh $(BUN) test --timeout 600000 test/http/fuzz.test.ts

deps: node_modules/.installed

# Browser tests drive Debian's Chromium through playwright-core (which downloads no browser).
$(CHROMIUM):
	apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium

# `file`, which the release test asks what each cross-compiled binary is (Debian's package).
file-command:
	@command -v file >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq --no-install-recommends file)

# The PostgreSQL server binaries for the tests on PostgreSQL (Debian's package; no service is started).
postgres-server:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
		(apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql)

$(BUN):
	npm install --no-save --no-package-lock --no-audit --no-fund --prefix $(TOOLS) bun@$(BUN_VERSION)
	@# Where npm skipped the package's install script, run it: it puts the platform binary in place.
	@$(BUN) --version >/dev/null 2>&1 || (cd $(TOOLS)/node_modules/bun && node install.js)
	@$(BUN) --version >/dev/null

node_modules/.installed: package.json bun.lock | $(BUN)
	$(BUN) install --frozen-lockfile
	@touch $@

# The commit `trustlist --version` names (src/version.ts).
COMMIT = $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# scripts/build-binary.sh holds the build's flags and entry points (the tests build through it too).
dist/trustlist: $(SOURCES) scripts/build-binary.sh | deps
	BUN=$(BUN) TRUSTLIST_COMMIT=$(COMMIT) scripts/build-binary.sh dist/trustlist --sourcemap

# The binary for every platform Bun cross-compiles to, with their SHA-256 sums. Bun fetches each
# target's runtime from the npm registry (@oven/bun-<os>-<arch>) on first use and caches it. Two
# builds at a time: each keeps about one core busy (the five took 12.2 s one after another, 2-core
# dev machine); xargs fails the recipe when any of them fails.
RELEASE_TARGETS := linux-x64 linux-arm64 darwin-x64 darwin-arm64 windows-x64
release: deps
	rm -rf dist/release && mkdir -p dist/release
	printf '%s\n' $(RELEASE_TARGETS) | xargs -P 2 -I TARGET \
		env BUN=$(BUN) TRUSTLIST_COMMIT=$(COMMIT) scripts/build-binary.sh dist/release/trustlist-TARGET --target=bun-TARGET
	cd dist/release && sha256sum trustlist-* > SHA256SUMS

# The typed client, generated from the app's own OpenAPI document (sdk/scripts/build.ts). Its build
# tools live in sdk/node_modules: openapi-typescript drives the TypeScript 5 compiler API.
SDK_SOURCES := $(shell find sdk/src sdk/scripts -type f ! -name schema.d.ts) sdk/package.json sdk/tsconfig.build.json

sdk: sdk/dist/index.js

sdk/node_modules/.installed: sdk/package.json sdk/package-lock.json
	cd sdk && npm ci --no-audit --no-fund
	@touch $@

sdk/dist/index.js: $(SOURCES) $(SDK_SOURCES) | deps sdk/node_modules/.installed
	$(BUN) sdk/scripts/build.ts

# After changing a module's tables.ts: generate the SQL migrations (both databases) and embed them.
migrations: deps
	$(BUN) x drizzle-kit generate
	$(BUN) x drizzle-kit generate --config drizzle.postgres.config.ts
	$(BUN) scripts/embed-migrations.ts

bench: dist/trustlist
	bash bench/run.sh

# Only serve --workers N (1 and 2 workers, memory with 1, 2 and 4), on the data `make bench` left.
bench-workers: dist/trustlist
	bash bench/workers.sh

# Only the PostgreSQL part of the benchmark, on the data and SQLite file `make bench` left.
bench-postgres: dist/trustlist postgres-server
	bash bench/postgres.sh

clean:
	rm -rf dist node_modules .tools sdk/dist sdk/node_modules sdk/src/schema.d.ts
