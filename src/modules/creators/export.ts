// The export's reads of the creators' tables, on its snapshot (either database): rows under their
// tables' field names, read the same way on both (the snapshot hands back int8 as strings and
// flags as 0/1 on SQLite, so every row goes through its reader).
import { columnsOf, type RowOf, rowReader } from "../../db/rows";
import { type ReadSnapshot, snapshotRows } from "../../db/snapshot";
import { connections, creators } from "./tables";

const CREATOR_FIELDS = ["id", "handle", "displayName", "verificationLevel", "karma", "joinedAt", "avatarR2Key"] as const;
const readCreator = rowReader(creators, CREATOR_FIELDS);

export type CreatorExportRow = RowOf<typeof creators, (typeof CREATOR_FIELDS)[number]>;

/** Every creator's profile, oldest first, as of the export's snapshot. */
export async function* creatorsForExport(snapshot: ReadSnapshot): AsyncGenerator<CreatorExportRow> {
  const rows = snapshotRows<Record<string, unknown>>(snapshot, `SELECT ${columnsOf(creators, CREATOR_FIELDS)} FROM creators ORDER BY created_at, id`);
  for await (const row of rows) yield readCreator(row);
}

const CONNECTION_FIELDS = ["provider", "providerUserId", "providerUsername", "providerUrl", "verifiedAt", "public"] as const;
const readConnection = rowReader(connections, CONNECTION_FIELDS);

/** A link with its creator's handle. */
export type ConnectionExportRow = RowOf<typeof connections, (typeof CONNECTION_FIELDS)[number]> & RowOf<typeof creators, "handle">;

/** Every link with its creator's handle (joined here rather than held in memory), as of the export's snapshot. */
export async function* connectionsForExport(snapshot: ReadSnapshot): AsyncGenerator<ConnectionExportRow> {
  const rows = snapshotRows<Record<string, unknown>>(
    snapshot,
    `SELECT ${columnsOf(connections, CONNECTION_FIELDS, "c")}, cr.handle
     FROM connections c JOIN creators cr ON cr.id = c.creator_id ORDER BY c.id`,
  );
  for await (const row of rows) yield readConnection(row) as ConnectionExportRow;
}
