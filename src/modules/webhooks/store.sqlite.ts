// The webhooks module's tables on SQLite (the contract: store.ts).
import type { Database as SqliteConnection } from "bun:sqlite";
import type { Store } from "../../db/client";
import { columnsOf, rowReader } from "../../db/rows";
import type { AttemptRow, ClaimedDelivery, ClaimLanes, DeliveryRow, EndpointPatch, EndpointRow, LeasedRow, RecordedAttempt, WebhooksStore } from "./store";
import { byDue, DELIVERY_FIELDS, fullLanes, LEASED_FIELDS, leased, patchColumns, stillDueIds, SUBSCRIBER_FIELDS, withEvents } from "./store.shared";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "./tables";

const ENDPOINT_COLUMNS = columnsOf(webhookEndpoints);
const readEndpoint = rowReader(webhookEndpoints);
const DELIVERY_COLUMNS = columnsOf(webhookDeliveries, DELIVERY_FIELDS);
const LEASED_COLUMNS = columnsOf(webhookDeliveries, LEASED_FIELDS);
const ATTEMPT_COLUMNS = columnsOf(webhookAttempts);
const SUBSCRIBER_COLUMNS = columnsOf(webhookEndpoints, SUBSCRIBER_FIELDS, "e");
const FAILING_SINCE = columnsOf(webhookEndpoints, ["failingSince"]);

/**
 * Whether any pending delivery is due, claimed or not: the claim's look before it takes the write
 * lock. It reads webhook_deliveries_due_idx alone; whether a due row is free is the claim's to
 * find (checking leases here would read every row the worker holds, a second time).
 */
const ANY_DUE = "SELECT 1 FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? LIMIT 1";

/** Whether any Discord message is due (held or not), from webhook_deliveries_endpoint_due_idx alone. */
const ANY_DISCORD_DUE = "SELECT 1 FROM webhook_deliveries WHERE endpoint_id IS NULL AND status = 'pending' AND next_attempt_at <= ? LIMIT 1";

export class SqliteWebhooksStore implements WebhooksStore {
  private readonly sqlite: SqliteConnection;

  constructor(private readonly store: Store) {
    this.sqlite = store.sqlite;
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.write(fn);
  }

