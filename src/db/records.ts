// Whole rows copied out and back in unchanged, for the tables whose rows an export carries as
// they are stored (the moderation record: staff, cases, reports, evidence, comments, mutes,
// appeals and the audit log). The owning module names its table and order; this builds the plain
// SELECT and INSERT from the table's own columns, so a column added to a table is exported and
// restored without another line of code. Rows come back in the table's field names (rows.ts).
import { getTableColumns, getTableName, type Table } from "drizzle-orm";
import type { Database } from "./database";
import { columnsOf, type RowOf, rowReader } from "./rows";
import { type ReadSnapshot, snapshotRows } from "./snapshot";

/** Every row of `table` in `orderBy` order, as of the snapshot. */
export async function* tableRows<T extends Table>(snapshot: ReadSnapshot, table: T, orderBy: string): AsyncGenerator<RowOf<T>> {
  const read = rowReader(table);
  const query = `SELECT ${columnsOf(table)} FROM ${getTableName(table)} ORDER BY ${orderBy}`;
  for await (const row of snapshotRows<Record<string, unknown>>(snapshot, query)) {
    const typed = read(row) as Record<string, unknown>;
    // SQLite hands blobs back as Uint8Array; the row type says Buffer.
    for (const [key, value] of Object.entries(typed)) if (value instanceof Uint8Array && !Buffer.isBuffer(value)) typed[key] = Buffer.from(value);
    yield typed as RowOf<T>;
  }
}

/**
 * Inserts one whole row of `table` as given (a restored export's), inside the caller's
 * transaction; identity and autoincrement columns left out of `row` are numbered by the database.
 */
export async function insertRow<T extends Table>(database: Database, table: T, row: Partial<RowOf<T>>): Promise<void> {
  const columns = getTableColumns(table);
  const present = Object.keys(columns).filter((key) => (row as Record<string, unknown>)[key] !== undefined);
  const names = present.map((key) => columns[key]!.name);
  const values = present.map((key) => (row as Record<string, unknown>)[key]);
  const text = `INSERT INTO ${getTableName(table)} (${names.join(", ")}) VALUES (${names.map((_, i) => `$${i + 1}`).join(", ")})`;
  if (database.dialect === "sqlite") {
    database.sqlite.query(text.replace(/\$(\d+)/g, "?$1")).run(...(values.map((v) => (typeof v === "boolean" ? (v ? 1 : 0) : v)) as never[]));
    return;
  }
  await database.write(() => database.sql().unsafe(text, values as never[]));
}

/** A table whose rows an export carries whole: its line type, and the order rows are written in. */
export interface RecordKind {
  /** The `type` of its lines. */
  type: string;
  table: Table;
  orderBy: string;
  /** Fields the database numbers itself (a sequence): not exported, numbered again on import in line order. */
  numbered?: string[];
}
