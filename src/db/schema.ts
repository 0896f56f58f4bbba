// Tables of the embedded store. Timestamps are Unix epoch milliseconds (UTC) so comparisons and
// keyset paging stay integer work; they become ISO 8601 strings only at the edge.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const API_TIERS = ["free", "pro", "max", "enterprise"] as const;
export const RATE_TIERS = ["free", "verified", "partner"] as const;
export const KEY_SCOPES = ["read", "write", "admin"] as const;
export const ACCOUNT_STATUSES = ["active", "suspended"] as const;
export const SEVERITIES = ["warn", "restrict", "ban"] as const;
export const ENTRY_SCOPES = ["global", "vertical"] as const;
export const VERTICALS = ["roblox", "uefn", "minecraft", "all"] as const;
export const PROVIDERS = [
  "discord",
  "roblox",
  "epic",
  "minecraft",
  "youtube",
  "twitch",
  "twitter",
  "tiktok",
  "github",
] as const;
export const ENTRY_STATUSES = ["active", "overturned", "expired"] as const;
export const CHANGE_TYPES = ["added", "overturned", "expired"] as const;

export type ApiTier = (typeof API_TIERS)[number];
export type RateTier = (typeof RATE_TIERS)[number];
export type KeyScope = (typeof KEY_SCOPES)[number];
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];
export type Severity = (typeof SEVERITIES)[number];
export type EntryScope = (typeof ENTRY_SCOPES)[number];
export type Vertical = (typeof VERTICALS)[number];
export type Provider = (typeof PROVIDERS)[number];
export type EntryStatus = (typeof ENTRY_STATUSES)[number];
export type ChangeType = (typeof CHANGE_TYPES)[number];

/** Server-wide values that must survive restarts, such as the cursor signing secret. */
export const meta = sqliteTable("meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

export const accounts = sqliteTable("accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  tier: text("tier", { enum: API_TIERS }).notNull(),
  /** Operator override of the plan's daily quota; null means the plan's number. */
  dailyQuota: integer("daily_quota"),
  status: text("status", { enum: ACCOUNT_STATUSES }).notNull().default("active"),
  createdAt: integer("created_at").notNull(),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name"),
    /** SHA-256 of the whole key, hex. The key itself is never stored. */
    hash: text("hash").notNull(),
    /** First characters of the key, enough for a person to tell keys apart in a list. */
    prefix: text("prefix").notNull(),
    scope: text("scope", { enum: KEY_SCOPES }).notNull(),
    rateTier: text("rate_tier", { enum: RATE_TIERS }).notNull(),
    /** Operator override of the rate tier's bucket, in requests per second. */
    burstRate: integer("burst_rate"),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (table) => [uniqueIndex("api_keys_hash_idx").on(table.hash), index("api_keys_account_idx").on(table.accountId)],
);

/** Calls per account per UTC day: the quota counter, persisted by the metering flush. */
export const usageDaily = sqliteTable(
  "usage_daily",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    day: text("day").notNull(),
    count: integer("count").notNull(),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.day] })],
);

/** Calls per key, day and route pattern: feeds UsageStats and is pruned after 93 days. */
export const usageEndpoints = sqliteTable(
  "usage_endpoints",
  {
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id),
    day: text("day").notNull(),
    endpoint: text("endpoint").notNull(),
    count: integer("count").notNull(),
  },
  (table) => [primaryKey({ columns: [table.keyId, table.day, table.endpoint] }), index("usage_endpoints_day_idx").on(table.day)],
);

export const blacklistEntries = sqliteTable(
  "blacklist_entries",
  {
    id: text("id").primaryKey(),
    provider: text("provider", { enum: PROVIDERS }).notNull(),
    providerUserId: text("provider_user_id").notNull(),
    username: text("username"),
    severity: text("severity", { enum: SEVERITIES }).notNull(),
    scope: text("scope", { enum: ENTRY_SCOPES }).notNull(),
    vertical: text("vertical", { enum: VERTICALS }).notNull(),
    reasonCode: text("reason_code").notNull(),
    summary: text("summary"),
    issuedAt: integer("issued_at").notNull(),
    expiresAt: integer("expires_at"),
    appealable: integer("appealable", { mode: "boolean" }).notNull(),
    highRisk: integer("high_risk", { mode: "boolean" }).notNull().default(false),
    watchlist: integer("watchlist", { mode: "boolean" }).notNull().default(false),
    /** Handle of the creator this entry names directly, if any. */
    creatorHandle: text("creator_handle"),
    evidence: text("evidence"),
    /** Who filed it: a key id, `cli`, or `import`. */
    reporter: text("reporter"),
    status: text("status", { enum: ENTRY_STATUSES }).notNull().default("active"),
    overturnedAt: integer("overturned_at"),
    overturnReason: text("overturn_reason"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    // The check path: every row of one subject, read straight from the index.
    index("blacklist_subject_idx").on(table.provider, table.providerUserId, table.status),
    // The list path: confirmed active rows in list order, so a keyset page is a range scan.
    index("blacklist_list_idx")
      .on(table.issuedAt, table.id)
      .where(sql`${table.status} = 'active' AND ${table.watchlist} = 0`),
    // The expiry job: active rows that carry an expiry.
    index("blacklist_expiry_idx")
      .on(table.expiresAt)
      .where(sql`${table.status} = 'active' AND ${table.expiresAt} IS NOT NULL`),
    index("blacklist_username_idx").on(sql`lower(${table.username})`),
    index("blacklist_creator_idx").on(table.creatorHandle),
  ],
);

/** Ordered feed of list changes, so a mirror can follow removals as well as additions. */
export const blacklistChanges = sqliteTable(
  "blacklist_changes",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    type: text("type", { enum: CHANGE_TYPES }).notNull(),
    entryId: text("entry_id")
      .notNull()
      .references(() => blacklistEntries.id),
    at: integer("at").notNull(),
  },
  (table) => [index("blacklist_changes_entry_idx").on(table.entryId)],
);

/** Events written in the same transaction as the change they describe; the webhook worker drains them. */
export const outboxEvents = sqliteTable(
  "outbox_events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    /** JSON of the event's `data`. */
    payload: text("payload").notNull(),
    createdAt: integer("created_at").notNull(),
    /** Set once the event has been fanned out to every subscribed endpoint. */
    dispatchedAt: integer("dispatched_at"),
  },
  (table) => [
    index("outbox_pending_idx")
      .on(table.createdAt)
      .where(sql`${table.dispatchedAt} IS NULL`),
  ],
);
