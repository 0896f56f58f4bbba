// The webhooks module's tables on PostgreSQL (the contract: store.ts).
import { getTableColumns, type Table } from "drizzle-orm";
import type { PostgresDatabase } from "../../db/postgres";
import { columnsOf, rowReader } from "../../db/rows";
import type { AttemptRow, ClaimedDelivery, ClaimLanes, DeliveryRow, EndpointPatch, EndpointRow, RecordedAttempt, WebhooksStore } from "./store";
import { DELIVERY_FIELDS, fullLanes, LEASED_FIELDS, leased, patchColumns, stillDueIds, SUBSCRIBER_FIELDS, withEvents } from "./store.shared";
import { webhookAttemptsPg, webhookDeliveriesPg, webhookEndpointsPg } from "./tables";

const ENDPOINT_COLUMNS = columnsOf(webhookEndpointsPg);
const readEndpoint = rowReader(webhookEndpointsPg);
const SUBSCRIBER_COLUMNS = columnsOf(webhookEndpointsPg, SUBSCRIBER_FIELDS, "e");
const readSubscriber = rowReader(webhookEndpointsPg, SUBSCRIBER_FIELDS);
const DELIVERY_COLUMNS = columnsOf(webhookDeliveriesPg, DELIVERY_FIELDS);
const readDelivery = rowReader(webhookDeliveriesPg, DELIVERY_FIELDS);
const LEASED_COLUMNS = columnsOf(webhookDeliveriesPg, LEASED_FIELDS, "d");
const readLeased = rowReader(webhookDeliveriesPg, LEASED_FIELDS);
const ATTEMPT_COLUMNS = columnsOf(webhookAttemptsPg);
const readAttempt = rowReader(webhookAttemptsPg);

/** A function from a row to the same values under its table's column names: an INSERT's object. */
function recordOf<T extends Table>(table: T): (row: Partial<T["$inferSelect"]>) => Record<string, unknown> {
  const names = Object.entries(getTableColumns(table)).map(([field, column]) => [field, column.name] as const);
  return (row) => {
    const record: Record<string, unknown> = {};
    for (const [field, name] of names) if (field in row) record[name] = row[field as keyof typeof row];
    return record;
  };
}

const endpointRecord = recordOf(webhookEndpointsPg);
const deliveryRecord = recordOf(webhookDeliveriesPg);
const attemptRecord = recordOf(webhookAttemptsPg);

