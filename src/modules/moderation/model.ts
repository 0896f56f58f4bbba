// Schemas of moderation (docs/moderation.md): filing a report and its evidence, a report as its
// reporter reads it, the staff queue and a case as staff read it, the case actions, and public
// evidence. Everything but `ReportReceipt`, `ReportView`, `EvidenceReceipt` and `PublicEvidence`
// is staff-only.
import { t } from "elysia";
import { CASE_OUTCOMES, CASE_STATUSES, EVIDENCE_TYPES, PROVIDERS, REPORT_OUTCOMES, REPORT_STATUSES, REPORTER_KINDS } from "../../domain";
import { DateTime, JsonInteger, literals } from "../../http/model";
import { EntryFields, Scope, Severity, StaffEntry, Vertical } from "../blacklist/model";

/** Longest report description and staff comment. */
export const MAX_DESCRIPTION = 4000;
/** Most evidence URLs a report names, and most files uploaded to one report. */
export const MAX_EVIDENCE_URLS = 10;
export const MAX_EVIDENCE_FILES = 10;
/** Largest evidence file. */
export const MAX_EVIDENCE_BYTES = 8 * 1024 * 1024;

const ProviderName = literals(PROVIDERS, { description: "Platform of the account.", examples: ["discord"] });
const AccountId = t.String({ minLength: 1, maxLength: 128, description: "Native user id on that platform.", examples: ["80351110224678912"] });
const ReportId = t.String({ description: "The report's id.", examples: ["rpt_01kdvdna009aqnt2ae7ejrkvaj"] });
const CaseId = t.String({ description: "The case's id.", examples: ["case_01kdvdna009aqnt2ae7ejrkvaj"] });
const EvidenceId = t.String({ description: "The file's id.", examples: ["evd_01kdvdna009aqnt2ae7ejrkvaj"] });
const Sha256 = t.String({ description: "SHA-256 of the bytes, lower-case hex.", examples: ["9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"] });
const ByteCount = JsonInteger({ description: "Size in bytes.", examples: [48213] });
const EvidenceContentType = literals(EVIDENCE_TYPES, { description: "The file's type, as its leading bytes showed it.", examples: ["image/png"] });
const ReasonCode = EntryFields.reason_code;

// Filing.

export const ReportSubject = t.Union(
  [
    t.Object(
      { provider: ProviderName, id: AccountId, username: t.Optional(t.String({ maxLength: 128, description: "Their username there, for staff." })) },
      { additionalProperties: t.Never(), description: "A platform account." },
    ),
    t.Object({ handle: t.String({ minLength: 1, maxLength: 64, description: "A creator's handle.", examples: ["shadowbuilds"] }) }, { additionalProperties: t.Never(), description: "A creator." }),
  ],
  { description: "Whom the report is about: a platform account, or a creator by handle." },
);

export const ReportBody = t.Object(
  {
    subject: ReportSubject,
    reason_code: ReasonCode,
    description: t.String({ minLength: 1, maxLength: MAX_DESCRIPTION, description: `What happened, 1-${MAX_DESCRIPTION} characters. Only staff read it.` }),
    evidence_urls: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 2048 }), { maxItems: MAX_EVIDENCE_URLS, description: `At most ${MAX_EVIDENCE_URLS} https URLs.` })),
    reporter: t.Optional(
      t.Object({ provider: ProviderName, id: AccountId }, { additionalProperties: t.Never(), description: "The platform member a bot relays the report for (keys only)." }),
    ),
  },
  { $id: "ReportBody", additionalProperties: t.Never() },
);

export const ReportReceipt = t.Object(
  { id: ReportId, status: t.Literal("open"), case_id: CaseId, created_at: DateTime("When it was filed.") },
  { $id: "ReportReceipt", description: "A report as filed." },
);

export const ReportView = t.Object(
  {
    id: ReportId,
    status: literals(REPORT_STATUSES, { description: "`open` until staff act on its case." }),
    outcome: t.Optional(literals(["upheld", "watchlisted", "dismissed"] as const, { description: "How staff closed it." })),
    created_at: DateTime("When it was filed."),
  },
  { $id: "ReportView", description: "A report as its reporter reads it: status and outcome, never staff notes or who else reported." },
);

export const ReportParams = t.Object({ id: t.String({ maxLength: 64, description: "Report id." }) });

