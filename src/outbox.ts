// The write side of the webhook outbox: an event row is written by the transaction that makes the
// change it describes, so an event exists exactly when its change committed. The `outbox_events`
// SQL lives here, for SQLite and PostgreSQL.
//
// Every event leaves the server through `Outbox.write`, so what an event may say is decided here,
// once, whoever built it: an account a creator linked privately never shows (the rule of keyless
// answers, public/disclosure.ts). Blacklist events carry the public-safe entry view and nothing
// more. `creator.blacklisted` names its entry only when the entry ties to the creator in public
// (its `creator` field or a public link): announced with the entry id, a ban on a private account
// would let any subscriber read the ban and confirm with a keyed check of a suspected account that
// the account is the creator's. Such a ban is announced by the creator's handle and id alone.
import type { Statement } from "bun:sqlite";
import type { Database } from "./db/database";
import type { PostgresDatabase } from "./db/postgres";
import { newId } from "./ids";
import { BlacklistEntry } from "./modules/blacklist/model";

/** Event names of seed section 6. */
export const EVENT_TYPES = ["blacklist.added", "blacklist.overturned", "deal.confirmed", "deal.declined", "creator.blacklisted"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The fields of the public-safe entry view: all a blacklist event's data may hold. */
const PUBLIC_ENTRY_FIELDS = Object.keys(BlacklistEntry.properties);

/**
 * How a ban entry ties to a creator: `named` when its `creator` field is the creator's handle;
 * `link` the `public` flag of the creator's link to the entry's account, null when not linked.
 */
interface EntryTie {
  named: boolean;
  link: boolean | null;
}

/** Whether an event may name the entry beside the creator: a public tie, and no private link. */
function tiedInPublic(tie: EntryTie | null): boolean {
  return tie !== null && tie.link !== false && (tie.named || tie.link === true);
}

export interface OutboxStore {
  insert(id: string, type: EventType, payload: string, at: number): Promise<void>;
  /** Events not dispatched yet (a partial index covers them). */
  pendingCount(): Promise<number>;
  /** How entry `entryId` ties to creator `creatorId`; null when either is unknown. */
  entryTie(entryId: string, creatorId: string): Promise<EntryTie | null>;
}

// Reads the creator's link to the entry's account, whatever its flag: a private link must be seen
// to be withheld. One link per account (connections_account_idx).
const ENTRY_TIE_SQL = `
  SELECT e.creator_handle = c.handle AS named,
         (SELECT k.public FROM connections k
          WHERE k.creator_id = c.id AND k.provider = e.provider AND k.provider_user_id = e.provider_user_id) AS link
  FROM blacklist_entries e, creators c WHERE e.id = $1 AND c.id = $2`;

class SqliteOutboxStore implements OutboxStore {
  private readonly statement: Statement;
  private readonly pending: Statement<{ n: number }, []>;
  private readonly tie: Statement<{ named: number | null; link: number | null }, [string, string]>;

  constructor(sqlite: import("bun:sqlite").Database) {
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

  async entryTie(entryId: string, creatorId: string): Promise<EntryTie | null> {
    const [row] = await this.database.sql().unsafe(ENTRY_TIE_SQL, [entryId, creatorId]);
    return row ? { named: row.named === true, link: row.link === null ? null : row.link === true } : null;
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

  /**
   * Records one event, as much of `data` as may leave the server (the rule at the top of this
   * file); the caller holds the transaction of the change.
   */
  async write(type: EventType, data: object, at: number): Promise<void> {
    await this.store.insert(newId("evt", at), type, JSON.stringify(await this.disclosed(type, data)), at);
  }

  private async disclosed(type: EventType, data: object): Promise<object> {
    switch (type) {
      case "blacklist.added":
      case "blacklist.overturned":
        return Object.fromEntries(Object.entries(data).filter(([field]) => PUBLIC_ENTRY_FIELDS.includes(field)));
      case "creator.blacklisted": {
        const { creator_id, handle, entry_id } = data as { creator_id: string; handle: string; entry_id?: string | null };
        const shown = typeof entry_id === "string" && tiedInPublic(await this.store.entryTie(entry_id, creator_id));
        return { creator_id, handle, entry_id: shown ? entry_id : null };
      }
      case "deal.confirmed":
      case "deal.declined":
        return data;
    }
  }

  /** Events waiting for delivery (the `trustlist_outbox_pending_events` gauge). */
  pendingCount(): Promise<number> {
    return this.store.pendingCount();
  }
}
