// The appeals table, `appeals`: the contract every database implements, its rows (typed by the
// table), and the factory that picks one. Its SQL lives in store.sqlite.ts and store.postgres.ts.
// The partial unique index appeals_open_entry_idx keeps one open appeal per entry, so two filings
// that race both pass the service's check but only one insert commits (UniqueViolation).
import type { Database } from "../../db/database";
import type { RowOf } from "../../db/rows";
import type { AppealStatus, AppellantKind } from "../../domain";
import { PostgresAppealsStore } from "./store.postgres";
import { SqliteAppealsStore } from "./store.sqlite";
import type { appeals } from "./tables";

export type AppealRow = RowOf<typeof appeals>;

/** What a decision writes on its appeal. */
export type AppealDecision = RowOf<typeof appeals, "outcome" | "note" | "severity" | "newEntryId" | "decidedBy" | "decidedAt">;

/** A place in a list of appeals: the last row of the previous page. */
export interface AppealPosition {
  createdAt: number;
  id: string;
}

export interface AppealsStore {
  /** One write transaction (a write inside a write joins it). */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** Throws UniqueViolation when the entry already has an open appeal (or the id is taken). */
  insert(row: AppealRow): Promise<void>;
  byId(id: string): Promise<AppealRow | null>;
  /** `byId` that holds the row until the transaction ends (PostgreSQL: FOR UPDATE). */
  lockById(id: string): Promise<AppealRow | null>;
  /** The entry's open appeal, if any. */
  openOn(entryId: string): Promise<AppealRow | null>;
  /** When the entry's latest decided appeal was decided, or null. */
  lastDecidedAt(entryId: string): Promise<number | null>;
  /** Marks an open appeal decided; false (changing nothing) when it was not open. */
  markDecided(id: string, decision: AppealDecision): Promise<boolean>;
  /** Appeals one appellant filed, newest first, after `before`. */
  filedBy(kind: AppellantKind, filedBy: string, before: AppealPosition | null, limit: number): Promise<AppealRow[]>;
  /** Appeals of one status: open ones oldest first, decided ones newest first, past `after`. */
  queue(status: AppealStatus, after: AppealPosition | null, limit: number): Promise<AppealRow[]>;
}

export function createAppealsStore(database: Database): AppealsStore {
  return database.dialect === "sqlite" ? new SqliteAppealsStore(database) : new PostgresAppealsStore(database);
}
