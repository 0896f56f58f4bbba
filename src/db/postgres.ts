// Opens a PostgreSQL database through Bun's built-in SQL client: embedded migrations (applied under
// an advisory lock, so several instances starting together migrate once), the same schema-version
// rules as SQLite (db/client.ts), write transactions that the stores join without passing a
// handle around, and the change notifier that tells every other instance about a commit.
//
// Several `trustlist serve` processes may share one database. Each write
// transaction ends with `pg_notify('trustlist_changes', <instance id>)`, which PostgreSQL delivers
// at commit to every listening instance; the others run their external-commit listeners (the key
// cache drops its entries, the subject filter and the directory index catch up) on receipt.
// Stores may note what a transaction wrote (`note`), sent with the notification, so a listener
// can apply it (the subject filter adds the new subjects) instead of reading everything again.
// A notification has no bound on when it is read, so keys and accounts do not wait for one: a
// keyed request first reads the `keys_version` row a trigger moves in the revoking transaction.
import { AsyncLocalStorage } from "node:async_hooks";
import { SQL } from "bun";
import { drizzle } from "drizzle-orm/bun-sql";
import type { ChangeNotifier, CommitNotes } from "./changes";
import { PostgresChanges } from "./changes.postgres";
import type { OpenOptions } from "./database";
import { DatabaseBusy, StoreOpenError } from "./errors";
import { redactUrl } from "./location";
import { drizzleMigrations, planMigrations, type SchemaVersion } from "./migrations";
import { embeddedPostgresMigrations } from "./migrations.generated";

/** The channel every instance listens on; the payload is the committing instance's id. */
export const CHANGES_CHANNEL = "trustlist_changes";
/** Key of the advisory lock that serialises migrations across instances. */
const MIGRATION_LOCK = 7_305_114_201;
/** How long a write may wait for a row lock another instance holds before answering `busy`. */
export const PG_LOCK_WAIT_MS = 5_000;

/** NOTIFY payloads must stay under 8000 bytes; a commit with more to say says "unknown". */
const MAX_NOTES_BYTES = 7_500;

/**
 * Notes past this many cannot fit in MAX_NOTES_BYTES (each takes at least two bytes of JSON with
 * its comma): a write noting more stops keeping them. An import of 1M entries noted one each and
 * then spent seconds turning them into a payload that was thrown away.
 */
const MAX_NOTES = MAX_NOTES_BYTES / 2;

/** What a write transaction noted for its notification: null once it noted more than fits. */
type Noted = { items: Record<string, unknown[]> | null; count: number };

/** Longest a write waits for its own notification to come back (it normally takes well under 1 ms). */
const ECHO_WAIT_MS = 1_000;

/**
 * Pooled connections per instance (`serve --postgres-connections`): the event loop is one thread,
 * so a few keep it busy. Bun's client opens them all at the first query, each a server process.
 */
export const POOL_SIZE = 10;
/** The fewest a server may ask for: every test app runs with this many. */
export const MIN_POOL_SIZE = 2;

export interface PostgresDatabase {
  dialect: "postgres";
  /** The URL without its password, for logs and messages. */
  location: string;
  /**
   * The connection to run a statement on: inside `write`, the open transaction; elsewhere the
   * pool. Stores call it for every statement, so a store method joins the caller's transaction.
   */
  sql(): SQL;
  /**
   * Every write goes through here: one transaction; a `write` inside another joins it as a
   * savepoint. `announce: false` skips the change notification, for writes only to tables no
   * instance caches anything of (the webhook worker's bookkeeping, many commits a second, would
   * otherwise empty every other instance's key cache at each one). `allOrNothing`: the writes
   * inside never catch a failure to go on (an import), so a write inside joins the transaction
   * without a savepoint, and several may run at once: their statements are pipelined on the one
   * connection, where savepoints of concurrent writes would interleave.
   */
  write<T>(fn: () => T | Promise<T>, options?: { waitMs?: number; announce?: boolean; allOrNothing?: boolean }): Promise<T>;
  /**
   * Runs `fn`. SQLite groups its reads in one read transaction (db/write.ts); here each read is a
   * pooled round trip either way, and a transaction would only hold a connection longer.
   */
  readTogether<T>(fn: () => T | Promise<T>): Promise<T>;
  /** Commits of other instances, told to the caches that must drop or catch up. */
  changes: ChangeNotifier;
  /**
   * Notes an item under `topic` for the other instances, sent when the open write transaction
   * commits (see CommitNotes). A store that notes a topic must note every such write, since a
   * receiver trusts a commit without the topic to hold none. Outside a write it does nothing.
   */
  note(topic: string, item: unknown): void;
  /**
   * Runs `fn` unless another instance, or this one, is running work of the same name: an advisory
   * lock held for the length of `fn` on this instance's lock session, a connection outside the
   * pool. Held on a pooled connection, N jobs at once on a pool of N took every connection and
   * each one's first write waited for ever (test/db/database.test.ts, "exclusive work").
   * Resolves to false when the work was left to whoever holds it.
   */
  exclusive(name: string, fn: () => Promise<unknown>): Promise<boolean>;
  /** Runs `fn` inside every new write transaction, before the caller's statements (idempotency records). */
  onTransactionStart(fn: () => void | Promise<void>): void;
  /**
   * Runs `fn` once the caller's write transaction has committed, and never if it rolls back;
   * outside one, at once. For a cache that must re-read what a write changed: read on another
   * connection before the commit, it would keep the old row. `fn` must not throw.
   */
  afterCommit(fn: () => void): void;
  /** This instance's id in change notifications and advisory-lock diagnostics. */
  instanceId: string;
  /** Resolves when the database answers a trivial query (`/healthz`); throws when it cannot. */
  ping(): Promise<void>;
  /**
   * Refreshes the planner's statistics (ANALYZE), inside the open write transaction when there is
   * one: after a bulk load the tables look empty to the planner, which then scans a million rows
   * where an index lookup was meant (an import scoring 100k creators ran for over 20 minutes).
   */
  analyze(): Promise<void>;
  close(): Promise<void>;
}

