// Lines of the tables an export carries whole (db/records.ts): the moderation record, staff
// roles, appeals and the audit log. A line is `{"type": …}` and the row's columns by their
// names: times as ISO 8601 (columns named `at` or `…_at`), files as base64, absent for null. An
// import checks each field against its column before inserting the row as it was.
import { getTableColumns } from "drizzle-orm";
import { iso } from "../../clock";
import type { RecordKind } from "../../db/records";
import { APPEAL_RECORDS } from "../appeals/export";
import { AUDIT_RECORDS } from "../audit/store";
import { MODERATION_RECORDS } from "../moderation/export";
import { STAFF_RECORDS } from "../staff/store";

/** Every kind, in the order an import accepts (what a row names comes before it). */
export const RECORD_KINDS: RecordKind[] = [...STAFF_RECORDS, ...MODERATION_RECORDS, ...APPEAL_RECORDS, ...AUDIT_RECORDS];

const KINDS_BY_TYPE = new Map(RECORD_KINDS.map((kind) => [kind.type, kind]));

export function recordKind(type: unknown): RecordKind | undefined {
  return typeof type === "string" ? KINDS_BY_TYPE.get(type) : undefined;
}

type Column = ReturnType<typeof getTableColumns>[string];

const isTime = (column: Column) => column.dataType === "number" && (column.name === "at" || column.name.endsWith("_at"));

/** A stored row as its line. */
export function recordLine(kind: RecordKind, row: Record<string, unknown>): Record<string, unknown> {
  const line: Record<string, unknown> = { type: kind.type };
  for (const [key, column] of Object.entries(getTableColumns(kind.table))) {
    if (kind.numbered?.includes(key)) continue;
    const value = row[key];
    if (value === null || value === undefined) continue;
    if (isTime(column)) line[column.name] = iso(value as number);
    else if (Buffer.isBuffer(value) || value instanceof Uint8Array) line[column.name] = Buffer.from(value).toString("base64");
    else line[column.name] = value;
  }
  return line;
}

/** A line as the row it stands for, or the first problem with it (as an import words it after "line N: "). */
export function recordRow(kind: RecordKind, line: Record<string, unknown>): Record<string, unknown> | string {
  const columns = Object.entries(getTableColumns(kind.table)).filter(([key]) => !kind.numbered?.includes(key));
  const known = new Set(["type", ...columns.map(([, c]) => c.name)]);
  const unknown = Object.keys(line).find((field) => !known.has(field));
  if (unknown !== undefined) return `${kind.type}: unknown field '${unknown.slice(0, 64)}'`;
  const row: Record<string, unknown> = {};
  for (const [key, column] of columns) {
    const value = line[column.name];
    const field = `${kind.type}.${column.name}`;
    if (value === undefined || value === null) {
      if (column.notNull && !column.hasDefault) return `${field} is required`;
      if (!column.hasDefault) row[key] = null;
      continue;
    }
    if (isTime(column)) {
      const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
      if (Number.isNaN(ms)) return `${field} must be an ISO 8601 time`;
      row[key] = ms;
    } else if (column.dataType === "number") {
      if (typeof value !== "number" || !Number.isSafeInteger(value)) return `${field} must be an integer`;
      row[key] = value;
    } else if (column.dataType === "boolean") {
      if (typeof value !== "boolean") return `${field} must be true or false`;
      row[key] = value;
    } else if (column.dataType === "buffer" || column.dataType === "custom") {
      if (typeof value !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) return `${field} must be base64`;
      row[key] = Buffer.from(value, "base64");
    } else {
      if (typeof value !== "string") return `${field} must be a string`;
      const allowed = column.enumValues;
      if (allowed && allowed.length > 0 && !allowed.includes(value)) return `${field} must be one of ${allowed.join(", ")}`;
      row[key] = value;
    }
  }
  return row;
}
