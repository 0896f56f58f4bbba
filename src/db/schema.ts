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

/**
 * Answers to keyed writes sent with an `Idempotency-Key` (SPEC section 2), kept 24 h per account and
 * key so a retry gets the first answer instead of writing again. The row is written by the write's
 * own transaction (status still null), then completed with the answer.
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    accountId: text("account_id").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of method, path and body: a reuse of the key for another request is refused. */
    fingerprint: text("fingerprint").notNull(),
    /** Which request holds the key: only that request may complete the row. */
    claim: text("claim").notNull(),
    /** Null while the write has committed and its answer is not recorded yet. */
    status: integer("status"),
    contentType: text("content_type"),
    body: text("body"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.key] }), index("idempotency_keys_created_idx").on(table.createdAt)],
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
    // Half the entries name no username and all but a few name no creator: neither kind of row
    // is ever looked up by these, so they are left out (half the username index's size, the
    // creator index's nearly all; an import of 1M entries builds both 0.5 s faster).
    index("blacklist_username_idx")
      .on(sql`lower(${table.username})`)
      .where(sql`${table.username} IS NOT NULL`),
    index("blacklist_creator_idx").on(table.creatorHandle).where(sql`${table.creatorHandle} IS NOT NULL`),
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
  // No index on entry_id: the feed is read by seq, and entries are never deleted or renumbered,
  // so the foreign key never looks changes up by entry. (An index there held 39 MB at 1M entries
  // and was written on every change.)
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
    // The fan-out reads pending events in (created_at, id) order: with the id in the index, a
    // backlog committed in one millisecond (an import) is read a slice at a time, not sorted whole.
    index("outbox_pending_idx")
      .on(table.createdAt, table.id)
      .where(sql`${table.dispatchedAt} IS NULL`),
  ],
);

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Endpoints an account registered to receive events (SPEC section 8). */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    url: text("url").notNull(),
    /** JSON array of event names. */
    events: text("events").notNull(),
    /** `whsec_` + base64 of the key: kept in the clear, since every delivery is signed with it. */
    secret: text("secret").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    disabledReason: text("disabled_reason"),
    disabledAt: integer("disabled_at"),
    /** First failed attempt since the last success; null while the endpoint answers. */
    failingSince: integer("failing_since"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("webhook_endpoints_account_idx").on(table.accountId, table.createdAt)],
);

/**
 * One message to one destination: an event for an endpoint, a test, or a Discord message (no
 * endpoint; `url` names the destination). The id is the `webhook-id` every attempt repeats.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    endpointId: text("endpoint_id").references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    /** The outbox event delivered, when it is one. */
    eventId: text("event_id"),
    type: text("type").notNull(),
    /** Destination of a message without an endpoint (Discord). */
    url: text("url"),
    /** The body exactly as every attempt sends it. */
    payload: text("payload").notNull(),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at").notNull(),
    /** A worker holds the row until then; a worker that died lets it go when it lapses. */
    claimedUntil: integer("claimed_until"),
    createdAt: integer("created_at").notNull(),
    /** When it was delivered or given up. */
    finishedAt: integer("finished_at"),
  },
  (table) => [
    index("webhook_deliveries_due_idx")
      .on(table.nextAttemptAt)
      .where(sql`${table.status} = 'pending'`),
    // A claim reads each endpoint's due rows through its own range: an endpoint whose lane is
    // full (a hanging receiver with a backlog) is never walked.
    index("webhook_deliveries_endpoint_due_idx")
      .on(table.endpointId, table.nextAttemptAt)
      .where(sql`${table.status} = 'pending'`),
    index("webhook_deliveries_endpoint_idx").on(table.endpointId, table.createdAt),
    index("webhook_deliveries_finished_idx")
      .on(table.finishedAt)
      .where(sql`${table.finishedAt} IS NOT NULL`),
    uniqueIndex("webhook_deliveries_event_endpoint_idx").on(table.eventId, table.endpointId),
  ],
);

/** Every attempt of a delivery, for the deliveries route. */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    startedAt: integer("started_at").notNull(),
    /** Null when no answer came (timeout, refused address, connection error). */
    statusCode: integer("status_code"),
    latencyMs: integer("latency_ms").notNull(),
    error: text("error"),
    /** The start of the answer's body, bounded. */
    responseExcerpt: text("response_excerpt"),
  },
  (table) => [primaryKey({ columns: [table.deliveryId, table.attempt] })],
);

