// What both databases' outbox stores share: the entry-tie query and the fan-out's order.
import type { OutboxEventRow } from "./store";

/**
 * Reads the creator's link to the entry's account, whatever its flag: a private link must be seen
 * to be withheld. One link per account (connections_account_idx). Parameters: $1 the entry's id,
 * $2 the creator's.
 */
export const ENTRY_TIE_SQL = `
  SELECT e.creator_handle = c.handle AS named,
         (SELECT k.public FROM connections k
          WHERE k.creator_id = c.id AND k.provider = e.provider AND k.provider_user_id = e.provider_user_id) AS link
  FROM blacklist_entries e, creators c WHERE e.id = $1 AND c.id = $2`;

/** The fields the fan-out reads of an event. */
export const EVENT_FIELDS = ["id", "type", "payload", "createdAt"] as const;

/** The fan-out's order: RETURNING gives its rows in no particular one. */
export function oldestEventFirst(a: OutboxEventRow, b: OutboxEventRow): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
