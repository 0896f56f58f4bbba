// Bulk writes: the FTS5 suggestion index and the blacklist's secondary indexes. Triggers keep the
// trigram index in step row by row, which costs about 40% of a large import; rebuilding it once
// at the end is several times cheaper. Likewise a million entries inserted into five secondary
// indexes in key order that is random for most of them cost 13.5 s of CPU, against 5.1 s without
// them plus 2.9 s to create them afterwards from sorted runs (measured with 1M entries of the
// bench data set, bun:sqlite 3.54). Everything happens inside the caller's transaction, so a
// failed import leaves the triggers and the indexes exactly as they were.
import type { Database } from "bun:sqlite";

/** Triggers that write into the FTS5 tables (the tables they read stay maintained). */
const INDEX_TRIGGERS = ["search_names_ai", "search_names_ad"];
const INDEXES = ["search_names_fts"];
/** Tables whose secondary indexes a bulk write may drop and re-create; none of them is read while it runs. */
const BULK_TABLES = ["blacklist_entries"];

/**
 * Drops the index-writing triggers and, with `secondaryIndexes`, the non-unique indexes of the
 * bulk tables; the returned function re-creates them and rebuilds the FTS5 index. Unique indexes
 * stay: they are what refuses a duplicate line.
 */
export function suspendSearchIndexing(sqlite: Database, options: { secondaryIndexes?: boolean } = {}): () => void {
  const triggers = sqlite
    .query<{ name: string; sql: string }, []>(
      `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (${INDEX_TRIGGERS.map((n) => `'${n}'`).join(", ")})`,
    )
    .all();
  const indexes = options.secondaryIndexes
    ? sqlite
        .query<{ name: string; sql: string }, []>(
          `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%'
             AND tbl_name IN (${BULK_TABLES.map((n) => `'${n}'`).join(", ")})`,
        )
        .all()
    : [];
  for (const { name } of triggers) sqlite.run(`DROP TRIGGER "${name}"`);
  for (const { name } of indexes) sqlite.run(`DROP INDEX "${name}"`);
  return () => {
    for (const { sql } of indexes) sqlite.run(sql);
    for (const { sql } of triggers) sqlite.run(sql);
    for (const index of INDEXES) sqlite.run(`INSERT INTO "${index}"("${index}") VALUES ('rebuild')`);
  };
}
