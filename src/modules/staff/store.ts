// The staff table, `staff`: the contract every database implements, its rows (typed by the
// table), and the factory that picks one. Its SQL lives in store.sqlite.ts and store.postgres.ts.
import type { Database } from "../../db/database";
import type { RecordKind } from "../../db/records";
import type { RowOf } from "../../db/rows";
import type { StaffRole } from "../../domain";
import { PostgresStaffStore } from "./store.postgres";
import { SqliteStaffStore } from "./store.sqlite";
import { staff } from "./tables";

export type StaffRow = RowOf<typeof staff>;

/** A staff row with its creator's current handle. */
export type StaffMemberRow = StaffRow & { handle: string };

export interface StaffStore {
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  roleOf(creatorId: string): Promise<StaffRole | null>;
  /** Sets the creator's role (a grant replaces an earlier one). */
  put(row: StaffRow): Promise<void>;
  /** Removes the creator's role; true when there was one. */
  remove(creatorId: string): Promise<boolean>;
  /** Every member, by handle. */
  list(): Promise<StaffMemberRow[]>;
}

export function createStaffStore(database: Database): StaffStore {
  return database.dialect === "sqlite" ? new SqliteStaffStore(database) : new PostgresStaffStore(database);
}

/** Staff roles in the export (docs/operating.md, "Export and import"), after the creators they name. */
export const STAFF_RECORDS: RecordKind[] = [{ type: "staff", table: staff, orderBy: "granted_at, creator_id" }];
