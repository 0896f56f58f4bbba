// What every network write shares: the creators a line names, one transaction at one instant, the
// store's SQLite-only synchronous side and the conflict a repeated key becomes; its own file so
// vouches, deals, reviews, referrals and servers each use it without repeating it.
import type { Clock } from "../../clock";
import { UniqueViolation } from "../../db/errors";
import { unprocessable } from "../../errors";
import { parseTime, requireHandle } from "../../values";
import { type CreatorRow, type CreatorsService, creatorNotFound } from "../creators/service";
import type { NetworkStore, NetworkSyncStore } from "./store";

/** An import line may date what it records; a partner's write happens now. */
export type Dated = { created_at?: string };

export class NetworkWriting {
  /** The store's synchronous capability (SQLite only), for the import's `...Now` forms. */
  private readonly sync: NetworkSyncStore | null;

  constructor(
    readonly store: NetworkStore,
    private readonly clock: Clock,
    readonly creators: CreatorsService,
  ) {
    this.sync = this.store.sync ?? null;
  }

  syncStore(): NetworkSyncStore {
    if (!this.sync) throw new Error("The import's network lines run on SQLite only (the import is not converted yet).");
    return this.sync;
  }

  private async creator(raw: string, role: string): Promise<CreatorRow> {
    const row = await this.creators.find(requireHandle(raw));
    if (!row) throw creatorNotFound(raw, role);
    return row;
  }

  async pair(fromRaw: string, toRaw: string, what: string): Promise<[CreatorRow, CreatorRow]> {
    return distinct(await this.creator(fromRaw, "from"), await this.creator(toRaw, "to"), what);
  }

  pairNow(fromRaw: string, toRaw: string, what: string): [CreatorRow, CreatorRow] {
    const from = this.creators.findNow(requireHandle(fromRaw));
    if (!from) throw creatorNotFound(fromRaw, "from");
    const to = this.creators.findNow(requireHandle(toRaw));
    if (!to) throw creatorNotFound(toRaw, "to");
    return distinct(from, to, what);
  }

  /** Runs `work` in one transaction, at one instant. */
  write<T>(work: (now: number) => Promise<T>): Promise<T> {
    const now = this.clock.now();
    return this.store.transaction(() => work(now));
  }
}

function distinct(from: CreatorRow, to: CreatorRow, what: string): [CreatorRow, CreatorRow] {
  if (from.id === to.id) throw unprocessable(`A creator cannot ${what} themselves.`);
  return [from, to];
}

export function timeOf(input: { created_at?: string } | object, now: number): number {
  const createdAt = (input as { created_at?: string }).created_at;
  return createdAt !== undefined ? parseTime(createdAt, "created_at") : now;
}

/**
 * Runs an insert, answering a repeated key with `conflictError()`: synchronously for the SQLite
 * store's plain calls (the import), through the promise for PostgreSQL's.
 */
export function conflictOnRepeat(insert: () => unknown, conflictError: () => Error): void | Promise<void> {
  const translate = (error: unknown) => (error instanceof UniqueViolation ? conflictError() : error);
  let result: unknown;
  try {
    result = insert();
  } catch (error) {
    throw translate(error);
  }
  if (result instanceof Promise) {
    return result.then(
      () => undefined,
      (error) => {
        throw translate(error);
      },
    );
  }
}