async function pgSchemaVersion(sql: SQL): Promise<SchemaVersion> {
  const [exists] = await sql`SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS present`;
  if (!exists.present) return { applied: 0, latest: null };
  const [row] = await sql`SELECT count(*)::int AS n, max(created_at)::float8 AS latest FROM drizzle.__drizzle_migrations`;
  return { applied: row.n, latest: row.latest };
}

async function isEmptyDatabase(sql: SQL): Promise<boolean> {
  const [row] = await sql`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`;
  return row.n === 0;
}

/**
 * Applies the policy of `OpenOptions.migrations` the way SQLite does; returns how many migrations
 * it applied. A reserved connection holds the advisory lock, so a second instance waits here and
 * then finds nothing pending.
 */
async function checkPostgresSchema(pool: SQL, location: string, options: OpenOptions): Promise<number> {
  const policy = options.readonly ? "leave" : (options.migrations ?? "apply");
  const connection = await pool.reserve();
  try {
    // However long another instance's migrations take: the pool's lock_timeout is for row locks.
    await connection`SET lock_timeout = 0`;
    await connection`SELECT pg_advisory_lock(${MIGRATION_LOCK})`;
    try {
      const found = await pgSchemaVersion(connection);
      const empty = found.applied === 0 && (await isEmptyDatabase(connection));
      if (empty && options.create === false) {
        throw new StoreOpenError("missing", location, `no trustlist schema in ${location}; create it with 'trustlist migrate --db ${location}'`);
      }
      if (planMigrations(found, embeddedPostgresMigrations, location, policy, empty) === "none") return 0;
      const db = drizzle({ client: connection as unknown as SQL });
      // drizzle's dialect runs the pending ones in one transaction and records them in drizzle.__drizzle_migrations.
      await (db as any).dialect.migrate(drizzleMigrations(embeddedPostgresMigrations), (db as any).session, {});
      return (await pgSchemaVersion(connection)).applied - found.applied;
    } finally {
      await connection`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`;
      // Back to the connection's own wait (its startup value) before the pool reuses it.
      await connection`RESET lock_timeout`;
    }
  } finally {
    connection.release();
  }
}

/** PostgreSQL's lock_timeout and serialization errors: the write met another instance's lock for too long. */
function isLockTimeout(error: unknown): boolean {
  const code = (error as { errno?: unknown; code?: unknown } | null)?.errno ?? (error as { code?: unknown } | null)?.code;
  return code === "55P03";
}

export interface PostgresOpenResult {
  database: PostgresDatabase;
  /** Migrations applied while opening. */
  applied: number;
}

/**
 * Connects, checks (and by `options.migrations` applies) the schema, and starts listening for
 * other instances' commits. A database that cannot be reached is a StoreOpenError("missing").
 */
