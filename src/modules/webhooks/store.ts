// The webhooks module's tables: `webhook_endpoints`, `webhook_deliveries` and `webhook_attempts`,
// on SQLite or PostgreSQL. The only place their SQL lives (the outbox events the fan-out reads are
// the outbox module's). Deliveries are claimed with a lease (`claimed_until`): a claimed row is
// invisible to other claims until its lease lapses, so a worker that died lets its rows go, and on
// PostgreSQL several instances claim with FOR UPDATE SKIP LOCKED, never the same row at the same time.
import type { Database as SqliteConnection } from "bun:sqlite";
import type { Database } from "../../db/database";
import type { DeliveryStatus } from "../../domain";

export interface EndpointRow {
  id: string;
  accountId: string;
  url: string;
  events: string[];
  secret: string;
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: number | null;
  failingSince: number | null;
  createdAt: number;
}

export interface DeliveryRow {
  id: string;
  endpointId: string | null;
  eventId: string | null;
  type: string;
  url: string | null;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number;
  createdAt: number;
  finishedAt: number | null;
}

export interface AttemptRow {
  deliveryId: string;
  attempt: number;
  startedAt: number;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string | null;
  type: string;
  /** The endpoint's URL, or the delivery's own (Discord). */
  url: string;
  /** The endpoint's signing secret; null for a message without an endpoint. */
  secret: string | null;
  payload: string;
  attempts: number;
  createdAt: number;
  nextAttemptAt: number;
}

/** What a claim may take per lane. */
export interface ClaimLanes {
  /** Rows a lane may hold at most. */
  perLane: number;
  /** Rows the caller holds per lane key (endpoint id, or URL for a Discord message). */
  held: ReadonlyMap<string, number>;
}

/** One attempt to record: the row, the delivery's attempts when claimed, where it leaves the delivery. */
export interface RecordedAttempt {
  attempt: AttemptRow;
  attemptsBefore: number;
  outcome: AttemptOutcome;
}

/** Where an attempt leaves its delivery. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  nextAttemptAt: number;
  finishedAt: number | null;
}

export interface EndpointPatch {
  url?: string;
  events?: string[];
  secret?: string;
  enabled?: boolean;
  disabledReason?: string | null;
  disabledAt?: number | null;
  failingSince?: number | null;
}

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
  /** Inserts deliveries; a second delivery of one event to one endpoint is skipped. Joins the caller's transaction. */
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

interface EndpointRecord {
  id: string;
  account_id: string;
  url: string;
  events: string;
  secret: string;
  enabled: number | boolean;
  disabled_reason: string | null;
  disabled_at: number | string | null;
  failing_since: number | string | null;
  created_at: number | string;
}

interface DeliveryRecord {
  id: string;
  endpoint_id: string | null;
  event_id: string | null;
  type: string;
  url: string | null;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number | string;
  created_at: number | string;
  finished_at: number | string | null;
}

interface AttemptRecord {
  delivery_id: string;
  attempt: number;
  started_at: number | string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

interface ClaimRecord {
  id: string;
  endpoint_id: string | null;
  type: string;
  url: string | null;
  endpoint_url: string | null;
  secret: string | null;
  payload: string;
  attempts: number;
  created_at: number | string;
  next_attempt_at: number | string;
}

const nullableNumber = (value: number | string | null) => (value === null ? null : Number(value));

function toEndpoint(r: EndpointRecord): EndpointRow {
  return {
    id: r.id,
    accountId: r.account_id,
    url: r.url,
    events: JSON.parse(r.events) as string[],
    secret: r.secret,
    enabled: Boolean(r.enabled),
    disabledReason: r.disabled_reason,
    disabledAt: nullableNumber(r.disabled_at),
    failingSince: nullableNumber(r.failing_since),
    createdAt: Number(r.created_at),
  };
}

function toDelivery(r: DeliveryRecord): DeliveryRow {
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    type: r.type,
    url: r.url,
    payload: r.payload,
    status: r.status,
    attempts: Number(r.attempts),
    nextAttemptAt: Number(r.next_attempt_at),
    createdAt: Number(r.created_at),
    finishedAt: nullableNumber(r.finished_at),
  };
}

function toAttempt(r: AttemptRecord): AttemptRow {
  return {
    deliveryId: r.delivery_id,
    attempt: Number(r.attempt),
    startedAt: Number(r.started_at),
    statusCode: r.status_code === null ? null : Number(r.status_code),
    latencyMs: Number(r.latency_ms),
    error: r.error,
    responseExcerpt: r.response_excerpt,
  };
}

