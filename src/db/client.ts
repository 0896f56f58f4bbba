// Opens the embedded SQLite store: pragmas, embedded migrations, and the drizzle handle.
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { recordInTransaction } from "./idempotency";
import { embeddedMigrations } from "./migrations.generated";
import * as schema from "./schema";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

export interface Store {
  /** The raw connection, for prepared statements on hot paths. */
  sqlite: Database;
  /** The drizzle handle every service uses. */
  db: Db;
  path: string;
  close(): void;
}

export function openStore(path: string, options: { migrate?: boolean; readonly?: boolean } = {}): Store {
  if (path !== ":memory:" && !options.readonly) mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, options.readonly ? { readonly: true } : { create: true, readwrite: true, strict: true });
  // WAL lets readers (the server, `backup`, `export`) run beside one writer; busy_timeout makes a
  // second process wait for the write lock instead of failing at once.
  sqlite.exec("PRAGMA busy_timeout = 5000");
  if (!options.readonly) {
    sqlite.exec("PRAGMA journal_mode = WAL");
    sqlite.exec("PRAGMA synchronous = NORMAL");
  }
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA temp_store = MEMORY");
  sqlite.exec("PRAGMA cache_size = -65536");
  recordKeysInWriteTransactions(sqlite);
  const db = drizzle(sqlite, { schema }) as Db;
  if (options.migrate !== false && !options.readonly) migrate(db);
  return {
    sqlite,
    db,
    path,
    close() {
      sqlite.close();
    },
  };
}

/**
 * Every write transaction of this connection first records the Idempotency-Key of the request it
 * answers, if any, so the key is stored with the write or not at all (see ./idempotency.ts).
 */
function recordKeysInWriteTransactions(sqlite: Database): void {
  const transaction = sqlite.transaction.bind(sqlite);
  sqlite.transaction = ((work: (...args: any[]) => unknown) =>
    transaction(function (this: unknown, ...args: any[]) {
      recordInTransaction(sqlite);
      return work.apply(this, args);
    })) as Database["transaction"];
}

/** Applies the migrations embedded in this build; drizzle's own journal table records them. */
export function migrate(db: Db): number {
  const migrations = embeddedMigrations.map((m) => ({
    sql: m.sql.split("--> statement-breakpoint"),
    bps: m.breakpoints,
    folderMillis: m.when,
    hash: new Bun.CryptoHasher("sha256").update(m.sql).digest("hex"),
  }));
  const before = appliedCount(db.$client);
  // drizzle's dialect runs the pending ones in a single transaction.
  (db as any).dialect.migrate(migrations, (db as any).session, {});
  return appliedCount(db.$client) - before;
}

function appliedCount(sqlite: Database): number {
  const exists = sqlite
    .query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
    .get();
  if (!exists) return 0;
  return (sqlite.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
}