export async function openPostgres(url: string, options: OpenOptions = {}): Promise<PostgresOpenResult> {
  const location = redactUrl(url);
  // Each connection starts with the write's lock wait: a transaction then spends no round trip on
  // it unless it asks for another wait.
  const pool = new SQL(url, { max: options.connections ?? POOL_SIZE, idleTimeout: 30, connectionTimeout: 10, connection: { lock_timeout: PG_LOCK_WAIT_MS } });
  try {
    await pool`SELECT 1`;
  } catch (error) {
    await pool.close().catch(() => {});
    throw new StoreOpenError("missing", location, `cannot connect to ${location}: ${(error as Error).message}`);
  }
  let applied: number;
  try {
    applied = await checkPostgresSchema(pool, location, options);
  } catch (error) {
    await pool.close().catch(() => {});
    throw error;
  }

  const instanceId = crypto.randomUUID();
  const changes = new PostgresChanges(pool);
  /** The open write transaction of the calling async context, with what its stores noted. */
  const current = new AsyncLocalStorage<{ sql: SQL; notes: Noted; allOrNothing: boolean; committed: Array<() => void> }>();
  const starters: Array<() => void | Promise<void>> = [];
  // A write answers once its own notification has come back: PostgreSQL sends a notification to
  // every listening instance at once, so by then the others have it on their connections, and a
  // client that hears the answer and asks another instance next is served what it wrote.
  const echoes = new Map<number, () => void>();
  let sequence = 0;
  /** Where `exclusive` takes its advisory locks (opened on first use), and the names held here. */
  let lockSession: SQL | null = null;
  const heldHere = new Set<string>();
  const echoOf = (seq: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ECHO_WAIT_MS);
      timer.unref();
      function done() {
        clearTimeout(timer);
        echoes.delete(seq);
        resolve();
      }
      echoes.set(seq, done);
    });
  const subscription = options.readonly
    ? null
    : await pool.listen(CHANGES_CHANNEL, (payload: string) => {
        let message: { from?: string; seq?: number; notes?: CommitNotes };
        try {
          message = JSON.parse(payload);
        } catch {
          message = {};
        }
        if (message.from !== instanceId) changes.receive(message.notes ?? null);
        else if (typeof message.seq === "number") echoes.get(message.seq)?.();
      });

  const database: PostgresDatabase = {
    dialect: "postgres",
    location,
    instanceId,
    changes,
    sql: () => current.getStore()?.sql ?? pool,
    note(topic, item) {
      const open = current.getStore();
      if (!open?.notes.items) return;
      if (++open.notes.count > MAX_NOTES) open.notes.items = null;
      else (open.notes.items[topic] ??= []).push(item);
    },
    onTransactionStart(fn) {
      starters.push(fn);
    },
    afterCommit(fn) {
      const open = current.getStore();
      if (open) open.committed.push(fn);
      else fn();
    },
    async readTogether(fn) {
      return await fn();
    },
    async write(fn, writeOptions = {}) {
      const open = current.getStore();
      // A savepoint's notes stay even if it rolls back: a receiver may learn of a row that is not
      // there (the subject filter then answers "maybe"), never miss one that is.
      if (open?.allOrNothing) return await fn();
      if (open) {
        return (await (open.sql as any).savepoint((savepoint: SQL) => current.run({ sql: savepoint, notes: open.notes, allOrNothing: false, committed: open.committed }, fn))) as Awaited<
          ReturnType<typeof fn>
        >;
      }
      const waitMs = writeOptions.waitMs ?? PG_LOCK_WAIT_MS;
      const started = performance.now();
      const seq = ++sequence;
      const echoed = subscription ? echoOf(seq) : null;
      const committed: Array<() => void> = [];
      try {
        const result = (await pool.begin(async (tx) => {
          // A row lock held by another instance is waited for asynchronously, up to waitMs (the
          // connection's default unless the caller asked for another).
          if (waitMs !== PG_LOCK_WAIT_MS) await tx.unsafe(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(waitMs))}`);
          const notes: Noted = { items: {}, count: 0 };
          return current.run({ sql: tx, notes, allOrNothing: writeOptions.allOrNothing ?? false, committed }, async () => {
            for (const start of starters) await start();
            const result = await fn();
            changes.beforeCommit();
            if (writeOptions.announce === false) {
              echoes.get(seq)?.(); // nothing is sent to wait for
              return result;
            }
            let payload = JSON.stringify({ from: instanceId, seq, notes: notes.items });
            if (Buffer.byteLength(payload) > MAX_NOTES_BYTES) payload = JSON.stringify({ from: instanceId, seq, notes: null });
            await tx`SELECT pg_notify(${CHANGES_CHANNEL}, ${payload})`;
            return result;
          });
        })) as Awaited<ReturnType<typeof fn>>;
        for (const after of committed) after();
        await echoed;
        return result;
      } catch (error) {
        echoes.get(seq)?.(); // rolled back: nothing was sent to wait for
        if (isLockTimeout(error)) throw new DatabaseBusy(performance.now() - started, "A row stayed locked by another instance");
        throw error;
      }
    },
    async exclusive(name, fn) {
      // A session's advisory locks are re-entrant: this instance's own second taker is refused here.
      if (heldHere.has(name)) return false;
      heldHere.add(name);
      try {
        // One session for every lock of this instance, opened by the first job that asks; never
        // closed for idleness (idleTimeout 0), since it sits idle while the jobs it locks for run.
        lockSession ??= new SQL(url, { max: 1, idleTimeout: 0, connectionTimeout: 10 });
        const [{ taken }] = await lockSession`SELECT pg_try_advisory_lock(hashtext(${`trustlist:${name}`})) AS taken`;
        if (!taken) return false;
        try {
          await fn();
          return true;
        } finally {
          await lockSession`SELECT pg_advisory_unlock(hashtext(${`trustlist:${name}`}))`;
        }
      } finally {
        heldHere.delete(name);
      }
    },
    async ping() {
      await pool`SELECT 1`;
    },
    async analyze() {
      await database.sql()`ANALYZE`;
    },
    async close() {
      await subscription?.unlisten().catch(() => {});
      await lockSession?.close().catch(() => {});
      await pool.close();
    },
  };
  return { database, applied };
}
