// The appeals table on PostgreSQL (the contract: store.ts).
import type { PostgresDatabase } from "../../db/postgres";
import { translatingConflicts } from "../../db/errors";
import { columnsOf, rowReader } from "../../db/rows";
import type { AppealStatus, AppellantKind } from "../../domain";
import type { AppealDecision, AppealPosition, AppealRow, AppealsStore } from "./store";
import { appeals } from "./tables";

const COLUMNS = columnsOf(appeals);
const readAppeal = rowReader(appeals);

export class PostgresAppealsStore implements AppealsStore {
  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  private async rows(query: string, params: unknown[]): Promise<AppealRow[]> {
    return (await this.sql.unsafe(query, params as never[])).map(readAppeal);
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.database.write(fn);
  }

  async insert(row: AppealRow): Promise<void> {
    await translatingConflicts(
      () => this.sql`
        INSERT INTO appeals (id, entry_id, status, statement, filed_by_kind, filed_by, relayed_by, provider, provider_user_id,
          outcome, note, severity, new_entry_id, decided_by, created_at, decided_at)
        VALUES (${row.id}, ${row.entryId}, ${row.status}, ${row.statement}, ${row.filedByKind}, ${row.filedBy}, ${row.relayedBy},
          ${row.provider}, ${row.providerUserId}, ${row.outcome}, ${row.note}, ${row.severity}, ${row.newEntryId}, ${row.decidedBy},
          ${row.createdAt}, ${row.decidedAt})`,
    );
  }

  async byId(id: string): Promise<AppealRow | null> {
    return (await this.rows(`SELECT ${COLUMNS} FROM appeals WHERE id = $1`, [id]))[0] ?? null;
  }

  async lockById(id: string): Promise<AppealRow | null> {
    return (await this.rows(`SELECT ${COLUMNS} FROM appeals WHERE id = $1 FOR UPDATE`, [id]))[0] ?? null;
  }

  async openOn(entryId: string): Promise<AppealRow | null> {
    return (await this.rows(`SELECT ${COLUMNS} FROM appeals WHERE entry_id = $1 AND status = 'open'`, [entryId]))[0] ?? null;
  }

  async lastDecidedAt(entryId: string): Promise<number | null> {
    const [row] = await this.sql`SELECT max(decided_at) AS at FROM appeals WHERE entry_id = ${entryId} AND status = 'decided'`;
    return row?.at == null ? null : Number(row.at);
  }

  async markDecided(id: string, d: AppealDecision): Promise<boolean> {
    const result = await this.sql`
      UPDATE appeals SET status = 'decided', outcome = ${d.outcome}, note = ${d.note}, severity = ${d.severity},
        new_entry_id = ${d.newEntryId}, decided_by = ${d.decidedBy}, decided_at = ${d.decidedAt}
      WHERE id = ${id} AND status = 'open'`;
    return Number(result.count ?? 0) > 0;
  }

  filedBy(kind: AppellantKind, filedBy: string, before: AppealPosition | null, limit: number): Promise<AppealRow[]> {
    const past = before ? "AND (created_at, id) < ($4, $5)" : "";
    return this.rows(`SELECT ${COLUMNS} FROM appeals WHERE filed_by = $2 AND filed_by_kind = $1 ${past} ORDER BY created_at DESC, id DESC LIMIT $3`, [
      kind,
      filedBy,
      limit,
      ...(before ? [before.createdAt, before.id] : []),
    ]);
  }

  queue(status: AppealStatus, after: AppealPosition | null, limit: number): Promise<AppealRow[]> {
    const oldestFirst = status === "open";
    const past = after ? `AND (created_at, id) ${oldestFirst ? ">" : "<"} ($3, $4)` : "";
    const order = oldestFirst ? "created_at, id" : "created_at DESC, id DESC";
    return this.rows(`SELECT ${COLUMNS} FROM appeals WHERE status = $1 ${past} ORDER BY ${order} LIMIT $2`, [status, limit, ...(after ? [after.createdAt, after.id] : [])]);
  }
}
