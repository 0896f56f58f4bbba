// The moderation tables on PostgreSQL (the contract: store.ts).
import type { PostgresDatabase } from "../../db/postgres";
import { insertRow } from "../../db/records";
import { columnsOf } from "../../db/rows";
import type { CaseStatus, ReportOutcome } from "../../domain";
import {
  type CasePosition,
  type CaseRow,
  type CommentRow,
  type EvidenceMeta,
  type EvidenceRow,
  type ModerationStore,
  type MuteRow,
  type QueuedCase,
  type ReportRow,
  type Standing,
} from "./store";
import { CASE_COLUMNS, EVIDENCE_META, readCase, readComment, readEvidence, readMeta, readMute, readReport, REPORT_COLUMNS } from "./store.shared";
import { moderationCases, moderationComments, moderationEvidence, moderationMutes, moderationReports } from "./tables";

export class PostgresModerationStore implements ModerationStore {
  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  private async rows(query: string, params: unknown[]): Promise<Record<string, unknown>[]> {
    return [...(await this.sql.unsafe(query, params as never[]))];
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.database.write(fn);
  }

  async lockKeys(keys: string[]): Promise<void> {
    // In one order, so two writers locking the same keys never wait on each other in a circle.
    for (const key of [...new Set(keys)].sort()) await this.sql`SELECT pg_advisory_xact_lock(hashtextextended(${`moderation:${key}`}, 0))`;
  }

  async insertCase(row: CaseRow): Promise<void> {
    await insertRow(this.database, moderationCases, row);
  }

  async insertReport(row: ReportRow): Promise<void> {
    await insertRow(this.database, moderationReports, row);
  }

  async insertEvidence(row: EvidenceRow): Promise<void> {
    await insertRow(this.database, moderationEvidence, row);
  }

  async insertComment(row: CommentRow): Promise<void> {
    await insertRow(this.database, moderationComments, row);
  }

  async insertMute(row: MuteRow): Promise<boolean> {
    const result = await this.sql`
      INSERT INTO moderation_mutes (reporter_id, muted_at, muted_by) VALUES (${row.reporterId}, ${row.mutedAt}, ${row.mutedBy})
      ON CONFLICT (reporter_id) DO NOTHING`;
    return Number(result.count ?? 0) > 0;
  }

  async muteOf(reporterId: string): Promise<MuteRow | null> {
    const [row] = await this.rows(`SELECT ${columnsOf(moderationMutes)} FROM moderation_mutes WHERE reporter_id = $1`, [reporterId]);
    return row ? readMute(row) : null;
  }

  private async oneCase(where: string, value: string): Promise<CaseRow | null> {
    const [row] = await this.rows(`SELECT ${CASE_COLUMNS} FROM moderation_cases WHERE ${where}`, [value]);
    return row ? readCase(row) : null;
  }

  openCaseOf(subjectKey: string): Promise<CaseRow | null> {
    return this.oneCase("subject_key = $1 AND status <> 'closed'", subjectKey);
  }

  caseById(id: string): Promise<CaseRow | null> {
    return this.oneCase("id = $1", id);
  }

  lockCase(id: string): Promise<CaseRow | null> {
    return this.oneCase("id = $1 FOR UPDATE", id);
  }

  async saveCase(row: CaseRow): Promise<void> {
    await this.sql`
      UPDATE moderation_cases SET status = ${row.status}, assignee_id = ${row.assigneeId}, muted = ${row.muted}, outcome = ${row.outcome},
        entry_id = ${row.entryId}, updated_at = ${row.updatedAt}, closed_at = ${row.closedAt}
      WHERE id = ${row.id}`;
  }

  async reportById(id: string): Promise<ReportRow | null> {
    const [row] = await this.rows(`SELECT ${REPORT_COLUMNS} FROM moderation_reports WHERE id = $1`, [id]);
    return row ? readReport(row) : null;
  }

  async reportsOfCase(caseId: string): Promise<ReportRow[]> {
    return (await this.rows(`SELECT ${REPORT_COLUMNS} FROM moderation_reports WHERE case_id = $1 ORDER BY created_at, id`, [caseId])).map(readReport);
  }