  async insertEndpoint(row: EndpointRow): Promise<void> {
    await this.store.write(() => {
      this.sqlite.run(
        `INSERT INTO webhook_endpoints (id, account_id, url, events, secret, enabled, disabled_reason, disabled_at, failing_since, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [row.id, row.accountId, row.url, JSON.stringify(row.events), row.secret, row.enabled ? 1 : 0, row.disabledReason, row.disabledAt, row.failingSince, row.createdAt],
      );
    });
  }

  async listEndpoints(accountId: string): Promise<EndpointRow[]> {
    return this.sqlite
      .query<Record<string, unknown>, [string]>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = ? ORDER BY created_at, id`)
      .all(accountId)
      .map((raw) => withEvents(readEndpoint(raw)));
  }

  async findEndpoint(accountId: string, id: string): Promise<EndpointRow | null> {
    const row = this.sqlite.query<Record<string, unknown>, [string, string]>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ? AND account_id = ?`).get(id, accountId);
    return row ? withEvents(readEndpoint(row)) : null;
  }

  async updateEndpoint(accountId: string, id: string, patch: EndpointPatch): Promise<boolean> {
    const columns = patchColumns(patch);
    if (columns.length === 0) return (await this.findEndpoint(accountId, id)) !== null;
    const assignments = columns.map(([column]) => `${column} = ?`).join(", ");
    const values = columns.map(([, value]) => (typeof value === "boolean" ? (value ? 1 : 0) : value)) as (string | number | null)[];
    return this.store.write(
      () => this.sqlite.run(`UPDATE webhook_endpoints SET ${assignments} WHERE id = ? AND account_id = ?`, [...values, id, accountId]).changes > 0,
    );
  }

  async deleteEndpoint(accountId: string, id: string): Promise<boolean> {
    // Deliveries and their attempts go with it (ON DELETE CASCADE): pending ones stop.
    return this.store.write(() => this.sqlite.run("DELETE FROM webhook_endpoints WHERE id = ? AND account_id = ?", [id, accountId]).changes > 0);
  }

  async deleteDeliveriesOf(endpointId: string, limit: number): Promise<number> {
    return this.store.write(
      () =>
        this.sqlite.run("DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = ? LIMIT ?)", [endpointId, limit]).changes,
    );
  }

  async countEndpoints(accountId: string): Promise<number> {
    return this.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM webhook_endpoints WHERE account_id = ?").get(accountId)!.n;
  }

  async subscribedEndpoints() {
    return this.sqlite
      .query<Pick<EndpointRow, "id" | "createdAt"> & { events: string }, []>(
        `SELECT ${SUBSCRIBER_COLUMNS} FROM webhook_endpoints e JOIN accounts a ON a.id = e.account_id WHERE e.enabled = 1 AND a.status = 'active'`,
      )
      .all()
      .map(withEvents);
  }

  insertDeliveries(rows: DeliveryRow[]): Promise<void> {
    const statement = this.sqlite.query(
      `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, type, url, payload, status, attempts, next_attempt_at, created_at, finished_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    );
    for (const r of rows) statement.run(r.id, r.endpointId, r.eventId, r.type, r.url, r.payload, r.status, r.attempts, r.nextAttemptAt, r.createdAt, r.finishedAt);
    return Promise.resolve();
  }

  async claimDue(now: number, limit: number, leaseUntil: number, lanes: ClaimLanes): Promise<ClaimedDelivery[]> {
    // A read first, outside the write lock: most polls find nothing due.
    if (this.sqlite.query<unknown, [number]>(ANY_DUE).get(now) === null) return [];
    return this.store.write(() => {
      // One statement per lane with room, each leasing and returning the rows it took: one range of
      // webhook_deliveries_endpoint_due_idx (endpoint_id = ?, next_attempt_at <= now), oldest due
      // first. Rows are named by rowid, which the index entries carry: one descent per row, not
      // two (the id's own index, then the row). The endpoint's URL and secret come from the one
      // read of the enabled endpoints.
      const endpoints = this.sqlite.query<{ id: string; url: string; secret: string }, []>("SELECT id, url, secret FROM webhook_endpoints WHERE enabled = 1").all();
      const claimOf = this.sqlite.query<LeasedRow, [number, string, number, number]>(
        `UPDATE webhook_deliveries SET claimed_until = ?1 WHERE rowid IN (
           SELECT rowid FROM webhook_deliveries
           WHERE endpoint_id = ?2 AND status = 'pending' AND next_attempt_at <= ?3 AND (claimed_until IS NULL OR claimed_until <= ?3)
           ORDER BY next_attempt_at LIMIT ?4)
         RETURNING ${LEASED_COLUMNS}`,
      );
      const claimed: ClaimedDelivery[] = [];
      // From a random endpoint on, so a short `limit` does not always serve the same ones first.
      const first = endpoints.length ? Math.floor(Math.random() * endpoints.length) : 0;
      for (let i = 0; i < endpoints.length && claimed.length < limit; i++) {
        const endpoint = endpoints[(first + i) % endpoints.length]!;
        const room = Math.min(lanes.perLane - (lanes.held.get(endpoint.id) ?? 0), limit - claimed.length);
        if (room <= 0) continue;
        // RETURNING gives its rows in no particular order: the lane's queue wants the oldest first.
        const rows = claimOf.all(leaseUntil, endpoint.id, now, room).sort(byDue);
        for (const r of rows) claimed.push(leased(r, endpoint.url, endpoint.secret));
      }
      if (claimed.length < limit) {
        for (const r of this.claimDiscord(now, limit - claimed.length, leaseUntil, lanes)) claimed.push(leased(r, r.url!, null));
      }
      return claimed;
    });
  }

  /**
   * Due Discord messages: the index's `endpoint_id IS NULL` range, less the URLs without room
   * (filtered, not skipped in the index: these are the occasional tripwire alerts). Rows over a
   * URL's room go back through the worker's release.
   */
  private claimDiscord(now: number, limit: number, leaseUntil: number, lanes: ClaimLanes): LeasedRow[] {
    // Most claims find none: a look at the index alone costs a fraction of the statement below
    // (which builds its URL filter whether or not a row is there).
    if (this.sqlite.query<unknown, [number]>(ANY_DISCORD_DUE).get(now) === null) return [];
    return this.sqlite
      .query<LeasedRow, [number, number, number, string]>(
        `UPDATE webhook_deliveries SET claimed_until = ?1 WHERE rowid IN (
           SELECT rowid FROM webhook_deliveries
           WHERE endpoint_id IS NULL AND status = 'pending' AND next_attempt_at <= ?2 AND (claimed_until IS NULL OR claimed_until <= ?2)
             AND url NOT IN (SELECT value FROM json_each(?4))
           ORDER BY next_attempt_at LIMIT ?3)
         RETURNING ${LEASED_COLUMNS}`,
      )
      .all(leaseUntil, now, limit, JSON.stringify(fullLanes(lanes)))
      .sort(byDue);
  }

  async stillDue(rows: { id: string; attempts: number }[]): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const found = this.sqlite
      .query<{ id: string; attempts: number }, [string]>(
        `SELECT d.id, d.attempts FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
         WHERE d.id IN (SELECT value FROM json_each(?)) AND d.status = 'pending' AND (d.endpoint_id IS NULL OR e.enabled = 1)`,
      )
      .all(JSON.stringify(rows.map((r) => r.id)));
    return stillDueIds(rows, found);
  }

