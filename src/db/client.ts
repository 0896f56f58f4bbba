// Opens the embedded SQLite store: the connection's settings (pragmas.ts) and the embedded
// migrations. Who may create the file and who may migrate it is the caller's choice (a mistyped
// path must not become a new database, nor a command that only reads migrate one); a schema newer
// than this build is refused whoever opens it. The stores run their own prepared SQL on the connection; drizzle serves only to
// apply the migrations.
import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { ExternalChanges } from "./changes.sqlite";
import type { OpenOptions } from "./database";
import { StoreOpenError } from "./errors";
import { embeddedMigrations } from "./migrations.generated";
import { drizzleMigrations, type MigrationPolicy, planMigrations, type SchemaVersion } from "./migrations";
import { configureConnection, neverSleepOnLocks } from "./pragmas";
import { type WriteOptions, Writer } from "./write";

/** An open SQLite database (the embedded store). PostgreSQL's counterpart is in db/postgres.ts. */
export interface Store {
  dialect: "sqlite";
  /** The connection the stores prepare their statements on. */
  sqlite: Database;
  path: string;
  /** Every write goes through here: one transaction that waits for another process's lock (db/write.ts). */
  write<T>(fn: () => T | Promise<T>, options?: WriteOptions): Promise<T>;
  /** Runs `fn`'s reads in one read transaction instead of one each (db/write.ts); PostgreSQL just runs `fn`. */
  readTogether<T>(fn: () => T | Promise<T>): Promise<T>;
  /** Whether a write transaction is open on the connection (its rows may still roll back). */
  writing(): boolean;
  /** Runs `fn` once the caller's write transaction has committed (never if it rolls back); outside one, at once. */
  afterCommit(fn: () => void): void;
  /** Another process's commits, told to the caches that must drop or catch up (db/changes.ts). */
  changes: ExternalChanges;
  /**
   * For the process that serves requests: the connection never sleeps on a lock (busy_timeout 0),
   * so writes wait for one asynchronously, for up to `writeWaitMs` (default 5 s).
   */
  neverBlockOnLocks(options?: { writeWaitMs?: number }): void;
  /**
   * Runs `fn`; the PostgreSQL counterpart skips work another instance is doing. One server uses
   * a SQLite file, and its job runner already keeps a job from overlapping itself.
   */
  exclusive(name: string, fn: () => Promise<unknown>): Promise<boolean>;
  /** Resolves when the database answers a trivial query (`/healthz`); throws when it cannot. */
  ping(): Promise<void>;
  close(): void;
}

/** The database, its WAL and shared-memory files hold evidence, reporters and key hashes. */
const OWNER_ONLY = 0o600;

export function openStore(path: string, options: OpenOptions = {}): Store {
  if (path !== ":memory:") prepareFile(path, options);
  const sqlite = new Database(path, options.readonly ? { readonly: true } : { create: true, readwrite: true, strict: true });
  configureConnection(sqlite, options);
  try {
    checkSchema(sqlite, path, options.readonly ? "leave" : (options.migrations ?? "apply"));
  } catch (error) {
    sqlite.close();
    throw error;
  }
  const changes = new ExternalChanges(sqlite);
  const writer = new Writer(sqlite, changes);
  changes.beforeTurn = () => writer.endReadGroup();
  let ping: import("bun:sqlite").Statement | undefined;
  return {
    dialect: "sqlite",
    sqlite,
    path,
    write: (fn, writeOptions) => writer.write(fn, writeOptions),
    readTogether: (fn) => writer.readTogether(fn),
    writing: () => writer.writing,
    afterCommit: (fn) => writer.afterCommit(fn),
    changes,
    neverBlockOnLocks({ writeWaitMs } = {}) {
      neverSleepOnLocks(sqlite);
      if (writeWaitMs !== undefined) writer.waitMs = writeWaitMs;
    },
    async exclusive(_name, fn) {
      await fn();
      return true;
    },
    async ping() {
      (ping ??= sqlite.prepare("SELECT 1")).get();
    },
    close() {
      sqlite.close();
    },
  };
}

/**
 * Refuses a missing file unless asked to create one; creates a new one owner-only before SQLite
 * does (SQLite gives the -wal and -shm files the database file's mode), and tightens an existing
 * one that others can read.
 */
function prepareFile(path: string, options: OpenOptions) {
  const absolute = resolve(path);
  if (!existsSync(absolute)) {
    if (options.create === false || options.readonly) {
      throw new StoreOpenError("missing", absolute, `no database at ${absolute}; create it with 'trustlist migrate --db ${absolute}'`);
    }
    mkdirSync(dirname(absolute), { recursive: true, mode: 0o700 });
    try {
      closeSync(openSync(absolute, "wx", OWNER_ONLY));
    } catch (error) {
      // Another process created it first: open theirs.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    return;
  }
  if (options.readonly) return;
  for (const file of [absolute, `${absolute}-wal`, `${absolute}-shm`]) {
    try {
      if (statSync(file).mode & 0o077) chmodSync(file, OWNER_ONLY);
    } catch {
      // Absent, or owned by another user: the owner's own choice stands.
    }
  }
}

/** The schema version a database records, read from drizzle's journal table. */
export function schemaVersion(sqlite: Database): SchemaVersion {
  const exists = sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!exists) return { applied: 0, latest: null };
  const row = sqlite.query<{ n: number; latest: number | null }, []>("SELECT count(*) AS n, max(created_at) AS latest FROM __drizzle_migrations").get()!;
  return { applied: row.n, latest: row.latest === null ? null : Number(row.latest) };
}

function checkSchema(sqlite: Database, path: string, policy: MigrationPolicy) {
  const absolute = path === ":memory:" ? path : resolve(path);
  const found = schemaVersion(sqlite);
  if (planMigrations(found, embeddedMigrations, absolute, policy, found.applied === 0 && isEmpty(sqlite)) === "apply") migrate(sqlite);
}

function isEmpty(sqlite: Database): boolean {
  return !sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1").get();
}

/** Applies the migrations embedded in this build; drizzle's own journal table records them. */
export function migrate(sqlite: Database): number {
  const before = schemaVersion(sqlite).applied;
  const db = drizzle(sqlite);
  // drizzle's dialect runs the pending ones in a single transaction.
  (db as any).dialect.migrate(drizzleMigrations(embeddedMigrations), (db as any).session, {});
  return schemaVersion(sqlite).applied - before;
}