function toClaimed(r: ClaimRecord): ClaimedDelivery {
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    type: r.type,
    url: (r.endpoint_id === null ? r.url : r.endpoint_url)!,
    secret: r.secret,
    payload: r.payload,
    attempts: Number(r.attempts),
    createdAt: Number(r.created_at),
    nextAttemptAt: Number(r.next_attempt_at),
  };
}

/** Column assignments of a patch, in a fixed order: [column, value]. */
function patchColumns(patch: EndpointPatch): [string, unknown][] {
  const columns: [string, unknown][] = [];
  if (patch.url !== undefined) columns.push(["url", patch.url]);
  if (patch.events !== undefined) columns.push(["events", JSON.stringify(patch.events)]);
  if (patch.secret !== undefined) columns.push(["secret", patch.secret]);
  if (patch.enabled !== undefined) columns.push(["enabled", patch.enabled]);
  if (patch.disabledReason !== undefined) columns.push(["disabled_reason", patch.disabledReason]);
  if (patch.disabledAt !== undefined) columns.push(["disabled_at", patch.disabledAt]);
  if (patch.failingSince !== undefined) columns.push(["failing_since", patch.failingSince]);
  return columns;
}

/** The ids of `claimed` found still pending with the attempts they were claimed with. */
function stillDueIds(claimed: { id: string; attempts: number }[], found: { id: string; attempts: number | string }[]): Set<string> {
  const attemptsNow = new Map(found.map((r) => [r.id, Number(r.attempts)]));
  return new Set(claimed.filter((r) => attemptsNow.get(r.id) === r.attempts).map((r) => r.id));
}

/** Lane keys without room: for Discord messages, whose lanes are their URLs. */
function fullLanes(lanes: ClaimLanes): string[] {
  return [...lanes.held].filter(([, n]) => n >= lanes.perLane).map(([key]) => key);
}

/** A row a SQLite claim leased, as its RETURNING gives it (the endpoint's URL and secret are added after). */
interface LeasedRecord {
  id: string;
  endpoint_id: string | null;
  type: string;
  url: string | null;
  payload: string;
  attempts: number;
  created_at: number;
  next_attempt_at: number;
}

const LEASED_COLUMNS = "id, endpoint_id, type, url, payload, attempts, created_at, next_attempt_at";

/**
 * Whether any pending delivery is due, claimed or not: the claim's look before it takes the write
 * lock. It reads webhook_deliveries_due_idx alone; whether a due row is free is the claim's to
 * find (checking leases here would read every row the worker holds, a second time).
 */
const ANY_DUE = "SELECT 1 FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? LIMIT 1";

/** Whether any Discord message is due (held or not), from webhook_deliveries_endpoint_due_idx alone. */
const ANY_DISCORD_DUE = "SELECT 1 FROM webhook_deliveries WHERE endpoint_id IS NULL AND status = 'pending' AND next_attempt_at <= ? LIMIT 1";

/** Oldest due first; ids (time-sortable) break ties. */
function byDue(a: LeasedRecord, b: LeasedRecord): number {
  return a.next_attempt_at - b.next_attempt_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function leased(r: LeasedRecord, url: string, secret: string | null): ClaimedDelivery {
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    type: r.type,
    url,
    secret,
    payload: r.payload,
    attempts: r.attempts,
    createdAt: r.created_at,
    nextAttemptAt: r.next_attempt_at,
  };
}

type SqliteStore = Extract<Database, { dialect: "sqlite" }>;

class SqliteWebhooksStore implements WebhooksStore {
  private readonly sqlite: SqliteConnection;

  constructor(private readonly store: SqliteStore) {
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
      .query<EndpointRecord, [string]>("SELECT * FROM webhook_endpoints WHERE account_id = ? ORDER BY created_at, id")
      .all(accountId)
      .map(toEndpoint);
  }

  async findEndpoint(accountId: string, id: string): Promise<EndpointRow | null> {
    const row = this.sqlite.query<EndpointRecord, [string, string]>("SELECT * FROM webhook_endpoints WHERE id = ? AND account_id = ?").get(id, accountId);
    return row ? toEndpoint(row) : null;
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
      .query<{ id: string; events: string; created_at: number }, []>(
        "SELECT e.id, e.events, e.created_at FROM webhook_endpoints e JOIN accounts a ON a.id = e.account_id WHERE e.enabled = 1 AND a.status = 'active'",
      )
      .all()
      .map((r) => ({ id: r.id, events: JSON.parse(r.events) as string[], createdAt: Number(r.created_at) }));
  }

