// Reports and their evidence (docs/moderation.md, "Reports"): a bot relaying a member's report or
// reporting for itself, or a signed-in creator. A report joins its subject's open case or opens
// one; at most 20 an hour per key's account or per creator. A muted reporter's report is accepted
// like any other and closed at once (a case it opened closes with it), and nothing its reporter
// can read says so. Evidence files are checked by their leading bytes and kept in the database.
import { type Clock, iso } from "../../clock";
import { EVIDENCE_TYPES, type EvidenceType } from "../../domain";
import { conflict, notFound, rateLimited, ServiceError, unprocessable } from "../../errors";
import { newId } from "../../ids";
import { cleanLines } from "../../values";
import { type Actor, type AuditLog, accountSubject } from "../audit/service";
import { type BlacklistService, isProvider, normalizeAccountId } from "../blacklist/service";
import type { CreatorsService } from "../creators/service";
import { evidenceMismatch } from "./evidence-type";
import { type CaseSubject, fileIntoCase } from "./filing";
import { MAX_EVIDENCE_BYTES, MAX_EVIDENCE_FILES, type EvidenceReceipt, type PublicEvidenceList, type ReportBody, type ReportReceipt, type ReportView } from "./model";
import type { EvidenceMeta, EvidenceRow, ModerationStore, ReportRow } from "./store";

/** Reports one key's account, or one signed-in creator, may file in an hour. */
export const REPORTS_PER_HOUR = 20;
const HOUR_MS = 3_600_000;

/** Who files: a key (a bot), or a signed-in creator. */
export type Filer = { kind: "key"; keyId: string; accountId: string } | { kind: "creator"; creatorId: string; handle: string };

export function filerActor(filer: Filer): Actor {
  return filer.kind === "key" ? { kind: "key", id: filer.keyId } : { kind: "creator", id: filer.handle };
}

/** True when `filer` filed the report: a key of the account that filed it, or the same creator. */
function filedBy(row: ReportRow, filer: Filer): boolean {
  if (filer.kind === "key") return row.relayedBy !== null && row.filedBy === filer.accountId;
  return row.reporterKind === "creator" && row.filedBy === filer.creatorId;
}

/** The media type of a Content-Type header, without parameters, lower-case. */
function mediaType(header: string | null): string {
  return (header ?? "").split(";")[0]!.trim().toLowerCase();
}

function httpsUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw unprocessable(`'${raw.slice(0, 80)}' is not a URL.`);
  }
  if (url.protocol !== "https:") throw unprocessable(`Evidence URLs must be https: '${raw.slice(0, 80)}' is not.`);
  if (url.username || url.password) throw unprocessable("Evidence URLs may not carry a user name or password.");
  return url.toString();
}

export function toEvidence(row: EvidenceMeta): { id: string; sha256: string; bytes: number; content_type: EvidenceType } {
  return { id: row.id, sha256: row.sha256, bytes: row.bytes, content_type: row.contentType };
}

export class ModerationReports {
  constructor(
    private readonly store: ModerationStore,
    private readonly clock: Clock,
    private readonly blacklist: BlacklistService,
    private readonly creators: CreatorsService,
    private readonly audit: AuditLog,
  ) {}

  /** The report's subject: a platform account in its stored form, or an existing creator (404 for an unknown handle). */
  private async subjectOf(subject: (typeof ReportBody.static)["subject"]): Promise<CaseSubject> {
    if ("handle" in subject) {
      const creator = await this.creators.find(subject.handle);
      if (!creator) throw notFound(`No creator @${subject.handle.slice(0, 40)}.`);
      return { subjectKey: `creator:${creator.handle}`, provider: null, providerUserId: null, username: null, creatorHandle: creator.handle };
    }
    const id = isProvider(subject.provider) ? normalizeAccountId(subject.provider, subject.id) : null;
    if (id === null) throw unprocessable(`'${subject.id.slice(0, 64)}' is not a valid ${subject.provider} user id.`);
    return { subjectKey: accountSubject(subject.provider, id), provider: subject.provider, providerUserId: id, username: subject.username?.trim() || null, creatorHandle: null };
  }

  /** The reporter as the tables name it: a creator's id, a relayed member's `provider:id`, or the key's id. */
  private reporterOf(filer: Filer, reporter: (typeof ReportBody.static)["reporter"]): Pick<ReportRow, "reporterKind" | "reporterId"> {
    if (filer.kind === "creator") {
      if (reporter) throw unprocessable("A signed-in creator reports as themselves: leave out `reporter` (it names the member a bot relays for).");
      return { reporterKind: "creator", reporterId: filer.creatorId };
    }
    if (!reporter) return { reporterKind: "key", reporterId: filer.keyId };
    const id = isProvider(reporter.provider) ? normalizeAccountId(reporter.provider, reporter.id) : null;
    if (id === null) throw unprocessable(`'${reporter.id.slice(0, 64)}' is not a valid ${reporter.provider} user id.`);
    return { reporterKind: "member", reporterId: accountSubject(reporter.provider, id) };
  }

