// Bulk writes: the FTS5 suggestion index, the names it indexes and the blacklist's secondary
// indexes. Triggers keep the trigram index in step row by row, which costs about 40% of a large
// import; rebuilding it once at the end is several times cheaper. Likewise a million entries
// inserted into five secondary indexes in key order that is random for most of them cost 13.5 s
// of CPU, against 5.1 s without them plus 2.9 s to create them afterwards from sorted runs, and
// the name triggers (one upsert into search_names per row) cost about 2.6 s more than one
// grouped insert (measured with 1M entries of the bench data set, bun:sqlite 3.54). Everything
// happens inside the caller's transaction, so a failed import leaves the triggers and the indexes
// exactly as they were. The connection's own settings for a bulk write (journal, page cache,
// foreign-key checks) are switched around the transaction and put back after it.
import type { Database } from "bun:sqlite";

/**
 * Triggers that write into the FTS5 tables (the tables they read stay maintained). The rebuild
 * reads search_names_pool, the suggestible names only (migration 0007).
 */
const INDEX_TRIGGERS = ["search_names_ai", "search_names_ad", "search_names_au_shown", "search_names_au_hidden"];
const INDEXES = ["search_names_fts"];
/**
 * The table whose secondary indexes a bulk write may drop and re-create here; it is not read
 * while the write runs. (An import drops the connections' and the creators' itself, to build them
 * at moments of its own: `suspendIndexes`.)
 */
const BULK_TABLES = ["blacklist_entries"];
/** Triggers that keep search_names' reference counts in step with creators, connections and entries. */
const NAME_TRIGGERS = [
  "creators_name_ai",
  "connections_name_ai",
  "connections_name_au_old",
  "connections_name_au_new",
  "connections_name_ad",
  "entries_name_ai",
  "entries_name_au_old",
  "entries_name_au_new",
];
/**
 * Every name those triggers count, by source (public names, confirmed entries, private links):
 * migration 0007's own recount. It must say exactly what the triggers do (test/transfer/transfer.test.ts
 * compares a rebuilt search_names with one the triggers kept). The entries are read in table
 * order: through the partial username index each row was a look-up out of order (1.8 s against
 * 1.3 s for the whole recount at 1M entries).
 */
const RECOUNT_NAMES = `
  INSERT INTO search_names (name, public_refs, entry_refs, private_refs)
  SELECT name, sum(pub), sum(ent), sum(priv) FROM (
    SELECT handle AS name, 1 AS pub, 0 AS ent, 0 AS priv FROM creators
    UNION ALL SELECT lower(provider_username), public <> 0, 0, public = 0 FROM connections WHERE provider_username IS NOT NULL
    UNION ALL SELECT lower(username), 0, 1, 0 FROM blacklist_entries NOT INDEXED WHERE status = 'active' AND watchlist = 0 AND username IS NOT NULL
  ) GROUP BY name`;

/**
 * Drops the index-writing triggers and, with `rebuildTables` (a write large next to what is
 * stored), the name triggers and the non-unique indexes of the bulk tables; the returned function
 * re-creates them, recounts search_names from the tables when its triggers were off, and rebuilds
 * the FTS5 index. Unique indexes stay: they are what refuses a duplicate line.
 */
export function suspendSearchIndexing(sqlite: Database, options: { rebuildTables?: boolean } = {}): () => void {
  const resumeTriggers = suspendTriggers(sqlite, options.rebuildTables ? [...INDEX_TRIGGERS, ...NAME_TRIGGERS] : INDEX_TRIGGERS);
  const resumeIndexes = options.rebuildTables ? suspendIndexes(sqlite, BULK_TABLES) : () => {};
  return () => {
    resumeIndexes();
    if (options.rebuildTables) {
      sqlite.run("DELETE FROM search_names");
      sqlite.run(RECOUNT_NAMES);
    }
    resumeTriggers();
    for (const index of INDEXES) {
      sqlite.run(`INSERT INTO "${index}"("${index}") VALUES ('rebuild')`);
      // A rebuild leaves several segments (5 at the bench's 1M entries); later writes then merge
      // into them, and the expiry job's deletes (100-row slices of 50k lapsed entries) spent up
      // to 107-133 ms of CPU in one slice doing that merge work. Merged into one segment here
      // (200 ms, once), the worst slice took 31 ms. The merge needs several segments to merge:
      // rebuilt with a buffer large enough for every term (FTS5's `hashsize`), the rebuild wrote
      // one segment at level 0, the optimize left it there, and the job's deletes merged into it
      // again (worst wait 160-200 ms behind the job).
      sqlite.run(`INSERT INTO "${index}"("${index}") VALUES ('optimize')`);
    }
  };
}

/** Drops the named triggers inside the caller's transaction; the returned function re-creates them. */
export function suspendTriggers(sqlite: Database, names: string[]): () => void {
  const triggers = sqlite
    .query<{ name: string; sql: string }, []>(
      `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (${names.map((n) => `'${n}'`).join(", ")})`,
    )
    .all();
  for (const { name } of triggers) sqlite.run(`DROP TRIGGER "${name}"`);
  return () => {
    for (const { sql } of triggers) sqlite.run(sql);
  };
}

/**
 * Drops the non-unique indexes of `tables` inside the caller's transaction (unique ones refuse
 * duplicates, so they stay); the returned function re-creates them from sorted runs.
 */
