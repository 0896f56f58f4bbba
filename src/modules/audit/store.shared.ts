// What both databases' audit stores share at run time (store.ts holds only the contract).
import type { AuditFilters } from "./store";

/** Each filter's column. */
const FILTER_COLUMNS: Record<keyof AuditFilters, string> = {
  entryId: "entry_id",
  caseId: "case_id",
  appealId: "appeal_id",
  subject: "subject",
  actorKind: "actor_kind",
  actorId: "actor_id",
  action: "action",
};

/**
 * The WHERE clause of a page: `seq < $1` and one equality per given filter, numbered from $2 in
 * `values`' order. Every filter column leads an index whose next column is seq, so a page is a
 * range scan of the most selective one.
 */
export function auditPageWhere(filters: AuditFilters): { where: string; values: string[] } {
  const values: string[] = [];
  const conditions = ["seq < $1"];
  for (const [field, column] of Object.entries(FILTER_COLUMNS) as [keyof AuditFilters, string][]) {
    const value = filters[field];
    if (value === undefined || value === null) continue;
    values.push(value);
    conditions.push(`${column} = $${values.length + 1}`);
  }
  return { where: conditions.join(" AND "), values };
}
