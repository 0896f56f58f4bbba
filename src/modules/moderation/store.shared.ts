// Values both moderation stores need (store.sqlite.ts, store.postgres.ts): the column lists their
// statements read, and the readers of what comes back.
import { columnsOf, rowReader } from "../../db/rows";
import type { EvidenceRow } from "./store";
import { moderationCases, moderationComments, moderationEvidence, moderationMutes, moderationReports } from "./tables";

/** Evidence without its bytes: what lists show. */
export const EVIDENCE_META_FIELDS = ["id", "reportId", "sha256", "bytes", "contentType", "public", "entryId", "createdAt"] as const;

export const CASE_COLUMNS = columnsOf(moderationCases);
export const REPORT_COLUMNS = columnsOf(moderationReports);
/** Evidence without its bytes, from `moderation_evidence e`. */
export const EVIDENCE_META = columnsOf(moderationEvidence, EVIDENCE_META_FIELDS, "e");
export const readCase = rowReader(moderationCases);
export const readReport = rowReader(moderationReports);
export const readMeta = rowReader(moderationEvidence, EVIDENCE_META_FIELDS);
export const readComment = rowReader(moderationComments);
export const readMute = rowReader(moderationMutes);

const readEvidenceRow = rowReader(moderationEvidence);

/** A stored file's row, its bytes as a Buffer whatever the driver handed back. */
export function readEvidence(raw: Record<string, unknown>): EvidenceRow {
  const row = readEvidenceRow(raw);
  return { ...row, data: Buffer.from(row.data) };
}
