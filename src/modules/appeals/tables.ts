// The appeals module's table, `appeals` (docs/moderation.md, "Appeals"), SQLite first and then
// PostgreSQL, side by side so a column changes in both at once (test/db/dialects.test.ts compares
// them). Times are epoch milliseconds: integer in SQLite, bigint in PostgreSQL. src/db/schema.ts
// and schema.pg.ts re-export it for drizzle-kit.
import { sql } from "drizzle-orm";
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";
import { APPEAL_OUTCOMES, APPEAL_STATUSES, APPELLANT_KINDS, PROVIDERS, SEVERITIES } from "../../domain";
import { blacklistEntries, blacklistEntriesPg } from "../blacklist/tables";

// SQLite

/**
 * Appeals: the listed person heard about one entry. Filed by a bot's key for the platform account
 * it talks to (`filed_by` the key's account, `relayed_by` the key) or by a signed-in creator
 * (`filed_by` the creator's id). At most one is open per entry.
 */
export const appeals = sqlite.sqliteTable(
  "appeals",
  {
    id: sqlite.text("id").primaryKey(),
    entryId: sqlite.text("entry_id")
      .notNull()
      .references(() => blacklistEntries.id),
    status: sqlite.text("status", { enum: APPEAL_STATUSES }).notNull(),
    statement: sqlite.text("statement").notNull(),
    filedByKind: sqlite.text("filed_by_kind", { enum: APPELLANT_KINDS }).notNull(),
    filedBy: sqlite.text("filed_by").notNull(),
    relayedBy: sqlite.text("relayed_by"),
    /** The account the appeal speaks for (a bot's), or null for a creator's own. */
    provider: sqlite.text("provider", { enum: PROVIDERS }),
    providerUserId: sqlite.text("provider_user_id"),
    outcome: sqlite.text("outcome", { enum: APPEAL_OUTCOMES }),
    /** The decision's public note. */
    note: sqlite.text("note"),
    /** A downgrade's new severity, and the entry it issued. */
    severity: sqlite.text("severity", { enum: SEVERITIES }),
    newEntryId: sqlite.text("new_entry_id"),
    /** The audit actor that decided, `kind:id`. */
    decidedBy: sqlite.text("decided_by"),
    createdAt: sqlite.integer("created_at").notNull(),
    decidedAt: sqlite.integer("decided_at"),
  },
  (table) => [
    sqlite.uniqueIndex("appeals_open_entry_idx").on(table.entryId).where(sql`${table.status} = 'open'`),
    // The cooldown after a decided appeal, and an entry's appeals for staff.
    sqlite.index("appeals_entry_idx").on(table.entryId, table.createdAt),
    sqlite.index("appeals_filed_by_idx").on(table.filedBy, table.createdAt),
    sqlite.index("appeals_queue_idx").on(table.status, table.createdAt, table.id),
  ],
);

// PostgreSQL

/** Appeals (see the SQLite twin above). */
export const appealsPg = pg.pgTable(
  "appeals",
  {
    id: pg.text("id").primaryKey(),
    entryId: pg.text("entry_id")
      .notNull()
      .references(() => blacklistEntriesPg.id),
    status: pg.text("status", { enum: APPEAL_STATUSES }).notNull(),
    statement: pg.text("statement").notNull(),
    filedByKind: pg.text("filed_by_kind", { enum: APPELLANT_KINDS }).notNull(),
    filedBy: pg.text("filed_by").notNull(),
    relayedBy: pg.text("relayed_by"),
    /** The account the appeal speaks for (a bot's), or null for a creator's own. */
    provider: pg.text("provider", { enum: PROVIDERS }),
    providerUserId: pg.text("provider_user_id"),
    outcome: pg.text("outcome", { enum: APPEAL_OUTCOMES }),
    /** The decision's public note. */
    note: pg.text("note"),
    /** A downgrade's new severity, and the entry it issued. */
    severity: pg.text("severity", { enum: SEVERITIES }),
    newEntryId: pg.text("new_entry_id"),
    /** The audit actor that decided, `kind:id`. */
    decidedBy: pg.text("decided_by"),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
    decidedAt: pg.bigint("decided_at", { mode: "number" }),
  },
  (table) => [
    pg.uniqueIndex("appeals_open_entry_idx").on(table.entryId).where(sql`${table.status} = 'open'`),
    // The cooldown after a decided appeal, and an entry's appeals for staff.
    pg.index("appeals_entry_idx").on(table.entryId, table.createdAt),
    pg.index("appeals_filed_by_idx").on(table.filedBy, table.createdAt),
    pg.index("appeals_queue_idx").on(table.status, table.createdAt, table.id),
  ],
);
