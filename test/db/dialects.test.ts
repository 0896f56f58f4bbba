// The SQLite and PostgreSQL twins of every table agree: the same tables, columns (name, kind,
// nullability, default, enum), primary keys, indexes and foreign keys. Each module declares both
// side by side in its tables.ts; this is what keeps a column added to one from missing in the other.
// Kinds are compared as drizzle reads them, so SQLite's integer epoch milliseconds and PostgreSQL's
// bigint are both numbers, and SQLite's 0/1 integer flags and PostgreSQL's boolean both booleans.
import { describe, expect, test } from "bun:test";
import { getTableConfig as pgConfig, type PgTable } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import * as pgSchema from "../../src/db/schema.pg";
import * as sqliteSchema from "../../src/db/schema";

type Shape = ReturnType<typeof shapeOf>;

/**
 * A column's kind as drizzle reads it. PostgreSQL's bytea is a custom column (drizzle has no
 * builtin for it) holding what SQLite's buffer blob holds.
 */
function kindOf(column: { dataType: string; getSQLType(): string }): string {
  return column.dataType === "custom" && column.getSQLType() === "bytea" ? "buffer" : column.dataType;
}

function shapeOf(config: ReturnType<typeof sqliteConfig> | ReturnType<typeof pgConfig>) {
  const columns = Object.fromEntries(
    config.columns.map((c) => [
      c.name,
      { kind: kindOf(c), notNull: c.notNull, primary: c.primary, unique: c.isUnique, hasDefault: c.hasDefault, enum: c.enumValues ?? null },
    ]),
  );
  const indexes = config.indexes
    .map((i) => ({
      name: i.config.name ?? "",
      unique: !!i.config.unique,
      // A column by name, an expression by its SQL text (both dialects write the same text here).
      on: i.config.columns.map((c: any) => ("name" in c && typeof c.name === "string" ? c.name : "expression")),
      partial: !!i.config.where,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const primaryKeys = config.primaryKeys.map((k) => k.columns.map((c) => c.name));
  const foreignKeys = config.foreignKeys
    .map((f) => {
      const ref = f.reference();
      return { from: ref.columns.map((c) => c.name), to: [(ref.foreignTable as any)[Symbol.for("drizzle:Name")], ...ref.foreignColumns.map((c) => c.name)] };
    })
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return { name: config.name, columns, indexes, primaryKeys, foreignKeys };
}

const sqliteTables = new Map(Object.values(sqliteSchema).map((table) => {
  const shape = shapeOf(sqliteConfig(table as SQLiteTable));
  return [shape.name, shape] as const;
}));
const pgTables = new Map(Object.values(pgSchema).map((table) => {
  const shape = shapeOf(pgConfig(table as PgTable));
  return [shape.name, shape] as const;
}));

test("both dialects define the same tables", () => {
  expect([...pgTables.keys()].sort()).toEqual([...sqliteTables.keys()].sort());
  expect(sqliteTables.size).toBeGreaterThanOrEqual(25);
});

/**
 * PostgreSQL columns that stand for SQLite's implicit rowid (an insertion-order integer key the
 * directory index and the referral leaderboard read): SQLite has them without declaring them.
 */
const PLAYS_ROWID: Record<string, string> = { creators: "seq", referrals: "seq" };

/**
 * Indexes only PostgreSQL needs: a handle prefix is a LIKE 'p%' there, which a text_pattern_ops
 * index serves whatever the collation; SQLite reads the same prefix as a range of the handle's own
 * unique index.
 */
const POSTGRES_ONLY_INDEXES: Record<string, string[]> = { creators: ["creators_handle_prefix_idx"] };

describe("each table agrees across the dialects", () => {
  for (const [name, sqlite] of sqliteTables) {
    test(name, () => {
      const pg = structuredClone(pgTables.get(name) as Shape);
      expect(pg).toBeDefined();
      const rowid = PLAYS_ROWID[name];
      if (rowid) {
        expect(pg.columns[rowid]).toMatchObject({ kind: "number", notNull: true, unique: true });
        delete pg.columns[rowid];
      }
      expect(pg.columns).toEqual(sqlite.columns);
      const extra = POSTGRES_ONLY_INDEXES[name] ?? [];
      expect(pg.indexes.filter((i) => extra.includes(i.name)).map((i) => i.name)).toEqual(extra);
      pg.indexes = pg.indexes.filter((i) => !extra.includes(i.name));
      expect(pg.primaryKeys).toEqual(sqlite.primaryKeys);
      expect(pg.indexes).toEqual(sqlite.indexes);
      expect(pg.foreignKeys).toEqual(sqlite.foreignKeys);
    });
  }
});

test("the comparison sees a difference: a column's kind, nullability or an index", () => {
  const sample = [...sqliteTables.values()].find((t) => t.indexes.length > 0 && Object.keys(t.columns).length > 2)!;
  const altered = structuredClone(sample);
  const first = Object.keys(altered.columns)[0]!;
  altered.columns[first]!.notNull = !altered.columns[first]!.notNull;
  expect(altered.columns).not.toEqual(sample.columns);
  altered.indexes.pop();
  expect(altered.indexes).not.toEqual(sample.indexes);
});
