// The import's secondary indexes and reference checks on PostgreSQL: a table empty when a large
// import begins has its non-unique indexes and its foreign keys dropped inside the import's
// transaction and made again from the loaded rows before its end, as SQLite's import does
// (search-index.ts, `suspendIndexes`). Inserted row by row, a million entries met five indexes in an
// order random for most of them, with the indexes outgrowing the server's buffers; and each feed
// row's foreign key was a look-up of its entry that also locked the entry's row (FOR KEY SHARE,
// which writes the row's header again). A foreign key added back checks every row in one join.
// DDL is transactional here: a failed import rolls the drop back with everything else, so the
// indexes and keys are there again whatever happens. The drop holds the table's ACCESS EXCLUSIVE
// lock until the commit, so only a table that held nothing is treated so (a reader of it waits for
// the import instead of reading an empty table).
import type { SQL } from "bun";

/**
 * When `table` holds no row and belongs to this user: drops its non-unique indexes and its foreign
 * keys and returns the function that makes them again (inside the same transaction); null
 * otherwise. Unique indexes stay (they are what refuses a repeated key), except with `unique`, for
 * a write that cannot repeat one (a GROUP BY's rows): its unique constraints are added back after
 * it too, and still refuse a repeat then.
 */
export async function dropIndexesAndKeysWhileEmpty(sql: () => SQL, table: string, options: { unique?: boolean } = {}): Promise<(() => Promise<void>) | null> {
  // Only the table's owner (or a member of its role) may drop its indexes: another user's import
  // writes through them as they are.
  const [row] = await sql().unsafe(
    `SELECT NOT EXISTS (SELECT 1 FROM ${table}) AND pg_has_role((SELECT relowner FROM pg_class WHERE oid = $1::regclass), 'MEMBER') AS free`,
    [table],
  );
  if (!row.free) return null;
  const indexes: Array<{ name: string; definition: string }> = await sql()`
    SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE i.indrelid = ${table}::regclass AND NOT i.indisunique`;
  const foreignKeys: Array<{ name: string; definition: string }> = await sql()`
    SELECT conname AS name, pg_get_constraintdef(oid) AS definition
    FROM pg_constraint WHERE conrelid = ${table}::regclass AND (contype = 'f' OR (contype = 'u' AND ${options.unique === true}))`;
  for (const index of indexes) await sql().unsafe(`DROP INDEX "${index.name}"`);
  for (const key of foreignKeys) await sql().unsafe(`ALTER TABLE ${table} DROP CONSTRAINT "${key.name}"`);
  return async () => {
    // Sorting a million rows for each index fits in this much memory instead of spilling to disk.
    await sql()`SELECT set_config('maintenance_work_mem', '256MB', true)`;
    for (const index of indexes) await sql().unsafe(index.definition);
    // Checks every row at once (a join against the referenced key, a sort for a unique one): a row
    // naming nothing, or repeating a key, fails the import.
    for (const key of foreignKeys) await sql().unsafe(`ALTER TABLE ${table} ADD CONSTRAINT "${key.name}" ${key.definition}`);
  };
}