  /** Runs before it returns, so a caller inside a synchronous SQLite transaction has its rows written. */
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
      const claimOf = this.sqlite.query<LeasedRecord, [number, string, number, number]>(
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
  private claimDiscord(now: number, limit: number, leaseUntil: number, lanes: ClaimLanes): LeasedRecord[] {
    // Most claims find none: a look at the index alone costs a fraction of the statement below
    // (which builds its URL filter whether or not a row is there).
    if (this.sqlite.query<unknown, [number]>(ANY_DISCORD_DUE).get(now) === null) return [];
    return this.sqlite
      .query<LeasedRecord, [number, number, number, string]>(
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
      .query<{ failing_since: number }, [number, string]>("UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?) WHERE id = ? RETURNING failing_since")
      .get(at, endpointId);
    return row ? Number(row.failing_since) : null;
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
    const rows =
      beforeId === null
        ? this.sqlite.query<DeliveryRecord, [string, number]>("SELECT * FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY id DESC LIMIT ?").all(endpointId, limit)
        : this.sqlite
            .query<DeliveryRecord, [string, string, number]>("SELECT * FROM webhook_deliveries WHERE endpoint_id = ? AND id < ? ORDER BY id DESC LIMIT ?")
            .all(endpointId, beforeId, limit);
    return rows.map(toDelivery);
  }

  async attemptsOf(deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    return this.sqlite
      .query<AttemptRecord, [string]>("SELECT * FROM webhook_attempts WHERE delivery_id IN (SELECT value FROM json_each(?)) ORDER BY delivery_id, attempt")
      .all(JSON.stringify(deliveryIds))
      .map(toAttempt);
  }

  async findDelivery(id: string): Promise<DeliveryRow | null> {
    const row = this.sqlite.query<DeliveryRecord, [string]>("SELECT * FROM webhook_deliveries WHERE id = ?").get(id);
    return row ? toDelivery(row) : null;
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

type PostgresStore = Extract<Database, { dialect: "postgres" }>;

class PostgresWebhooksStore implements WebhooksStore {
  constructor(private readonly database: PostgresStore) {}

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
    await this.sql`INSERT INTO webhook_endpoints (id, account_id, url, events, secret, enabled, disabled_reason, disabled_at, failing_since, created_at)
      VALUES (${row.id}, ${row.accountId}, ${row.url}, ${JSON.stringify(row.events)}, ${row.secret}, ${row.enabled}, ${row.disabledReason},
              ${row.disabledAt}, ${row.failingSince}, ${row.createdAt})`;
  }

  async listEndpoints(accountId: string): Promise<EndpointRow[]> {
    const rows = await this.sql`SELECT * FROM webhook_endpoints WHERE account_id = ${accountId} ORDER BY created_at, id`;
    return rows.map(toEndpoint);
  }

  async findEndpoint(accountId: string, id: string): Promise<EndpointRow | null> {
    const [row] = await this.sql`SELECT * FROM webhook_endpoints WHERE id = ${id} AND account_id = ${accountId}`;
    return row ? toEndpoint(row) : null;
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
    const rows = await this.sql`SELECT e.id, e.events, e.created_at FROM webhook_endpoints e JOIN accounts a ON a.id = e.account_id
      WHERE e.enabled AND a.status = 'active'`;
    return rows.map((r: { id: string; events: string; created_at: string | number }) => ({
      id: r.id,
      events: JSON.parse(r.events) as string[],
      createdAt: Number(r.created_at),
    }));
  }

  async insertDeliveries(rows: DeliveryRow[]): Promise<void> {
    if (rows.length === 0) return;
    const records = rows.map((r) => ({
      id: r.id,
      endpoint_id: r.endpointId,
      event_id: r.eventId,
      type: r.type,
      url: r.url,
      payload: r.payload,
      status: r.status,
      attempts: r.attempts,
      next_attempt_at: r.nextAttemptAt,
      created_at: r.createdAt,
      finished_at: r.finishedAt,
    }));
    await this.sql`INSERT INTO webhook_deliveries ${this.sql(records)} ON CONFLICT DO NOTHING`;
  }

  async claimDue(now: number, limit: number, leaseUntil: number, lanes: ClaimLanes): Promise<ClaimedDelivery[]> {
    // One statement: the rows are locked (others skip them), leased and returned, and the lease
    // commits with it, so another instance never claims them until it lapses. Each endpoint with
    // room is read through its own range of webhook_deliveries_endpoint_due_idx (the LATERAL
    // subquery, at most its room); an endpoint without room is not read at all. Discord messages
    // are the index's `endpoint_id IS NULL` range, less the URLs without room (filtered: they are
    // the occasional tripwire alerts; rows over a URL's room go back through the worker's release).
    const keys = [...lanes.held.keys()];
    const held = keys.map((key) => lanes.held.get(key)!);
    const rows = await this.sql`WITH lanes AS (
        SELECT e.id, ${lanes.perLane}::int - coalesce(h.held, 0) AS room
        FROM webhook_endpoints e LEFT JOIN unnest(${this.sql.array(keys, "TEXT")}::text[], ${this.sql.array(held, "INT4")}::int[]) AS h(id, held) ON h.id = e.id
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
          AND (d.claimed_until IS NULL OR d.claimed_until <= ${now}) AND NOT (d.url = ANY(${this.sql.array(fullLanes(lanes), "TEXT")}))
        ORDER BY d.next_attempt_at LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ), due AS (
        SELECT id FROM endpoint_due UNION ALL SELECT id FROM discord_due LIMIT ${limit}
      )
      UPDATE webhook_deliveries d SET claimed_until = ${leaseUntil} FROM due WHERE d.id = due.id
      RETURNING d.id, d.endpoint_id, d.type, d.url, d.payload, d.attempts, d.created_at, d.next_attempt_at,
        (SELECT e.url FROM webhook_endpoints e WHERE e.id = d.endpoint_id) AS endpoint_url,
        (SELECT e.secret FROM webhook_endpoints e WHERE e.id = d.endpoint_id) AS secret`;
    return rows.map(toClaimed);
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
    const moved = await this.sql`UPDATE webhook_deliveries d SET attempts = d.attempts + 1, status = v.status,
        next_attempt_at = v.next_attempt_at, finished_at = v.finished_at, claimed_until = NULL
      FROM unnest(${this.sql.array(attempts.map((a) => a.attempt.deliveryId), "TEXT")}::text[],
                  ${this.sql.array(attempts.map((a) => a.attemptsBefore), "INT4")}::int[],
                  ${this.sql.array(attempts.map((a) => a.outcome.status), "TEXT")}::text[],
                  ${this.sql.array(attempts.map((a) => a.outcome.nextAttemptAt), "INT8")}::bigint[],
                  ${this.sql.array(attempts.map((a) => a.outcome.finishedAt), "INT8")}::bigint[])
        AS v(id, attempts_before, status, next_attempt_at, finished_at)
      WHERE d.id = v.id AND d.status = 'pending' AND d.attempts = v.attempts_before
      RETURNING d.id`;
    const ids = new Set(moved.map((r: { id: string }) => r.id));
    const records = attempts
      .filter((a) => ids.has(a.attempt.deliveryId))
      .map(({ attempt: a }) => ({
        delivery_id: a.deliveryId,
        attempt: a.attempt,
        started_at: a.startedAt,
        status_code: a.statusCode,
        latency_ms: a.latencyMs,
        error: a.error,
        response_excerpt: a.responseExcerpt,
      }));
    if (records.length) await this.sql`INSERT INTO webhook_attempts ${this.sql(records)}`;
    return attempts.map((a) => ids.has(a.attempt.deliveryId));
  }

  async listDeliveries(endpointId: string, limit: number, beforeId: string | null): Promise<DeliveryRow[]> {
    const rows =
      beforeId === null
        ? await this.sql`SELECT * FROM webhook_deliveries WHERE endpoint_id = ${endpointId} ORDER BY id DESC LIMIT ${limit}`
        : await this.sql`SELECT * FROM webhook_deliveries WHERE endpoint_id = ${endpointId} AND id < ${beforeId} ORDER BY id DESC LIMIT ${limit}`;
    return rows.map(toDelivery);
  }

  async attemptsOf(deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    const rows = await this.sql`SELECT * FROM webhook_attempts WHERE delivery_id = ANY(${this.sql.array(deliveryIds, "TEXT")}) ORDER BY delivery_id, attempt`;
    return rows.map(toAttempt);
  }

  async findDelivery(id: string): Promise<DeliveryRow | null> {
    const [row] = await this.sql`SELECT * FROM webhook_deliveries WHERE id = ${id}`;
    return row ? toDelivery(row) : null;
  }

  async pruneFinished(cutoff: number, limit: number): Promise<number> {
    const rows = await this.sql`DELETE FROM webhook_deliveries WHERE id IN (
        SELECT id FROM webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < ${cutoff} LIMIT ${limit}) RETURNING 1`;
    return rows.length;
  }

  async oldestDueAt(now: number): Promise<number | null> {
    const [row] = await this.sql`SELECT min(next_attempt_at)::float8 AS t FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ${now}`;
    return nullableNumber(row.t);
  }

  async pendingDeliveries(): Promise<number> {
    const [row] = await this.sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`;
    return row.n;
  }
}