export const DEAL_STATUSES = ["pending", "confirmed", "declined", "completed"] as const;
export type DealStatus = (typeof DEAL_STATUSES)[number];

/**
 * Creators. The trust columns and counters are derived: they are recomputed, in the same
 * transaction, whenever an input changes, so directory sorts and badges read one row.
 */
export const creators = sqliteTable(
  "creators",
  {
    id: text("id").primaryKey(),
    /** Lower-case, `[a-z0-9_.]{2,32}`. */
    handle: text("handle").notNull().unique(),
    displayName: text("display_name"),
    verificationLevel: integer("verification_level").notNull().default(0),
    karma: integer("karma").notNull().default(0),
    joinedAt: integer("joined_at").notNull(),
    avatarR2Key: text("avatar_r2_key"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    trustScore: integer("trust_score").notNull().default(100),
    trustBand: text("trust_band").notNull().default("average"),
    blacklisted: integer("blacklisted", { mode: "boolean" }).notNull().default(false),
    trustComputedAt: integer("trust_computed_at").notNull(),
    /** Public connections. */
    linkedAccounts: integer("linked_accounts").notNull().default(0),
    /** Public connections that carry `verified_at`: the score's L term. */
    verifiedConnections: integer("verified_connections").notNull().default(0),
    vouchCount: integer("vouch_count").notNull().default(0),
    /** Completed deals, counted for both parties. */
    dealCount: integer("deal_count").notNull().default(0),
    reviewCount: integer("review_count").notNull().default(0),
    reviewSum: integer("review_sum").notNull().default(0),
    coursesPassed: integer("courses_passed").notNull().default(0),
    /** Directory fuzzy-match haystack (`match`): handle, display name and public connection usernames, lower-case. */
    searchText: text("search_text").notNull(),
    /** Providers of public connections, comma-separated and sorted. */
    platforms: text("platforms").notNull().default(""),
  },
  (table) => [
    index("creators_newest_idx").on(sql`${table.createdAt} DESC`, table.id),
    index("creators_trust_idx").on(sql`${table.trustScore} DESC`, table.id),
    index("creators_vouches_idx").on(sql`${table.vouchCount} DESC`, table.id),
    index("creators_deals_idx").on(sql`${table.dealCount} DESC`, table.id),
  ],
);

/** Platform accounts linked to a creator. One platform account belongs to at most one creator. */
export const connections = sqliteTable(
  "connections",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    creatorId: text("creator_id")
      .notNull()
      .references(() => creators.id),
    provider: text("provider", { enum: PROVIDERS }).notNull(),
    providerUserId: text("provider_user_id").notNull(),
    providerUsername: text("provider_username"),
    providerUrl: text("provider_url"),
    verifiedAt: integer("verified_at"),
    public: integer("public", { mode: "boolean" }).notNull().default(true),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    uniqueIndex("connections_account_idx").on(table.provider, table.providerUserId),
    index("connections_creator_idx").on(table.creatorId),
    index("connections_username_idx").on(sql`lower(${table.providerUsername})`),
  ],
);

