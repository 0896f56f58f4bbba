// Filing one report into its subject's case, whoever files it (a bot, a signed-in creator, a
// followed source under the `review` policy): the subject's open case, or a new one; a muted
// reporter's report closed at once, and a case it opened closed with it; the audit events of both.
// The caller holds the transaction and the subject's lock.
import { newId } from "../../ids";
import type { Actor, AuditLog } from "../audit/service";
import type { CaseRow, ModerationStore, ReportRow } from "./store";

/** What a case is about, as a report names it and a case keeps it. */
export type CaseSubject = Pick<CaseRow, "subjectKey" | "provider" | "providerUserId" | "username" | "creatorHandle">;

/** A report's own fields; its case, state and times come from filing it. */
export type ReportFields = Omit<ReportRow, "id" | "caseId" | "status" | "outcome" | "createdAt" | "closedAt">;

/** Files the report at `now`; `details` adds to its audit event. Answers the stored report. */
export async function fileIntoCase(
  parts: { store: ModerationStore; audit: AuditLog },
  actor: Actor,
  subject: CaseSubject,
  fields: ReportFields,
  now: number,
  details: object = {},
): Promise<ReportRow> {
  const { store, audit } = parts;
  const muted = (await store.muteOf(fields.reporterId)) !== null;
  let kase = await store.openCaseOf(subject.subjectKey);
  if (!kase) {
    kase = {
      id: newId("case", now),
      status: muted ? "closed" : "open",
      ...subject,
      assigneeId: null,
      muted,
      outcome: muted ? "muted" : null,
      entryId: null,
      createdAt: now,
      updatedAt: now,
      closedAt: muted ? now : null,
    };
    await store.insertCase(kase);
    await audit.record(actor, "case.opened", { caseId: kase.id, subject: subject.subjectKey }, { muted }, now);
  }
  const report: ReportRow = {
    id: newId("rpt", now),
    caseId: kase.id,
    ...fields,
    status: muted ? "closed" : "open",
    outcome: muted ? "muted" : null,
    createdAt: now,
    closedAt: muted ? now : null,
  };
  await store.insertReport(report);
  await audit.record(
    actor,
    "report.filed",
    { caseId: kase.id, subject: subject.subjectKey },
    { report_id: report.id, reason_code: report.reasonCode, reporter: { kind: report.reporterKind, id: report.reporterId }, ...details, muted },
    now,
  );
  return report;
}
