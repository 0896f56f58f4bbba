// The data side of `Idempotency-Key` (SPEC section 2): the `idempotency_keys` table, and the hook
// that makes every write transaction record the key of the request it answers. The record is
// written with the write, so a retry after a crash right behind the commit finds it and does not
// write again; the HTTP side (src/http/idempotency.ts) then completes it with the answer.
import type { Database, Statement } from "bun:sqlite";
import { AsyncLocalStorage } from "node:async_hooks";
import { conflict } from "../errors";
import type { Store } from "./client";

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
 * Call inside every write transaction, before its writes: if the request being answered holds an
 * Idempotency-Key, its record is written in this same transaction. When another request (of
 * another process) recorded the key meanwhile, this throws `conflict` and the write rolls back.
 * Calling it again in a later or nested transaction of the same request is harmless.
 */
export function recordInTransaction(sqlite: Database): void {
  const pending = requestSlots.getStore()?.pending;
  if (!pending || pending.store.sqlite !== sqlite) return;
  if (!pending.store.save(pending, null)) {
    throw conflict("Another request with this Idempotency-Key was answered meanwhile; retry to get its answer.");
  }
}

export class IdempotencyStore {
  private readonly findRow: Statement<StoredAnswer, [string, string, number]>;
  private readonly upsert: Statement;
  private readonly pruneRows: Statement;
  readonly sqlite: Database;

  constructor(
    private readonly store: Store,
    private readonly now: () => number,
    /** How long an answer is kept, in milliseconds. */
    readonly keptMs: number,
  ) {
    const sqlite = (this.sqlite = store.sqlite);
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

  /** The unexpired record of one account's key, or null. */
  find(accountId: string, key: string): StoredAnswer | null {
    return this.findRow.get(accountId, key, this.now() - this.keptMs);
  }

  /**
   * Records `pending` with its answer (null: the write committed, the answer follows). False
   * when another request holds the key.
   */
  save(pending: PendingKey, answer: { status: number; contentType: string; body: string } | null): boolean {
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

  /** Completes a record with its answer, in a write of its own (it may wait for another process's lock). */
  async saveAnswer(pending: PendingKey, answer: { status: number; contentType: string; body: string }): Promise<void> {
    await this.store.write(() => this.save(pending, answer));
  }

  /** Deletes up to `limit` expired records; returns how many. */
  pruneSlice(limit: number): Promise<number> {
    return this.store.write(() => this.pruneRows.run(this.now() - this.keptMs, limit).changes);
  }
}
