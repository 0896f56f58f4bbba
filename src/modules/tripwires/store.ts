// The tripwires module's tables, `tripwires` and `tripwire_preferences`, on SQLite or PostgreSQL:
// the only place their SQL lives. A trip is counted by the transaction of the change that caused
// it, so a wire's count never includes a change that rolled back.
import type { Database } from "../../db/database";
import type { PostgresDatabase } from "../../db/postgres";
import type { TripwireTarget } from "../../domain";

export interface WireRow {
  id: string;
  ownerId: string;
  target: TripwireTarget;
  watched: string;
  /** Trigger names, comma-separated. */
  triggers: string;
  trips: number;
  lastTrippedAt: number | null;
  createdAt: number;
}

export interface PreferencesRow {
  discordWebhookUrl: string | null;
  email: string | null;
}

export interface TripwiresStore {
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  insertWire(row: WireRow): Promise<void>;
  /** An owner's wires, newest first. */
  wiresOf(ownerId: string): Promise<WireRow[]>;
  countWires(ownerId: string): Promise<number>;
  /** Deletes an owner's wire; null when the owner has no such wire (another owner's is invisible). */
  deleteWire(ownerId: string, id: string): Promise<WireRow | null>;
  /** Every wire on one handle or Discord id, whoever owns it. */
  wiresWatching(target: TripwireTarget, watched: string): Promise<WireRow[]>;
  /** Adds one trip to each wire. */
  recordTrips(ids: string[], at: number): Promise<void>;
  preferencesOf(ownerId: string): Promise<PreferencesRow | null>;
  setPreferences(ownerId: string, preferences: PreferencesRow, at: number): Promise<void>;
}

export function createTripwiresStore(database: Database): TripwiresStore {
  return database.dialect === "sqlite" ? new SqliteTripwiresStore(database) : new PostgresTripwiresStore(database);
}

type SqliteStore = Extract<Database, { dialect: "sqlite" }>;

// biome-ignore lint/suspicious/noExplicitAny: driver rows are untyped
function wireRow(r: any): WireRow {
  return {
    id: r.id,
    ownerId: r.owner_id,
    target: r.target,
    watched: r.watched,
    triggers: r.triggers,
    trips: Number(r.trips),
    lastTrippedAt: r.last_tripped_at === null ? null : Number(r.last_tripped_at),
    createdAt: Number(r.created_at),
  };
}

const COLUMNS = "id, owner_id, target, watched, triggers, trips, last_tripped_at, created_at";

class SqliteTripwiresStore implements TripwiresStore {
  private readonly statements;

  constructor(private readonly store: SqliteStore) {
    const db = store.sqlite;
    this.statements = {
      insert: db.prepare(
        "INSERT INTO tripwires (id, owner_id, target, watched, triggers, trips, last_tripped_at, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
      ),
      wiresOf: db.prepare<unknown, [string]>(`SELECT ${COLUMNS} FROM tripwires WHERE owner_id = ? ORDER BY created_at DESC, id DESC`),
      count: db.prepare<{ n: number }, [string]>("SELECT count(*) AS n FROM tripwires WHERE owner_id = ?"),
      delete: db.prepare<unknown, [string, string]>(`DELETE FROM tripwires WHERE owner_id = ?1 AND id = ?2 RETURNING ${COLUMNS}`),
      watching: db.prepare<unknown, [string, string]>(`SELECT ${COLUMNS} FROM tripwires WHERE target = ? AND watched = ?`),
      trip: db.prepare("UPDATE tripwires SET trips = trips + 1, last_tripped_at = ?2 WHERE id = ?1"),
      preferences: db.prepare<{ discord_webhook_url: string | null; email: string | null }, [string]>(
        "SELECT discord_webhook_url, email FROM tripwire_preferences WHERE owner_id = ?",
      ),
      setPreferences: db.prepare(
        `INSERT INTO tripwire_preferences (owner_id, discord_webhook_url, email, updated_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (owner_id) DO UPDATE SET discord_webhook_url = excluded.discord_webhook_url, email = excluded.email, updated_at = excluded.updated_at`,
      ),
    };
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.write(fn);
  }

  async insertWire(row: WireRow): Promise<void> {
    await this.store.write(() =>
      void this.statements.insert.run(row.id, row.ownerId, row.target, row.watched, row.triggers, row.trips, row.lastTrippedAt, row.createdAt),
    );
  }

