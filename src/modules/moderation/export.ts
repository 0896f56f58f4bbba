// The moderation record in the export (docs/operating.md, "Export and import"): cases, reports,
// evidence (bytes and all), comments and muted reporters, whole and unchanged, cases before the
// reports that name them.
import type { RecordKind } from "../../db/records";
import { moderationCases, moderationComments, moderationEvidence, moderationMutes, moderationReports } from "./tables";

export const MODERATION_RECORDS: RecordKind[] = [
  { type: "case", table: moderationCases, orderBy: "created_at, id" },
  { type: "report", table: moderationReports, orderBy: "created_at, id" },
  { type: "evidence", table: moderationEvidence, orderBy: "created_at, id" },
  { type: "comment", table: moderationComments, orderBy: "created_at, id" },
  { type: "mute", table: moderationMutes, orderBy: "muted_at, reporter_id" },
];
