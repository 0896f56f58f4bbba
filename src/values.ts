// Rules for values every write path accepts (API, CLI, import): handles, timestamps, free text.
import { unprocessable } from "./errors";

const HANDLE = /^[a-z0-9_.]{2,32}$/;
const MAX_TIME = 8_640_000_000_000_000;

/** Longer raw text cannot be a handle even with padding: refused before it costs any work. */
const MAX_RAW_HANDLE = 64;

/** A handle as stored: trimmed, without a leading `@`, lower-case; null when it cannot be one. */
export function normalizeHandle(raw: string): string | null {
  if (raw.length > MAX_RAW_HANDLE) return null;
  const handle = raw.trim().replace(/^@/, "").toLowerCase();
  return HANDLE.test(handle) ? handle : null;
}

export function requireHandle(raw: string): string {
  const handle = normalizeHandle(raw);
  if (handle === null) throw unprocessable(`'${raw.slice(0, 40)}' is not a handle: 2-32 of a-z, 0-9, '_' and '.'.`);
  return handle;
}

/** An ISO 8601 date-time as epoch milliseconds; 422 naming the field otherwise. */
export function parseTime(value: string, field: string): number {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms) || ms < 0 || ms > MAX_TIME) {
    throw unprocessable(`${field} '${String(value).slice(0, 40)}' is not an ISO 8601 date-time.`);
  }
  return ms;
}

/** Trims free text and drops control characters; empty becomes null. */
export function cleanText(value: string | null | undefined): string | null {
  if (value == null) return null;
  const text = value.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  return text === "" ? null : text;
}

/** Free text of several lines (a statement, a report, a comment): line breaks and tabs stay, other control characters go; 422 when nothing is left. */
export function cleanLines(text: string, field: string): string {
  const cleaned = text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "").trim();
  if (cleaned === "") throw unprocessable(`The ${field} is empty.`);
  return cleaned;
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}
