// The creators module's tables, SQLite first and then PostgreSQL, side by side so a column changes in
// both at once (test/db/dialects.test.ts compares them). Times are epoch milliseconds: integer in
// SQLite, bigint in PostgreSQL. src/db/schema.ts and schema.pg.ts re-export them for drizzle-kit.
import { sql } from "drizzle-orm";
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";
import { PROVIDERS } from "../../domain";
import { TRUST_BANDS } from "./trust";

// SQLite

/**
 * Creators. The trust columns and counters are derived: they are recomputed, in the same
 * transaction, whenever an input changes, so directory sorts and badges read one row.
 */
export const creators = sqlite.sqliteTable(
  "creators",
  {
    id: sqlite.text("id").primaryKey(),
    /** Lower-case, `[a-z0-9_.]{2,32}`. */
    handle: sqlite.text("handle").notNull().unique(),
    displayName: sqlite.text("display_name"),
    verificationLevel: sqlite.integer("verification_level").notNull().default(0),
    karma: sqlite.integer("karma").notNull().default(0),
    joinedAt: sqlite.integer("joined_at").notNull(),
    avatarR2Key: sqlite.text("avatar_r2_key"),
    createdAt: sqlite.integer("created_at").notNull(),
    updatedAt: sqlite.integer("updated_at").notNull(),
    trustScore: sqlite.integer("trust_score").notNull().default(100),
    trustBand: sqlite.text("trust_band", { enum: TRUST_BANDS }).notNull().default("average"),
    blacklisted: sqlite.integer("blacklisted", { mode: "boolean" }).notNull().default(false),
    trustComputedAt: sqlite.integer("trust_computed_at").notNull(),
    /** Public connections. */
    linkedAccounts: sqlite.integer("linked_accounts").notNull().default(0),
    /** Public connections that carry `verified_at`: the score's L term. */
    verifiedConnections: sqlite.integer("verified_connections").notNull().default(0),
    vouchCount: sqlite.integer("vouch_count").notNull().default(0),
    /** Completed deals, counted for both parties. */
    dealCount: sqlite.integer("deal_count").notNull().default(0),
    reviewCount: sqlite.integer("review_count").notNull().default(0),
    reviewSum: sqlite.integer("review_sum").notNull().default(0),
    coursesPassed: sqlite.integer("courses_passed").notNull().default(0),
    /** Directory fuzzy-match haystack (`match`): handle, display name and public connection usernames, lower-case. */
    searchText: sqlite.text("search_text").notNull(),
    /** Providers of public connections, comma-separated and sorted. */
    platforms: sqlite.text("platforms").notNull().default(""),
  },
  (table) => [
    sqlite.index("creators_newest_idx").on(sql`${table.createdAt} DESC`, table.id),
    sqlite.index("creators_trust_idx").on(sql`${table.trustScore} DESC`, table.id),
    sqlite.index("creators_vouches_idx").on(sql`${table.vouchCount} DESC`, table.id),
    sqlite.index("creators_deals_idx").on(sql`${table.dealCount} DESC`, table.id),
  ],
);

/** Platform accounts linked to a creator. One platform account belongs to at most one creator. */
export const connections = sqlite.sqliteTable(
  "connections",
  {
    id: sqlite.integer("id").primaryKey({ autoIncrement: true }),
    creatorId: sqlite.text("creator_id")
      .notNull()
      .references(() => creators.id),
    provider: sqlite.text("provider", { enum: PROVIDERS }).notNull(),
    providerUserId: sqlite.text("provider_user_id").notNull(),
    providerUsername: sqlite.text("provider_username"),
    providerUrl: sqlite.text("provider_url"),
    verifiedAt: sqlite.integer("verified_at"),
    public: sqlite.integer("public", { mode: "boolean" }).notNull().default(true),
    createdAt: sqlite.integer("created_at").notNull(),
  },
  (table) => [
    sqlite.uniqueIndex("connections_account_idx").on(table.provider, table.providerUserId),
    sqlite.index("connections_creator_idx").on(table.creatorId),
    sqlite.index("connections_username_idx").on(sql`lower(${table.providerUsername})`),
  ],
);

/** One Trust Score per creator per UTC day: written by the 00:05 job and on every change. */
export const trustSnapshots = sqlite.sqliteTable(
  "trust_snapshots",
  {
    creatorId: sqlite.text("creator_id")
      .notNull()
      .references(() => creators.id),
    day: sqlite.text("day").notNull(),
    score: sqlite.integer("score").notNull(),
  },
  (table) => [sqlite.primaryKey({ columns: [table.creatorId, table.day] })],
);

