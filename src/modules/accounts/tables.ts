// The accounts module's tables, SQLite first and then PostgreSQL, side by side so a column changes in
// both at once (test/db/dialects.test.ts compares them). Times are epoch milliseconds: integer in
// SQLite, bigint in PostgreSQL. src/db/schema.ts and schema.pg.ts re-export them for drizzle-kit.
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";
import { ACCOUNT_MEMBER_ROLES, ACCOUNT_STATUSES, API_TIERS, KEY_SCOPES, RATE_TIERS } from "../../domain";
import { creators, creatorsPg } from "../creators/tables";

// SQLite

export const accounts = sqlite.sqliteTable("accounts", {
  id: sqlite.text("id").primaryKey(),
  name: sqlite.text("name").notNull().unique(),
  tier: sqlite.text("tier", { enum: API_TIERS }).notNull(),
  /** Operator override of the plan's daily quota; null means the plan's number. */
  dailyQuota: sqlite.integer("daily_quota"),
  status: sqlite.text("status", { enum: ACCOUNT_STATUSES }).notNull().default("active"),
  /** Opened by the operator for following this instance's signed feed. */
  federation: sqlite.integer("federation", { mode: "boolean" }).notNull().default(false),
  createdAt: sqlite.integer("created_at").notNull(),
});

export const apiKeys = sqlite.sqliteTable(
  "api_keys",
  {
    id: sqlite.text("id").primaryKey(),
    accountId: sqlite.text("account_id")
      .notNull()
      .references(() => accounts.id),
    name: sqlite.text("name"),
    /** SHA-256 of the whole key, hex. The key itself is never stored. */
    hash: sqlite.text("hash").notNull(),
    /** First characters of the key, enough for a person to tell keys apart in a list. */
    prefix: sqlite.text("prefix").notNull(),
    scope: sqlite.text("scope", { enum: KEY_SCOPES }).notNull(),
    rateTier: sqlite.text("rate_tier", { enum: RATE_TIERS }).notNull(),
    /** Operator override of the rate tier's bucket, in requests per second. */
    burstRate: sqlite.integer("burst_rate"),
    createdAt: sqlite.integer("created_at").notNull(),
    revokedAt: sqlite.integer("revoked_at"),
  },
  (table) => [sqlite.uniqueIndex("api_keys_hash_idx").on(table.hash), sqlite.index("api_keys_account_idx").on(table.accountId)],
);

/** Calls per account per UTC day: the quota counter, persisted by the metering flush. */
export const usageDaily = sqlite.sqliteTable(
  "usage_daily",
  {
    accountId: sqlite.text("account_id")
      .notNull()
      .references(() => accounts.id),
    day: sqlite.text("day").notNull(),
    count: sqlite.integer("count").notNull(),
  },
  (table) => [sqlite.primaryKey({ columns: [table.accountId, table.day] })],
);

/** Calls per key, day and route pattern: feeds UsageStats and is pruned after 93 days. */
export const usageEndpoints = sqlite.sqliteTable(
  "usage_endpoints",
  {
    keyId: sqlite.text("key_id")
      .notNull()
      .references(() => apiKeys.id),
    day: sqlite.text("day").notNull(),
    endpoint: sqlite.text("endpoint").notNull(),
    count: sqlite.integer("count").notNull(),
  },
  (table) => [sqlite.primaryKey({ columns: [table.keyId, table.day, table.endpoint] }), sqlite.index("usage_endpoints_day_idx").on(table.day)],
);

/** Creators who manage an account in the console (its keys, usage and webhooks): `trustlist accounts add-member`. */
export const accountMembers = sqlite.sqliteTable(
  "account_members",
  {
    accountId: sqlite.text("account_id")
      .notNull()
      .references(() => accounts.id),
    creatorId: sqlite.text("creator_id")
      .notNull()
      .references(() => creators.id),
    role: sqlite.text("role", { enum: ACCOUNT_MEMBER_ROLES }).notNull(),
    addedAt: sqlite.integer("added_at").notNull(),
  },
  (table) => [sqlite.primaryKey({ columns: [table.accountId, table.creatorId] }), sqlite.index("account_members_creator_idx").on(table.creatorId)],
);

// PostgreSQL

export const accountsPg = pg.pgTable("accounts", {
  id: pg.text("id").primaryKey(),
  name: pg.text("name").notNull().unique(),
  tier: pg.text("tier", { enum: API_TIERS }).notNull(),
  /** Operator override of the plan's daily quota; null means the plan's number. */
  dailyQuota: pg.integer("daily_quota"),
  status: pg.text("status", { enum: ACCOUNT_STATUSES }).notNull().default("active"),
  /** Opened by the operator for following this instance's signed feed. */
  federation: pg.boolean("federation").notNull().default(false),
  createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
});

export const apiKeysPg = pg.pgTable(
  "api_keys",
  {
    id: pg.text("id").primaryKey(),
    accountId: pg.text("account_id")
      .notNull()
      .references(() => accountsPg.id),
    name: pg.text("name"),
    /** SHA-256 of the whole key, hex. The key itself is never stored. */
    hash: pg.text("hash").notNull(),
    /** First characters of the key, enough for a person to tell keys apart in a list. */
    prefix: pg.text("prefix").notNull(),
    scope: pg.text("scope", { enum: KEY_SCOPES }).notNull(),
    rateTier: pg.text("rate_tier", { enum: RATE_TIERS }).notNull(),
    /** Operator override of the rate tier's bucket, in requests per second. */
    burstRate: pg.integer("burst_rate"),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
    revokedAt: pg.bigint("revoked_at", { mode: "number" }),
  },
  (table) => [pg.uniqueIndex("api_keys_hash_idx").on(table.hash), pg.index("api_keys_account_idx").on(table.accountId)],
);

/** Calls per account per UTC day: the quota counter, persisted by the metering flush. */
export const usageDailyPg = pg.pgTable(
  "usage_daily",
  {
    accountId: pg.text("account_id")
      .notNull()
      .references(() => accountsPg.id),
    day: pg.text("day").notNull(),
    count: pg.integer("count").notNull(),
  },
  (table) => [pg.primaryKey({ columns: [table.accountId, table.day] })],
);

/** Calls per key, day and route pattern: feeds UsageStats and is pruned after 93 days. */
export const usageEndpointsPg = pg.pgTable(
  "usage_endpoints",
  {
    keyId: pg.text("key_id")
      .notNull()
      .references(() => apiKeysPg.id),
    day: pg.text("day").notNull(),
    endpoint: pg.text("endpoint").notNull(),
    count: pg.integer("count").notNull(),
  },
  (table) => [pg.primaryKey({ columns: [table.keyId, table.day, table.endpoint] }), pg.index("usage_endpoints_day_idx").on(table.day)],
);

/** Creators who manage an account in the console (its keys, usage and webhooks): `trustlist accounts add-member`. */
export const accountMembersPg = pg.pgTable(
  "account_members",
  {
    accountId: pg.text("account_id")
      .notNull()
      .references(() => accountsPg.id),
    creatorId: pg.text("creator_id")
      .notNull()
      .references(() => creatorsPg.id),
    role: pg.text("role", { enum: ACCOUNT_MEMBER_ROLES }).notNull(),
    addedAt: pg.bigint("added_at", { mode: "number" }).notNull(),
  },
  (table) => [pg.primaryKey({ columns: [table.accountId, table.creatorId] }), pg.index("account_members_creator_idx").on(table.creatorId)],
);
