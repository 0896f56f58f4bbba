// The outbox table, `outbox_events`: the contract every database implements, and the factory that
// picks one. All of its SQL lives in store.sqlite.ts and store.postgres.ts: the writes of every
// module that emits an event, and the reads of the webhooks' fan-out, which takes pending events
// and marks them dispatched in one statement.
import type { Database } from "../../db/database";
import type { RowOf } from "../../db/rows";
import { PostgresOutboxStore } from "./store.postgres";
import { SqliteOutboxStore } from "./store.sqlite";
import type { outboxEvents } from "./tables";

/** An event as the fan-out reads it. */
export type OutboxEventRow = RowOf<typeof outboxEvents, "id" | "type" | "payload" | "createdAt">;

/**
 * How a ban entry ties to a creator: `named` when its `creator` field is the creator's handle;
 * `link` the `public` flag of the creator's link to the entry's account, null when not linked.
 */
export interface EntryTie {
  named: boolean;
  link: boolean | null;
}

export interface OutboxStore {
  /** On SQLite it runs before it returns: a caller inside a synchronous transaction has its row written. */
  insert(id: string, type: string, payload: string, at: number): Promise<void>;
  /** Several events in order (one statement on PostgreSQL). */
  insertMany(events: Array<{ id: string; type: string; payload: string; at: number }>): Promise<void>;
  /** Events not dispatched yet (a partial index covers them). */
  pendingCount(): Promise<number>;
  /** How entry `entryId` ties to creator `creatorId`; null when either is unknown. */
  entryTie(entryId: string, creatorId: string): Promise<EntryTie | null>;
  /** Whether any event waits to be fanned out (a read: most polls find none). */
  hasPending(): Promise<boolean>;
  /**
   * Takes up to `limit` events not fanned out yet, oldest first (created_at, id): marks them
   * dispatched at `at` and returns them, in one statement. Call it inside the transaction that
   * writes their deliveries, so the marks commit exactly with them. On PostgreSQL the rows are
   * locked (SKIP LOCKED): two instances take different events.
   */
  take(limit: number, at: number): Promise<OutboxEventRow[]>;
  /** Deletes up to `limit` dispatched events older than `cutoff`; returns how many. */
  pruneDispatched(cutoff: number, limit: number): Promise<number>;
  /** Time of the oldest event not dispatched yet; null when none. */
  oldestPendingAt(): Promise<number | null>;
}

export function createOutboxStore(database: Database): OutboxStore {
  return database.dialect === "sqlite" ? new SqliteOutboxStore(database) : new PostgresOutboxStore(database);
}