export const EvidenceReceipt = t.Object(
  { id: EvidenceId, sha256: Sha256, bytes: ByteCount, content_type: EvidenceContentType },
  { $id: "EvidenceReceipt", description: "An uploaded evidence file." },
);

/** A file answer in the API description: the bytes, served as the stored type. */
export const EvidenceFile = t.Union(
  EVIDENCE_TYPES.map((type) => t.String({ contentMediaType: type, format: "binary", description: `The file, served as ${type} and as an attachment.` })),
  { description: "The file's bytes with `Content-Disposition: attachment`, `X-Content-Type-Options: nosniff` and a sandboxing Content-Security-Policy." },
);

// Public evidence.

export const PublicEvidence = t.Object({ id: EvidenceId, sha256: Sha256, bytes: ByteCount, content_type: EvidenceContentType }, { $id: "PublicEvidence" });

export const PublicEvidenceList = t.Object(
  { data: t.Array(PublicEvidence) },
  { $id: "PublicEvidenceList", description: "The files the decision behind an active entry made public, oldest first." },
);

export const EntryEvidenceParams = t.Object({ id: t.String({ maxLength: 64, description: "Entry id." }) });
export const EntryEvidenceFileParams = t.Object({ id: t.String({ maxLength: 64, description: "Entry id." }), evd: t.String({ maxLength: 64, description: "Evidence id." }) });
export const EvidenceParams = t.Object({ evd: t.String({ maxLength: 64, description: "Evidence id." }) });

// Staff views.

const Reporter = t.Object(
  {
    kind: literals(REPORTER_KINDS, { description: "`creator` (signed in), `member` (a platform member a bot relayed for), `key` (a bot for itself), or `source` (a followed instance under the review policy)." }),
    id: t.String({ description: "A creator's id, `provider:id`, or a key id: what the mute route takes.", examples: ["discord:80351110224678912"] }),
    handle: t.Optional(t.String({ description: "A creator reporter's handle." })),
  },
  { $id: "CaseReporter" },
);

const Standing = t.Object(
  {
    filed: JsonInteger({ description: "Reports this reporter filed." }),
    upheld: JsonInteger({ description: "Of them, upheld by a decision." }),
    dismissed: JsonInteger({ description: "Of them, dismissed." }),
  },
  { $id: "ReporterStanding" },
);

const StaffEvidence = t.Object(
  { id: EvidenceId, sha256: Sha256, bytes: ByteCount, content_type: EvidenceContentType, public: t.Boolean({ description: "Shown with the entry its decision created." }) },
  { $id: "StaffEvidence" },
);

const CaseReport = t.Object(
  {
    id: ReportId,
    reporter: Reporter,
    standing: Standing,
    reason_code: t.String(),
    description: t.String(),
    evidence_urls: t.Array(t.String()),
    evidence: t.Array(StaffEvidence),
    status: literals(REPORT_STATUSES),
    outcome: t.Nullable(literals(REPORT_OUTCOMES)),
    created_at: DateTime("When it was filed."),
  },
  { $id: "CaseReport" },
);

const CaseComment = t.Object(
  { id: t.String({ examples: ["cmt_01kdvdna009aqnt2ae7ejrkvaj"] }), author: t.String({ description: "Who wrote it, `kind:id`.", examples: ["staff:alicemod"] }), body: t.String(), created_at: DateTime("When it was written.") },
  { $id: "CaseComment" },
);

export const CaseSubject = t.Object(
  {
    key: t.String({ description: "`provider:id` or `creator:handle`.", examples: ["discord:80351110224678912"] }),
    provider: t.Nullable(t.String()),
    id: t.Nullable(t.String()),
    username: t.Nullable(t.String()),
    handle: t.Nullable(t.String({ description: "A creator subject's handle." })),
  },
  { $id: "CaseSubject" },
);

const CaseFields = {
  id: CaseId,
  status: literals(CASE_STATUSES),
  outcome: t.Nullable(literals(CASE_OUTCOMES)),
  muted: t.Boolean({ description: "Opened by a muted reporter's report and closed with it." }),
  subject: CaseSubject,
  assignee: t.Nullable(t.String({ description: "The assigned staff member's handle." })),
  entry_id: t.Nullable(t.String({ description: "The entry its decision or watchlisting created." })),
  created_at: DateTime("When its first report arrived."),
  closed_at: t.Nullable(DateTime("When it closed.")),
};

