// Reports a followed instance files under the `review` policy (docs/federation.md): each item it
// adds becomes a report about the account, with the source as the reporter, grouped into the
// account's open case (or a new one) like any other report, so staff decide. A source staff muted
// files into a closed, muted case as a muted reporter does. Called inside the sync's transaction.
import type { Clock } from "../../clock";
import type { Provider } from "../../domain";
import { accountSubject, type AuditLog } from "../audit/service";
import { fileIntoCase } from "./filing";
import type { ModerationStore } from "./store";

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
      const report = await fileIntoCase(
        { store: this.store, audit: this.audit },
        actor,
        { subjectKey, provider: item.provider, providerUserId: item.providerUserId, username: item.username, creatorHandle: null },
        {
          reasonCode: item.reasonCode,
          description: `Listed by the followed instance '${source}' (its entry ${item.upstreamId}, severity ${item.severity})${item.summary ? `: ${item.summary}` : "."}`,
          evidenceUrls: "[]",
          reporterKind: "source",
          reporterId,
          filedBy: reporterId,
          relayedBy: null,
        },
        now,
        { upstream_id: item.upstreamId },
      );
      return report.caseId;
    });
  }
}
