// The tripwire tables on SQLite (the contract: store.ts).
import type { Store } from "../../db/client";
import { columnsOf } from "../../db/rows";
import type { TripwireTarget } from "../../domain";
import type { PreferencesRow, TripwiresStore, WireRow } from "./store";
import { tripwirePreferences, tripwires } from "./tables";

const COLUMNS = columnsOf(tripwires);

export class SqliteTripwiresStore implements TripwiresStore {
  private readonly statements;

  constructor(private readonly store: Store) {
    const db = store.sqlite;
    this.statements = {
      insert: db.prepare(
        "INSERT INTO tripwires (id, owner_id, target, watched, triggers, trips, last_tripped_at, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
      ),
      wiresOf: db.prepare<WireRow, [string]>(`SELECT ${COLUMNS} FROM tripwires WHERE owner_id = ? ORDER BY created_at DESC, id DESC`),
      count: db.prepare<{ n: number }, [string]>("SELECT count(*) AS n FROM tripwires WHERE owner_id = ?"),
      delete: db.prepare<WireRow, [string, string]>(`DELETE FROM tripwires WHERE owner_id = ?1 AND id = ?2 RETURNING ${COLUMNS}`),
      watching: db.prepare<WireRow, [string, string]>(`SELECT ${COLUMNS} FROM tripwires WHERE target = ? AND watched = ?`),
      trip: db.prepare("UPDATE tripwires SET trips = trips + 1, last_tripped_at = ?2 WHERE id = ?1"),
      preferences: db.prepare<PreferencesRow, [string]>(
        `SELECT ${columnsOf(tripwirePreferences, ["discordWebhookUrl", "email"])} FROM tripwire_preferences WHERE owner_id = ?`,
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
    return this.statements.wiresOf.all(ownerId);
  }

  async countWires(ownerId: string): Promise<number> {
    return this.statements.count.get(ownerId)!.n;
  }

  async deleteWire(ownerId: string, id: string): Promise<WireRow | null> {
    return this.store.write(() => this.statements.delete.get(ownerId, id));
  }

  // Runs its statement before returning: inside another module's synchronous transaction the
  // row is read at once.
  async wiresWatching(target: TripwireTarget, watched: string): Promise<WireRow[]> {
    return this.statements.watching.all(target, watched);
  }

  async watchedAmong(target: TripwireTarget, watched: string[]): Promise<Set<string>> {
    return new Set(watched.filter((id) => this.statements.watching.all(target, id).length > 0));
  }

  async recordTrips(ids: string[], at: number): Promise<void> {
    for (const id of ids) this.statements.trip.run(id, at);
  }

  async preferencesOf(ownerId: string): Promise<PreferencesRow | null> {
    return this.statements.preferences.get(ownerId);
  }

  async setPreferences(ownerId: string, preferences: PreferencesRow, at: number): Promise<void> {
    await this.store.write(() => void this.statements.setPreferences.run(ownerId, preferences.discordWebhookUrl, preferences.email, at));
  }
}
