// The staff table on SQLite (the contract: store.ts).
import type { Store } from "../../db/client";
import { columnsOf } from "../../db/rows";
import type { StaffRole } from "../../domain";
import type { StaffMemberRow, StaffRow, StaffStore } from "./store";
import { staff } from "./tables";

export class SqliteStaffStore implements StaffStore {
  constructor(private readonly store: Store) {}

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.write(fn);
  }

  async roleOf(creatorId: string): Promise<StaffRole | null> {
    return this.store.sqlite.query<{ role: StaffRole }, [string]>("SELECT role FROM staff WHERE creator_id = ?").get(creatorId)?.role ?? null;
  }

  async put(row: StaffRow): Promise<void> {
    this.store.sqlite
      .query(
        `INSERT INTO staff (creator_id, role, granted_at, granted_by) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (creator_id) DO UPDATE SET role = excluded.role, granted_at = excluded.granted_at, granted_by = excluded.granted_by`,
      )
      .run(row.creatorId, row.role, row.grantedAt, row.grantedBy);
  }

  async remove(creatorId: string): Promise<boolean> {
    return this.store.sqlite.query("DELETE FROM staff WHERE creator_id = ?").run(creatorId).changes > 0;
  }

  async list(): Promise<StaffMemberRow[]> {
    return this.store.sqlite
      .query<StaffMemberRow, []>(`SELECT ${columnsOf(staff, undefined, "s")}, c.handle AS handle FROM staff s JOIN creators c ON c.id = s.creator_id ORDER BY c.handle`)
      .all();
  }
}
