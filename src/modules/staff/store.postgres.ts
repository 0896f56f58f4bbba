// The staff table on PostgreSQL (the contract: store.ts).
import type { PostgresDatabase } from "../../db/postgres";
import { columnsOf, rowReader } from "../../db/rows";
import type { StaffRole } from "../../domain";
import type { StaffMemberRow, StaffRow, StaffStore } from "./store";
import { staff } from "./tables";

const readStaff = rowReader(staff);

export class PostgresStaffStore implements StaffStore {
  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.database.write(fn);
  }

  async roleOf(creatorId: string): Promise<StaffRole | null> {
    const [row] = await this.sql`SELECT role FROM staff WHERE creator_id = ${creatorId}`;
    return row ? (row.role as StaffRole) : null;
  }

  async put(row: StaffRow): Promise<void> {
    await this.database.write(
      () => this.sql`
        INSERT INTO staff (creator_id, role, granted_at, granted_by) VALUES (${row.creatorId}, ${row.role}, ${row.grantedAt}, ${row.grantedBy})
        ON CONFLICT (creator_id) DO UPDATE SET role = excluded.role, granted_at = excluded.granted_at, granted_by = excluded.granted_by`,
    );
  }

  async remove(creatorId: string): Promise<boolean> {
    const result = await this.database.write(() => this.sql`DELETE FROM staff WHERE creator_id = ${creatorId}`);
    return Number(result.count ?? 0) > 0;
  }

  async list(): Promise<StaffMemberRow[]> {
    const rows = await this.sql.unsafe(`SELECT ${columnsOf(staff, undefined, "s")}, c.handle AS handle FROM staff s JOIN creators c ON c.id = s.creator_id ORDER BY c.handle`);
    return rows.map((row: Record<string, unknown>) => ({ ...readStaff(row), handle: row.handle as string }));
  }
}
