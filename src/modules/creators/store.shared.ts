// What both databases' creators stores share as values (store.ts holds the contract's types only,
// so neither implementation imports a value back from the file that imports them).
import type { ScoreBasis } from "./store";

/**
 * The notification topic of creators a PostgreSQL commit inserted or updated, by id: the PostgreSQL
 * store notes every write to creators, so the directory index of another instance re-reads just those.
 */
export const CREATORS_NOTE = "creators.changed";

export function emptyScoreBasis(): ScoreBasis {
  return { connections: [], vouches: 0, deals: 0, reviews: { n: 0, sum: null }, penalties: [] };
}
