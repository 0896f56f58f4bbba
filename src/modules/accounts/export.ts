// The accounts as the export writes them: read through the export's snapshot, so they agree with
// every other table at one instant. Plain SQL that both databases run alike.
import { columnsOf, type RowOf, rowReader } from "../../db/rows";
import { type ReadSnapshot, snapshotRows } from "../../db/snapshot";
import { accounts } from "./tables";

const EXPORT_FIELDS = ["name", "tier", "status", "dailyQuota"] as const;
const readExported = rowReader(accounts, EXPORT_FIELDS);

export type AccountExportRow = RowOf<typeof accounts, (typeof EXPORT_FIELDS)[number]>;

/** Every account, oldest first, as of the export's snapshot. */
export async function* accountsForExport(snapshot: ReadSnapshot): AsyncGenerator<AccountExportRow> {
  const rows = snapshotRows<Record<string, unknown>>(snapshot, `SELECT ${columnsOf(accounts, EXPORT_FIELDS)} FROM accounts ORDER BY created_at, id`);
  for await (const row of rows) yield readExported(row);
}
