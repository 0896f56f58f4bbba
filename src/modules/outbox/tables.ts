// The outbox module's table, `outbox_events`, SQLite first and then PostgreSQL, side by side so a
// column changes in both at once (test/db/dialects.test.ts compares them). Times are epoch
// milliseconds: integer in SQLite, bigint in PostgreSQL. src/db/schema.ts and schema.pg.ts
// re-export them for drizzle-kit.
import { sql } from "drizzle-orm";
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";

// SQLite

/** Events written in the same transaction as the change they describe; the webhook worker drains them. */
export const outboxEvents = sqlite.sqliteTable(
  "outbox_events",
  {
    id: sqlite.text("id").primaryKey(),
    type: sqlite.text("type").notNull(),
    /** JSON of the event's `data`. */
    payload: sqlite.text("payload").notNull(),
    createdAt: sqlite.integer("created_at").notNull(),
    /** Set once the event has been fanned out to every subscribed endpoint. */
    dispatchedAt: sqlite.integer("dispatched_at"),
  },
  (table) => [
    // The fan-out reads pending events in (created_at, id) order: with the id in the index, a
    // backlog committed in one millisecond (an import) is read a slice at a time, not sorted whole.
    sqlite.index("outbox_pending_idx")
      .on(table.createdAt, table.id)
      .where(sql`${table.dispatchedAt} IS NULL`),
  ],
);

// PostgreSQL

/** Events written in the same transaction as the change they describe; the webhook worker drains them. */
export const outboxEventsPg = pg.pgTable(
  "outbox_events",
  {
    id: pg.text("id").primaryKey(),
    type: pg.text("type").notNull(),
    /** JSON of the event's `data`. */
    payload: pg.text("payload").notNull(),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
    /** Set once the event has been fanned out to every subscribed endpoint. */
    dispatchedAt: pg.bigint("dispatched_at", { mode: "number" }),
  },
  (table) => [
    // The fan-out reads pending events in (created_at, id) order: with the id in the index, a
    // backlog committed in one millisecond (an import) is read a slice at a time, not sorted whole.
    pg.index("outbox_pending_idx")
      .on(table.createdAt, table.id)
      .where(sql`${table.dispatchedAt} IS NULL`),
  ],
);
