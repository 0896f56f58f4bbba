// What both databases' creators stores share as values (store.ts holds the contract's types only,
// so neither implementation imports a value back from the file that imports them).
import type { ScoreBasis } from "./store";

/**
 * The notification topic of creators a PostgreSQL commit inserted or updated, by id: the PostgreSQL
 * store notes every write to creators, so the directory index of another instance re-reads just those.
 */
export const CREATORS_NOTE = "creators.changed";

/** The creator fields the in-memory directory index holds (besides the `rowid` it is keyed by). */
export const DIRECTORY_INDEX_FIELDS = ["id", "searchText", "createdAt", "trustScore", "vouchCount", "dealCount", "platforms"] as const;

/** The creator fields a directory item shows (besides its `rowid`). */
export const DIRECTORY_LIST_FIELDS = [
  "id",
  "handle",
  "displayName",
  "verificationLevel",
  "karma",
  "avatarR2Key",
  "createdAt",
  "trustScore",
  "vouchCount",
  "dealCount",
  "platforms",
  "searchText",
  "blacklisted",
] as const;

/** The fields of an active blacklist entry that a creator's score weighs. */
export const PENALTY_FIELDS = ["id", "severity", "highRisk", "watchlist"] as const;

export function emptyScoreBasis(): ScoreBasis {
  return { connections: [], vouches: 0, deals: 0, reviews: { n: 0, sum: null }, penalties: [] };
}
