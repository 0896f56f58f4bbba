// The data side of `Idempotency-Key` (SPEC section 2): the `idempotency_keys` table, and the hook
// that makes every write transaction record the key of the request it answers. The record is
// written with the write, so a retry after a crash right behind the commit finds it and does not
// write again; the HTTP side (src/http/idempotency.ts) then completes it with the answer.
import type { Database as SqliteConnection, Statement } from "bun:sqlite";
import { AsyncLocalStorage } from "node:async_hooks";
import { conflict } from "../errors";
import type { Database } from "./database";

export interface StoredAnswer {
  fingerprint: string;
  /** Null while the write has committed and its answer is not recorded yet. */
  status: number | null;
  content_type: string | null;
  body: string | null;
}

/** A keyed write being answered under an Idempotency-Key. */
export interface PendingKey {
  store: IdempotencyStore;
  accountId: string;
  key: string;
  fingerprint: string;
  /** Unique to this request: only the holder of the claim may complete the row. */
  claim: string;
}

/** The request slot of the write being answered; filled once its key has been looked up. */
export interface RequestSlot {
  pending?: PendingKey;
}

const requestSlots = new AsyncLocalStorage<RequestSlot>();

/**
 * Gives the calling request a slot of its own for the rest of its work. Call it synchronously
 * at the start of a request hook (before any await), so the handler's writes see the slot.
 */
export function openRequestSlot(): RequestSlot {
  const slot: RequestSlot = {};
  requestSlots.enterWith(slot);
  return slot;
}

/**
 * Runs at the start of every write transaction, before its writes: if the request being answered
 * holds an Idempotency-Key, its record is written in this same transaction. When another request
 * (of another process) recorded the key meanwhile, this throws `conflict` and the write rolls back.
 * Calling it again in a later or nested transaction of the same request is harmless. `connection`
 * names the database whose transaction this is (the SQLite connection, or the PostgreSQL database).
 */
export function recordInTransaction(connection: object): Promise<void> | undefined {
  const pending = requestSlots.getStore()?.pending;
  // Nothing to record: answered at once, so a write without a key starts its work synchronously.
  if (!pending || pending.store.connection !== connection) return undefined;
  return pending.store.save(pending, null).then((saved) => {
    if (!saved) throw conflict("Another request with this Idempotency-Key was answered meanwhile; retry to get its answer.");
  });
}

export interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** The `idempotency_keys` table. */
export interface IdempotencyStore {
  /** Whose transactions record this store's keys (see recordInTransaction). */
  readonly connection: object;
  /** How long an answer is kept, in milliseconds. */
  readonly keptMs: number;
  /** The unexpired record of one account's key, or null. */
  find(accountId: string, key: string): Promise<StoredAnswer | null>;
  /**
   * Records `pending` with its answer (null: the write committed, the answer follows), in the
   * transaction open if any. False when another request holds the key.
   */
  save(pending: PendingKey, answer: Answer | null): Promise<boolean>;
  /** Completes a record with its answer, in a write of its own (it may wait for another process's lock). */
  saveAnswer(pending: PendingKey, answer: Answer): Promise<void>;
  /** Deletes up to `limit` expired records; returns how many. */
  pruneSlice(limit: number): Promise<number>;
}

/**
 * The store of `database`. On PostgreSQL it also hooks every write transaction's start, where the
 * SQLite writer calls recordInTransaction itself (db/write.ts).
 */
export function createIdempotencyStore(database: Database, now: () => number, keptMs: number): IdempotencyStore {
  if (database.dialect === "sqlite") return new SqliteIdempotencyStore(database, now, keptMs);
  const store = new PostgresIdempotencyStore(database, now, keptMs);
  database.onTransactionStart(() => recordInTransaction(database));
  return store;
}