  async wiresOf(ownerId: string): Promise<WireRow[]> {
    return this.statements.wiresOf.all(ownerId).map(wireRow);
  }

  async countWires(ownerId: string): Promise<number> {
    return this.statements.count.get(ownerId)!.n;
  }

  async deleteWire(ownerId: string, id: string): Promise<WireRow | null> {
    const row = await this.store.write(() => this.statements.delete.get(ownerId, id));
    return row ? wireRow(row) : null;
  }

  // Runs its statement before returning: inside another module's synchronous transaction the
  // row is read at once.
  async wiresWatching(target: TripwireTarget, watched: string): Promise<WireRow[]> {
    return this.statements.watching.all(target, watched).map(wireRow);
  }

  async recordTrips(ids: string[], at: number): Promise<void> {
    for (const id of ids) this.statements.trip.run(id, at);
  }

  async preferencesOf(ownerId: string): Promise<PreferencesRow | null> {
    const row = this.statements.preferences.get(ownerId);
    return row ? { discordWebhookUrl: row.discord_webhook_url, email: row.email } : null;
  }

  async setPreferences(ownerId: string, preferences: PreferencesRow, at: number): Promise<void> {
    await this.store.write(() => void this.statements.setPreferences.run(ownerId, preferences.discordWebhookUrl, preferences.email, at));
  }
}

class PostgresTripwiresStore implements TripwiresStore {
  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.database.write(fn);
  }

  async insertWire(row: WireRow): Promise<void> {
    await this.database.write(
      () => this.sql`
        INSERT INTO tripwires (id, owner_id, target, watched, triggers, trips, last_tripped_at, created_at)
        VALUES (${row.id}, ${row.ownerId}, ${row.target}, ${row.watched}, ${row.triggers}, ${row.trips}, ${row.lastTrippedAt}, ${row.createdAt})`,
    );
  }

  async wiresOf(ownerId: string): Promise<WireRow[]> {
    const rows = await this.sql`
      SELECT id, owner_id, target, watched, triggers, trips, last_tripped_at, created_at
      FROM tripwires WHERE owner_id = ${ownerId} ORDER BY created_at DESC, id DESC`;
    return rows.map(wireRow);
  }

  async countWires(ownerId: string): Promise<number> {
    const [row] = await this.sql`SELECT count(*)::int AS n FROM tripwires WHERE owner_id = ${ownerId}`;
    return row.n as number;
  }

  async deleteWire(ownerId: string, id: string): Promise<WireRow | null> {
    const [row] = await this.database.write(
      () => this.sql`
        DELETE FROM tripwires WHERE owner_id = ${ownerId} AND id = ${id}
        RETURNING id, owner_id, target, watched, triggers, trips, last_tripped_at, created_at`,
    );
    return row ? wireRow(row) : null;
  }

  async wiresWatching(target: TripwireTarget, watched: string): Promise<WireRow[]> {
    const rows = await this.sql`
      SELECT id, owner_id, target, watched, triggers, trips, last_tripped_at, created_at
      FROM tripwires WHERE target = ${target} AND watched = ${watched}`;
    return rows.map(wireRow);
  }

  async recordTrips(ids: string[], at: number): Promise<void> {
    if (ids.length === 0) return;
    await this.sql`UPDATE tripwires SET trips = trips + 1, last_tripped_at = ${at} WHERE id = ANY(${this.sql.array(ids, "TEXT")})`;
  }

  async preferencesOf(ownerId: string): Promise<PreferencesRow | null> {
    const [row] = await this.sql`SELECT discord_webhook_url, email FROM tripwire_preferences WHERE owner_id = ${ownerId}`;
    return row ? { discordWebhookUrl: row.discord_webhook_url, email: row.email } : null;
  }

  async setPreferences(ownerId: string, preferences: PreferencesRow, at: number): Promise<void> {
    await this.database.write(
      () => this.sql`
        INSERT INTO tripwire_preferences (owner_id, discord_webhook_url, email, updated_at)
        VALUES (${ownerId}, ${preferences.discordWebhookUrl}, ${preferences.email}, ${at})
        ON CONFLICT (owner_id) DO UPDATE SET discord_webhook_url = excluded.discord_webhook_url, email = excluded.email,
          updated_at = excluded.updated_at`,
    );
  }
}
