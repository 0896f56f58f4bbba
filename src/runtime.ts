// Everything a running trustlist holds besides its routes: the store, the clock, the in-memory
// limiters and buffers. Built once per process (or per test) and handed to the app and the jobs.
import { type Clock, systemClock } from "./clock";
import { type Config, loadConfig } from "./config";
import { CursorCodec } from "./cursor";
import { openStore } from "./db/client";
import type { Database } from "./db/database";
import { createIdempotencyStore } from "./db/idempotency";
import { createMetaStore, newSecret } from "./db/meta-store";
import { KeyRegistry } from "./http/auth";
import { IDEMPOTENCY_KEPT_MS, IdempotencyGate } from "./http/idempotency";
import { MAX_CLIENT_BUCKETS, QuotaCounter, TokenBuckets } from "./http/limits";
import { Logger } from "./logger";
import { Meter } from "./http/metering";
import { Metrics, type MetricsSample } from "./metrics";
import { type AccountsStore, createAccountsStore, KEYS_NOTE } from "./modules/accounts/store";

export interface Runtime {
  config: Config;
  /** The embedded SQLite file or PostgreSQL (src/db/database.ts). */
  store: Database;
  /** Accounts, keys and usage: the tables the request path reads and the meter writes. */
  accountsStore: AccountsStore;
  clock: Clock;
  keys: KeyRegistry;
  quota: QuotaCounter;
  /** Burst buckets per API key: bounded by the keys in the database. */
  buckets: TokenBuckets;
  /** Burst buckets per client address of the keyless routes, bounded by size (limits.ts). */
  ipBuckets: TokenBuckets;
  meter: Meter;
  metrics: Metrics;
  log: Logger;
  cursors: CursorCodec;
  idempotency: IdempotencyGate;
  /** Set in a worker of `serve --workers N` (server/worker.ts); absent in a single process. */
  workers?: WorkerLink;
}

/** What a worker of `serve --workers N` knows of the others. */
export interface WorkerLink {
  /** This worker's number, 1..N. */
  number: number;
  /** Workers up and serving now. */
  up(): number;
  /** Every worker's sample for one scrape of /metrics, this one's (`local`) included. */
  samples(local: MetricsSample): Promise<MetricsSample[]>;
  /** How this worker answers another worker's scrape. */
  answerWith(sample: () => Promise<MetricsSample>): void;
}

export interface RuntimeOptions {
  config?: Partial<Config>;
  /** The database to run on; by default the SQLite file of `config.dbPath` (PostgreSQL is opened by the caller). */
  store?: Database;
  clock?: Clock;
  log?: Logger;
}

export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const config = { ...loadConfig({}, {}), ...options.config };
  const store = options.store ?? openStore(config.dbPath);
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();
  const accountsStore = createAccountsStore(store);
  const keys = new KeyRegistry(accountsStore, store.changes);
  const meter = new Meter(accountsStore, now);
  // Another process may have revoked or rotated a key, or suspended or changed an account (a
  // commit that says what it wrote and names no account or key leaves the cache alone).
  store.changes.onExternalCommit((notes) => {
    if (notes === null || notes[KEYS_NOTE] !== undefined) keys.invalidate();
  });
  return {
    config,
    store,
    accountsStore,
    clock,
    keys,
    quota: new QuotaCounter(accountsStore, now, (accountId, day) => meter.pendingCallsOf(accountId, day)),
    buckets: new TokenBuckets(now),
    ipBuckets: new TokenBuckets(now, MAX_CLIENT_BUCKETS),
    meter,
    metrics: new Metrics(),
    log: options.log ?? new Logger({ access: config.accessLog }),
    // The HMAC secret of paging cursors, made on first use and kept in the database.
    cursors: new CursorCodec(await createMetaStore(store).valueOrMake("cursor_secret", newSecret)),
    idempotency: new IdempotencyGate(createIdempotencyStore(store, now, IDEMPOTENCY_KEPT_MS)),
  };
}
