// Moderation (docs/moderation.md), as the rest of the app sees it: reports and their evidence
// (reports.ts) and the cases staff work (cases.ts), over one store. Reporter identities, report
// descriptions, comments, private notes, non-public evidence and mutes leave this module only
// through the staff views; a reporter reads its own report's status and outcome, and keyed
// callers read the evidence a decision made public. This module owns the moderation_* tables.
import type { Clock } from "../../clock";
import type { CursorCodec } from "../../cursor";
import type { Database } from "../../db/database";
import type { AuditLog } from "../audit/service";
import type { BlacklistService } from "../blacklist/service";
import type { CreatorsService } from "../creators/service";
import type { StaffService } from "../staff/service";
import { ModerationCases } from "./cases";
import { ModerationReports } from "./reports";
import { SourceReports } from "./source-reports";
import { createModerationStore } from "./store";

export type { Filer } from "./reports";
export type { EvidenceRow } from "./store";

export class ModerationService {
  readonly reports: ModerationReports;
  readonly cases: ModerationCases;
  /** Reports filed by followed instances under the `review` policy (source-reports.ts). */
  readonly sourceReports: SourceReports;

  constructor(
    database: Database,
    clock: Clock,
    cursors: CursorCodec,
    blacklist: BlacklistService,
    creators: CreatorsService,
    staff: Pick<StaffService, "roleOf">,
    audit: AuditLog,
  ) {
    const store = createModerationStore(database);
    this.reports = new ModerationReports(store, clock, blacklist, creators, audit);
    this.cases = new ModerationCases(store, clock, cursors, blacklist, creators, staff, audit);
    this.sourceReports = new SourceReports(store, clock, audit);
  }
}
