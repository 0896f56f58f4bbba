// `account_members` and the console's usage reads on SQLite (the contract: store.members.ts).
import type { Store } from "../../db/client";
import { columnsOf } from "../../db/rows";
import type { DayCount, EndpointCount, MemberRow, MembersStore, MemberWithHandle } from "./store.members";
import { accountMembers } from "./tables";

const MEMBER_COLUMNS = columnsOf(accountMembers, undefined, "m");

export class SqliteMembersStore implements MembersStore {
  constructor(private readonly store: Store) {}

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.write(fn);
  }

  async putMember(row: MemberRow): Promise<void> {
    await this.store.write(() => {
      this.store.sqlite.run(
        `INSERT INTO account_members (account_id, creator_id, role, added_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (account_id, creator_id) DO UPDATE SET role = excluded.role`,
        [row.accountId, row.creatorId, row.role, row.addedAt],
      );
    });
  }

  deleteMember(accountId: string, creatorId: string): Promise<boolean> {
    return this.store.write(
      async () => this.store.sqlite.run("DELETE FROM account_members WHERE account_id = ? AND creator_id = ?", [accountId, creatorId]).changes > 0,
    );
  }

  async membersOf(accountId: string): Promise<MemberWithHandle[]> {
    return this.store.sqlite
      .query<MemberWithHandle, [string]>(
        `SELECT ${MEMBER_COLUMNS}, c.handle AS handle FROM account_members m JOIN creators c ON c.id = m.creator_id WHERE m.account_id = ? ORDER BY c.handle`,
      )
      .all(accountId);
  }

  async membershipsOf(creatorId: string): Promise<MemberRow[]> {
    return this.store.sqlite
      .query<MemberRow, [string]>(`SELECT ${MEMBER_COLUMNS} FROM account_members m WHERE m.creator_id = ? ORDER BY m.added_at, m.account_id`)
      .all(creatorId);
  }

  async usageDays(accountId: string, fromDay: string): Promise<DayCount[]> {
    return this.store.sqlite
      .query<DayCount, [string, string]>("SELECT day, count FROM usage_daily WHERE account_id = ? AND day >= ? ORDER BY day")
      .all(accountId, fromDay);
  }

  async endpointCounts(accountId: string, fromDay: string): Promise<EndpointCount[]> {
    return this.store.sqlite
      .query<EndpointCount, [string, string]>(
        `SELECT u.endpoint AS endpoint, sum(u.count) AS count FROM usage_endpoints u JOIN api_keys k ON k.id = u.key_id
         WHERE k.account_id = ? AND u.day >= ? GROUP BY u.endpoint ORDER BY count DESC, endpoint`,
      )
      .all(accountId, fromDay);
  }

  async lastUsedDays(accountId: string): Promise<Map<string, string>> {
    const rows = this.store.sqlite
      .query<{ keyId: string; day: string }, [string]>(
        `SELECT u.key_id AS keyId, max(u.day) AS day FROM usage_endpoints u JOIN api_keys k ON k.id = u.key_id WHERE k.account_id = ? GROUP BY u.key_id`,
      )
      .all(accountId);
    return new Map(rows.map((r) => [r.keyId, r.day]));
  }
}
