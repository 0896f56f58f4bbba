// The moderation tables (cases, reports, evidence, comments, mutes): the contract every database
// implements, the rows it answers (typed by their tables), and the factory that picks one. Their
// SQL lives in store.sqlite.ts and store.postgres.ts; inserts of whole rows go through
// db/records.ts, which builds them from the tables for both. The partial unique index
// moderation_cases_open_subject_idx keeps one open case per subject; on PostgreSQL, where writes
// run side by side, `lockKeys` serialises the writes about one subject or one filer so the
// hourly limit and the case grouping see each other's rows.
import type { Database } from "../../db/database";
import type { RowOf } from "../../db/rows";
import type { CaseStatus, ReportOutcome } from "../../domain";
import { PostgresModerationStore } from "./store.postgres";
import type { EVIDENCE_META_FIELDS } from "./store.shared";
import { SqliteModerationStore } from "./store.sqlite";
import type { moderationCases, moderationComments, moderationEvidence, moderationMutes, moderationReports } from "./tables";

export type CaseRow = RowOf<typeof moderationCases>;
export type ReportRow = RowOf<typeof moderationReports>;
export type EvidenceRow = RowOf<typeof moderationEvidence>;
export type CommentRow = RowOf<typeof moderationComments>;
export type MuteRow = RowOf<typeof moderationMutes>;

/** Evidence without its bytes: what lists show. */
export type EvidenceMeta = RowOf<typeof moderationEvidence, (typeof EVIDENCE_META_FIELDS)[number]>;

/** A case in the queue, with how many reports it groups. */
export type QueuedCase = CaseRow & { reportCount: number };

/** A place in the queue: the last case of the previous page. */
export interface CasePosition {
  createdAt: number;
  id: string;
}

export interface Standing {
  filed: number;
  upheld: number;
  dismissed: number;
}

export interface ModerationStore {
  /** One write transaction (a write inside a write joins it). */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** Holds each key until the transaction ends (PostgreSQL's advisory locks; SQLite has one writer already). */
  lockKeys(keys: string[]): Promise<void>;
  insertCase(row: CaseRow): Promise<void>;
  insertReport(row: ReportRow): Promise<void>;
  insertEvidence(row: EvidenceRow): Promise<void>;
  insertComment(row: CommentRow): Promise<void>;
  /** False (changing nothing) when the reporter was muted already. */
  insertMute(row: MuteRow): Promise<boolean>;
  muteOf(reporterId: string): Promise<MuteRow | null>;
  /** The subject's open or escalated case. */
  openCaseOf(subjectKey: string): Promise<CaseRow | null>;
  caseById(id: string): Promise<CaseRow | null>;
  /** `caseById` that holds the row until the transaction ends (PostgreSQL: FOR UPDATE). */
  lockCase(id: string): Promise<CaseRow | null>;
  /** Writes a case's changing fields: status, assignee, muted, outcome, entry, updated and closed times. */
  saveCase(row: CaseRow): Promise<void>;
  reportById(id: string): Promise<ReportRow | null>;
  /** A case's reports, oldest first. */
  reportsOfCase(caseId: string): Promise<ReportRow[]>;
  /** Closes the case's open reports with `outcome`; answers how many. */
  closeOpenReports(caseId: string, outcome: ReportOutcome, at: number): Promise<number>;
  /** When each of the filer's latest `limit` reports since `since` was filed, newest first. */
  recentFilings(filedBy: string, since: number, limit: number): Promise<number[]>;
  /** Reports filed, upheld and dismissed of each reporter named. */
  standing(reporterIds: string[]): Promise<Map<string, Standing>>;
  evidenceCount(reportId: string): Promise<number>;
  /** The case's evidence without bytes, oldest first. */
  evidenceOfCase(caseId: string): Promise<EvidenceMeta[]>;
  /** One file with its bytes. */
  evidenceById(id: string): Promise<EvidenceRow | null>;
  /** Marks the listed files of the case's reports public for `entryId`; answers how many. */
  publishEvidence(ids: string[], caseId: string, entryId: string): Promise<number>;
  /** The entry's public evidence without bytes, oldest first. */
  publicEvidenceOf(entryId: string): Promise<EvidenceMeta[]>;
  /** A case's comments, oldest first. */
  commentsOf(caseId: string): Promise<CommentRow[]>;
  /** Cases of one status past `after` in (created_at, id) order, of one assignee when given. */
  queue(status: CaseStatus, assigneeId: string | null, after: CasePosition | null, limit: number): Promise<QueuedCase[]>;
}

export function createModerationStore(database: Database): ModerationStore {
  return database.dialect === "sqlite" ? new SqliteModerationStore(database) : new PostgresModerationStore(database);
}
