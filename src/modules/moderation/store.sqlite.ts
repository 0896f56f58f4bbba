// The moderation tables on SQLite (the contract: store.ts).
import type { Store } from "../../db/client";
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
import { CASE_COLUMNS, EVIDENCE_META, readCase, readEvidence, readMeta, REPORT_COLUMNS } from "./store.shared";
import { moderationCases, moderationComments, moderationEvidence, moderationMutes, moderationReports } from "./tables";

export class SqliteModerationStore implements ModerationStore {
  constructor(private readonly store: Store) {}

  private get db() {
    return this.store.sqlite;
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.write(fn);
  }

  async lockKeys(_keys: string[]): Promise<void> {
    // The write transaction already holds the whole database.
  }

  async insertCase(row: CaseRow): Promise<void> {
    await insertRow(this.store, moderationCases, row);
  }

  async insertReport(row: ReportRow): Promise<void> {
    await insertRow(this.store, moderationReports, row);
  }

  async insertEvidence(row: EvidenceRow): Promise<void> {
    await insertRow(this.store, moderationEvidence, row);
  }

  async insertComment(row: CommentRow): Promise<void> {
    await insertRow(this.store, moderationComments, row);
  }

  async insertMute(row: MuteRow): Promise<boolean> {
    const result = this.db
      .query("INSERT INTO moderation_mutes (reporter_id, muted_at, muted_by) VALUES (?1, ?2, ?3) ON CONFLICT (reporter_id) DO NOTHING")
      .run(row.reporterId, row.mutedAt, row.mutedBy);
    return result.changes > 0;
  }

  async muteOf(reporterId: string): Promise<MuteRow | null> {
    return this.db.query<MuteRow, [string]>(`SELECT ${columnsOf(moderationMutes)} FROM moderation_mutes WHERE reporter_id = ?`).get(reporterId);
  }

  private oneCase(where: string, value: string): CaseRow | null {
    const row = this.db.query<Record<string, unknown>, [string]>(`SELECT ${CASE_COLUMNS} FROM moderation_cases WHERE ${where}`).get(value);
    return row ? readCase(row) : null;
  }

  async openCaseOf(subjectKey: string): Promise<CaseRow | null> {
    return this.oneCase("subject_key = ? AND status <> 'closed'", subjectKey);
  }

  async caseById(id: string): Promise<CaseRow | null> {
    return this.oneCase("id = ?", id);
  }

  lockCase(id: string): Promise<CaseRow | null> {
    return this.caseById(id);
  }

  async saveCase(row: CaseRow): Promise<void> {
    this.db
      .query(
        `UPDATE moderation_cases SET status = ?2, assignee_id = ?3, muted = ?4, outcome = ?5, entry_id = ?6, updated_at = ?7, closed_at = ?8 WHERE id = ?1`,
      )
      .run(row.id, row.status, row.assigneeId, row.muted ? 1 : 0, row.outcome, row.entryId, row.updatedAt, row.closedAt);
  }

  async reportById(id: string): Promise<ReportRow | null> {
    return this.db.query<ReportRow, [string]>(`SELECT ${REPORT_COLUMNS} FROM moderation_reports WHERE id = ?`).get(id);
  }

  async reportsOfCase(caseId: string): Promise<ReportRow[]> {
    return this.db.query<ReportRow, [string]>(`SELECT ${REPORT_COLUMNS} FROM moderation_reports WHERE case_id = ? ORDER BY created_at, id`).all(caseId);
  }

  async closeOpenReports(caseId: string, outcome: ReportOutcome, at: number): Promise<number> {
    return this.db.query("UPDATE moderation_reports SET status = 'closed', outcome = ?2, closed_at = ?3 WHERE case_id = ?1 AND status = 'open'").run(caseId, outcome, at).changes;
  }

  async recentFilings(filedBy: string, since: number, limit: number): Promise<number[]> {
    return this.db
      .query<{ at: number }, [string, number, number]>(
        "SELECT created_at AS at FROM moderation_reports WHERE filed_by = ?1 AND created_at > ?2 ORDER BY created_at DESC LIMIT ?3",
      )
      .all(filedBy, since, limit)
      .map((r) => r.at);
  }

