// The settings of a SQLite connection, named by what they are for: the ones every connection opens
// with, and the ones a serving process changes afterwards (a worker's share of the page cache, no
// checkpoint inside a request's COMMIT, memory handed back after the warm-up). The serving
// processes (src/server/) ask for these by name instead of writing PRAGMAs of their own. The
// settings a bulk write changes and puts back are beside that work (search-index.ts).
import type { Database as Connection } from "bun:sqlite";

/**
 * SQLite's page cache per connection, in KiB. The pages are private to each connection while the
 * operating system's page cache holds the file once for every process: the workers of
 * `serve --workers N` share this budget (`takePageCacheShare`) instead of each taking it whole.
 */
const PAGE_CACHE_KIB = 65_536;
/** No connection that serves requests gets less: the keyed check's upper B-tree levels fit many times over. */
const MIN_PAGE_CACHE_KIB = 16_384;

/**
 * How much of the database file SQLite reads through a memory map instead of read calls: the most
 * this SQLite build maps (its SQLITE_MAX_MMAP_SIZE, just under 2 GiB); a larger file's tail is read
 * as before. A page read from the map is neither a system call nor a copy into the page cache
 * above, and the lookups of the keyless routes are random pages of a file larger than that cache.
 * In process on the bench database (1M entries, 100k creators, 2-core bench machine, Nov 2026):
 * a search 97-100 µs against 117-134, a directory page 128-134 against 166; the private page cache
 * then holds only written pages and the WAL's, and the process's own memory fell by 30-80 MB, while
 * its RSS counts the file's pages it touched (the operating system's cache of the file, shared by
 * every process that maps it: docs/performance.md, "Tenth and eleventh sittings").
 */
export const MAPPED_BYTES = 2_147_418_112;

/** How long a connection sleeps in SQLite waiting for another process's write lock (a CLI's). */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * What every connection opens with. WAL lets readers (the server, `backup`, `export`) run beside
 * one writer; the busy timeout makes a CLI process wait for the write lock instead of failing at
 * once (the serving process turns it off: `neverSleepOnLocks`); reads go through the memory map
 * (`MAPPED_BYTES`). `temporaryFiles`: temporary storage in files (SQLite's own default) rather than
 * memory, for the CLI import's index builds.
 */
export function configureConnection(sqlite: Connection, options: { readonly?: boolean; temporaryFiles?: boolean }): void {
  sqlite.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (!options.readonly) {
    sqlite.exec("PRAGMA journal_mode = WAL");
    sqlite.exec("PRAGMA synchronous = NORMAL");
  }
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec(`PRAGMA temp_store = ${options.temporaryFiles ? "FILE" : "MEMORY"}`);
  sqlite.exec(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`);
  sqlite.exec(`PRAGMA mmap_size = ${MAPPED_BYTES}`);
}

/**
 * A read-only connection a helper thread keeps for its reads (the signed feed's pages): it may wait
 * for a lock, being off the request thread, and keeps SQLite's small default page cache, the file's
 * pages being in the operating system's cache already.
 */
export function keepForThreadReads(sqlite: Connection): void {
  sqlite.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
}

/** A statement that meets another process's lock fails at once (SQLITE_BUSY) instead of sleeping in SQLite. */
export function neverSleepOnLocks(sqlite: Connection): void {
  sqlite.exec("PRAGMA busy_timeout = 0");
}

/** One of `processes` processes serving the same file keeps its share of the page cache, never below the minimum. */
export function takePageCacheShare(sqlite: Connection, processes: number): void {
  const kib = Math.max(MIN_PAGE_CACHE_KIB, Math.floor(PAGE_CACHE_KIB / Math.max(1, processes)));
  sqlite.exec(`PRAGMA cache_size = -${kib}`);
}

/** No COMMIT on this connection copies the WAL back: a checkpointer does it elsewhere (checkpointer.ts). */
export function leaveCheckpointsToOthers(sqlite: Connection): void {
  sqlite.exec("PRAGMA wal_autocheckpoint = 0");
}

/**
 * Hands back the memory of the connection's page cache and of its map of the file (pages read once,
 * by a warm-up): a new map size makes SQLite unmap the file and map it again, its pages resident
 * again only as reads touch them.
 */
export function releaseCachedPages(sqlite: Connection): void {
  sqlite.exec("PRAGMA shrink_memory");
  sqlite.exec("PRAGMA mmap_size = 0");
  sqlite.exec(`PRAGMA mmap_size = ${MAPPED_BYTES}`);
}
