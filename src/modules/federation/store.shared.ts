// What both databases' federation stores share.
import type { SourcePatch } from "./store";

/** The columns a source's patch may set, by field. */
export const SOURCE_PATCH_COLUMNS: Array<[keyof SourcePatch, string]> = [
  ["url", "url"],
  ["apiKey", "api_key"],
  ["policy", "policy"],
  ["maxSeverity", "max_severity"],
  ["verticals", "verticals"],
  ["reasonCodes", "reason_codes"],
  ["intervalS", "interval_s"],
  ["cursor", "cursor"],
  ["lastSyncedAt", "last_synced_at"],
  ["nextSyncAt", "next_sync_at"],
  ["lastError", "last_error"],
  ["updatedAt", "updated_at"],
];
