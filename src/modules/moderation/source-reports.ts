// Reports a followed instance files under the `review` policy (docs/federation.md): each item it
// adds becomes a report about the account, with the source as the reporter, grouped into the
// account's open case (or a new one) like any other report, so staff decide. A source staff muted
// files into a closed, muted case as a muted reporter does. Called inside the sync's transaction.
import type { Clock } from "../../clock";
import type { Provider } from "../../domain";
import { newId } from "../../ids";
import { accountSubject, type AuditLog } from "../audit/service";
import type { CaseRow, ModerationStore, ReportRow } from "./store";

/** What a source's item says about the account, as the report carries it. */
export interface SourceItem {
  provider: Provider;
  providerUserId: string;
  username: string | null;
  reasonCode: string;
  severity: string;
  summary: string | null;
  /** The entry's id at the source. */
  upstreamId: string;
}

export class SourceReports {
  constructor(
    private readonly store: ModerationStore,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  /** Files the item as a report by `source`; answers the case it joined or opened. */
  async file(source: string, item: SourceItem): Promise<string> {
    const now = this.clock.now();
    const subjectKey = accountSubject(item.provider, item.providerUserId);
    const reporterId = `source:${source}`;
    const actor = { kind: "source" as const, id: source };
    return this.store.transaction(async () => {
      await this.store.lockKeys([`subject:${subjectKey}`]);
      const muted = (await this.store.muteOf(reporterId)) !== null;
      let kase = await this.store.openCaseOf(subjectKey);
      if (!kase) {
        kase = {
          id: newId("case", now),
          status: muted ? "closed" : "open",
          subjectKey,
          provider: item.provider,
          providerUserId: item.providerUserId,
          username: item.username,
          creatorHandle: null,
          assigneeId: null,
          muted,
          outcome: muted ? "muted" : null,
          entryId: null,
          createdAt: now,
          updatedAt: now,
          closedAt: muted ? now : null,
        } satisfies CaseRow;
        await this.store.insertCase(kase);
        await this.audit.record(actor, "case.opened", { caseId: kase.id, subject: subjectKey }, { muted }, now);
      }
      const report: ReportRow = {
        id: newId("rpt", now),
        caseId: kase.id,
        reasonCode: item.reasonCode,
        description: `Listed by the followed instance '${source}' (its entry ${item.upstreamId}, severity ${item.severity})${item.summary ? `: ${item.summary}` : "."}`,
        evidenceUrls: "[]",
        reporterKind: "source",
        reporterId,
        filedBy: reporterId,
        relayedBy: null,
        status: muted ? "closed" : "open",
        outcome: muted ? "muted" : null,
        createdAt: now,
        closedAt: muted ? now : null,
      };
      await this.store.insertReport(report);
      await this.audit.record(
        actor,
        "report.filed",
        { caseId: kase.id, subject: subjectKey },
        { report_id: report.id, reason_code: report.reasonCode, reporter: { kind: "source", id: reporterId }, upstream_id: item.upstreamId, muted },
        now,
      );
      return kase.id;
    });
  }
}
