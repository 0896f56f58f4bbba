// The data side of `Idempotency-Key`: the contract of the `idempotency_keys` table (one
// implementation per database: idempotency.sqlite.ts, idempotency.postgres.ts), and the hook
// that makes every write transaction record the key of the request it answers. The record is
// written with the write, so a retry after a crash right behind the commit finds it and does not
// write again; the HTTP side (src/http/idempotency.ts) then completes it with the answer.
import { AsyncLocalStorage } from "node:async_hooks";
import { conflict } from "../errors";
import type { Database } from "./database";
import { PostgresIdempotencyStore } from "./idempotency.postgres";
import { SqliteIdempotencyStore } from "./idempotency.sqlite";
import type { RowOf } from "./rows";
import type { idempotencyKeys } from "./tables";

/** A key's record as a retry reads it; `status` is null while the answer is not recorded yet. */
export type StoredAnswer = RowOf<typeof idempotencyKeys, "fingerprint" | "status" | "contentType" | "body">;

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