class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly findRow: Statement<StoredAnswer, [string, string, number]>;
  private readonly upsert: Statement;
  private readonly pruneRows: Statement;
  readonly connection: SqliteConnection;

  constructor(
    private readonly store: Extract<Database, { dialect: "sqlite" }>,
    private readonly now: () => number,
    readonly keptMs: number,
  ) {
    const sqlite = (this.connection = store.sqlite);
    this.findRow = sqlite.prepare(
      "SELECT fingerprint, status, content_type, body FROM idempotency_keys WHERE account_id = ?1 AND key = ?2 AND created_at > ?3",
    );
    // A row is taken over only by the request that claimed it, or once it has expired.
    this.upsert = sqlite.prepare(
      `INSERT INTO idempotency_keys (account_id, key, fingerprint, claim, status, content_type, body, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
       ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, claim = excluded.claim,
         status = excluded.status, content_type = excluded.content_type, body = excluded.body, created_at = excluded.created_at
       WHERE idempotency_keys.claim = excluded.claim OR idempotency_keys.created_at <= ?9`,
    );
    this.pruneRows = sqlite.prepare(
      "DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE created_at <= ?1 LIMIT ?2)",
    );
  }

  async find(accountId: string, key: string): Promise<StoredAnswer | null> {
    return this.findRow.get(accountId, key, this.now() - this.keptMs);
  }

  async save(pending: PendingKey, answer: Answer | null): Promise<boolean> {
    const now = this.now();
    const result = this.upsert.run(
      pending.accountId,
      pending.key,
      pending.fingerprint,
      pending.claim,
      answer?.status ?? null,
      answer?.contentType ?? null,
      answer?.body ?? null,
      now,
      now - this.keptMs,
    );
    return result.changes > 0;
  }

  async saveAnswer(pending: PendingKey, answer: Answer): Promise<void> {
    await this.store.write(() => this.save(pending, answer));
  }

  pruneSlice(limit: number): Promise<number> {
    return this.store.write(() => this.pruneRows.run(this.now() - this.keptMs, limit).changes);
  }
}

class PostgresIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly database: Extract<Database, { dialect: "postgres" }>,
    private readonly now: () => number,
    readonly keptMs: number,
  ) {}

  get connection(): object {
    return this.database;
  }

  async find(accountId: string, key: string): Promise<StoredAnswer | null> {
    const [row] = await this.database.sql()`SELECT fingerprint, status, content_type, body FROM idempotency_keys
      WHERE account_id = ${accountId} AND key = ${key} AND created_at > ${this.now() - this.keptMs}`;
    return row ? { fingerprint: row.fingerprint, status: row.status, content_type: row.content_type, body: row.body } : null;
  }

  async save(pending: PendingKey, answer: Answer | null): Promise<boolean> {
    const now = this.now();
    // A row is taken over only by the request that claimed it, or once it has expired.
    const rows = await this.database.sql()`INSERT INTO idempotency_keys (account_id, key, fingerprint, claim, status, content_type, body, created_at)
      VALUES (${pending.accountId}, ${pending.key}, ${pending.fingerprint}, ${pending.claim}, ${answer?.status ?? null},
              ${answer?.contentType ?? null}, ${answer?.body ?? null}, ${now})
      ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, claim = excluded.claim,
        status = excluded.status, content_type = excluded.content_type, body = excluded.body, created_at = excluded.created_at
      WHERE idempotency_keys.claim = excluded.claim OR idempotency_keys.created_at <= ${now - this.keptMs}
      RETURNING 1`;
    return rows.length > 0;
  }

  async saveAnswer(pending: PendingKey, answer: Answer): Promise<void> {
    // No instance caches anything of this table: nothing to announce.
    await this.database.write(() => this.save(pending, answer), { announce: false });
  }

  pruneSlice(limit: number): Promise<number> {
    return this.database.write(async () => {
      const rows = await this.database.sql()`DELETE FROM idempotency_keys WHERE ctid IN
        (SELECT ctid FROM idempotency_keys WHERE created_at <= ${this.now() - this.keptMs} LIMIT ${limit}) RETURNING 1`;
      return rows.length as number;
    }, { announce: false });
  }
}
