// Opens the embedded SQLite store: pragmas, embedded migrations, and the drizzle handle.
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { ExternalChanges } from "./changes";
import { embeddedMigrations } from "./migrations.generated";
import * as schema from "./schema";
import { type WriteOptions, Writer } from "./write";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

export interface Store {
  /** The raw connection, for prepared statements on hot paths. */
  sqlite: Database;
  /** The drizzle handle every service uses. */
  db: Db;
  path: string;
  /** Every write goes through here: one transaction that waits for another process's lock (db/write.ts). */
  write<T>(fn: () => T, options?: WriteOptions): Promise<T>;
  /** Another process's commits, told to the caches that must drop or catch up (db/changes.ts). */
  changes: ExternalChanges;
  /**
   * For the process that serves requests: the connection never sleeps on a lock (busy_timeout 0),
   * so writes wait for one asynchronously, for up to `writeWaitMs` (default 5 s).
   */
  neverBlockOnLocks(options?: { writeWaitMs?: number }): void;
  close(): void;
}

export function openStore(path: string, options: { migrate?: boolean; readonly?: boolean } = {}): Store {
  if (path !== ":memory:" && !options.readonly) mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, options.readonly ? { readonly: true } : { create: true, readwrite: true, strict: true });
  // WAL lets readers (the server, `backup`, `export`) run beside one writer; busy_timeout makes a
  // CLI process wait for the write lock instead of failing at once (the server turns it off).
  sqlite.exec("PRAGMA busy_timeout = 5000");
  if (!options.readonly) {
    sqlite.exec("PRAGMA journal_mode = WAL");
    sqlite.exec("PRAGMA synchronous = NORMAL");
  }
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA temp_store = MEMORY");
  sqlite.exec("PRAGMA cache_size = -65536");
  const db = drizzle(sqlite, { schema }) as Db;
  if (options.migrate !== false && !options.readonly) migrate(db);
  const changes = new ExternalChanges(sqlite);
  const writer = new Writer(sqlite, changes);
  return {
    sqlite,
    db,
    path,
    write: (fn, writeOptions) => writer.write(fn, writeOptions),
    changes,
    neverBlockOnLocks({ writeWaitMs } = {}) {
      sqlite.exec("PRAGMA busy_timeout = 0");
      if (writeWaitMs !== undefined) writer.waitMs = writeWaitMs;
    },
    close() {
      sqlite.close();
    },
  };
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
