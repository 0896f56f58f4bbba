// The webhooks module's tables, SQLite first and then PostgreSQL, side by side so a column changes in
// both at once (test/db/dialects.test.ts compares them). Times are epoch milliseconds: integer in
// SQLite, bigint in PostgreSQL. src/db/schema.ts and schema.pg.ts re-export them for drizzle-kit.
import { sql } from "drizzle-orm";
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";
import { DELIVERY_STATUSES } from "../../domain";
import { accounts, accountsPg } from "../accounts/tables";

// SQLite

/** Endpoints an account registered to receive events. */
export const webhookEndpoints = sqlite.sqliteTable(
  "webhook_endpoints",
  {
    id: sqlite.text("id").primaryKey(),
    accountId: sqlite.text("account_id")
      .notNull()
      .references(() => accounts.id),
    url: sqlite.text("url").notNull(),
    /** JSON array of event names. */
    events: sqlite.text("events").notNull(),
    /** `whsec_` + base64 of the key: kept in the clear, since every delivery is signed with it. */
    secret: sqlite.text("secret").notNull(),
    enabled: sqlite.integer("enabled", { mode: "boolean" }).notNull().default(true),
    disabledReason: sqlite.text("disabled_reason"),
    disabledAt: sqlite.integer("disabled_at"),
    /** First failed attempt since the last success; null while the endpoint answers. */
    failingSince: sqlite.integer("failing_since"),
    createdAt: sqlite.integer("created_at").notNull(),
  },
  (table) => [sqlite.index("webhook_endpoints_account_idx").on(table.accountId, table.createdAt)],
);

/**
 * One message to one destination: an event for an endpoint, a test, or a Discord message (no
 * endpoint; `url` names the destination). The id is the `webhook-id` every attempt repeats.
 */
export const webhookDeliveries = sqlite.sqliteTable(
  "webhook_deliveries",
  {
    id: sqlite.text("id").primaryKey(),
    endpointId: sqlite.text("endpoint_id").references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    /** The outbox event delivered, when it is one. */
    eventId: sqlite.text("event_id"),
    type: sqlite.text("type").notNull(),
    /** Destination of a message without an endpoint (Discord). */
    url: sqlite.text("url"),
    /** The body exactly as every attempt sends it. */
    payload: sqlite.text("payload").notNull(),
    status: sqlite.text("status", { enum: DELIVERY_STATUSES }).notNull().default("pending"),
    attempts: sqlite.integer("attempts").notNull().default(0),
    nextAttemptAt: sqlite.integer("next_attempt_at").notNull(),
    /** A worker holds the row until then; a worker that died lets it go when it lapses. */
    claimedUntil: sqlite.integer("claimed_until"),
    createdAt: sqlite.integer("created_at").notNull(),
    /** When it was delivered or given up. */
    finishedAt: sqlite.integer("finished_at"),
  },
  (table) => [
    sqlite.index("webhook_deliveries_due_idx")
      .on(table.nextAttemptAt)
      .where(sql`${table.status} = 'pending'`),
    // A claim reads each endpoint's due rows through its own range: an endpoint whose lane is
    // full (a hanging receiver with a backlog) is never walked.
    sqlite.index("webhook_deliveries_endpoint_due_idx")
      .on(table.endpointId, table.nextAttemptAt)
      .where(sql`${table.status} = 'pending'`),
    sqlite.index("webhook_deliveries_endpoint_idx").on(table.endpointId, table.createdAt),
    sqlite.index("webhook_deliveries_finished_idx")
      .on(table.finishedAt)
      .where(sql`${table.finishedAt} IS NOT NULL`),
    sqlite.uniqueIndex("webhook_deliveries_event_endpoint_idx").on(table.eventId, table.endpointId),
  ],
);

/** Every attempt of a delivery, for the deliveries route. */
export const webhookAttempts = sqlite.sqliteTable(
  "webhook_attempts",
  {
    deliveryId: sqlite.text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: sqlite.integer("attempt").notNull(),
    startedAt: sqlite.integer("started_at").notNull(),
    /** Null when no answer came (timeout, refused address, connection error). */
    statusCode: sqlite.integer("status_code"),
    latencyMs: sqlite.integer("latency_ms").notNull(),
    error: sqlite.text("error"),
    /** The start of the answer's body, bounded. */
    responseExcerpt: sqlite.text("response_excerpt"),
  },
  (table) => [sqlite.primaryKey({ columns: [table.deliveryId, table.attempt] })],
);