export const CaseSummary = t.Object({ ...CaseFields, report_count: JsonInteger({ description: "Reports grouped in it." }) }, { $id: "CaseSummary" });

export const CasePage = t.Object(
  {
    data: t.Array(CaseSummary),
    next_cursor: t.Nullable(t.String({ description: "Pass as `cursor` for the next page; null on the last page." })),
    has_more: t.Boolean(),
  },
  { $id: "CasePage", description: "Cases of one status, oldest first." },
);

export const AuditHistory = t.Array(t.Record(t.String(), t.Unknown()), { description: "The case's audit events, oldest first (the audit log's shape)." });

export const CaseView = t.Object(
  {
    ...CaseFields,
    reports: t.Array(CaseReport),
    comments: t.Array(CaseComment),
    entries: t.Array(StaffEntry),
    history: AuditHistory,
  },
  { $id: "Case", description: "A case as staff read it: every report with its reporter and their standing, evidence, comments, the subject's entries past and present, and its history." },
);

export const CaseQuery = t.Object({
  status: t.Optional(literals(CASE_STATUSES, { description: "`open` (the default), `escalated` or `closed`." })),
  assignee: t.Optional(t.String({ maxLength: 64, description: "Only cases assigned to this staff handle." })),
  cursor: t.Optional(t.String({ maxLength: 512, description: "`next_cursor` of the previous page." })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 50, description: "Cases per page, 1-100." })),
});

export const CaseParams = t.Object({ id: t.String({ maxLength: 64, description: "Case id." }) });
export const ReporterParams = t.Object({ reporter: t.String({ minLength: 1, maxLength: 200, description: "A reporter id as a case shows it." }) });

// Actions.

export const CommentBody = t.Object({ body: t.String({ minLength: 1, maxLength: MAX_DESCRIPTION }) }, { $id: "CommentBody", additionalProperties: t.Never() });
export const AssignBody = t.Object(
  { handle: t.Nullable(t.String({ minLength: 1, maxLength: 64, description: "A staff member's handle; null unassigns." })) },
  { $id: "AssignBody", additionalProperties: t.Never() },
);
export const DismissBody = t.Object({ reason: t.String({ minLength: 1, maxLength: 2000, description: "Why (staff-only)." }) }, { $id: "DismissBody", additionalProperties: t.Never() });
export const WatchlistBody = t.Object(
  { summary: t.String({ minLength: 1, maxLength: 500, description: "The watchlist row's summary." }) },
  { $id: "WatchlistBody", additionalProperties: t.Never() },
);
export const DecideBody = t.Object(
  {
    severity: Severity,
    scope: t.Optional(Scope),
    vertical: t.Optional(Vertical),
    reason_code: ReasonCode,
    summary: t.String({ minLength: 1, maxLength: 500, description: "The entry's public summary." }),
    private_note: t.Optional(t.String({ maxLength: 4000, description: "Staff-only note kept with the entry." })),
    expires_at: t.Optional(t.Nullable(DateTime("Null or absent means permanent.", "2027-11-21T10:00:00.000Z"))),
    appealable: t.Boolean(),
    public_evidence: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 100, description: "Evidence of this case's reports to show with the entry." })),
    account: t.Optional(
      t.Object({ provider: ProviderName, id: AccountId }, { additionalProperties: t.Never(), description: "For a creator subject: which of their linked accounts the entry names (default: their first)." }),
    ),
  },
  { $id: "DecideBody", additionalProperties: t.Never() },
);

export const CaseActionResult = t.Object(
  { id: CaseId, status: literals(CASE_STATUSES), outcome: t.Nullable(literals(CASE_OUTCOMES)), assignee: t.Nullable(t.String()), entry_id: t.Nullable(t.String()) },
  { $id: "CaseActionResult", description: "The case after the action." },
);

export const CommentResult = t.Object({ id: t.String(), case_id: CaseId, created_at: DateTime("When it was written.") }, { $id: "CommentResult" });

export const MuteResult = t.Object(
  { reporter: t.String(), muted: t.Literal(true), muted_at: DateTime("When it was first muted.") },
  { $id: "MuteResult", description: "The reporter is muted (a second mute changes nothing)." },
);
