// The federation module's tables (docs/federation.md): the instance's own signing keys, the sources
// it follows with the keys pinned for each, the items a source currently holds active (so a policy
// change or an exemption can be re-applied without reading the source again), and exemptions. SQLite
// first and then PostgreSQL, side by side so a column changes in both at once
// (test/db/dialects.test.ts compares them). Times are epoch milliseconds: integer in SQLite, bigint
// in PostgreSQL. src/db/schema.ts and schema.pg.ts re-export them for drizzle-kit.
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";
import { PROVIDERS, SEVERITIES, SOURCE_POLICIES } from "../../domain";

// SQLite

/**
 * The instance's Ed25519 keys, newest last. The private key (PKCS#8, base64url) is the instance's
 * identity: it stays in this table, is never printed, answered or exported. A rotated key keeps its
 * row with `retired_at` so followers can still verify what it signed; `endorsement_*` is the previous
 * key's signature over the new key's id and public key.
 */
export const federationKeys = sqlite.sqliteTable("federation_keys", {
  kid: sqlite.text("kid").primaryKey(),
  publicKey: sqlite.text("public_key").notNull(),
  privateKey: sqlite.text("private_key").notNull(),
  createdAt: sqlite.integer("created_at").notNull(),
  retiredAt: sqlite.integer("retired_at"),
  endorsementKid: sqlite.text("endorsement_kid"),
  endorsementSig: sqlite.text("endorsement_sig"),
});

/**
 * Followed instances. `api_key` is the read key the source's operator issued to this instance: it
 * must be sent, so it is kept as given (like a webhook's secret) and never shown. `verticals` and
 * `reason_codes` are JSON arrays, null for every one; `cursor` is the source's feed cursor, null
 * before the first item.
 */
export const federationSources = sqlite.sqliteTable("federation_sources", {
  id: sqlite.text("id").primaryKey(),
  name: sqlite.text("name").notNull().unique(),
  url: sqlite.text("url").notNull(),
  apiKey: sqlite.text("api_key").notNull(),
  /** The source's instance id, pinned when it was added. */
  instanceId: sqlite.text("instance_id").notNull(),
  policy: sqlite.text("policy", { enum: SOURCE_POLICIES }).notNull(),
  maxSeverity: sqlite.text("max_severity", { enum: SEVERITIES }),
  verticals: sqlite.text("verticals"),
  reasonCodes: sqlite.text("reason_codes"),
  intervalS: sqlite.integer("interval_s").notNull(),
  cursor: sqlite.text("cursor"),
  lastSyncedAt: sqlite.integer("last_synced_at"),
  nextSyncAt: sqlite.integer("next_sync_at").notNull(),
  lastError: sqlite.text("last_error"),
  createdAt: sqlite.integer("created_at").notNull(),
  updatedAt: sqlite.integer("updated_at").notNull(),
});

/** A source's keys this instance trusts: pinned when added, or endorsed later by a pinned one. */
export const federationSourceKeys = sqlite.sqliteTable(
  "federation_source_keys",
  {
    sourceId: sqlite.text("source_id")
      .notNull()
      .references(() => federationSources.id, { onDelete: "cascade" }),
    kid: sqlite.text("kid").notNull(),
    publicKey: sqlite.text("public_key").notNull(),
    /** The pinned key that endorsed it; null for a key pinned when the source was added. */
    endorsedBy: sqlite.text("endorsed_by"),
    createdAt: sqlite.integer("created_at").notNull(),
  },
  (table) => [sqlite.primaryKey({ columns: [table.sourceId, table.kid] })],
);

/**
 * The entries a source holds active, as its feed last said (`entry` is the item's entry, JSON).
 * What this instance holds from the source is this set under the source's policy, the cap and the
 * filters, less the exemptions; `case_id` is the case a `review` item opened.
 */
export const federationItems = sqlite.sqliteTable(
  "federation_items",
  {
    sourceId: sqlite.text("source_id")
      .notNull()
      .references(() => federationSources.id, { onDelete: "cascade" }),
    upstreamId: sqlite.text("upstream_id").notNull(),
    entry: sqlite.text("entry").notNull(),
    caseId: sqlite.text("case_id"),
    receivedAt: sqlite.integer("received_at").notNull(),
  },
  (table) => [sqlite.primaryKey({ columns: [table.sourceId, table.upstreamId] })],
);