// PostgreSQL

/**
 * Creators. The trust columns and counters are derived: they are recomputed, in the same
 * transaction, whenever an input changes, so directory sorts and badges read one row.
 */
export const creatorsPg = pg.pgTable(
  "creators",
  {
    id: pg.text("id").primaryKey(),
    /** Insertion order, playing SQLite's rowid for the in-memory directory index (a dense integer key). */
    seq: pg.bigint("seq", { mode: "number" }).notNull().unique().generatedAlwaysAsIdentity(),
    /** Lower-case, `[a-z0-9_.]{2,32}`. */
    handle: pg.text("handle").notNull().unique(),
    displayName: pg.text("display_name"),
    verificationLevel: pg.integer("verification_level").notNull().default(0),
    karma: pg.integer("karma").notNull().default(0),
    joinedAt: pg.bigint("joined_at", { mode: "number" }).notNull(),
    avatarR2Key: pg.text("avatar_r2_key"),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: pg.bigint("updated_at", { mode: "number" }).notNull(),
    trustScore: pg.integer("trust_score").notNull().default(100),
    trustBand: pg.text("trust_band", { enum: TRUST_BANDS }).notNull().default("average"),
    blacklisted: pg.boolean("blacklisted").notNull().default(false),
    trustComputedAt: pg.bigint("trust_computed_at", { mode: "number" }).notNull(),
    /** Public connections. */
    linkedAccounts: pg.integer("linked_accounts").notNull().default(0),
    /** Public connections that carry `verified_at`: the score's L term. */
    verifiedConnections: pg.integer("verified_connections").notNull().default(0),
    vouchCount: pg.integer("vouch_count").notNull().default(0),
    /** Completed deals, counted for both parties. */
    dealCount: pg.integer("deal_count").notNull().default(0),
    reviewCount: pg.integer("review_count").notNull().default(0),
    reviewSum: pg.integer("review_sum").notNull().default(0),
    coursesPassed: pg.integer("courses_passed").notNull().default(0),
    /** Directory fuzzy-match haystack (`match`): handle, display name and public connection usernames, lower-case. */
    searchText: pg.text("search_text").notNull(),
    /** Providers of public connections, comma-separated and sorted. */
    platforms: pg.text("platforms").notNull().default(""),
  },
  (table) => [
    pg.index("creators_newest_idx").on(sql`${table.createdAt} DESC`, table.id),
    pg.index("creators_trust_idx").on(sql`${table.trustScore} DESC`, table.id),
    pg.index("creators_vouches_idx").on(sql`${table.vouchCount} DESC`, table.id),
    pg.index("creators_deals_idx").on(sql`${table.dealCount} DESC`, table.id),
    // Handle prefixes (the directory's short q) as LIKE 'p%', whatever the database's collation.
    pg.index("creators_handle_prefix_idx").on(table.handle.op("text_pattern_ops")),
  ],
);

/** Platform accounts linked to a creator. One platform account belongs to at most one creator. */
export const connectionsPg = pg.pgTable(
  "connections",
  {
    id: pg.bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    creatorId: pg.text("creator_id")
      .notNull()
      .references(() => creatorsPg.id),
    provider: pg.text("provider", { enum: PROVIDERS }).notNull(),
    providerUserId: pg.text("provider_user_id").notNull(),
    providerUsername: pg.text("provider_username"),
    providerUrl: pg.text("provider_url"),
    verifiedAt: pg.bigint("verified_at", { mode: "number" }),
    public: pg.boolean("public").notNull().default(true),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
  },
  (table) => [
    pg.uniqueIndex("connections_account_idx").on(table.provider, table.providerUserId),
    pg.index("connections_creator_idx").on(table.creatorId),
    pg.index("connections_username_idx").on(sql`lower(${table.providerUsername})`),
  ],
);

/** One Trust Score per creator per UTC day: written by the 00:05 job and on every change. */
export const trustSnapshotsPg = pg.pgTable(
  "trust_snapshots",
  {
    creatorId: pg.text("creator_id")
      .notNull()
      .references(() => creatorsPg.id),
    day: pg.text("day").notNull(),
    score: pg.integer("score").notNull(),
  },
  (table) => [pg.primaryKey({ columns: [table.creatorId, table.day] })],
);
