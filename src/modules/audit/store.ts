// The audit table, `audit_events`: the contract every database implements, the row it answers
// (typed by its table), and the factory that picks one. Its SQL lives in store.sqlite.ts and
// store.postgres.ts only.
import type { Database } from "../../db/database";
import type { RecordKind } from "../../db/records";
import type { RowOf } from "../../db/rows";
import { PostgresAuditStore } from "./store.postgres";
import { SqliteAuditStore } from "./store.sqlite";
import { auditEvents } from "./tables";

export type AuditRow = RowOf<typeof auditEvents>;

/** What a page of the log is narrowed to: every field given must match. */
export type AuditFilters = Partial<Pick<AuditRow, "entryId" | "caseId" | "appealId" | "subject" | "actorKind" | "actorId" | "action">>;

export interface AuditStore {
  /** Appends one event; the caller holds the transaction of the change it records. */
  insert(row: Omit<AuditRow, "seq">): Promise<void>;
  /** Appends events in order, in one statement where the database takes one (a sync's page). */
  insertMany(rows: Array<Omit<AuditRow, "seq">>): Promise<void>;
  /** Up to `limit` events matching `filters` with seq below `beforeSeq`, newest first. */
  page(filters: AuditFilters, beforeSeq: number, limit: number): Promise<AuditRow[]>;
  /** Every event of one case, oldest first (a case's history). */
  ofCase(caseId: string): Promise<AuditRow[]>;
}

export function createAuditStore(database: Database): AuditStore {
  return database.dialect === "sqlite" ? new SqliteAuditStore(database) : new PostgresAuditStore(database);
}

/**
 * The audit log in the export (docs/operating.md, "Export and import"): every event in the order
 * it was written, last of all; an import restores them unchanged (seq numbered again in order).
 */
export const AUDIT_RECORDS: RecordKind[] = [{ type: "audit", table: auditEvents, orderBy: "seq", numbered: ["seq"] }];