/** Subjects no source's item applies to: every source's when `source` is null, else that one's. */
export const federationExemptions = sqlite.sqliteTable(
  "federation_exemptions",
  {
    id: sqlite.text("id").primaryKey(),
    provider: sqlite.text("provider", { enum: PROVIDERS }).notNull(),
    providerUserId: sqlite.text("provider_user_id").notNull(),
    /** A source's name, or null for every source. */
    source: sqlite.text("source"),
    reason: sqlite.text("reason").notNull(),
    createdBy: sqlite.text("created_by").notNull(),
    createdAt: sqlite.integer("created_at").notNull(),
  },
  (table) => [sqlite.index("federation_exemptions_subject_idx").on(table.provider, table.providerUserId)],
);

// PostgreSQL

/**
 * The instance's Ed25519 keys, newest last. The private key (PKCS#8, base64url) is the instance's
 * identity: it stays in this table, is never printed, answered or exported. A rotated key keeps its
 * row with `retired_at` so followers can still verify what it signed; `endorsement_*` is the previous
 * key's signature over the new key's id and public key.
 */
export const federationKeysPg = pg.pgTable("federation_keys", {
  kid: pg.text("kid").primaryKey(),
  publicKey: pg.text("public_key").notNull(),
  privateKey: pg.text("private_key").notNull(),
  createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
  retiredAt: pg.bigint("retired_at", { mode: "number" }),
  endorsementKid: pg.text("endorsement_kid"),
  endorsementSig: pg.text("endorsement_sig"),
});

/**
 * Followed instances. `api_key` is the read key the source's operator issued to this instance: it
 * must be sent, so it is kept as given (like a webhook's secret) and never shown. `verticals` and
 * `reason_codes` are JSON arrays, null for every one; `cursor` is the source's feed cursor, null
 * before the first item.
 */
export const federationSourcesPg = pg.pgTable("federation_sources", {
  id: pg.text("id").primaryKey(),
  name: pg.text("name").notNull().unique(),
  url: pg.text("url").notNull(),
  apiKey: pg.text("api_key").notNull(),
  /** The source's instance id, pinned when it was added. */
  instanceId: pg.text("instance_id").notNull(),
  policy: pg.text("policy", { enum: SOURCE_POLICIES }).notNull(),
  maxSeverity: pg.text("max_severity", { enum: SEVERITIES }),
  verticals: pg.text("verticals"),
  reasonCodes: pg.text("reason_codes"),
  intervalS: pg.integer("interval_s").notNull(),
  cursor: pg.text("cursor"),
  lastSyncedAt: pg.bigint("last_synced_at", { mode: "number" }),
  nextSyncAt: pg.bigint("next_sync_at", { mode: "number" }).notNull(),
  lastError: pg.text("last_error"),
  createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
  updatedAt: pg.bigint("updated_at", { mode: "number" }).notNull(),
});

/** A source's keys this instance trusts: pinned when added, or endorsed later by a pinned one. */
export const federationSourceKeysPg = pg.pgTable(
  "federation_source_keys",
  {
    sourceId: pg.text("source_id")
      .notNull()
      .references(() => federationSourcesPg.id, { onDelete: "cascade" }),
    kid: pg.text("kid").notNull(),
    publicKey: pg.text("public_key").notNull(),
    /** The pinned key that endorsed it; null for a key pinned when the source was added. */
    endorsedBy: pg.text("endorsed_by"),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
  },
  (table) => [pg.primaryKey({ columns: [table.sourceId, table.kid] })],
);

/**
 * The entries a source holds active, as its feed last said (`entry` is the item's entry, JSON).
 * What this instance holds from the source is this set under the source's policy, the cap and the
 * filters, less the exemptions; `case_id` is the case a `review` item opened.
 */
export const federationItemsPg = pg.pgTable(
  "federation_items",
  {
    sourceId: pg.text("source_id")
      .notNull()
      .references(() => federationSourcesPg.id, { onDelete: "cascade" }),
    upstreamId: pg.text("upstream_id").notNull(),
    entry: pg.text("entry").notNull(),
    caseId: pg.text("case_id"),
    receivedAt: pg.bigint("received_at", { mode: "number" }).notNull(),
  },
  (table) => [pg.primaryKey({ columns: [table.sourceId, table.upstreamId] })],
);

/** Subjects no source's item applies to: every source's when `source` is null, else that one's. */
export const federationExemptionsPg = pg.pgTable(
  "federation_exemptions",
  {
    id: pg.text("id").primaryKey(),
    provider: pg.text("provider", { enum: PROVIDERS }).notNull(),
    providerUserId: pg.text("provider_user_id").notNull(),
    /** A source's name, or null for every source. */
    source: pg.text("source"),
    reason: pg.text("reason").notNull(),
    createdBy: pg.text("created_by").notNull(),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
  },
  (table) => [pg.index("federation_exemptions_subject_idx").on(table.provider, table.providerUserId)],
);
