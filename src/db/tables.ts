// Tables of no one feature: server-wide values (meta) and the answers kept for Idempotency-Key
// retries. SQLite first, then the same tables for PostgreSQL (docs/architecture.md).
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";

// SQLite

/** Server-wide values that must survive restarts, such as the cursor signing secret. */
export const meta = sqlite.sqliteTable("meta", {
  key: sqlite.text("key").primaryKey(),
  value: sqlite.text("value").notNull(),
});

/**
 * Answers to keyed writes sent with an `Idempotency-Key` (http/idempotency.ts), kept 24 h per
 * account and key so a retry gets the first answer instead of writing again. The row is written by
 * the write's own transaction (status still null), then completed with the answer.
 */
export const idempotencyKeys = sqlite.sqliteTable(
  "idempotency_keys",
  {
    accountId: sqlite.text("account_id").notNull(),
    key: sqlite.text("key").notNull(),
    /** SHA-256 of method, path and body: a reuse of the key for another request is refused. */
    fingerprint: sqlite.text("fingerprint").notNull(),
    /** Which request holds the key: only that request may complete the row. */
    claim: sqlite.text("claim").notNull(),
    /** Null while the write has committed and its answer is not recorded yet. */
    status: sqlite.integer("status"),
    contentType: sqlite.text("content_type"),
    body: sqlite.text("body"),
    createdAt: sqlite.integer("created_at").notNull(),
  },
  (table) => [sqlite.primaryKey({ columns: [table.accountId, table.key] }), sqlite.index("idempotency_keys_created_idx").on(table.createdAt)],
);

// PostgreSQL

/** Server-wide values that must survive restarts, such as the cursor signing secret. */
export const metaPg = pg.pgTable("meta", {
  key: pg.text("key").primaryKey(),
  value: pg.text("value").notNull(),
});

/**
 * Answers to keyed writes sent with an `Idempotency-Key` (http/idempotency.ts), kept 24 h per
 * account and key so a retry gets the first answer instead of writing again. The row is written by
 * the write's own transaction (status still null), then completed with the answer.
 */
export const idempotencyKeysPg = pg.pgTable(
  "idempotency_keys",
  {
    accountId: pg.text("account_id").notNull(),
    key: pg.text("key").notNull(),
    /** SHA-256 of method, path and body: a reuse of the key for another request is refused. */
    fingerprint: pg.text("fingerprint").notNull(),
    /** Which request holds the key: only that request may complete the row. */
    claim: pg.text("claim").notNull(),
    /** Null while the write has committed and its answer is not recorded yet. */
    status: pg.integer("status"),
    contentType: pg.text("content_type"),
    body: pg.text("body"),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
  },
  (table) => [pg.primaryKey({ columns: [table.accountId, table.key] }), pg.index("idempotency_keys_created_idx").on(table.createdAt)],
);