export function suspendIndexes(sqlite: Database, tables: string[]): () => void {
  const indexes = sqlite
    .query<{ name: string; sql: string }, []>(
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%'
         AND tbl_name IN (${tables.map((n) => `'${n}'`).join(", ")})`,
    )
    .all();
  for (const { name } of indexes) sqlite.run(`DROP INDEX "${name}"`);
  return () => {
    for (const { sql } of indexes) sqlite.run(sql);
  };
}

/**
 * Switches a WAL database to a rollback journal for one bulk write when no other connection has
 * it open, and returns the function that switches it back (null when another connection kept it
 * in WAL). In WAL mode the commit of a 1M-entry import wrote every new page twice, once to the
 * WAL (two writes a page) and again at the checkpoint: 2.5-4.5 s of a 22 s import, most of it
 * system time. A rollback journal keeps only pages that existed before (a fresh database: the
 * empty schema) and the commit writes each new page once, in place (0.7-2.0 s; bench data set,
 * 2-core machine). A failed import still rolls back from the journal. A server started during
 * such an import waits (its switch to WAL needs the lock) until the import ends.
 */
export function rollbackJournalWhileAlone(sqlite: Database): (() => void) | null {
  const mode = sqlite.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()!.journal_mode;
  if (mode !== "wal") return null;
  const busyTimeout = pragmaValue(sqlite, "busy_timeout");
  const synchronous = pragmaValue(sqlite, "synchronous");
  // Leaving WAL needs the file to itself: ask once, without waiting for anyone's lock.
  sqlite.run("PRAGMA busy_timeout = 0");
  try {
    sqlite.query("PRAGMA journal_mode = DELETE").get();
  } catch {
    return null;
  } finally {
    sqlite.run(`PRAGMA busy_timeout = ${busyTimeout}`);
  }
  // A rollback journal is crash-safe only with a sync before the pages it guards are overwritten.
  sqlite.run("PRAGMA synchronous = FULL");
  return () => {
    sqlite.run(`PRAGMA synchronous = ${synchronous}`);
    try {
      sqlite.query("PRAGMA journal_mode = WAL").get();
    } catch {
      // Another connection holds the file (after busy_timeout): whoever opens it next sets WAL
      // again, as every connection does (src/db/client.ts).
    }
  };
}

/** Sets the connection's page cache to `kib` for one bulk write; the returned function puts it back. */
export function pageCacheWhileBulk(sqlite: Database, kib: number): () => void {
  const cacheSize = pragmaValue(sqlite, "cache_size");
  sqlite.run(`PRAGMA cache_size = -${kib}`);
  return () => sqlite.run(`PRAGMA cache_size = ${cacheSize}`);
}

/** The page cache, in KiB, while `sortInRunsWhileBulk` holds: SQLite's sorter fills runs of this size. */
const SORT_RUN_KIB = 1024;

/** Most threads SQLite's sorter may add while `sortInRunsWhileBulk` holds. */
const SORT_THREADS_MAX = 4;

/**
 * Lets the sorts of a bulk write's last statements (CREATE INDEX, the recount's GROUP BY) run as
 * SQLite's multi-threaded external sort; the returned function puts the connection back. The
 * sorter sizes its in-memory runs by the page cache: with the import's 1 GiB cache each index
 * was one 40-60 MB sort on one thread (the subject index: 1.5 s of 2.9 s for the seven at 1M
 * entries). With 1 MiB runs, each sorted on another core while this thread reads the table, and
 * merged in a few passes, the seven took 1.7-1.9 s and less CPU (bench data set, 2 cores). The
 * smaller cache must not push the write's dirty pages out to the file: spilling stays at the
 * import cache's size (`cache_spill` in pages), and the cache_size itself is put back after.
 * The runs go to temporary files: with temporary storage in memory (a server's connection, see
 * `temporaryFiles` in src/db/client.ts) the sorter makes one in-memory sort whatever the cache.
 */
export function sortInRunsWhileBulk(sqlite: Database, threads: number): () => void {
  const cacheSize = pragmaValue(sqlite, "cache_size");
  const sorterThreads = pragmaValue(sqlite, "threads");
  sqlite.run(`PRAGMA cache_spill = ${pragmaValue(sqlite, "cache_spill")}`);
  sqlite.run(`PRAGMA cache_size = -${SORT_RUN_KIB}`);
  sqlite.run(`PRAGMA threads = ${Math.min(threads, SORT_THREADS_MAX)}`);
  return () => {
    sqlite.run(`PRAGMA threads = ${sorterThreads}`);
    sqlite.run(`PRAGMA cache_size = ${cacheSize}`);
    // 1 is SQLite's own setting: spill once the cache is full, whatever its size.
    sqlite.run("PRAGMA cache_spill = 1");
  };
}

/** A numeric PRAGMA's value on this connection. */
function pragmaValue(sqlite: Database, name: string): number {
  return Object.values(sqlite.query<Record<string, number>, []>(`PRAGMA ${name}`).get()!)[0]!;
}

/**
 * Stops the connection checking foreign keys for a bulk write whose every reference names a row
 * it has just read or written; the returned function turns the checks back on. The pragma cannot
 * change inside a transaction: call it before the BEGIN and resume after the COMMIT or ROLLBACK.
 */
export function foreignKeysUncheckedWhileBulk(sqlite: Database): () => void {
  const checked = pragmaValue(sqlite, "foreign_keys");
  if (!checked) return () => {};
  sqlite.run("PRAGMA foreign_keys = OFF");
  return () => sqlite.run("PRAGMA foreign_keys = ON");
}
