// The staff table, `staff`: the contract every database implements, its rows (typed by the
// table), and the factory that picks one. Its SQL lives in store.sqlite.ts and store.postgres.ts.
import type { Database } from "../../db/database";
import { columnsOf, type RowOf, rowReader } from "../../db/rows";
import { type ReadSnapshot, snapshotRows } from "../../db/snapshot";
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

const readStaff = rowReader(staff);

/** Every staff row, as of the export's snapshot. */
export async function* staffForExport(snapshot: ReadSnapshot): AsyncGenerator<StaffRow> {
  for await (const row of snapshotRows<Record<string, unknown>>(snapshot, `SELECT ${columnsOf(staff)} FROM staff ORDER BY granted_at, creator_id`)) {
    yield readStaff(row);
  }
}