export class PostgresWebhooksStore implements WebhooksStore {
  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  /**
   * Not announced to the other instances: nothing caches these tables, and the worker commits
   * many times a second. (Inside a caller's write, the caller's commit announces as usual.)
   */
  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.database.write(fn, { announce: false });
  }

  async insertEndpoint(row: EndpointRow): Promise<void> {
    const sql = this.sql;
    await sql`INSERT INTO webhook_endpoints ${sql(endpointRecord({ ...row, events: JSON.stringify(row.events) }))}`;
  }

  async listEndpoints(accountId: string): Promise<EndpointRow[]> {
    const sql = this.sql;
    const rows = await sql`SELECT ${sql.unsafe(ENDPOINT_COLUMNS)} FROM webhook_endpoints WHERE account_id = ${accountId} ORDER BY created_at, id`;
    return rows.map((raw: Record<string, unknown>) => withEvents(readEndpoint(raw)));
  }

  async findEndpoint(accountId: string, id: string): Promise<EndpointRow | null> {
    const sql = this.sql;
    const [row] = await sql`SELECT ${sql.unsafe(ENDPOINT_COLUMNS)} FROM webhook_endpoints WHERE id = ${id} AND account_id = ${accountId}`;
    return row ? withEvents(readEndpoint(row)) : null;
  }

  async updateEndpoint(accountId: string, id: string, patch: EndpointPatch): Promise<boolean> {
    const columns = patchColumns(patch);
    if (columns.length === 0) return (await this.findEndpoint(accountId, id)) !== null;
    const record = Object.fromEntries(columns);
    const rows = await this.sql`UPDATE webhook_endpoints SET ${this.sql(record)} WHERE id = ${id} AND account_id = ${accountId} RETURNING 1`;
    return rows.length > 0;
  }

  async deleteEndpoint(accountId: string, id: string): Promise<boolean> {
    const rows = await this.sql`DELETE FROM webhook_endpoints WHERE id = ${id} AND account_id = ${accountId} RETURNING 1`;
    return rows.length > 0;
  }

  async deleteDeliveriesOf(endpointId: string, limit: number): Promise<number> {
    const rows = await this.sql`DELETE FROM webhook_deliveries WHERE id IN (
        SELECT id FROM webhook_deliveries WHERE endpoint_id = ${endpointId} LIMIT ${limit}) RETURNING 1`;
    return rows.length;
  }

  async countEndpoints(accountId: string): Promise<number> {
    const [row] = await this.sql`SELECT count(*)::int AS n FROM webhook_endpoints WHERE account_id = ${accountId}`;
    return row.n;
  }

  async subscribedEndpoints() {
    const sql = this.sql;
    const rows = await sql`SELECT ${sql.unsafe(SUBSCRIBER_COLUMNS)} FROM webhook_endpoints e JOIN accounts a ON a.id = e.account_id
      WHERE e.enabled AND a.status = 'active'`;
    return rows.map((raw: Record<string, unknown>) => withEvents(readSubscriber(raw)));
  }

  async insertDeliveries(rows: DeliveryRow[]): Promise<void> {
    if (rows.length === 0) return;
    const sql = this.sql;
    await sql`INSERT INTO webhook_deliveries ${sql(rows.map(deliveryRecord))} ON CONFLICT DO NOTHING`;
  }

  async claimDue(now: number, limit: number, leaseUntil: number, lanes: ClaimLanes): Promise<ClaimedDelivery[]> {
    // One statement: the rows are locked (others skip them), leased and returned, and the lease
    // commits with it, so another instance never claims them until it lapses. Each endpoint with
    // room is read through its own range of webhook_deliveries_endpoint_due_idx (the LATERAL
    // subquery, at most its room); an endpoint without room is not read at all. Discord messages
    // are the index's `endpoint_id IS NULL` range, less the URLs without room (filtered: they are
    // the occasional tripwire alerts; rows over a URL's room go back through the worker's release).
    const sql = this.sql;
    const keys = [...lanes.held.keys()];
    const held = keys.map((key) => lanes.held.get(key)!);
    const rows = await sql`WITH lanes AS (
        SELECT e.id, ${lanes.perLane}::int - coalesce(h.held, 0) AS room
        FROM webhook_endpoints e LEFT JOIN unnest(${sql.array(keys, "TEXT")}::text[], ${sql.array(held, "INT4")}::int[]) AS h(id, held) ON h.id = e.id
        WHERE e.enabled AND coalesce(h.held, 0) < ${lanes.perLane}::int
        ORDER BY random()
      ), endpoint_due AS (
        SELECT d.id FROM lanes l CROSS JOIN LATERAL (
          SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
          WHERE d.endpoint_id = l.id AND d.status = 'pending' AND d.next_attempt_at <= ${now}
            AND (d.claimed_until IS NULL OR d.claimed_until <= ${now})
          ORDER BY d.next_attempt_at LIMIT l.room
          FOR UPDATE SKIP LOCKED
        ) d
        LIMIT ${limit}
      ), discord_due AS (
        SELECT d.id FROM webhook_deliveries d
        WHERE d.endpoint_id IS NULL AND d.status = 'pending' AND d.next_attempt_at <= ${now}
          AND (d.claimed_until IS NULL OR d.claimed_until <= ${now}) AND NOT (d.url = ANY(${sql.array(fullLanes(lanes), "TEXT")}))
        ORDER BY d.next_attempt_at LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ), due AS (
        SELECT id FROM endpoint_due UNION ALL SELECT id FROM discord_due LIMIT ${limit}
      )
      UPDATE webhook_deliveries d SET claimed_until = ${leaseUntil} FROM due WHERE d.id = due.id
      RETURNING ${sql.unsafe(LEASED_COLUMNS)},
        (SELECT e.url FROM webhook_endpoints e WHERE e.id = d.endpoint_id) AS "endpointUrl",
        (SELECT e.secret FROM webhook_endpoints e WHERE e.id = d.endpoint_id) AS secret`;
    return rows.map((raw: { endpointUrl: string | null; secret: string | null }) => {
      const r = readLeased(raw);
      return leased(r, (r.endpointId === null ? r.url : raw.endpointUrl)!, raw.secret);
    });
  }

  async stillDue(rows: { id: string; attempts: number }[]): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const found = await this.sql`SELECT d.id, d.attempts FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.id = ANY(${this.sql.array(rows.map((r) => r.id), "TEXT")}) AND d.status = 'pending' AND (d.endpoint_id IS NULL OR e.enabled)`;
    return stillDueIds(rows, found);
  }

  async releaseClaims(): Promise<void> {
    // Several instances share PostgreSQL: another one's leases are live; they lapse on their own.
  }

  async release(ids: string[], leaseUntil: number): Promise<void> {
    if (ids.length === 0) return;
    await this.sql`UPDATE webhook_deliveries SET claimed_until = NULL WHERE id = ANY(${this.sql.array(ids, "TEXT")}) AND claimed_until = ${leaseUntil}`;
  }

  async noteEndpointResult(endpointId: string, ok: boolean, at: number): Promise<number | null> {
    if (ok) {
      await this.sql`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ${endpointId} AND failing_since IS NOT NULL`;
      return null;
    }
    const [row] = await this.sql`UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ${at}) WHERE id = ${endpointId} RETURNING failing_since`;
    return row ? Number(row.failing_since) : null;
  }

  async disableEndpoint(endpointId: string, reason: string, at: number): Promise<void> {
    await this.sql`UPDATE webhook_endpoints SET enabled = false, disabled_reason = ${reason}, disabled_at = ${at} WHERE id = ${endpointId}`;
  }

  async recordAttempts(attempts: RecordedAttempt[]): Promise<boolean[]> {
    if (attempts.length === 0) return [];
    // Two statements for the whole batch: the deliveries still as claimed move, then their attempts.
    const sql = this.sql;
    const moved = await sql`UPDATE webhook_deliveries d SET attempts = d.attempts + 1, status = v.status,
        next_attempt_at = v.next_attempt_at, finished_at = v.finished_at, claimed_until = NULL
      FROM unnest(${sql.array(attempts.map((a) => a.attempt.deliveryId), "TEXT")}::text[],
                  ${sql.array(attempts.map((a) => a.attemptsBefore), "INT4")}::int[],
                  ${sql.array(attempts.map((a) => a.outcome.status), "TEXT")}::text[],
                  ${sql.array(attempts.map((a) => a.outcome.nextAttemptAt), "INT8")}::bigint[],
                  ${sql.array(attempts.map((a) => a.outcome.finishedAt), "INT8")}::bigint[])
        AS v(id, attempts_before, status, next_attempt_at, finished_at)
      WHERE d.id = v.id AND d.status = 'pending' AND d.attempts = v.attempts_before
      RETURNING d.id`;
    const ids = new Set(moved.map((r: { id: string }) => r.id));
    const records = attempts.filter((a) => ids.has(a.attempt.deliveryId)).map(({ attempt }) => attemptRecord(attempt));
    if (records.length) await sql`INSERT INTO webhook_attempts ${sql(records)}`;
    return attempts.map((a) => ids.has(a.attempt.deliveryId));
  }

  async listDeliveries(endpointId: string, limit: number, beforeId: string | null): Promise<DeliveryRow[]> {
    const sql = this.sql;
    const columns = sql.unsafe(DELIVERY_COLUMNS);
    const rows =
      beforeId === null
        ? await sql`SELECT ${columns} FROM webhook_deliveries WHERE endpoint_id = ${endpointId} ORDER BY id DESC LIMIT ${limit}`
        : await sql`SELECT ${columns} FROM webhook_deliveries WHERE endpoint_id = ${endpointId} AND id < ${beforeId} ORDER BY id DESC LIMIT ${limit}`;
    return rows.map(readDelivery);
  }

  async attemptsOf(deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    const sql = this.sql;
    const rows = await sql`SELECT ${sql.unsafe(ATTEMPT_COLUMNS)} FROM webhook_attempts WHERE delivery_id = ANY(${sql.array(deliveryIds, "TEXT")}) ORDER BY delivery_id, attempt`;
    return rows.map(readAttempt);
  }

  async findDelivery(id: string): Promise<DeliveryRow | null> {
    const sql = this.sql;
    const [row] = await sql`SELECT ${sql.unsafe(DELIVERY_COLUMNS)} FROM webhook_deliveries WHERE id = ${id}`;
    return row ? readDelivery(row) : null;
  }

  async pruneFinished(cutoff: number, limit: number): Promise<number> {
    const rows = await this.sql`DELETE FROM webhook_deliveries WHERE id IN (
        SELECT id FROM webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < ${cutoff} LIMIT ${limit}) RETURNING 1`;
    return rows.length;
  }

  async oldestDueAt(now: number): Promise<number | null> {
    const [row] = await this.sql`SELECT min(next_attempt_at)::float8 AS t FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ${now}`;
    return row.t === null ? null : Number(row.t);
  }

  async pendingDeliveries(): Promise<number> {
    const [row] = await this.sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`;
    return row.n;
  }
}
