// The one way trustlist writes on SQLite: `Writer.write(fn)` runs `fn` as one transaction that
// takes the write lock up front (BEGIN IMMEDIATE, so no statement inside can meet a lock later).
// `fn` may be async (the stores' interface is shared with PostgreSQL, whose calls return promises),
// so this process's writes take turns: a write waits for the one in progress instead of landing
// inside its transaction, and a `write` made inside `fn` joins it as a savepoint. Reads made by
// other requests between the awaits of `fn` share the connection and see its uncommitted rows;
// `fn` awaits only SQLite work (never the network), so that window is microseconds long and ends
// in a commit unless `fn` throws.
// When another process holds the lock (a CLI import is one long transaction), the serving
// process must not sleep in SQLite: its connection has busy_timeout 0, so BEGIN fails at once and
// the write is retried after an asynchronous pause, serving other requests meanwhile, until
// `waitMs` (5 s) have passed; then it fails with `DatabaseBusy`, which HTTP answers as 503 `busy`
// with Retry-After. A CLI connection keeps SQLite's busy_timeout and simply waits in BEGIN.
// Reads need none of this: in WAL mode they never wait for a writer. A read outside a transaction
// is a transaction of its own, though, and opening one costs SQLite two lock calls and a stat of the
// file: a creator by handle took 9.5 µs on its own and 2.4 inside an open read transaction (the
// serving connection on the bench database, 2-core bench machine). `readTogether(fn)` runs a request's reads in one read transaction (docs/performance.md,
// "Reads grouped in one transaction"); a write that comes meanwhile ends the group first.
import type { Database, Statement } from "bun:sqlite";
import { AsyncLocalStorage } from "node:async_hooks";
import type { ExternalChanges } from "./changes.sqlite";
import { DatabaseBusy } from "./errors";
import { recordInTransaction } from "./idempotency";

/** How long a write waits for another process's lock before giving up. */
export const WRITE_WAIT_MS = 5_000;
/** Pauses between tries grow from the first to the last (ms). */
const FIRST_PAUSE_MS = 2;
const LONGEST_PAUSE_MS = 50;

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

  /** The transaction in progress (resolves when it ends), or null. */
  private current: Promise<void> | null = null;
  /** Set inside `fn`: a nested `write` joins the transaction instead of waiting for it. */
  private readonly inside = new AsyncLocalStorage<Writer>();
  private readonly beginRead: Statement;
  /** A read group's transaction is open (`readTogether`): the connection is in a transaction that holds no write. */
  private readGroupOpen = false;
  /** What `afterCommit` asked to run once the transaction in progress has committed. */
  private committed: Array<() => void> = [];

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
    this.beginRead = sqlite.prepare("BEGIN");
  }

  /** Whether a write transaction is open on the connection (a read group's is not one). */
  get writing(): boolean {
    return this.sqlite.inTransaction && !this.readGroupOpen;
  }

  /**
   * Runs `fn` once the write transaction of the caller (inside `write`'s `fn`) has committed, and
   * never if it rolls back; outside one (or in a transaction opened by hand, an import), at once.
   * For a cache that must re-read what a write changed: read before the commit, it would keep the
   * old row (PostgreSQL's other connections) or one that may still roll back (this connection).
   * `fn` must not throw.
   */
  afterCommit(fn: () => void): void {
    if (this.inside.getStore() === this) this.committed.push(fn);
    else fn();
  }

  /**
   * Runs `fn`, whose reads share one read transaction (one snapshot) instead of one each. For
   * `fn` that reads, synchronously on SQLite: the transaction stays open until `fn` settles, the
   * next turn's first request, or a write on the connection (this request's or another's), which
   * commit it first; the rest of `fn` then reads as usual. Inside a transaction, `fn` just runs.
   */
  async readTogether<T>(fn: () => T | Promise<T>): Promise<T> {
    if (this.sqlite.inTransaction || this.current !== null) return fn();
    this.beginRead.run();
    this.readGroupOpen = true;
    try {
      const pending = fn();
      return pending instanceof Promise ? await pending : pending;
    } finally {
      this.endReadGroup();
    }
  }

  /**
   * Commits the open read group's transaction, if any: a write does it before its own, and the
   * first request of each turn of the event loop (changes.sqlite.ts), so a group whose `fn` waits
   * across turns never keeps a snapshot past the turn it began in. The rest of `fn` reads as usual.
   */
  endReadGroup(): void {
    if (!this.readGroupOpen) return;
    this.readGroupOpen = false;
    if (this.sqlite.inTransaction) this.commit.run();
  }

  /**
   * Runs `fn` in one write transaction and resolves to its result; a throw rolls everything back.
   * Without a lock to wait for, a synchronous `fn` runs before `write` returns. Inside this
   * writer's transaction, or one opened by hand on this connection (an import), `fn` runs at once
   * in a savepoint of it.
   */
  async write<T>(fn: () => T | Promise<T>, options: WriteOptions = {}): Promise<T> {
    this.endReadGroup();
    if (this.inside.getStore() === this || (this.current === null && this.sqlite.inTransaction)) return this.nested(fn);
    while (this.current !== null) await this.current;
    let done!: () => void;
    this.current = new Promise((resolve) => (done = resolve));
    try {
      return await this.transaction(fn, options.waitMs ?? this.waitMs);
    } finally {
      this.current = null;
      done();
    }
  }

  private async transaction<T>(fn: () => T | Promise<T>, waitMs: number): Promise<T> {
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
        const recording = recordInTransaction(this.sqlite);
        if (recording) await recording;
        const pending = this.inside.run(this, fn);
        const result = pending instanceof Promise ? await pending : pending;
        this.changes.beforeCommit();
        this.commit.run();
        for (const committed of this.committed.splice(0)) committed();
        return result;
      } catch (error) {
        this.committed.length = 0;
        if (this.sqlite.inTransaction) this.rollback.run();
        throw error;
      }
    }
  }

  private async nested<T>(fn: () => T | Promise<T>): Promise<T> {
    this.savepoint.run();
    try {
      const pending = fn();
      const result = pending instanceof Promise ? await pending : pending;
      this.release.run();
      return result;
    } catch (error) {
      this.rollbackTo.run();
      this.release.run();
      throw error;
    }
  }
}
