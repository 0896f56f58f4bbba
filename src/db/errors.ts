// The database's failures as typed errors, whichever database raised them: a database that cannot
// be opened, a write that waited too long for a lock, and constraint failures (stores translate the
// driver's error with `asUniqueViolation` and services catch `UniqueViolation`, never error text).
import { ServiceError } from "../errors";

/** Why a database cannot be opened: missing, or at a schema this build cannot use. */
export class StoreOpenError extends Error {
  constructor(
    readonly reason: "missing" | "newer" | "older",
    /** Absolute path of the database file, or the PostgreSQL URL without its password. */
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "StoreOpenError";
  }
}

/**
 * A write waited longer than it may for a lock another process (SQLite) or instance (PostgreSQL's
 * row locks) held; nothing was changed. HTTP answers it as 503 `busy` with Retry-After.
 */
export class DatabaseBusy extends ServiceError {
  constructor(waitedMs: number, what = "The database stayed locked by another process") {
    super("busy", `${what} for ${(waitedMs / 1000).toFixed(1)} s; nothing was changed. Retry shortly.`);
    this.name = "DatabaseBusy";
  }
}

/** A row would repeat a unique key (primary key or unique index) that is already taken. */
export class UniqueViolation extends Error {
  constructor(
    /** The constraint or index as the database names it, when it says (PostgreSQL does). */
    readonly constraint: string | null,
    options?: { cause?: unknown },
    /** The repeated key's value, when the database says which and the key is one column (PostgreSQL does). */
    readonly key: string | null = null,
  ) {
    super(constraint ? `unique constraint ${constraint} violated` : "unique constraint violated", options);
    this.name = "UniqueViolation";
  }
}

/** SQLITE_CONSTRAINT_UNIQUE and SQLITE_CONSTRAINT_PRIMARYKEY (extended result codes). */
const SQLITE_UNIQUE_CODES = new Set([2067, 1555]);
/** PostgreSQL's unique_violation SQLSTATE. */
const PG_UNIQUE_VIOLATION = "23505";

/** The UniqueViolation `error` stands for, or null when it is another failure. */
export function asUniqueViolation(error: unknown): UniqueViolation | null {
  if (error instanceof UniqueViolation) return error;
  const e = error as { errno?: unknown; code?: unknown; constraint?: unknown; message?: unknown } | null;
  if (!e || typeof e !== "object") return null;
  if (typeof e.errno === "number" && SQLITE_UNIQUE_CODES.has(e.errno)) {
    // SQLite names the columns, not the index: "UNIQUE constraint failed: accounts.name".
    const columns = typeof e.message === "string" ? /failed: (.+)$/.exec(e.message)?.[1] ?? null : null;
    return new UniqueViolation(columns, { cause: error });
  }
  if (e.errno === PG_UNIQUE_VIOLATION || e.code === PG_UNIQUE_VIOLATION) {
    // "Key (id)=(bl_x) already exists."
    const detail = (error as { detail?: unknown }).detail;
    const key = typeof detail === "string" ? (/^Key \([^,()]+\)=\((.*)\) already exists\.$/.exec(detail)?.[1] ?? null) : null;
    return new UniqueViolation(typeof e.constraint === "string" ? e.constraint : null, { cause: error }, key);
  }
  return null;
}

/** Runs `fn`, turning a unique-key failure into UniqueViolation; other errors pass unchanged. */
export async function translatingConflicts<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw asUniqueViolation(error) ?? error;
  }
}

/** PostgreSQL's character_not_in_repertoire and untranslatable_character: text holding U+0000. */
const PG_UNSTORABLE_TEXT = new Set(["22021", "22P05"]);

/**
 * Whether `error` is PostgreSQL refusing a text value it cannot hold (a NUL character: SQLite
 * stores one, PostgreSQL's text type cannot). The request named or sent such text: a 422.
 */
export function isUnstorableText(error: unknown): boolean {
  const e = error as { errno?: unknown } | null;
  return !!e && typeof e === "object" && typeof e.errno === "string" && PG_UNSTORABLE_TEXT.has(e.errno);
}
