// The outbox table on SQLite (the contract: store.ts).
import type { Statement } from "bun:sqlite";
import type { Store } from "../../db/client";
import { columnsOf } from "../../db/rows";
import type { EntryTie, OutboxEventRow, OutboxStore } from "./store";
import { ENTRY_TIE_SQL, EVENT_FIELDS, oldestEventFirst } from "./store.shared";
import { outboxEvents } from "./tables";

export class SqliteOutboxStore implements OutboxStore {
  private readonly statement: Statement;
  private readonly pending: Statement<{ n: number }, []>;
  private readonly tie: Statement<{ named: number | null; link: number | null }, [string, string]>;

  constructor(private readonly store: Store) {
    const sqlite = store.sqlite;
    this.statement = sqlite.prepare("INSERT INTO outbox_events (id, type, payload, created_at) VALUES (?1, ?2, ?3, ?4)");
    this.pending = sqlite.prepare("SELECT count(*) AS n FROM outbox_events WHERE dispatched_at IS NULL");
    this.tie = sqlite.prepare(ENTRY_TIE_SQL.replace("$1", "?1").replace("$2", "?2"));
  }

  async entryTie(entryId: string, creatorId: string): Promise<EntryTie | null> {
    const row = this.tie.get(entryId, creatorId);
    return row ? { named: row.named === 1, link: row.link === null ? null : row.link === 1 } : null;
  }

  async pendingCount(): Promise<number> {
    return this.pending.get()!.n;
  }

  insert(id: string, type: string, payload: string, at: number): Promise<void> {
    this.statement.run(id, type, payload, at);
    return Promise.resolve();
  }

  insertMany(events: Array<{ id: string; type: string; payload: string; at: number }>): Promise<void> {
    for (const event of events) this.statement.run(event.id, event.type, event.payload, event.at);
    return Promise.resolve();
  }

  async hasPending(): Promise<boolean> {
    return this.store.sqlite.query("SELECT 1 FROM outbox_events WHERE dispatched_at IS NULL LIMIT 1").get() !== null;
  }

  async take(limit: number, at: number): Promise<OutboxEventRow[]> {
    // The slice is the first `limit` entries of outbox_pending_idx (created_at, id), named by rowid.
    return this.store.sqlite
      .query<OutboxEventRow, [number, number]>(
        `UPDATE outbox_events SET dispatched_at = ?1 WHERE rowid IN (
           SELECT rowid FROM outbox_events WHERE dispatched_at IS NULL ORDER BY created_at, id LIMIT ?2)
         RETURNING ${columnsOf(outboxEvents, EVENT_FIELDS)}`,
      )
      .all(at, limit)
      .sort(oldestEventFirst);
  }

  async pruneDispatched(cutoff: number, limit: number): Promise<number> {
    // Oldest first through the table's key (ids sort by time); pending ones are left.
    return this.store.write(
      () =>
        this.store.sqlite.run(
          "DELETE FROM outbox_events WHERE id IN (SELECT id FROM outbox_events WHERE created_at < ? AND dispatched_at IS NOT NULL LIMIT ?)",
          [cutoff, limit],
        ).changes,
    );
  }

  async oldestPendingAt(): Promise<number | null> {
    return this.store.sqlite.query<{ t: number | null }, []>("SELECT min(created_at) AS t FROM outbox_events WHERE dispatched_at IS NULL").get()!.t;
  }
}
