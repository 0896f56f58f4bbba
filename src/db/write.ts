// The one way trustlist writes: `Writer.write(fn)` runs `fn` (synchronous) as one transaction that
// takes the write lock up front (BEGIN IMMEDIATE, so no statement inside can meet a lock later).
// When another process holds the lock (a CLI import is one long transaction), the serving
// process must not sleep in SQLite: its connection has busy_timeout 0, so BEGIN fails at once and
// the write is retried after an asynchronous pause, serving other requests meanwhile, until
// `waitMs` (5 s) have passed; then it fails with `DatabaseBusy`, which HTTP answers as 503 `busy`
// with Retry-After. A CLI connection keeps SQLite's busy_timeout and simply waits in BEGIN.
// Reads need none of this: in WAL mode they never wait for a writer.
import type { Database, Statement } from "bun:sqlite";
import { ServiceError } from "../errors";
import type { ExternalChanges } from "./changes";
import { recordInTransaction } from "./idempotency";

/** How long a write waits for another process's lock before giving up. */
export const WRITE_WAIT_MS = 5_000;
/** Pauses between tries grow from the first to the last (ms). */
const FIRST_PAUSE_MS = 2;
const LONGEST_PAUSE_MS = 50;

/** The database stayed locked by another process for longer than a write may wait. */
export class DatabaseBusy extends ServiceError {
  constructor(waitedMs: number) {
    super("busy", `The database stayed locked by another process for ${(waitedMs / 1000).toFixed(1)} s; nothing was changed. Retry shortly.`);
    this.name = "DatabaseBusy";
  }
}

/** SQLITE_BUSY and its extended codes (the low byte is the primary code). */
export function isBusy(error: unknown): boolean {
  const errno = (error as { errno?: unknown } | null)?.errno;
  return typeof errno === "number" && (errno & 0xff) === 5;
}

export interface WriteOptions {
  /** Give up after this long (ms); 0 makes one try. Default: the writer's `waitMs`. */
  waitMs?: number;
}

export class Writer {
  /** Default wait of `write`; the serving process may shorten it (tests do). */
  waitMs = WRITE_WAIT_MS;
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;
  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly rollbackTo: Statement;

  constructor(
    private readonly sqlite: Database,
    private readonly changes: ExternalChanges,
  ) {
    this.begin = sqlite.prepare("BEGIN IMMEDIATE");
    this.commit = sqlite.prepare("COMMIT");
    this.rollback = sqlite.prepare("ROLLBACK");
    this.savepoint = sqlite.prepare("SAVEPOINT nested_write");
    this.release = sqlite.prepare("RELEASE nested_write");
    this.rollbackTo = sqlite.prepare("ROLLBACK TO nested_write");
  }

  /**
   * Runs `fn` in one write transaction and resolves to its result; a throw rolls everything back.
   * Without a lock to wait for, `fn` runs before `write` returns. Inside a transaction already
   * open on this connection (an import), `fn` runs at once in a savepoint of it.
   */
  async write<T>(fn: () => T, options: WriteOptions = {}): Promise<T> {
    if (this.sqlite.inTransaction) return this.nested(fn);
    const waitMs = options.waitMs ?? this.waitMs;
    const started = performance.now();
    for (let attempt = 0; ; attempt++) {
      try {
        this.begin.run();
      } catch (error) {
        if (!isBusy(error)) throw error;
        const waited = performance.now() - started;
        if (waited >= waitMs) throw new DatabaseBusy(waited);
        const pause = Math.min(FIRST_PAUSE_MS * 2 ** attempt, LONGEST_PAUSE_MS, waitMs - waited);
        await new Promise((resolve) => setTimeout(resolve, pause));
        continue;
      }
      try {
        // Commits that came in before the lock was ours are announced before `fn` reads anything.
        this.changes.check();
        // The request's Idempotency-Key, if any, is stored by the same transaction as its write.
        recordInTransaction(this.sqlite);
        const result = synchronous(fn());
        this.changes.beforeCommit();
        this.commit.run();
        return result;
      } catch (error) {
        if (this.sqlite.inTransaction) this.rollback.run();
        throw error;
      }
    }
  }

  private nested<T>(fn: () => T): T {
    this.savepoint.run();
    try {
      const result = synchronous(fn());
      this.release.run();
      return result;
    } catch (error) {
      this.rollbackTo.run();
      this.release.run();
      throw error;
    }
  }
}

/** A transaction cannot span an `await`: other requests' writes would land inside it. */
function synchronous<T>(result: T): T {
  if (result instanceof Promise) throw new Error("A write transaction's function must be synchronous.");
  return result;
}
