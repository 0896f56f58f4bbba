// The moderation module's tables (docs/moderation.md): cases, the reports grouped into them, the
// evidence files of reports, staff comments on cases, and muted reporters. SQLite first and then
// PostgreSQL, side by side so a column changes in both at once (test/db/dialects.test.ts compares
// them). Times are epoch milliseconds: integer in SQLite, bigint in PostgreSQL. src/db/schema.ts
// and schema.pg.ts re-export them for drizzle-kit.
import { sql } from "drizzle-orm";
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";
import { AUDIT_ACTOR_KINDS, CASE_OUTCOMES, CASE_STATUSES, EVIDENCE_TYPES, PROVIDERS, REPORT_OUTCOMES, REPORT_STATUSES, REPORTER_KINDS } from "../../domain";

/** PostgreSQL's byte string: evidence files are kept in the database, so backups and exports carry them. */
const bytea = pg.customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

// SQLite

/**
 * Cases: the reports about one subject (a platform account, or one creator) while it is open. At
 * most one case per subject is open or escalated at a time; a report about a subject with none
 * opens one. `subject_key` is `provider:id` or `creator:handle`.
 */
export const moderationCases = sqlite.sqliteTable(
  "moderation_cases",
  {
    id: sqlite.text("id").primaryKey(),
    status: sqlite.text("status", { enum: CASE_STATUSES }).notNull(),
    subjectKey: sqlite.text("subject_key").notNull(),
    provider: sqlite.text("provider", { enum: PROVIDERS }),
    providerUserId: sqlite.text("provider_user_id"),
    username: sqlite.text("username"),
    creatorHandle: sqlite.text("creator_handle"),
    /** Creator id of the staff member it is assigned to. */
    assigneeId: sqlite.text("assignee_id"),
    /** Opened by a muted reporter's report and closed with it; staff-only. */
    muted: sqlite.integer("muted", { mode: "boolean" }).notNull().default(false),
    outcome: sqlite.text("outcome", { enum: CASE_OUTCOMES }),
    /** The entry its decision or watchlisting created. */
    entryId: sqlite.text("entry_id"),
    createdAt: sqlite.integer("created_at").notNull(),
    updatedAt: sqlite.integer("updated_at").notNull(),
    closedAt: sqlite.integer("closed_at"),
  },
  (table) => [
    sqlite.uniqueIndex("moderation_cases_open_subject_idx").on(table.subjectKey).where(sql`${table.status} <> 'closed'`),
    // The queue: one status oldest first, a keyset page a range scan.
    sqlite.index("moderation_cases_queue_idx").on(table.status, table.createdAt, table.id),
    sqlite.index("moderation_cases_assignee_idx").on(table.assigneeId, table.status, table.createdAt).where(sql`${table.assigneeId} IS NOT NULL`),
    sqlite.index("moderation_cases_subject_idx").on(table.subjectKey, table.createdAt),
  ],
);

/**
 * Reports. `reporter_id` names the reporter the same way whoever relays it: a creator's id, a
 * platform member as `provider:id`, or a bot's key id when it reports for itself. `filed_by` is
 * whom the hourly limit counts: the key's account, or the signed-in creator.
 */
export const moderationReports = sqlite.sqliteTable(
  "moderation_reports",
  {
    id: sqlite.text("id").primaryKey(),
    caseId: sqlite.text("case_id")
      .notNull()
      .references(() => moderationCases.id),
    reasonCode: sqlite.text("reason_code").notNull(),
    description: sqlite.text("description").notNull(),
    /** JSON array of https URLs. */
    evidenceUrls: sqlite.text("evidence_urls").notNull(),
    reporterKind: sqlite.text("reporter_kind", { enum: REPORTER_KINDS }).notNull(),
    reporterId: sqlite.text("reporter_id").notNull(),
    filedBy: sqlite.text("filed_by").notNull(),
    /** The key that relayed it, when a bot did. */
    relayedBy: sqlite.text("relayed_by"),
    status: sqlite.text("status", { enum: REPORT_STATUSES }).notNull(),
    outcome: sqlite.text("outcome", { enum: REPORT_OUTCOMES }),
    createdAt: sqlite.integer("created_at").notNull(),
    closedAt: sqlite.integer("closed_at"),
  },
  (table) => [
    sqlite.index("moderation_reports_case_idx").on(table.caseId, table.createdAt),
    // A reporter's standing: reports filed, upheld and dismissed.
    sqlite.index("moderation_reports_reporter_idx").on(table.reporterId, table.outcome),
    // The hourly limit.
    sqlite.index("moderation_reports_filed_by_idx").on(table.filedBy, table.createdAt),
  ],
);