  async releaseClaims(): Promise<void> {
    await this.store.write(() => this.sqlite.run("UPDATE webhook_deliveries SET claimed_until = NULL WHERE status = 'pending' AND claimed_until IS NOT NULL"));
  }

  async release(ids: string[], leaseUntil: number): Promise<void> {
    if (ids.length === 0) return;
    await this.store.write(() => {
      this.sqlite.run("UPDATE webhook_deliveries SET claimed_until = NULL WHERE id IN (SELECT value FROM json_each(?)) AND claimed_until = ?", [
        JSON.stringify(ids),
        leaseUntil,
      ]);
    });
  }

  async noteEndpointResult(endpointId: string, ok: boolean, at: number): Promise<number | null> {
    if (ok) {
      this.sqlite.query("UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL").run(endpointId);
      return null;
    }
    const row = this.sqlite
      .query<Pick<EndpointRow, "failingSince">, [number, string]>(
        `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?) WHERE id = ? RETURNING ${FAILING_SINCE}`,
      )
      .get(at, endpointId);
    return row ? row.failingSince : null;
  }

  async disableEndpoint(endpointId: string, reason: string, at: number): Promise<void> {
    this.sqlite.run("UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?, disabled_at = ? WHERE id = ?", [reason, at, endpointId]);
  }

  async recordAttempts(attempts: RecordedAttempt[]): Promise<boolean[]> {
    return this.store.write(() => {
      // query() keeps the compiled statements: these run for every attempt.
      const move = this.sqlite.query(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, status = ?, next_attempt_at = ?, finished_at = ?, claimed_until = NULL
         WHERE id = ? AND status = 'pending' AND attempts = ?`,
      );
      const insert = this.sqlite.query(
        `INSERT INTO webhook_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error, response_excerpt) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      );
      return attempts.map(({ attempt: a, attemptsBefore, outcome }) => {
        if (move.run(outcome.status, outcome.nextAttemptAt, outcome.finishedAt, a.deliveryId, attemptsBefore).changes === 0) return false;
        insert.run(a.deliveryId, a.attempt, a.startedAt, a.statusCode, a.latencyMs, a.error, a.responseExcerpt);
        return true;
      });
    });
  }

  async listDeliveries(endpointId: string, limit: number, beforeId: string | null): Promise<DeliveryRow[]> {
    return beforeId === null
      ? this.sqlite.query<DeliveryRow, [string, number]>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY id DESC LIMIT ?`).all(endpointId, limit)
      : this.sqlite
          .query<DeliveryRow, [string, string, number]>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = ? AND id < ? ORDER BY id DESC LIMIT ?`)
          .all(endpointId, beforeId, limit);
  }

  async attemptsOf(deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    return this.sqlite
      .query<AttemptRow, [string]>(
        `SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts WHERE delivery_id IN (SELECT value FROM json_each(?)) ORDER BY delivery_id, attempt`,
      )
      .all(JSON.stringify(deliveryIds));
  }

  async findDelivery(id: string): Promise<DeliveryRow | null> {
    return this.sqlite.query<DeliveryRow, [string]>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = ?`).get(id);
  }

  async pruneFinished(cutoff: number, limit: number): Promise<number> {
    return this.store.write(
      () =>
        this.sqlite.run(
          "DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < ? LIMIT ?)",
          [cutoff, limit],
        ).changes,
    );
  }

  async oldestDueAt(now: number): Promise<number | null> {
    return this.sqlite
      .query<{ t: number | null }, [number]>("SELECT min(next_attempt_at) AS t FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?")
      .get(now)!.t;
  }

  async pendingDeliveries(): Promise<number> {
    return this.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'").get()!.n;
  }
}
