// Rows in the shape their table declares. A module's tables.ts is the one source of a row's fields:
// its type is the table's `$inferSelect` (camelCase, as the table names its columns), the SQL reads
// the columns under those names (`columnsOf`), and `rowReader` fixes only what a driver hands back
// in another type: SQLite's 0/1 flags become booleans, PostgreSQL's bigint text becomes numbers.
// Stores keep writing their own SQL (prepared statements on SQLite's hot paths); this only names
// and types what comes back.
import { getTableColumns, type Table } from "drizzle-orm";

/** The row type of a table, or of some of its columns. */
export type RowOf<T extends Table, K extends keyof T["$inferSelect"] = keyof T["$inferSelect"]> = Pick<T["$inferSelect"], K>;

type Column = ReturnType<typeof getTableColumns>[string];

function columnsByKey(table: Table, keys?: readonly PropertyKey[]): [string, Column][] {
  const all = Object.entries(getTableColumns(table));
  if (!keys) return all;
  const wanted = new Set(keys);
  const picked = all.filter(([key]) => wanted.has(key));
  if (picked.length !== wanted.size) {
    const known = new Set(all.map(([key]) => key));
    throw new Error(`No column ${[...wanted].filter((k) => !known.has(k as string)).join(", ")} in this table.`);
  }
  return picked;
}

/**
 * The SELECT list that answers a table's rows under its own field names:
 * `account_id AS "accountId", …`, every column or the `keys` given, each prefixed by `alias.` when
 * one is given (for joins).
 */
export function columnsOf<T extends Table, K extends keyof T["$inferSelect"] & string>(table: T, keys?: readonly K[], alias?: string): string {
  const prefix = alias ? `${alias}.` : "";
  return columnsByKey(table, keys)
    .map(([key, column]) => (key === column.name ? `${prefix}${column.name}` : `${prefix}${column.name} AS "${key}"`))
    .join(", ");
}

/**
 * A function from a driver's row (read with `columnsOf`) to the table's row type. It touches only
 * the columns a driver returns in another type, so on SQLite a table without flags costs nothing.
 */
export function rowReader<T extends Table, K extends keyof T["$inferSelect"] & string = keyof T["$inferSelect"] & string>(
  table: T,
  keys?: readonly K[],
): (raw: Record<string, unknown>) => RowOf<T, K> {
  const flags: string[] = [];
  const numbers: string[] = [];
  for (const [key, column] of columnsByKey(table, keys)) {
    if (column.dataType === "boolean") flags.push(key);
    else if (column.dataType === "number") numbers.push(key);
  }
  return (raw) => {
    for (const key of flags) {
      const value = raw[key];
      if (value !== null && value !== undefined && typeof value !== "boolean") raw[key] = value === 1 || value === "1" || value === "t" || value === true;
    }
    for (const key of numbers) {
      const value = raw[key];
      if (typeof value === "string" || typeof value === "bigint") raw[key] = Number(value);
    }
    return raw as RowOf<T, K>;
  };
}
