// Counting rows of a large SQLite table without holding up requests: a million rows take 130 ms
// or more to count at once, so the count runs a rowid range at a time with the event loop running
// in between. (PostgreSQL counts on its own server: its stores count in one statement.)
import type { Database } from "bun:sqlite";
import { yieldToRequests } from "../yield";

/** Rows per slice. */
const SLICE_ROWS = 10_000;

/**
 * Rows of `table` meeting `condition` (SQL over the table's columns; `?3` is `param` when given).
 * `table` and `condition` are the caller's constants, never user input.
 */
export async function countInSlices(sqlite: Database, table: string, condition: string, param?: number | string): Promise<number> {
  const last = sqlite.query<{ n: number }, []>(`SELECT coalesce(max(rowid), 0) AS n FROM ${table}`).get()!.n;
  const slice = sqlite.prepare<{ n: number }, Array<number | string>>(`SELECT count(*) AS n FROM ${table} WHERE rowid > ?1 AND rowid <= ?2 AND ${condition}`);
  let total = 0;
  for (let from = 0; from < last; from += SLICE_ROWS) {
    const range = [from, from + SLICE_ROWS];
    total += slice.get(...(param === undefined ? range : [...range, param]))!.n;
    await yieldToRequests();
  }
  return total;
}
