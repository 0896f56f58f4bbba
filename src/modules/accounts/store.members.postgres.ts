// `account_members` and the console's usage reads on PostgreSQL (the contract: store.members.ts).
import type { PostgresDatabase } from "../../db/postgres";
import { columnsOf, rowReader } from "../../db/rows";
import type { DayCount, EndpointCount, MemberRow, MembersStore, MemberWithHandle } from "./store.members";
import { accountMembers } from "./tables";

const MEMBER_COLUMNS = columnsOf(accountMembers, undefined, "m");
const readMember = rowReader(accountMembers);

export class PostgresMembersStore implements MembersStore {
  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.database.write(fn);
  }

  async putMember(row: MemberRow): Promise<void> {
    await this.database.write(async () => {
      await this.sql`INSERT INTO account_members (account_id, creator_id, role, added_at)
        VALUES (${row.accountId}, ${row.creatorId}, ${row.role}, ${row.addedAt})
        ON CONFLICT (account_id, creator_id) DO UPDATE SET role = excluded.role`;
    });
  }

  deleteMember(accountId: string, creatorId: string): Promise<boolean> {
    return this.database.write(async () => (await this.sql`DELETE FROM account_members WHERE account_id = ${accountId} AND creator_id = ${creatorId}`).count > 0);
  }

  async membersOf(accountId: string): Promise<MemberWithHandle[]> {
    const rows = await this.sql.unsafe(
      `SELECT ${MEMBER_COLUMNS}, c.handle AS handle FROM account_members m JOIN creators c ON c.id = m.creator_id WHERE m.account_id = $1 ORDER BY c.handle`,
      [accountId],
    );
    return rows.map((row: Record<string, unknown>) => ({ ...readMember(row), handle: String(row.handle) }));
  }

  async membershipsOf(creatorId: string): Promise<MemberRow[]> {
    const rows = await this.sql.unsafe(`SELECT ${MEMBER_COLUMNS} FROM account_members m WHERE m.creator_id = $1 ORDER BY m.added_at, m.account_id`, [creatorId]);
    return rows.map(readMember);
  }

  async usageDays(accountId: string, fromDay: string): Promise<DayCount[]> {
    const rows = await this.sql`SELECT day, count FROM usage_daily WHERE account_id = ${accountId} AND day >= ${fromDay} ORDER BY day`;
    return rows.map((row: Record<string, unknown>) => ({ day: String(row.day), count: Number(row.count) }));
  }

  async endpointCounts(accountId: string, fromDay: string): Promise<EndpointCount[]> {
    const rows = await this.sql`SELECT u.endpoint AS endpoint, sum(u.count)::bigint AS count FROM usage_endpoints u JOIN api_keys k ON k.id = u.key_id
      WHERE k.account_id = ${accountId} AND u.day >= ${fromDay} GROUP BY u.endpoint ORDER BY count DESC, endpoint`;
    return rows.map((row: Record<string, unknown>) => ({ endpoint: String(row.endpoint), count: Number(row.count) }));
  }

  async lastUsedDays(accountId: string): Promise<Map<string, string>> {
    const rows = await this.sql`SELECT u.key_id AS key_id, max(u.day) AS day FROM usage_endpoints u JOIN api_keys k ON k.id = u.key_id
      WHERE k.account_id = ${accountId} GROUP BY u.key_id`;
    return new Map(rows.map((r: Record<string, unknown>) => [String(r.key_id), String(r.day)]));
  }
}
