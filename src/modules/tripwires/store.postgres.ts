// The tripwire tables on PostgreSQL (the contract: store.ts).
import type { PostgresDatabase } from "../../db/postgres";
import { columnsOf, rowReader } from "../../db/rows";
import type { TripwireTarget } from "../../domain";
import type { PreferencesRow, TripwiresStore, WireRow } from "./store";
import { tripwirePreferences, tripwires } from "./tables";

const COLUMNS = columnsOf(tripwires);
const readWire = rowReader(tripwires);
const PREFERENCE_COLUMNS = columnsOf(tripwirePreferences, ["discordWebhookUrl", "email"]);

export class PostgresTripwiresStore implements TripwiresStore {
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
    const rows = await this.sql.unsafe(`SELECT ${COLUMNS} FROM tripwires WHERE owner_id = $1 ORDER BY created_at DESC, id DESC`, [ownerId]);
    return rows.map(readWire);
  }

  async countWires(ownerId: string): Promise<number> {
    const [row] = await this.sql`SELECT count(*)::int AS n FROM tripwires WHERE owner_id = ${ownerId}`;
    return row.n as number;
  }

  async deleteWire(ownerId: string, id: string): Promise<WireRow | null> {
    const [row] = await this.database.write(() => this.sql.unsafe(`DELETE FROM tripwires WHERE owner_id = $1 AND id = $2 RETURNING ${COLUMNS}`, [ownerId, id]));
    return row ? readWire(row) : null;
  }

  async wiresWatching(target: TripwireTarget, watched: string): Promise<WireRow[]> {
    const rows = await this.sql.unsafe(`SELECT ${COLUMNS} FROM tripwires WHERE target = $1 AND watched = $2`, [target, watched]);
    return rows.map(readWire);
  }

  async watchedAmong(target: TripwireTarget, watched: string[]): Promise<Set<string>> {
    if (watched.length === 0) return new Set();
    const rows = await this.sql`SELECT DISTINCT watched FROM tripwires WHERE target = ${target} AND watched = ANY(${this.sql.array(watched, "TEXT")})`;
    return new Set(rows.map((row: { watched: string }) => row.watched));
  }

  async recordTrips(ids: string[], at: number): Promise<void> {
    if (ids.length === 0) return;
    await this.sql`UPDATE tripwires SET trips = trips + 1, last_tripped_at = ${at} WHERE id = ANY(${this.sql.array(ids, "TEXT")})`;
  }

  async preferencesOf(ownerId: string): Promise<PreferencesRow | null> {
    const [row] = await this.sql.unsafe(`SELECT ${PREFERENCE_COLUMNS} FROM tripwire_preferences WHERE owner_id = $1`, [ownerId]);
    return row ?? null;
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
