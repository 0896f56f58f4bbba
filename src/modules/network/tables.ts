// The network module's tables, SQLite first and then PostgreSQL, side by side so a column changes in
// both at once (test/db/dialects.test.ts compares them). Times are epoch milliseconds: integer in
// SQLite, bigint in PostgreSQL. src/db/schema.ts and schema.pg.ts re-export them for drizzle-kit.
import { sql } from "drizzle-orm";
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";
import { DEAL_STATUSES } from "../../domain";
import { creators, creatorsPg } from "../creators/tables";

// SQLite

export const vouches = sqlite.sqliteTable(
  "vouches",
  {
    id: sqlite.text("id").primaryKey(),
    fromCreatorId: sqlite.text("from_creator_id")
      .notNull()
      .references(() => creators.id),
    toCreatorId: sqlite.text("to_creator_id")
      .notNull()
      .references(() => creators.id),
    message: sqlite.text("message"),
    createdAt: sqlite.integer("created_at").notNull(),
  },
  (table) => [
    sqlite.uniqueIndex("vouches_pair_idx").on(table.fromCreatorId, table.toCreatorId),
    sqlite.index("vouches_to_idx").on(table.toCreatorId, sql`${table.createdAt} DESC`),
  ],
);

export const deals = sqlite.sqliteTable(
  "deals",
  {
    id: sqlite.text("id").primaryKey(),
    fromCreatorId: sqlite.text("from_creator_id")
      .notNull()
      .references(() => creators.id),
    toCreatorId: sqlite.text("to_creator_id")
      .notNull()
      .references(() => creators.id),
    status: sqlite.text("status", { enum: DEAL_STATUSES }).notNull(),
    createdAt: sqlite.integer("created_at").notNull(),
    updatedAt: sqlite.integer("updated_at").notNull(),
  },
  (table) => [sqlite.index("deals_from_idx").on(table.fromCreatorId, table.status), sqlite.index("deals_to_idx").on(table.toCreatorId, table.status)],
);

/** A rating of one party of a completed deal by the other; one per deal and reviewer. */
export const reviews = sqlite.sqliteTable(
  "reviews",
  {
    id: sqlite.text("id").primaryKey(),
    dealId: sqlite.text("deal_id")
      .notNull()
      .references(() => deals.id),
    fromCreatorId: sqlite.text("from_creator_id")
      .notNull()
      .references(() => creators.id),
    toCreatorId: sqlite.text("to_creator_id")
      .notNull()
      .references(() => creators.id),
    rating: sqlite.integer("rating").notNull(),
    createdAt: sqlite.integer("created_at").notNull(),
  },
  (table) => [sqlite.uniqueIndex("reviews_deal_from_idx").on(table.dealId, table.fromCreatorId), sqlite.index("reviews_to_idx").on(table.toCreatorId)],
);

/** Who brought whom: a creator is referred at most once. */
export const referrals = sqlite.sqliteTable(
  "referrals",
  {
    referredId: sqlite.text("referred_id")
      .primaryKey()
      .references(() => creators.id),
    referrerId: sqlite.text("referrer_id")
      .notNull()
      .references(() => creators.id),
    createdAt: sqlite.integer("created_at").notNull(),
  },
  (table) => [sqlite.index("referrals_referrer_idx").on(table.referrerId, table.createdAt), sqlite.index("referrals_created_idx").on(table.createdAt)],
);

/** Community servers running a bot against this instance: the `servers_protected` counter. */
export const servers = sqlite.sqliteTable(
  "servers",
  {
    platform: sqlite.text("platform").notNull(),
    serverId: sqlite.text("server_id").notNull(),
    name: sqlite.text("name"),
    /** Key id that registered it, or `import`. */
    registeredBy: sqlite.text("registered_by"),
    createdAt: sqlite.integer("created_at").notNull(),
  },
  (table) => [sqlite.primaryKey({ columns: [table.platform, table.serverId] })],
);

// PostgreSQL

export const vouchesPg = pg.pgTable(
  "vouches",
  {
    id: pg.text("id").primaryKey(),
    fromCreatorId: pg.text("from_creator_id")
      .notNull()
      .references(() => creatorsPg.id),
    toCreatorId: pg.text("to_creator_id")
      .notNull()
      .references(() => creatorsPg.id),
    message: pg.text("message"),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
  },
  (table) => [
    pg.uniqueIndex("vouches_pair_idx").on(table.fromCreatorId, table.toCreatorId),
    pg.index("vouches_to_idx").on(table.toCreatorId, sql`${table.createdAt} DESC`),
  ],
);

export const dealsPg = pg.pgTable(
  "deals",
  {
    id: pg.text("id").primaryKey(),
    fromCreatorId: pg.text("from_creator_id")
      .notNull()
      .references(() => creatorsPg.id),
    toCreatorId: pg.text("to_creator_id")
      .notNull()
      .references(() => creatorsPg.id),
    status: pg.text("status", { enum: DEAL_STATUSES }).notNull(),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: pg.bigint("updated_at", { mode: "number" }).notNull(),
  },
  (table) => [pg.index("deals_from_idx").on(table.fromCreatorId, table.status), pg.index("deals_to_idx").on(table.toCreatorId, table.status)],
);

/** A rating of one party of a completed deal by the other; one per deal and reviewer. */
export const reviewsPg = pg.pgTable(
  "reviews",
  {
    id: pg.text("id").primaryKey(),
    dealId: pg.text("deal_id")
      .notNull()
      .references(() => dealsPg.id),
    fromCreatorId: pg.text("from_creator_id")
      .notNull()
      .references(() => creatorsPg.id),
    toCreatorId: pg.text("to_creator_id")
      .notNull()
      .references(() => creatorsPg.id),
    rating: pg.integer("rating").notNull(),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
  },
  (table) => [pg.uniqueIndex("reviews_deal_from_idx").on(table.dealId, table.fromCreatorId), pg.index("reviews_to_idx").on(table.toCreatorId)],
);

/** Who brought whom: a creator is referred at most once. */
export const referralsPg = pg.pgTable(
  "referrals",
  {
    /**
     * Insertion order, playing SQLite's rowid for the referral leaderboard, which reads the rows past
     * the last one it read. Inserts take a table lock (network store), so values commit in order.
     */
    seq: pg.bigint("seq", { mode: "number" }).notNull().unique().generatedAlwaysAsIdentity(),
    referredId: pg.text("referred_id")
      .primaryKey()
      .references(() => creatorsPg.id),
    referrerId: pg.text("referrer_id")
      .notNull()
      .references(() => creatorsPg.id),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
  },
  (table) => [pg.index("referrals_referrer_idx").on(table.referrerId, table.createdAt), pg.index("referrals_created_idx").on(table.createdAt)],
);

/** Community servers running a bot against this instance: the `servers_protected` counter. */
export const serversPg = pg.pgTable(
  "servers",
  {
    platform: pg.text("platform").notNull(),
    serverId: pg.text("server_id").notNull(),
    name: pg.text("name"),
    /** Key id that registered it, or `import`. */
    registeredBy: pg.text("registered_by"),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
  },
  (table) => [pg.primaryKey({ columns: [table.platform, table.serverId] })],
);
