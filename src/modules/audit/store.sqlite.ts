// The audit table on SQLite (the contract: store.ts).
import type { Statement } from "bun:sqlite";
import type { Store } from "../../db/client";
import { columnsOf } from "../../db/rows";
import type { AuditFilters, AuditRow, AuditStore } from "./store";
import { auditPageWhere } from "./store.shared";
import { auditEvents } from "./tables";

const COLUMNS = columnsOf(auditEvents);

export class SqliteAuditStore implements AuditStore {
  private readonly insertStatement: Statement;

  constructor(private readonly store: Store) {
    this.insertStatement = store.sqlite.prepare(
      `INSERT INTO audit_events (id, at, actor_kind, actor_id, action, entry_id, case_id, appeal_id, subject, details)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`,
    );
  }

  insert(row: Omit<AuditRow, "seq">): Promise<void> {
    this.insertStatement.run(row.id, row.at, row.actorKind, row.actorId, row.action, row.entryId, row.caseId, row.appealId, row.subject, row.details);
    return Promise.resolve();
  }

  insertMany(rows: Array<Omit<AuditRow, "seq">>): Promise<void> {
    for (const row of rows) this.insertStatement.run(row.id, row.at, row.actorKind, row.actorId, row.action, row.entryId, row.caseId, row.appealId, row.subject, row.details);
    return Promise.resolve();
  }

  async page(filters: AuditFilters, beforeSeq: number, limit: number): Promise<AuditRow[]> {
    const { where, values } = auditPageWhere(filters);
    // Numbered parameters are SQLite's ?N; the statement is cached by its text.
    const query = `SELECT ${COLUMNS} FROM audit_events WHERE ${where.replace(/\$(\d+)/g, "?$1")} ORDER BY seq DESC LIMIT ?${values.length + 2}`;
    return this.store.sqlite.query<AuditRow, (string | number)[]>(query).all(beforeSeq, ...values, limit);
  }

  async ofCase(caseId: string): Promise<AuditRow[]> {
    return this.store.sqlite.query<AuditRow, [string]>(`SELECT ${COLUMNS} FROM audit_events WHERE case_id = ?1 ORDER BY seq`).all(caseId);
  }
}
