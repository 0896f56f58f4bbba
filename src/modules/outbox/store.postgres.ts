// The outbox table on PostgreSQL (the contract: store.ts).
import type { PostgresDatabase } from "../../db/postgres";
import { columnsOf, rowReader } from "../../db/rows";
import type { EntryTie, OutboxEventRow, OutboxStore } from "./store";
import { ENTRY_TIE_SQL, EVENT_FIELDS, oldestEventFirst } from "./store.shared";
import { outboxEventsPg } from "./tables";

const readEvent = rowReader(outboxEventsPg, EVENT_FIELDS);

export class PostgresOutboxStore implements OutboxStore {
  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  async insert(id: string, type: string, payload: string, at: number): Promise<void> {
    await this.sql`INSERT INTO outbox_events (id, type, payload, created_at) VALUES (${id}, ${type}, ${payload}, ${at})`;
  }

  async insertMany(events: Array<{ id: string; type: string; payload: string; at: number }>): Promise<void> {
    if (events.length === 0) return;
    await this.sql.unsafe(
      `INSERT INTO outbox_events (id, type, payload, created_at)
       SELECT id, type, payload, at FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) WITH ORDINALITY AS r(id, type, payload, at, n) ORDER BY n`,
      [events.map((e) => e.id), events.map((e) => e.type), events.map((e) => e.payload), events.map((e) => e.at)],
    );
  }

  async pendingCount(): Promise<number> {
    const [row] = await this.sql`SELECT count(*)::int AS n FROM outbox_events WHERE dispatched_at IS NULL`;
    return row.n as number;
  }

  async entryTie(entryId: string, creatorId: string): Promise<EntryTie | null> {
    const [row] = await this.sql.unsafe(ENTRY_TIE_SQL, [entryId, creatorId]);
    return row ? { named: row.named === true, link: row.link === null ? null : row.link === true } : null;
  }

  async hasPending(): Promise<boolean> {
    const rows = await this.sql`SELECT 1 FROM outbox_events WHERE dispatched_at IS NULL LIMIT 1`;
    return rows.length > 0;
  }

  async take(limit: number, at: number): Promise<OutboxEventRow[]> {
    const sql = this.sql;
    const rows = await sql`UPDATE outbox_events o SET dispatched_at = ${at}
      FROM (SELECT id FROM outbox_events WHERE dispatched_at IS NULL ORDER BY created_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED) AS p
      WHERE o.id = p.id
      RETURNING ${sql.unsafe(columnsOf(outboxEventsPg, EVENT_FIELDS, "o"))}`;
    return rows.map(readEvent).sort(oldestEventFirst);
  }

  async pruneDispatched(cutoff: number, limit: number): Promise<number> {
    const rows = await this.sql`DELETE FROM outbox_events WHERE id IN (
        SELECT id FROM outbox_events WHERE created_at < ${cutoff} AND dispatched_at IS NOT NULL LIMIT ${limit}) RETURNING 1`;
    return rows.length;
  }

  async oldestPendingAt(): Promise<number | null> {
    const [row] = await this.sql`SELECT min(created_at)::float8 AS t FROM outbox_events WHERE dispatched_at IS NULL`;
    return row.t === null ? null : Number(row.t);
  }
}