  async file(filer: Filer, body: typeof ReportBody.static): Promise<typeof ReportReceipt.static> {
    const description = cleanLines(body.description, "description");
    const evidenceUrls = (body.evidence_urls ?? []).map(httpsUrl);
    const subject = await this.subjectOf(body.subject);
    const reporter = this.reporterOf(filer, body.reporter);
    const filer_ = filer.kind === "key" ? filer.accountId : filer.creatorId;
    const actor = filerActor(filer);
    const now = this.clock.now();
    return this.store.transaction(async () => {
      await this.store.lockKeys([`filer:${filer_}`, `subject:${subject.subjectKey}`]);
      const recent = await this.store.recentFilings(filer_, now - HOUR_MS, REPORTS_PER_HOUR);
      if (recent.length >= REPORTS_PER_HOUR) {
        const retry = (recent[REPORTS_PER_HOUR - 1]! + HOUR_MS - now) / 1000;
        throw rateLimited(`At most ${REPORTS_PER_HOUR} reports an hour ${filer.kind === "key" ? "per account" : "per creator"}; the next is allowed in ${Math.ceil(retry)} s.`, retry);
      }
      const report = await fileIntoCase(
        { store: this.store, audit: this.audit },
        actor,
        subject,
        {
          reasonCode: body.reason_code,
          description,
          evidenceUrls: JSON.stringify(evidenceUrls),
          ...reporter,
          filedBy: filer_,
          relayedBy: filer.kind === "key" ? filer.keyId : null,
        },
        now,
      );
      return { id: report.id, status: "open" as const, case_id: report.caseId, created_at: iso(now) };
    });
  }

  /** The filer's own report, or 404 (for an unknown one and for anyone else's alike). */
  private async ownReport(filer: Filer, id: string): Promise<ReportRow> {
    const row = await this.store.reportById(id);
    if (!row || !filedBy(row, filer)) throw notFound(`No report ${id.slice(0, 64)} of yours.`);
    return row;
  }

  /** A report as its reporter reads it; a muted one reads as open. */
  async view(filer: Filer, id: string): Promise<typeof ReportView.static> {
    const row = await this.ownReport(filer, id);
    if (row.outcome === null || row.outcome === "muted") return { id: row.id, status: "open", created_at: iso(row.createdAt) };
    return { id: row.id, status: row.status, outcome: row.outcome, created_at: iso(row.createdAt) };
  }

  /** Stores one evidence file of the filer's report: 415 for a type its bytes deny, 409 past the tenth. */
  async addEvidence(filer: Filer, reportId: string, contentType: string | null, data: Buffer): Promise<typeof EvidenceReceipt.static> {
    const report = await this.ownReport(filer, reportId);
    const declared = mediaType(contentType);
    if (!(EVIDENCE_TYPES as readonly string[]).includes(declared)) {
      throw new ServiceError("unsupported_media_type", `Evidence must be sent as one of ${EVIDENCE_TYPES.join(", ")}; got '${declared.slice(0, 80) || "no Content-Type"}'.`);
    }
    const type = declared as EvidenceType;
    if (data.length === 0) throw unprocessable("The file is empty.");
    if (data.length > MAX_EVIDENCE_BYTES) throw new ServiceError("too_large", `Evidence files are at most ${MAX_EVIDENCE_BYTES} bytes.`);
    const mismatch = evidenceMismatch(type, data);
    if (mismatch) throw new ServiceError("unsupported_media_type", mismatch);
    // A muted report still takes files: refusing them would tell its reporter.
    if (report.status === "closed" && report.outcome !== "muted") throw conflict(`Report ${report.id} is closed: staff have acted on it.`);
    const now = this.clock.now();
    const row: EvidenceRow = {
      id: newId("evd", now),
      reportId: report.id,
      sha256: new Bun.CryptoHasher("sha256").update(data).digest("hex"),
      bytes: data.length,
      contentType: type,
      data,
      public: false,
      entryId: null,
      createdAt: now,
    };
    await this.store.transaction(async () => {
      await this.store.lockKeys([`report:${report.id}`]);
      if ((await this.store.evidenceCount(report.id)) >= MAX_EVIDENCE_FILES) throw conflict(`Report ${report.id} already has ${MAX_EVIDENCE_FILES} files, the most it may have.`);
      await this.store.insertEvidence(row);
      const kase = await this.store.caseById(report.caseId);
      await this.audit.record(
        filerActor(filer),
        "evidence.added",
        { caseId: report.caseId, subject: kase?.subjectKey ?? null },
        { report_id: report.id, evidence_id: row.id, sha256: row.sha256, bytes: row.bytes, content_type: row.contentType },
        now,
      );
    });
    return toEvidence(row);
  }

  // Public evidence: what a decision showed, beside its entry while the entry stands.

  /** 404 unless the entry is active and confirmed. */
  private async standingEntry(entryId: string): Promise<void> {
    if (!(await this.blacklist.get(entryId))) throw notFound(`No active blacklist entry ${entryId.slice(0, 64)}.`);
  }

  async publicEvidence(entryId: string): Promise<typeof PublicEvidenceList.static> {
    await this.standingEntry(entryId);
    return { data: (await this.store.publicEvidenceOf(entryId)).map(toEvidence) };
  }

  async publicEvidenceFile(entryId: string, evidenceId: string): Promise<EvidenceRow> {
    await this.standingEntry(entryId);
    const row = await this.store.evidenceById(evidenceId);
    if (!row || !row.public || row.entryId !== entryId) throw notFound(`No public evidence ${evidenceId.slice(0, 64)} of entry ${entryId.slice(0, 64)}.`);
    return row;
  }

  /** Any file, for staff. */
  async evidenceFile(evidenceId: string): Promise<EvidenceRow> {
    const row = await this.store.evidenceById(evidenceId);
    if (!row) throw notFound(`No evidence ${evidenceId.slice(0, 64)}.`);
    return row;
  }
}