/** Files uploaded as a report's evidence, bytes and all; `public` once a decision shows it. */
export const moderationEvidence = sqlite.sqliteTable(
  "moderation_evidence",
  {
    id: sqlite.text("id").primaryKey(),
    reportId: sqlite.text("report_id")
      .notNull()
      .references(() => moderationReports.id),
    /** Lower-case hex SHA-256 of the bytes. */
    sha256: sqlite.text("sha256").notNull(),
    bytes: sqlite.integer("bytes").notNull(),
    contentType: sqlite.text("content_type", { enum: EVIDENCE_TYPES }).notNull(),
    data: sqlite.blob("data", { mode: "buffer" }).notNull(),
    public: sqlite.integer("public", { mode: "boolean" }).notNull().default(false),
    /** The entry whose decision made it public. */
    entryId: sqlite.text("entry_id"),
    createdAt: sqlite.integer("created_at").notNull(),
  },
  (table) => [
    sqlite.index("moderation_evidence_report_idx").on(table.reportId, table.createdAt),
    sqlite.index("moderation_evidence_entry_idx").on(table.entryId).where(sql`${table.entryId} IS NOT NULL`),
  ],
);

/** Staff comments on a case; staff-only. */
export const moderationComments = sqlite.sqliteTable(
  "moderation_comments",
  {
    id: sqlite.text("id").primaryKey(),
    caseId: sqlite.text("case_id")
      .notNull()
      .references(() => moderationCases.id),
    authorKind: sqlite.text("author_kind", { enum: AUDIT_ACTOR_KINDS }).notNull(),
    authorId: sqlite.text("author_id").notNull(),
    body: sqlite.text("body").notNull(),
    createdAt: sqlite.integer("created_at").notNull(),
  },
  (table) => [sqlite.index("moderation_comments_case_idx").on(table.caseId, table.createdAt)],
);

/** Reporters a moderator muted: their later reports are accepted and closed at once, unseen. */
export const moderationMutes = sqlite.sqliteTable("moderation_mutes", {
  reporterId: sqlite.text("reporter_id").primaryKey(),
  mutedAt: sqlite.integer("muted_at").notNull(),
  /** The audit actor that muted, `kind:id`. */
  mutedBy: sqlite.text("muted_by").notNull(),
});

// PostgreSQL

/** Cases (see the SQLite twin above). */
export const moderationCasesPg = pg.pgTable(
  "moderation_cases",
  {
    id: pg.text("id").primaryKey(),
    status: pg.text("status", { enum: CASE_STATUSES }).notNull(),
    subjectKey: pg.text("subject_key").notNull(),
    provider: pg.text("provider", { enum: PROVIDERS }),
    providerUserId: pg.text("provider_user_id"),
    username: pg.text("username"),
    creatorHandle: pg.text("creator_handle"),
    /** Creator id of the staff member it is assigned to. */
    assigneeId: pg.text("assignee_id"),
    /** Opened by a muted reporter's report and closed with it; staff-only. */
    muted: pg.boolean("muted").notNull().default(false),
    outcome: pg.text("outcome", { enum: CASE_OUTCOMES }),
    /** The entry its decision or watchlisting created. */
    entryId: pg.text("entry_id"),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: pg.bigint("updated_at", { mode: "number" }).notNull(),
    closedAt: pg.bigint("closed_at", { mode: "number" }),
  },
  (table) => [
    pg.uniqueIndex("moderation_cases_open_subject_idx").on(table.subjectKey).where(sql`${table.status} <> 'closed'`),
    // The queue: one status oldest first, a keyset page a range scan.
    pg.index("moderation_cases_queue_idx").on(table.status, table.createdAt, table.id),
    pg.index("moderation_cases_assignee_idx").on(table.assigneeId, table.status, table.createdAt).where(sql`${table.assigneeId} IS NOT NULL`),
    pg.index("moderation_cases_subject_idx").on(table.subjectKey, table.createdAt),
  ],
);

