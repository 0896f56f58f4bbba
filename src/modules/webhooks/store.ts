// The webhooks module's tables, `webhook_endpoints`, `webhook_deliveries` and `webhook_attempts`:
// the contract every database implements, and the factory that picks one. Their SQL lives in
// store.sqlite.ts and store.postgres.ts only (the outbox events the fan-out reads are the outbox
// module's). Deliveries are claimed with a lease (`claimed_until`): a claimed row is invisible to
// other claims until its lease lapses, so a worker that died lets its rows go, and on PostgreSQL
// several instances claim with FOR UPDATE SKIP LOCKED, never the same row at the same time.
import type { Database } from "../../db/database";
import type { RowOf } from "../../db/rows";
import { PostgresWebhooksStore } from "./store.postgres";
import { SqliteWebhooksStore } from "./store.sqlite";
import type { webhookAttempts, webhookDeliveries, webhookEndpoints } from "./tables";

/** An endpoint as the module uses it: its row, the JSON list of event names decoded. */
export type EndpointRow = Omit<RowOf<typeof webhookEndpoints>, "events"> & { events: string[] };

/** A delivery's row, but for the lease (the claim's business). */
export type DeliveryRow = Omit<RowOf<typeof webhookDeliveries>, "claimedUntil">;

export type AttemptRow = RowOf<typeof webhookAttempts>;

/** What a claim reads of a delivery. */
export type LeasedRow = RowOf<typeof webhookDeliveries, "id" | "endpointId" | "type" | "url" | "payload" | "attempts" | "createdAt" | "nextAttemptAt">;

/** A claimed delivery with what sending it needs. */
export type ClaimedDelivery = Omit<LeasedRow, "url"> & {
  /** The endpoint's URL, or the delivery's own (Discord). */
  url: string;
  /** The endpoint's signing secret; null for a message without an endpoint. */
  secret: string | null;
};

/** What a claim may take per lane. */
export interface ClaimLanes {
  /** Rows a lane may hold at most. */
  perLane: number;
  /** Rows the caller holds per lane key (endpoint id, or URL for a Discord message). */
  held: ReadonlyMap<string, number>;
}

/** Where an attempt leaves its delivery. */
export type AttemptOutcome = Pick<DeliveryRow, "status" | "nextAttemptAt" | "finishedAt">;

/** One attempt to record: the row, the delivery's attempts when claimed, where it leaves the delivery. */
export interface RecordedAttempt {
  attempt: AttemptRow;
  attemptsBefore: number;
  outcome: AttemptOutcome;
}

/** The fields of an endpoint a change may set; absent ones stay. */
export type EndpointPatch = Partial<Pick<EndpointRow, "url" | "events" | "secret" | "enabled" | "disabledReason" | "disabledAt" | "failingSince">>;

export interface WebhooksStore {
  /** One write transaction around `fn`; store calls inside join it. */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  insertEndpoint(row: EndpointRow): Promise<void>;
  listEndpoints(accountId: string): Promise<EndpointRow[]>;
  findEndpoint(accountId: string, id: string): Promise<EndpointRow | null>;
  updateEndpoint(accountId: string, id: string, patch: EndpointPatch): Promise<boolean>;
  /** Deletes the endpoint with what deliveries it still has; false when there was none. */
  deleteEndpoint(accountId: string, id: string): Promise<boolean>;
  /** Deletes up to `limit` of an endpoint's deliveries (with their attempts); returns how many. */
  deleteDeliveriesOf(endpointId: string, limit: number): Promise<number>;
  countEndpoints(accountId: string): Promise<number>;

  /** Enabled endpoints of active accounts: the candidates of a fan-out. */
  subscribedEndpoints(): Promise<Pick<EndpointRow, "id" | "events" | "createdAt">[]>;
  /**
   * Inserts deliveries; a second delivery of one event to one endpoint is skipped. Joins the
   * caller's transaction; on SQLite it runs before it returns, so a caller inside a synchronous
   * transaction has its rows written.
   */
  insertDeliveries(rows: DeliveryRow[]): Promise<void>;

  /**
   * Claims due deliveries (pending, due by `now`, not held by a live lease, endpoint enabled) until
   * `leaseUntil`, at most `limit` in all and, per lane (an endpoint, or a Discord URL), at most
   * `lanes.perLane` less what the caller already holds of it (`lanes.held`). Each endpoint with
   * room is read through its own range of the per-endpoint due index, oldest due first; an
   * endpoint without room is never read, so a hanging endpoint's backlog costs a claim nothing.
   */
  claimDue(now: number, limit: number, leaseUntil: number, lanes: ClaimLanes): Promise<ClaimedDelivery[]>;
  /**
   * Of claimed rows (id, and `attempts` when claimed), the ids still to be sent: pending with as
   * many attempts, their endpoint neither deleted nor disabled since the claim. One read for a batch.
   */
  stillDue(rows: { id: string; attempts: number }[]): Promise<Set<string>>;
  /** Lets go of every lease: for the single process that serves a SQLite file, at start. */
  releaseClaims(): Promise<void>;
  /** Lets go of the leases of rows claimed but not sent (their endpoint had no free slot). */
  release(ids: string[], leaseUntil: number): Promise<void>;
  /**
   * Notes an attempt's result on its endpoint: a success clears `failing_since`, a failure sets it
   * unless set. Answers `failing_since` afterwards (null after a success or a deleted endpoint).
   */
  noteEndpointResult(endpointId: string, ok: boolean, at: number): Promise<number | null>;
  disableEndpoint(endpointId: string, reason: string, at: number): Promise<void>;
  /**
   * Records attempts, each moving its delivery if the delivery is still the one claimed (still
   * pending with `attemptsBefore` attempts); answers per attempt whether it was recorded (false
   * when deleted or finished meanwhile). Joins the caller's transaction.
   */
  recordAttempts(attempts: RecordedAttempt[]): Promise<boolean[]>;

  listDeliveries(endpointId: string, limit: number, beforeId: string | null): Promise<DeliveryRow[]>;
  attemptsOf(deliveryIds: string[]): Promise<AttemptRow[]>;
  findDelivery(id: string): Promise<DeliveryRow | null>;

  /** Deletes up to `limit` delivered or failed deliveries finished before `cutoff`; returns how many. */
  pruneFinished(cutoff: number, limit: number): Promise<number>;
  /** Time (`next_attempt_at`) of the oldest pending delivery due by `now`; null when none. */
  oldestDueAt(now: number): Promise<number | null>;
  pendingDeliveries(): Promise<number>;
}

export function createWebhooksStore(database: Database): WebhooksStore {
  return database.dialect === "sqlite" ? new SqliteWebhooksStore(database) : new PostgresWebhooksStore(database);
}
