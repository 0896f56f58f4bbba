// One bulk write (an import) as its caller sees it: a single transaction on a connection tuned for
// it, and the index and trigger suspensions of search-index.ts, named by what they do. On SQLite
// the write takes the file's lock with BEGIN IMMEDIATE itself and runs every statement without a
// promise (a million lines never wait on one each); PostgreSQL has no such write here, and its
// import is one `database.write(…, { allOrNothing: true })` with the planner told what it loaded
// (`analyzeTables`). The caller never sees a driver.
import type { Database } from "./database";
import { dropIndexesAndKeysWhileEmpty as dropIndexesAndKeysOfEmpty } from "./bulk-indexes.postgres";
import { nameSourceRows, recountNamesAtEnd } from "./search-names.postgres";
import {
  foreignKeysUncheckedWhileBulk,
  pageCacheWhileBulk,
  rollbackJournalWhileAlone,
  sortInRunsWhileBulk,
  suspendIndexes,
  suspendSearchIndexing,
} from "./search-index";

export interface BulkWrite {
  /** `suspendSearchIndexing` (search-index.ts) inside the write; the returned function resumes it. */
  suspendSearchIndexing(options: { rebuildTables?: boolean }): () => void;
  /** Drops the non-unique indexes of `tables` inside the write; the returned function rebuilds them. */
  suspendIndexes(tables: string[]): () => void;
  /** Lets the write's last sorts run in small runs on `threads` threads; the returned function puts the connection back. */
  sortInRuns(threads: number): () => void;
  commit(): void;
  rollback(): void;
  /** Puts the connection's own settings back, once the write has committed or rolled back. */
  release(): void;
}

/**
 * Begins a bulk write where the database offers one (SQLite): the connection's page cache set to
 * `cacheKib` (the pages a large import writes stay in memory until its commit), its foreign-key
 * checks off (every reference an import writes names a row it has just looked up or written), and
 * a rollback journal instead of WAL while no other connection has the file open; then BEGIN
 * IMMEDIATE. Null where there is none (PostgreSQL).
 */
export function beginBulkWrite(database: Database, cacheKib: number): BulkWrite | null {
  if (database.dialect !== "sqlite") return null;
  const { sqlite } = database;
  const resumePageCache = pageCacheWhileBulk(sqlite, cacheKib);
  const resumeForeignKeys = foreignKeysUncheckedWhileBulk(sqlite);
  const resumeWal = rollbackJournalWhileAlone(sqlite);
  const release = () => {
    resumeWal?.();
    resumePageCache();
    resumeForeignKeys();
  };
  try {
    sqlite.run("BEGIN IMMEDIATE");
  } catch (error) {
    release();
    throw error;
  }
  return {
    suspendSearchIndexing: (options) => suspendSearchIndexing(sqlite, options),
    suspendIndexes: (tables) => suspendIndexes(sqlite, tables),
    sortInRuns: (threads) => sortInRunsWhileBulk(sqlite, threads),
    commit: () => sqlite.run("COMMIT"),
    rollback: () => sqlite.run("ROLLBACK"),
    release,
  };
}

/**
 * Refreshes the planner's statistics inside the open write (PostgreSQL: after a bulk load the
 * tables look empty to the planner); nothing to do on SQLite, whose import reads through indexes.
 */
export async function analyzeTables(database: Database): Promise<void> {
  if (database.dialect === "postgres") await database.analyze();
}

/**
 * On PostgreSQL, inside the open write: when the import may bring about as many rows as the
 * suggestion pool's sources hold (`rows`, from the planner's estimates), sets the pool's triggers
 * aside and returns the function that recounts the pool at the end (search-names.postgres.ts).
 * Null on SQLite (its bulk write has `suspendSearchIndexing`) and for a small import.
 */
export async function recountNamesAtEndIfLarge(database: Database, rows: number): Promise<(() => Promise<void>) | null> {
  if (database.dialect !== "postgres") return null;
  if (rows < (await nameSourceRows(database.sql()))) return null;
  return recountNamesAtEnd(() => database.sql());
}

/**
 * On PostgreSQL, inside the open write of a large import: the non-unique indexes and the foreign
 * keys of each of `tables` that holds no row are dropped, and the returned function makes them
 * again before the write's end (bulk-indexes.postgres.ts). Null on SQLite and where nothing was
 * dropped.
 */
export async function dropIndexesAndKeysWhileEmpty(database: Database, tables: string[]): Promise<(() => Promise<void>) | null> {
  if (database.dialect !== "postgres") return null;
  const rebuilds: Array<() => Promise<void>> = [];
  for (const table of tables) {
    const rebuild = await dropIndexesAndKeysOfEmpty(() => database.sql(), table);
    if (rebuild) rebuilds.push(rebuild);
  }
  if (rebuilds.length === 0) return null;
  return async () => {
    for (const rebuild of rebuilds) await rebuild();
  };
}