  async closeOpenReports(caseId: string, outcome: ReportOutcome, at: number): Promise<number> {
    const result = await this.sql`
      UPDATE moderation_reports SET status = 'closed', outcome = ${outcome}, closed_at = ${at} WHERE case_id = ${caseId} AND status = 'open'`;
    return Number(result.count ?? 0);
  }

  async recentFilings(filedBy: string, since: number, limit: number): Promise<number[]> {
    const rows = await this.sql`
      SELECT created_at FROM moderation_reports WHERE filed_by = ${filedBy} AND created_at > ${since} ORDER BY created_at DESC LIMIT ${limit}`;
    return rows.map((r: { created_at: string | number }) => Number(r.created_at));
  }

  async standing(reporterIds: string[]): Promise<Map<string, Standing>> {
    const standing = new Map<string, Standing>();
    if (reporterIds.length === 0) return standing;
    const rows = await this.rows(
      `SELECT reporter_id AS id, count(*) AS filed, count(*) FILTER (WHERE outcome = 'upheld') AS upheld, count(*) FILTER (WHERE outcome = 'dismissed') AS dismissed
       FROM moderation_reports WHERE reporter_id = ANY($1::text[]) GROUP BY reporter_id`,
      [reporterIds],
    );
    for (const row of rows) standing.set(row.id as string, { filed: Number(row.filed), upheld: Number(row.upheld), dismissed: Number(row.dismissed) });
    return standing;
  }

  async evidenceCount(reportId: string): Promise<number> {
    const [row] = await this.sql`SELECT count(*) AS n FROM moderation_evidence WHERE report_id = ${reportId}`;
    return Number(row?.n ?? 0);
  }

  async evidenceOfCase(caseId: string): Promise<EvidenceMeta[]> {
    const rows = await this.rows(
      `SELECT ${EVIDENCE_META} FROM moderation_evidence e JOIN moderation_reports r ON r.id = e.report_id WHERE r.case_id = $1 ORDER BY e.created_at, e.id`,
      [caseId],
    );
    return rows.map(readMeta);
  }

  async evidenceById(id: string): Promise<EvidenceRow | null> {
    const [row] = await this.rows(`SELECT ${columnsOf(moderationEvidence)} FROM moderation_evidence WHERE id = $1`, [id]);
    return row ? readEvidence(row) : null;
  }

  async publishEvidence(ids: string[], caseId: string, entryId: string): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await this.sql.unsafe(
      `UPDATE moderation_evidence SET public = true, entry_id = $1
       WHERE id = ANY($3::text[]) AND report_id IN (SELECT id FROM moderation_reports WHERE case_id = $2)`,
      [entryId, caseId, ids] as never[],
    );
    return Number(result.count ?? 0);
  }

  async publicEvidenceOf(entryId: string): Promise<EvidenceMeta[]> {
    return (await this.rows(`SELECT ${EVIDENCE_META} FROM moderation_evidence e WHERE e.entry_id = $1 AND e.public ORDER BY e.created_at, e.id`, [entryId])).map(readMeta);
  }

  async commentsOf(caseId: string): Promise<CommentRow[]> {
    return (await this.rows(`SELECT ${columnsOf(moderationComments)} FROM moderation_comments WHERE case_id = $1 ORDER BY created_at, id`, [caseId])).map(readComment);
  }

  async queue(status: CaseStatus, assigneeId: string | null, after: CasePosition | null, limit: number): Promise<QueuedCase[]> {
    const params: unknown[] = [status];
    const bind = (value: unknown) => `$${params.push(value)}`;
    const mine = assigneeId === null ? "" : `AND c.assignee_id = ${bind(assigneeId)}`;
    const past = after ? `AND (c.created_at, c.id) > (${bind(after.createdAt)}, ${bind(after.id)})` : "";
    const rows = await this.rows(
      `SELECT ${columnsOf(moderationCases, undefined, "c")}, (SELECT count(*) FROM moderation_reports r WHERE r.case_id = c.id) AS "reportCount"
       FROM moderation_cases c WHERE c.status = $1 ${mine} ${past} ORDER BY c.created_at, c.id LIMIT ${bind(limit)}`,
      params,
    );
    return rows.map((row) => {
      const read = readCase(row) as QueuedCase;
      read.reportCount = Number(row.reportCount);
      return read;
    });
  }
}