/** Reports (see the SQLite twin above). */
export const moderationReportsPg = pg.pgTable(
  "moderation_reports",
  {
    id: pg.text("id").primaryKey(),
    caseId: pg.text("case_id")
      .notNull()
      .references(() => moderationCasesPg.id),
    reasonCode: pg.text("reason_code").notNull(),
    description: pg.text("description").notNull(),
    /** JSON array of https URLs. */
    evidenceUrls: pg.text("evidence_urls").notNull(),
    reporterKind: pg.text("reporter_kind", { enum: REPORTER_KINDS }).notNull(),
    reporterId: pg.text("reporter_id").notNull(),
    filedBy: pg.text("filed_by").notNull(),
    /** The key that relayed it, when a bot did. */
    relayedBy: pg.text("relayed_by"),
    status: pg.text("status", { enum: REPORT_STATUSES }).notNull(),
    outcome: pg.text("outcome", { enum: REPORT_OUTCOMES }),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
    closedAt: pg.bigint("closed_at", { mode: "number" }),
  },
  (table) => [
    pg.index("moderation_reports_case_idx").on(table.caseId, table.createdAt),
    // A reporter's standing: reports filed, upheld and dismissed.
    pg.index("moderation_reports_reporter_idx").on(table.reporterId, table.outcome),
    // The hourly limit.
    pg.index("moderation_reports_filed_by_idx").on(table.filedBy, table.createdAt),
  ],
);

/** Evidence files (see the SQLite twin above). */
export const moderationEvidencePg = pg.pgTable(
  "moderation_evidence",
  {
    id: pg.text("id").primaryKey(),
    reportId: pg.text("report_id")
      .notNull()
      .references(() => moderationReportsPg.id),
    /** Lower-case hex SHA-256 of the bytes. */
    sha256: pg.text("sha256").notNull(),
    bytes: pg.bigint("bytes", { mode: "number" }).notNull(),
    contentType: pg.text("content_type", { enum: EVIDENCE_TYPES }).notNull(),
    data: bytea("data").notNull(),
    public: pg.boolean("public").notNull().default(false),
    /** The entry whose decision made it public. */
    entryId: pg.text("entry_id"),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
  },
  (table) => [
    pg.index("moderation_evidence_report_idx").on(table.reportId, table.createdAt),
    pg.index("moderation_evidence_entry_idx").on(table.entryId).where(sql`${table.entryId} IS NOT NULL`),
  ],
);

/** Staff comments (see the SQLite twin above). */
export const moderationCommentsPg = pg.pgTable(
  "moderation_comments",
  {
    id: pg.text("id").primaryKey(),
    caseId: pg.text("case_id")
      .notNull()
      .references(() => moderationCasesPg.id),
    authorKind: pg.text("author_kind", { enum: AUDIT_ACTOR_KINDS }).notNull(),
    authorId: pg.text("author_id").notNull(),
    body: pg.text("body").notNull(),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
  },
  (table) => [pg.index("moderation_comments_case_idx").on(table.caseId, table.createdAt)],
);

/** Muted reporters (see the SQLite twin above). */
export const moderationMutesPg = pg.pgTable("moderation_mutes", {
  reporterId: pg.text("reporter_id").primaryKey(),
  mutedAt: pg.bigint("muted_at", { mode: "number" }).notNull(),
  /** The audit actor that muted, `kind:id`. */
  mutedBy: pg.text("muted_by").notNull(),
});
