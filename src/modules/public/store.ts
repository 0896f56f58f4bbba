// The suggestion pool, `search_names`: every name a keyless search may suggest, kept by triggers on
// both databases (the public module only reads it). The contract each database implements and the
// factory that picks one: SQLite indexes the suggestible names in an FTS5 trigram table
// (store.sqlite.ts); PostgreSQL in a pg_trgm GIN index (store.postgres.ts,
// migrations/postgres/0001_search_names.sql).
import type { Database } from "../../db/database";
import { PostgresSearchNamesStore } from "./store.postgres";
import { SqliteSearchNamesStore } from "./store.sqlite";

export interface SearchNamesStore {
  /**
   * Suggestible names sharing trigrams with `lower`, those likely most similar first, at most
   * `limit`; the caller scores them exactly. A name at `minSimilarity` (Jaccard) or more is
   * among them unless the lookup's budget ran out first.
   */
  candidates(lower: string, options: { minSimilarity: number; limit: number }): Promise<string[]>;
  /**
   * Re-reads what lookups rank by (SQLite: names per trigram; nothing on PostgreSQL, whose planner
   * keeps its own), with the event loop running between slices when `inSlices`. Returns how many
   * trigrams were counted. On SQLite, without `inSlices`, the work is done before it returns.
   */
  refreshStatistics(inSlices: boolean): Promise<number>;
}

export function createSearchNamesStore(database: Database): SearchNamesStore {
  return database.dialect === "sqlite" ? new SqliteSearchNamesStore(database.sqlite, database.writing) : new PostgresSearchNamesStore(database);
}
