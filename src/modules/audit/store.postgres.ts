// The audit table on PostgreSQL (the contract: store.ts).
import type { PostgresDatabase } from "../../db/postgres";
import { columnsOf, rowReader } from "../../db/rows";
import type { AuditFilters, AuditRow, AuditStore } from "./store";
import { auditPageWhere } from "./store.shared";
import { auditEvents } from "./tables";

const COLUMNS = columnsOf(auditEvents);
const readAudit = rowReader(auditEvents);

export class PostgresAuditStore implements AuditStore {
  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  async insert(row: Omit<AuditRow, "seq">): Promise<void> {
    await this.database.write(
      () => this.sql`
        INSERT INTO audit_events (id, at, actor_kind, actor_id, action, entry_id, case_id, appeal_id, subject, details)
        VALUES (${row.id}, ${row.at}, ${row.actorKind}, ${row.actorId}, ${row.action}, ${row.entryId}, ${row.caseId}, ${row.appealId}, ${row.subject}, ${row.details})`,
    );
  }

  async insertMany(rows: Array<Omit<AuditRow, "seq">>): Promise<void> {
    if (rows.length === 0) return;
    const column = <K extends keyof Omit<AuditRow, "seq">>(key: K) => rows.map((row) => row[key]);
    // unnest keeps the rows' order, so their seq follows it.
    await this.database.write(() =>
      this.sql.unsafe(
        `INSERT INTO audit_events (id, at, actor_kind, actor_id, action, entry_id, case_id, appeal_id, subject, details)
         SELECT id, at, actor_kind, actor_id, action, entry_id, case_id, appeal_id, subject, details FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[]) WITH ORDINALITY AS r(id, at, actor_kind, actor_id, action, entry_id, case_id, appeal_id, subject, details, n)
         ORDER BY n`,
        [column("id"), column("at"), column("actorKind"), column("actorId"), column("action"), column("entryId"), column("caseId"), column("appealId"), column("subject"), column("details")],
      ),
    );
  }

  async page(filters: AuditFilters, beforeSeq: number, limit: number): Promise<AuditRow[]> {
    const { where, values } = auditPageWhere(filters);
    const rows = await this.sql.unsafe(`SELECT ${COLUMNS} FROM audit_events WHERE ${where} ORDER BY seq DESC LIMIT $${values.length + 2}`, [beforeSeq, ...values, limit]);
    return rows.map(readAudit);
  }

  async ofCase(caseId: string): Promise<AuditRow[]> {
    const rows = await this.sql.unsafe(`SELECT ${COLUMNS} FROM audit_events WHERE case_id = $1 ORDER BY seq`, [caseId]);
    return rows.map(readAudit);
  }
}
