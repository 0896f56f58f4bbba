// The blacklist module's tables, SQLite first and then PostgreSQL, side by side so a column changes in
// both at once (test/db/dialects.test.ts compares them). Times are epoch milliseconds: integer in
// SQLite, bigint in PostgreSQL. src/db/schema.ts and schema.pg.ts re-export them for drizzle-kit.
import { sql } from "drizzle-orm";
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";
import { CHANGE_TYPES, ENTRY_SCOPES, ENTRY_STATUSES, PROVIDERS, SEVERITIES, VERTICALS } from "../../domain";

// SQLite

export const blacklistEntries = sqlite.sqliteTable(
  "blacklist_entries",
  {
    id: sqlite.text("id").primaryKey(),
    provider: sqlite.text("provider", { enum: PROVIDERS }).notNull(),
    providerUserId: sqlite.text("provider_user_id").notNull(),
    username: sqlite.text("username"),
    severity: sqlite.text("severity", { enum: SEVERITIES }).notNull(),
    scope: sqlite.text("scope", { enum: ENTRY_SCOPES }).notNull(),
    vertical: sqlite.text("vertical", { enum: VERTICALS }).notNull(),
    reasonCode: sqlite.text("reason_code").notNull(),
    summary: sqlite.text("summary"),
    issuedAt: sqlite.integer("issued_at").notNull(),
    expiresAt: sqlite.integer("expires_at"),
    appealable: sqlite.integer("appealable", { mode: "boolean" }).notNull(),
    highRisk: sqlite.integer("high_risk", { mode: "boolean" }).notNull().default(false),
    watchlist: sqlite.integer("watchlist", { mode: "boolean" }).notNull().default(false),
    /** Handle of the creator this entry names directly, if any. */
    creatorHandle: sqlite.text("creator_handle"),
    evidence: sqlite.text("evidence"),
    /** Who filed it: a key id, `cli`, or `import`. */
    reporter: sqlite.text("reporter"),
    status: sqlite.text("status", { enum: ENTRY_STATUSES }).notNull().default("active"),
    overturnedAt: sqlite.integer("overturned_at"),
    overturnReason: sqlite.text("overturn_reason"),
    /** The entry this one replaced (an appeal's downgrade overturns the old one and issues this). */
    supersedes: sqlite.text("supersedes"),
    /** The followed source's name when the entry was applied from one, and its id there. */
    source: sqlite.text("source"),
    upstreamId: sqlite.text("upstream_id"),
    createdAt: sqlite.integer("created_at").notNull(),
  },
  (table) => [
    // The check path: every row of one subject, read straight from the index.
    sqlite.index("blacklist_subject_idx").on(table.provider, table.providerUserId, table.status),
    // The list path: confirmed active rows in list order, so a keyset page is a range scan.
    sqlite.index("blacklist_list_idx")
      .on(table.issuedAt, table.id)
      .where(sql`${table.status} = 'active' AND ${table.watchlist} = 0`),
    // The expiry job: active rows that carry an expiry.
    sqlite.index("blacklist_expiry_idx")
      .on(table.expiresAt)
      .where(sql`${table.status} = 'active' AND ${table.expiresAt} IS NOT NULL`),
    // Half the entries name no username and all but a few name no creator: neither kind of row
    // is ever looked up by these, so they are left out (half the username index's size, the
    // creator index's nearly all; an import of 1M entries builds both 0.5 s faster).
    sqlite.index("blacklist_username_idx")
      .on(sql`lower(${table.username})`)
      .where(sql`${table.username} IS NOT NULL`),
    sqlite.index("blacklist_creator_idx").on(table.creatorHandle).where(sql`${table.creatorHandle} IS NOT NULL`),
    // What one source's items became here, found by the source's id for each.
    sqlite.index("blacklist_source_idx").on(table.source, table.upstreamId).where(sql`${table.source} IS NOT NULL`),
  ],
);

