// The tripwires module's tables, `tripwires` and `tripwire_preferences`: the contract every
// database implements, and the factory that picks one. Their SQL lives in store.sqlite.ts and
// store.postgres.ts only. A trip is counted by the transaction of the change that caused it, so a
// wire's count never includes a change that rolled back.
import type { Database } from "../../db/database";
import type { RowOf } from "../../db/rows";
import type { TripwireTarget } from "../../domain";
import { PostgresTripwiresStore } from "./store.postgres";
import { SqliteTripwiresStore } from "./store.sqlite";
import type { tripwirePreferences, tripwires } from "./tables";

/** A wire; `triggers` holds the trigger names, comma-separated. */
export type WireRow = RowOf<typeof tripwires>;
export type PreferencesRow = RowOf<typeof tripwirePreferences, "discordWebhookUrl" | "email">;

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
  /** Which of `watched` any wire of `target` watches (one statement for a sync's page). */
  watchedAmong(target: TripwireTarget, watched: string[]): Promise<Set<string>>;
  /** Adds one trip to each wire. */
  recordTrips(ids: string[], at: number): Promise<void>;
  preferencesOf(ownerId: string): Promise<PreferencesRow | null>;
  setPreferences(ownerId: string, preferences: PreferencesRow, at: number): Promise<void>;
}

export function createTripwiresStore(database: Database): TripwiresStore {
  return database.dialect === "sqlite" ? new SqliteTripwiresStore(database) : new PostgresTripwiresStore(database);
}
