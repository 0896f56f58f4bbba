// One read snapshot of the whole database, for a reader that must see every table at one instant
// (the export): a read transaction on a connection of its own, so writers carry on meanwhile.
// Owning modules' stores read their tables through it with `snapshotRows`.
import { Database as SqliteFile } from "bun:sqlite";
import type { ReservedSQL } from "bun";
import type { Database } from "./database";

export type ReadSnapshot = { dialect: "sqlite"; sqlite: SqliteFile } | { dialect: "postgres"; sql: ReservedSQL };

/** PostgreSQL rows fetched per round trip of a snapshot's cursor. */
const CURSOR_PAGE_ROWS = 2_000;

let cursors = 0;

/** Runs `read` on one snapshot: SQLite WAL's read transaction, or PostgreSQL's REPEATABLE READ. */
export async function withReadSnapshot<T>(database: Database, read: (snapshot: ReadSnapshot) => Promise<T>): Promise<T> {
  if (database.dialect === "sqlite") {
    const sqlite = new SqliteFile(database.path, { readonly: true });
    try {
      sqlite.run("BEGIN");
      // The snapshot is taken by the first read, not by BEGIN: read before anything else happens.
      sqlite.query("SELECT count(*) FROM sqlite_master").get();
      return await read({ dialect: "sqlite", sqlite });
    } finally {
      if (sqlite.inTransaction) sqlite.run("COMMIT");
      sqlite.close();
    }
  }
  const sql = await database.sql().reserve();
  try {
    await sql`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`;
    try {
      return await read({ dialect: "postgres", sql });
    } finally {
      await sql`COMMIT`;
    }
  } finally {
    sql.release();
  }
}

/**
 * A query's rows one at a time, memory flat at any size: SQLite steps a statement, PostgreSQL
 * fetches from a cursor in pages. The query has no parameters; times and flags come back as
 * the driver gives them (int8 as strings on PostgreSQL): the caller converts.
 */
export async function* snapshotRows<T>(snapshot: ReadSnapshot, query: string): AsyncGenerator<T> {
  if (snapshot.dialect === "sqlite") {
    yield* snapshot.sqlite.query<T, []>(query).iterate();
    return;
  }
  const cursor = `export_rows_${++cursors}`;
  await snapshot.sql.unsafe(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${query}`);
  try {
    for (;;) {
      const rows: T[] = await snapshot.sql.unsafe(`FETCH ${CURSOR_PAGE_ROWS} FROM ${cursor}`);
      for (const row of rows) yield row;
      if (rows.length < CURSOR_PAGE_ROWS) return;
    }
  } finally {
    await snapshot.sql.unsafe(`CLOSE ${cursor}`);
  }
}