/** Ordered feed of list changes, so a mirror can follow removals as well as additions. */
export const blacklistChanges = sqlite.sqliteTable(
  "blacklist_changes",
  {
    seq: sqlite.integer("seq").primaryKey({ autoIncrement: true }),
    type: sqlite.text("type", { enum: CHANGE_TYPES }).notNull(),
    entryId: sqlite.text("entry_id")
      .notNull()
      .references(() => blacklistEntries.id),
    at: sqlite.integer("at").notNull(),
  },
  // No index on entry_id: the feed is read by seq, and entries are never deleted or renumbered,
  // so the foreign key never looks changes up by entry. (An index there held 39 MB at 1M entries
  // and was written on every change.)
);

// PostgreSQL

export const blacklistEntriesPg = pg.pgTable(
  "blacklist_entries",
  {
    id: pg.text("id").primaryKey(),
    provider: pg.text("provider", { enum: PROVIDERS }).notNull(),
    providerUserId: pg.text("provider_user_id").notNull(),
    username: pg.text("username"),
    severity: pg.text("severity", { enum: SEVERITIES }).notNull(),
    scope: pg.text("scope", { enum: ENTRY_SCOPES }).notNull(),
    vertical: pg.text("vertical", { enum: VERTICALS }).notNull(),
    reasonCode: pg.text("reason_code").notNull(),
    summary: pg.text("summary"),
    issuedAt: pg.bigint("issued_at", { mode: "number" }).notNull(),
    expiresAt: pg.bigint("expires_at", { mode: "number" }),
    appealable: pg.boolean("appealable").notNull(),
    highRisk: pg.boolean("high_risk").notNull().default(false),
    watchlist: pg.boolean("watchlist").notNull().default(false),
    /** Handle of the creator this entry names directly, if any. */
    creatorHandle: pg.text("creator_handle"),
    evidence: pg.text("evidence"),
    /** Who filed it: a key id, `cli`, or `import`. */
    reporter: pg.text("reporter"),
    status: pg.text("status", { enum: ENTRY_STATUSES }).notNull().default("active"),
    overturnedAt: pg.bigint("overturned_at", { mode: "number" }),
    overturnReason: pg.text("overturn_reason"),
    /** The entry this one replaced (an appeal's downgrade overturns the old one and issues this). */
    supersedes: pg.text("supersedes"),
    /** The followed source's name when the entry was applied from one, and its id there. */
    source: pg.text("source"),
    upstreamId: pg.text("upstream_id"),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
  },
  (table) => [
    // The check path: every row of one subject, read straight from the index.
    pg.index("blacklist_subject_idx").on(table.provider, table.providerUserId, table.status),
    // The list path: confirmed active rows in list order, so a keyset page is a range scan.
    pg.index("blacklist_list_idx")
      .on(table.issuedAt, table.id)
      .where(sql`${table.status} = 'active' AND NOT ${table.watchlist}`),
    // The expiry job: active rows that carry an expiry.
    pg.index("blacklist_expiry_idx")
      .on(table.expiresAt)
      .where(sql`${table.status} = 'active' AND ${table.expiresAt} IS NOT NULL`),
    // Half the entries name no username and all but a few name no creator: neither kind of row
    // is ever looked up by these, so they are left out (half the username index's size, the
    // creator index's nearly all; an import of 1M entries builds both 0.5 s faster).
    pg.index("blacklist_username_idx")
      .on(sql`lower(${table.username})`)
      .where(sql`${table.username} IS NOT NULL`),
    pg.index("blacklist_creator_idx").on(table.creatorHandle).where(sql`${table.creatorHandle} IS NOT NULL`),
    // What one source's items became here, found by the source's id for each.
    pg.index("blacklist_source_idx").on(table.source, table.upstreamId).where(sql`${table.source} IS NOT NULL`),
  ],
);

/** Ordered feed of list changes, so a mirror can follow removals as well as additions. */
export const blacklistChangesPg = pg.pgTable(
  "blacklist_changes",
  {
    seq: pg.bigint("seq", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    type: pg.text("type", { enum: CHANGE_TYPES }).notNull(),
    entryId: pg.text("entry_id")
      .notNull()
      .references(() => blacklistEntriesPg.id),
    at: pg.bigint("at", { mode: "number" }).notNull(),
  },
  // No index on entry_id: the feed is read by seq, and entries are never deleted or renumbered,
  // so the foreign key never looks changes up by entry. (An index there held 39 MB at 1M entries
  // and was written on every change.)
);