// PostgreSQL

/** Endpoints an account registered to receive events. */
export const webhookEndpointsPg = pg.pgTable(
  "webhook_endpoints",
  {
    id: pg.text("id").primaryKey(),
    accountId: pg.text("account_id")
      .notNull()
      .references(() => accountsPg.id),
    url: pg.text("url").notNull(),
    /** JSON array of event names. */
    events: pg.text("events").notNull(),
    /** `whsec_` + base64 of the key: kept in the clear, since every delivery is signed with it. */
    secret: pg.text("secret").notNull(),
    enabled: pg.boolean("enabled").notNull().default(true),
    disabledReason: pg.text("disabled_reason"),
    disabledAt: pg.bigint("disabled_at", { mode: "number" }),
    /** First failed attempt since the last success; null while the endpoint answers. */
    failingSince: pg.bigint("failing_since", { mode: "number" }),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
  },
  (table) => [pg.index("webhook_endpoints_account_idx").on(table.accountId, table.createdAt)],
);

/**
 * One message to one destination: an event for an endpoint, a test, or a Discord message (no
 * endpoint; `url` names the destination). The id is the `webhook-id` every attempt repeats.
 */
export const webhookDeliveriesPg = pg.pgTable(
  "webhook_deliveries",
  {
    id: pg.text("id").primaryKey(),
    endpointId: pg.text("endpoint_id").references(() => webhookEndpointsPg.id, { onDelete: "cascade" }),
    /** The outbox event delivered, when it is one. */
    eventId: pg.text("event_id"),
    type: pg.text("type").notNull(),
    /** Destination of a message without an endpoint (Discord). */
    url: pg.text("url"),
    /** The body exactly as every attempt sends it. */
    payload: pg.text("payload").notNull(),
    status: pg.text("status", { enum: DELIVERY_STATUSES }).notNull().default("pending"),
    attempts: pg.integer("attempts").notNull().default(0),
    nextAttemptAt: pg.bigint("next_attempt_at", { mode: "number" }).notNull(),
    /** A worker holds the row until then; a worker that died lets it go when it lapses. */
    claimedUntil: pg.bigint("claimed_until", { mode: "number" }),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
    /** When it was delivered or given up. */
    finishedAt: pg.bigint("finished_at", { mode: "number" }),
  },
  (table) => [
    pg.index("webhook_deliveries_due_idx")
      .on(table.nextAttemptAt)
      .where(sql`${table.status} = 'pending'`),
    // A claim reads each endpoint's due rows through its own range: an endpoint whose lane is
    // full (a hanging receiver with a backlog) is never walked.
    pg.index("webhook_deliveries_endpoint_due_idx")
      .on(table.endpointId, table.nextAttemptAt)
      .where(sql`${table.status} = 'pending'`),
    pg.index("webhook_deliveries_endpoint_idx").on(table.endpointId, table.createdAt),
    pg.index("webhook_deliveries_finished_idx")
      .on(table.finishedAt)
      .where(sql`${table.finishedAt} IS NOT NULL`),
    pg.uniqueIndex("webhook_deliveries_event_endpoint_idx").on(table.eventId, table.endpointId),
  ],
);

/** Every attempt of a delivery, for the deliveries route. */
export const webhookAttemptsPg = pg.pgTable(
  "webhook_attempts",
  {
    deliveryId: pg.text("delivery_id")
      .notNull()
      .references(() => webhookDeliveriesPg.id, { onDelete: "cascade" }),
    attempt: pg.integer("attempt").notNull(),
    startedAt: pg.bigint("started_at", { mode: "number" }).notNull(),
    /** Null when no answer came (timeout, refused address, connection error). */
    statusCode: pg.integer("status_code"),
    latencyMs: pg.integer("latency_ms").notNull(),
    error: pg.text("error"),
    /** The start of the answer's body, bounded. */
    responseExcerpt: pg.text("response_excerpt"),
  },
  (table) => [pg.primaryKey({ columns: [table.deliveryId, table.attempt] })],
);