  async standing(reporterIds: string[]): Promise<Map<string, Standing>> {
    const standing = new Map<string, Standing>();
    if (reporterIds.length === 0) return standing;
    const rows = this.db
      .query<{ id: string; filed: number; upheld: number; dismissed: number }, string[]>(
        `SELECT reporter_id AS id, count(*) AS filed, count(*) FILTER (WHERE outcome = 'upheld') AS upheld, count(*) FILTER (WHERE outcome = 'dismissed') AS dismissed
         FROM moderation_reports WHERE reporter_id IN (${reporterIds.map(() => "?").join(", ")}) GROUP BY reporter_id`,
      )
      .all(...reporterIds);
    for (const row of rows) standing.set(row.id, { filed: row.filed, upheld: row.upheld, dismissed: row.dismissed });
    return standing;
  }

  async evidenceCount(reportId: string): Promise<number> {
    return this.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM moderation_evidence WHERE report_id = ?").get(reportId)?.n ?? 0;
  }

  async evidenceOfCase(caseId: string): Promise<EvidenceMeta[]> {
    return this.db
      .query<Record<string, unknown>, [string]>(
        `SELECT ${EVIDENCE_META} FROM moderation_evidence e JOIN moderation_reports r ON r.id = e.report_id WHERE r.case_id = ? ORDER BY e.created_at, e.id`,
      )
      .all(caseId)
      .map(readMeta);
  }

  async evidenceById(id: string): Promise<EvidenceRow | null> {
    const row = this.db.query<Record<string, unknown>, [string]>(`SELECT ${columnsOf(moderationEvidence)} FROM moderation_evidence WHERE id = ?`).get(id);
    return row ? readEvidence(row) : null;
  }

  async publishEvidence(ids: string[], caseId: string, entryId: string): Promise<number> {
    if (ids.length === 0) return 0;
    return this.db
      .query(
        `UPDATE moderation_evidence SET public = 1, entry_id = ?1
         WHERE id IN (${ids.map((_, i) => `?${i + 3}`).join(", ")}) AND report_id IN (SELECT id FROM moderation_reports WHERE case_id = ?2)`,
      )
      .run(entryId, caseId, ...ids).changes;
  }

  async publicEvidenceOf(entryId: string): Promise<EvidenceMeta[]> {
    return this.db
      .query<Record<string, unknown>, [string]>(`SELECT ${EVIDENCE_META} FROM moderation_evidence e WHERE e.entry_id = ? AND e.public = 1 ORDER BY e.created_at, e.id`)
      .all(entryId)
      .map(readMeta);
  }

  async commentsOf(caseId: string): Promise<CommentRow[]> {
    return this.db.query<CommentRow, [string]>(`SELECT ${columnsOf(moderationComments)} FROM moderation_comments WHERE case_id = ? ORDER BY created_at, id`).all(caseId);
  }

  async queue(status: CaseStatus, assigneeId: string | null, after: CasePosition | null, limit: number): Promise<QueuedCase[]> {
    const past = after ? "AND (c.created_at, c.id) > (?3, ?4)" : "AND ?3 IS ?4";
    // The queue index serves a status (a keyset page is a range scan); the planner picks the assignee index for one assignee.
    const index = assigneeId === null ? "INDEXED BY moderation_cases_queue_idx" : "";
    const mine = assigneeId === null ? "AND ?2 IS NULL" : "AND c.assignee_id = ?2";
    return this.db
      .query<Record<string, unknown>, [string, string | null, number | null, string | null, number]>(
        `SELECT ${columnsOf(moderationCases, undefined, "c")}, (SELECT count(*) FROM moderation_reports r WHERE r.case_id = c.id) AS "reportCount"
         FROM moderation_cases c ${index} WHERE c.status = ?1 ${mine} ${past} ORDER BY c.created_at, c.id LIMIT ?5`,
      )
      .all(status, assigneeId, after?.createdAt ?? null, after?.id ?? null, limit)
      .map((row) => readCase(row) as QueuedCase);
  }
}
