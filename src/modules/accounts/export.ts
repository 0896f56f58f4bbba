// The accounts and their members as the export writes them: read through the export's snapshot, so
// they agree with every other table at one instant. Plain SQL that both databases run alike.
import { columnsOf, type RowOf, rowReader } from "../../db/rows";
import { type ReadSnapshot, snapshotRows } from "../../db/snapshot";
import { accountMembers, accounts } from "./tables";

const EXPORT_FIELDS = ["name", "tier", "status", "dailyQuota"] as const;
const readExported = rowReader(accounts, EXPORT_FIELDS);

export type AccountExportRow = RowOf<typeof accounts, (typeof EXPORT_FIELDS)[number]>;

/** Every account, oldest first, as of the export's snapshot. */
export async function* accountsForExport(snapshot: ReadSnapshot): AsyncGenerator<AccountExportRow> {
  const rows = snapshotRows<Record<string, unknown>>(snapshot, `SELECT ${columnsOf(accounts, EXPORT_FIELDS)} FROM accounts ORDER BY created_at, id`);
  for await (const row of rows) yield readExported(row);
}

/** An account member as the export names it: by the account's name and the creator's handle (ids are not exported). */
export interface MemberExportRow {
  account: string;
  handle: string;
  role: RowOf<typeof accountMembers, "role">["role"];
  addedAt: number;
}

/** Every account member, oldest membership first, as of the export's snapshot. */
export async function* membersForExport(snapshot: ReadSnapshot): AsyncGenerator<MemberExportRow> {
  const rows = snapshotRows<Record<string, unknown>>(
    snapshot,
    `SELECT a.name AS account, c.handle AS handle, m.role AS role, m.added_at AS added_at
     FROM account_members m JOIN accounts a ON a.id = m.account_id JOIN creators c ON c.id = m.creator_id
     ORDER BY m.added_at, a.name, c.handle`,
  );
  for await (const row of rows) {
    yield { account: String(row.account), handle: String(row.handle), role: row.role as MemberExportRow["role"], addedAt: Number(row.added_at) };
  }
}
