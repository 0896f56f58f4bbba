// The write side of the webhook outbox: an event row is written by the transaction that makes the
// change it describes, so an event exists exactly when its change committed. The `outbox_events`
// SQL lives here, for SQLite and PostgreSQL.
import type { Statement } from "bun:sqlite";
import type { Database } from "./db/database";
import type { PostgresDatabase } from "./db/postgres";
import { newId } from "./ids";

/** Event names of seed section 6. */
export const EVENT_TYPES = ["blacklist.added", "blacklist.overturned", "deal.confirmed", "deal.declined", "creator.blacklisted"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface OutboxStore {
  insert(id: string, type: EventType, payload: string, at: number): Promise<void>;
  /** Events not dispatched yet (a partial index covers them). */
  pendingCount(): Promise<number>;
}

class SqliteOutboxStore implements OutboxStore {
  private readonly statement: Statement;
  private readonly pending: Statement<{ n: number }, []>;

  constructor(sqlite: import("bun:sqlite").Database) {
    this.statement = sqlite.prepare("INSERT INTO outbox_events (id, type, payload, created_at) VALUES (?1, ?2, ?3, ?4)");
    this.pending = sqlite.prepare("SELECT count(*) AS n FROM outbox_events WHERE dispatched_at IS NULL");
  }

  async pendingCount(): Promise<number> {
    return this.pending.get()!.n;
  }

  /** Runs before it returns: a caller inside a synchronous SQLite transaction has its row written. */
  insert(id: string, type: EventType, payload: string, at: number): Promise<void> {
    this.statement.run(id, type, payload, at);
    return Promise.resolve();
  }
}

class PostgresOutboxStore implements OutboxStore {
  constructor(private readonly database: PostgresDatabase) {}

  async insert(id: string, type: EventType, payload: string, at: number): Promise<void> {
    await this.database.sql()`INSERT INTO outbox_events (id, type, payload, created_at) VALUES (${id}, ${type}, ${payload}, ${at})`;
  }

  async pendingCount(): Promise<number> {
    const [row] = await this.database.sql()`SELECT count(*)::int AS n FROM outbox_events WHERE dispatched_at IS NULL`;
    return row.n as number;
  }
}

export function createOutboxStore(database: Database): OutboxStore {
  return database.dialect === "sqlite" ? new SqliteOutboxStore(database.sqlite) : new PostgresOutboxStore(database);
}

export class Outbox {
  private readonly store: OutboxStore;

  constructor(database: Database) {
    this.store = createOutboxStore(database);
  }

  /** Records one event; the caller holds the transaction of the change. */
  write(type: EventType, data: unknown, at: number): Promise<void> {
    return this.store.insert(newId("evt", at), type, JSON.stringify(data), at);
  }

  /** Events waiting for delivery (the `trustlist_outbox_pending_events` gauge). */
  pendingCount(): Promise<number> {
    return this.store.pendingCount();
  }
}