export const vouches = sqliteTable(
  "vouches",
  {
    id: text("id").primaryKey(),
    fromCreatorId: text("from_creator_id")
      .notNull()
      .references(() => creators.id),
    toCreatorId: text("to_creator_id")
      .notNull()
      .references(() => creators.id),
    message: text("message"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    uniqueIndex("vouches_pair_idx").on(table.fromCreatorId, table.toCreatorId),
    index("vouches_to_idx").on(table.toCreatorId, sql`${table.createdAt} DESC`),
  ],
);

export const deals = sqliteTable(
  "deals",
  {
    id: text("id").primaryKey(),
    fromCreatorId: text("from_creator_id")
      .notNull()
      .references(() => creators.id),
    toCreatorId: text("to_creator_id")
      .notNull()
      .references(() => creators.id),
    status: text("status", { enum: DEAL_STATUSES }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [index("deals_from_idx").on(table.fromCreatorId, table.status), index("deals_to_idx").on(table.toCreatorId, table.status)],
);

/** A rating of one party of a completed deal by the other; one per deal and reviewer. */
export const reviews = sqliteTable(
  "reviews",
  {
    id: text("id").primaryKey(),
    dealId: text("deal_id")
      .notNull()
      .references(() => deals.id),
    fromCreatorId: text("from_creator_id")
      .notNull()
      .references(() => creators.id),
    toCreatorId: text("to_creator_id")
      .notNull()
      .references(() => creators.id),
    rating: integer("rating").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [uniqueIndex("reviews_deal_from_idx").on(table.dealId, table.fromCreatorId), index("reviews_to_idx").on(table.toCreatorId)],
);

/** Who brought whom: a creator is referred at most once. */
export const referrals = sqliteTable(
  "referrals",
  {
    referredId: text("referred_id")
      .primaryKey()
      .references(() => creators.id),
    referrerId: text("referrer_id")
      .notNull()
      .references(() => creators.id),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("referrals_referrer_idx").on(table.referrerId, table.createdAt), index("referrals_created_idx").on(table.createdAt)],
);

/** Community servers running a bot against this instance: the `servers_protected` counter. */
export const servers = sqliteTable(
  "servers",
  {
    platform: text("platform").notNull(),
    serverId: text("server_id").notNull(),
    name: text("name"),
    /** Key id that registered it, or `import`. */
    registeredBy: text("registered_by"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.platform, table.serverId] })],
);

/** One Trust Score per creator per UTC day: written by the 00:05 job and on every change. */
export const trustSnapshots = sqliteTable(
  "trust_snapshots",
  {
    creatorId: text("creator_id")
      .notNull()
      .references(() => creators.id),
    day: text("day").notNull(),
    score: integer("score").notNull(),
  },
  (table) => [primaryKey({ columns: [table.creatorId, table.day] })],
);

/**
 * One-time sign-in links (SPEC section 6): only the SHA-256 of the token is kept; a link is used
 * once (`used_at`) and lapses after 15 minutes.
 */
export const loginLinks = sqliteTable(
  "login_links",
  {
    tokenHash: text("token_hash").primaryKey(),
    creatorId: text("creator_id")
      .notNull()
      .references(() => creators.id),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
  },
  (table) => [index("login_links_expires_idx").on(table.expiresAt)],
);

/** Signed-in web sessions: the SHA-256 of the `session` cookie's value, never the value itself. */
export const sessions = sqliteTable(
  "sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    creatorId: text("creator_id")
      .notNull()
      .references(() => creators.id),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (table) => [index("sessions_expires_idx").on(table.expiresAt), index("sessions_creator_idx").on(table.creatorId)],
);

/** A creator's best attempt at one course; `passed_at` stays set once a pass is recorded. */
export const courseCompletions = sqliteTable(
  "course_completions",
  {
    creatorId: text("creator_id")
      .notNull()
      .references(() => creators.id),
    slug: text("slug").notNull(),
    bestScore: integer("best_score").notNull(),
    attempts: integer("attempts").notNull(),
    passedAt: integer("passed_at"),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.creatorId, table.slug] })],
);

/** Ways a tripwire watches: a creator's handle or a Discord account id. */
export const TRIPWIRE_TARGETS = ["handle", "discord"] as const;
export type TripwireTarget = (typeof TRIPWIRE_TARGETS)[number];

/** A signed-in creator's watch on a handle or a Discord id; `triggers` is a comma-separated list. */
export const tripwires = sqliteTable(
  "tripwires",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => creators.id),
    target: text("target", { enum: TRIPWIRE_TARGETS }).notNull(),
    watched: text("watched").notNull(),
    triggers: text("triggers").notNull(),
    trips: integer("trips").notNull().default(0),
    lastTrippedAt: integer("last_tripped_at"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("tripwires_owner_idx").on(table.ownerId, table.createdAt), index("tripwires_watched_idx").on(table.target, table.watched)],
);

/** Where a creator's tripwire alerts go. */
export const tripwirePreferences = sqliteTable("tripwire_preferences", {
  ownerId: text("owner_id")
    .primaryKey()
    .references(() => creators.id),
  discordWebhookUrl: text("discord_webhook_url"),
  email: text("email"),
  updatedAt: integer("updated_at").notNull(),
});
