// The import's recount of search_names on PostgreSQL (the suggestion pool, migration 0001's
// triggers): while the import's transaction sets trustlist.names to 'recount' the triggers stand
// aside (migration 0014) and the table is counted again from creators, connections and entries
// once at the end, as SQLite's import does (search-index.ts). A trigger's upsert per row cost 12 ms
// of the 27 ms per 1k entries their COPY took (bench data set, 2-core machine, Nov 2026). The
// setting ends with the transaction, so a failed import leaves the triggers as they were.
import type { SQL } from "bun";
import { dropIndexesAndKeysWhileEmpty } from "./bulk-indexes.postgres";

/** Every name the triggers count, by source: exactly what they would have written row by row. */
const RECOUNT_NAMES = `
  INSERT INTO search_names (name, public_refs, entry_refs, private_refs)
  SELECT name, sum(pub), sum(ent), sum(priv) FROM (
    SELECT lower(handle) AS name, 1 AS pub, 0 AS ent, 0 AS priv FROM creators
    UNION ALL SELECT lower(provider_username), public::int, 0, (NOT public)::int FROM connections WHERE provider_username IS NOT NULL
    UNION ALL SELECT lower(username), 0, 1, 0 FROM blacklist_entries WHERE status = 'active' AND NOT watchlist AND username IS NOT NULL
  ) counted GROUP BY name`;

/** About how many rows the recount reads (the planner's estimates: no scan). */
export async function nameSourceRows(sql: SQL): Promise<number> {
  const [row] = await sql`
    SELECT coalesce(sum(greatest(reltuples, 0)), 0)::float8 AS n FROM pg_class
    WHERE oid IN ('creators'::regclass, 'connections'::regclass, 'blacklist_entries'::regclass)`;
  return Number(row.n);
}

/** Sets the triggers aside for the open transaction; the returned function recounts the table and puts them back. */
export async function recountNamesAtEnd(sql: () => SQL): Promise<() => Promise<void>> {
  await sql()`SELECT set_config('trustlist.names', 'recount', true)`;
  return async () => {
    await sql()`SELECT set_config('trustlist.names', '', true)`;
    // A pool that held nothing (a first import) gets its trigram index and its unique names built
    // once from the counted names (a GROUP BY repeats no name): 2.2 s of inserting, 0.7 s for the
    // names' index and 1.9 s for the trigrams, against 9.4 s with both kept up name by name (650k
    // names of the bench data set, 2-core machine).
    const rebuild = await dropIndexesAndKeysWhileEmpty(sql, "search_names", { unique: true });
    await sql()`DELETE FROM search_names`;
    await sql().unsafe(RECOUNT_NAMES);
    await rebuild?.();
  };
}
