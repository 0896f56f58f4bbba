// The appeals table on SQLite (the contract: store.ts).
import type { Store } from "../../db/client";
import { translatingConflicts } from "../../db/errors";
import { columnsOf } from "../../db/rows";
import type { AppealStatus, AppellantKind } from "../../domain";
import type { AppealDecision, AppealPosition, AppealRow, AppealsStore } from "./store";
import { appeals } from "./tables";

const COLUMNS = columnsOf(appeals);

export class SqliteAppealsStore implements AppealsStore {
  constructor(private readonly store: Store) {}

  private get db() {
    return this.store.sqlite;
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.write(fn);
  }

  async insert(row: AppealRow): Promise<void> {
    await translatingConflicts(() =>
      this.db
        .query(
          `INSERT INTO appeals (id, entry_id, status, statement, filed_by_kind, filed_by, relayed_by, provider, provider_user_id,
             outcome, note, severity, new_entry_id, decided_by, created_at, decided_at)
           VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)`,
        )
        .run(
          row.id,
          row.entryId,
          row.status,
          row.statement,
          row.filedByKind,
          row.filedBy,
          row.relayedBy,
          row.provider,
          row.providerUserId,
          row.outcome,
          row.note,
          row.severity,
          row.newEntryId,
          row.decidedBy,
          row.createdAt,
          row.decidedAt,
        ),
    );
  }

  async byId(id: string): Promise<AppealRow | null> {
    return this.db.query<AppealRow, [string]>(`SELECT ${COLUMNS} FROM appeals WHERE id = ?`).get(id);
  }

  lockById(id: string): Promise<AppealRow | null> {
    // SQLite's write transaction already holds the whole database.
    return this.byId(id);
  }

  async openOn(entryId: string): Promise<AppealRow | null> {
    return this.db.query<AppealRow, [string]>(`SELECT ${COLUMNS} FROM appeals WHERE entry_id = ? AND status = 'open'`).get(entryId);
  }

  async lastDecidedAt(entryId: string): Promise<number | null> {
    return this.db.query<{ at: number | null }, [string]>("SELECT max(decided_at) AS at FROM appeals WHERE entry_id = ? AND status = 'decided'").get(entryId)?.at ?? null;
  }

  async markDecided(id: string, d: AppealDecision): Promise<boolean> {
    const result = this.db
      .query(
        `UPDATE appeals SET status = 'decided', outcome = ?2, note = ?3, severity = ?4, new_entry_id = ?5, decided_by = ?6, decided_at = ?7
         WHERE id = ?1 AND status = 'open'`,
      )
      .run(id, d.outcome, d.note, d.severity, d.newEntryId, d.decidedBy, d.decidedAt);
    return result.changes > 0;
  }

  async filedBy(kind: AppellantKind, filedBy: string, before: AppealPosition | null, limit: number): Promise<AppealRow[]> {
    // A first page binds the position as nulls, which `?3 IS ?4` lets through.
    const past = before ? "AND (created_at < ?3 OR (created_at = ?3 AND id < ?4))" : "AND ?3 IS ?4";
    return this.db
      .query<AppealRow, [string, string, number | null, string | null, number]>(
        `SELECT ${COLUMNS} FROM appeals INDEXED BY appeals_filed_by_idx WHERE filed_by = ?2 AND filed_by_kind = ?1 ${past}
         ORDER BY created_at DESC, id DESC LIMIT ?5`,
      )
      .all(kind, filedBy, before?.createdAt ?? null, before?.id ?? null, limit);
  }

  async queue(status: AppealStatus, after: AppealPosition | null, limit: number): Promise<AppealRow[]> {
    const oldestFirst = status === "open";
    const past = after ? `AND (created_at, id) ${oldestFirst ? ">" : "<"} (?2, ?3)` : "AND ?2 IS ?3";
    const order = oldestFirst ? "created_at, id" : "created_at DESC, id DESC";
    return this.db
      .query<AppealRow, [string, number | null, string | null, number]>(`SELECT ${COLUMNS} FROM appeals WHERE status = ?1 ${past} ORDER BY ${order} LIMIT ?4`)
      .all(status, after?.createdAt ?? null, after?.id ?? null, limit);
  }
}
