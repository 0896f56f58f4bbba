// Bulk writes and the FTS5 suggestion index. Triggers keep the trigram index in step row by row,
// which costs about 40% of a large import; rebuilding it once at the end is several times
// cheaper. Both happen inside the caller's transaction, so a failed import leaves the triggers
// and the index exactly as they were.
import type { Database } from "bun:sqlite";

/**
 * Triggers that write into the FTS5 tables (the tables they read stay maintained). The rebuild
 * reads search_names_pool, the suggestible names only (migration 0007).
 */
const INDEX_TRIGGERS = ["search_names_ai", "search_names_ad", "search_names_au_shown", "search_names_au_hidden"];
const INDEXES = ["search_names_fts"];

/** Drops the index-writing triggers; the returned function restores them and rebuilds the indexes. */
export function suspendSearchIndexing(sqlite: Database): () => void {
  const triggers = sqlite
    .query<{ name: string; sql: string }, []>(
      `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (${INDEX_TRIGGERS.map((n) => `'${n}'`).join(", ")})`,
    )
    .all();
  for (const { name } of triggers) sqlite.run(`DROP TRIGGER "${name}"`);
  return () => {
    for (const { sql } of triggers) sqlite.run(sql);
    for (const index of INDEXES) sqlite.run(`INSERT INTO "${index}"("${index}") VALUES ('rebuild')`);
  };
}
