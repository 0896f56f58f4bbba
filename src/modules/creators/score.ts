// Keeping the Trust Score on each creator row: every change to a score input recomputes it in the
// same transaction, with the counters, the directory's search text and today's snapshot, so a
// directory sort, a badge or a profile read is one row and never disagrees with the basis. Also
// the daily refresh (account age moves the score without any write) and the bulk mode an import
// uses to compute each creator once.
import { type Clock, utcDay } from "../../clock";
import type { Outbox } from "../outbox/service";
import { yieldToRequests } from "../../yield";
import type { BlacklistService, EntryRow } from "../blacklist/service";
import type { CreatorRow, CreatorsStore, CreatorsSyncStore, ScoreBasis, TrustFields } from "./store";
import { emptyScoreBasis } from "./store.shared";
import { computeTrust, type TrustTrend, trustTrend } from "./trust";

const DAY_MS = 86_400_000;

/**
 * From this many creators awaiting recomputation at the end of a bulk write, their inputs are read
 * with one grouped query per table instead of five look-ups per creator: at 100k imported
 * creators about 2 s instead of 10 s (measured on the 1M-entry bench data set).
 */
const RECOMPUTE_TOGETHER_FROM = 1_000;

/**
 * Creators recomputed per transaction by the daily refresh: 100 held the request thread for up to
 * 36 ms of CPU at 100k creators and 1M entries (bench data set, 2-core bench machine).
 */
const REFRESH_SLICE_CREATORS = 50;

export function accountAgeDays(joinedAt: number, at: number): number {
  return Math.max(0, Math.floor((at - joinedAt) / DAY_MS));
}

/** What a creator row gets from its basis, and the ban entry that blacklists it (if any). */
export function scoreOf(row: CreatorRow, basis: ScoreBasis, now: number): { fields: TrustFields; banEntry: string | null } {
  const visible = basis.connections.filter((c) => c.public);
  const verified = visible.filter((c) => c.verifiedAt !== null).length;
  const reviews = basis.reviews;
  let warns = 0;
  let restricts = 0;
  let flagged = false;
  let banEntry: string | null = null;
  for (const hit of basis.penalties) {
    if (hit.highRisk || hit.watchlist) flagged = true;
    if (hit.watchlist) continue;
    if (hit.severity === "ban") banEntry ??= hit.id;
    else if (hit.severity === "restrict") restricts++;
    else warns++;
  }
  const blacklisted = banEntry !== null;
  const { score, band } = computeTrust({
    verificationLevel: row.verificationLevel,
    accountAgeDays: accountAgeDays(row.joinedAt, now),
    verifiedPublicConnections: verified,
    completedDeals: basis.deals,
    reviewCount: reviews.n,
    reviewAverage: reviews.n > 0 ? (reviews.sum ?? 0) / reviews.n : null,
    vouchesReceived: basis.vouches,
    coursesPassed: row.coursesPassed,
    activeWarns: warns,
    activeRestricts: restricts,
    flagged,
    blacklisted,
  });
  const searchText = [row.handle, row.displayName ?? "", ...visible.map((c) => c.providerUsername ?? "")]
    .filter((part) => part !== "")
    .join(" ")
    .toLowerCase();
  return {
    fields: {
      trustScore: score,
      trustBand: band,
      blacklisted,
      trustComputedAt: now,
      linkedAccounts: visible.length,
      verifiedConnections: verified,
      vouchCount: basis.vouches,
      dealCount: basis.deals,
      reviewCount: reviews.n,
      reviewSum: reviews.sum ?? 0,
      searchText,
      platforms: [...new Set(visible.map((c) => c.provider))].sort().join(","),
    },
    banEntry,
  };
}

/** Creators `endBulkAsync` recomputes at once. */
const RECOMPUTE_WINDOW = 200;

/**
 * Creators `endBulkAsync` scores a round with a store that writes many rows at once: 100k creators
 * of the bench data set took 6 statements each, one creator at a time, before.
 */
const SCORE_TOGETHER = 2_000;

/**
 * A recomputation that changed what others may watch (tripwires): the score before and after, and
 * whether the creator became blacklisted. Only for writes that emit events (not imports).
 */
export interface TrustChange {
  creatorId: string;
  handle: string;
  before: number;
  after: number;
  becameBlacklisted: boolean;
  at: number;
}

export type TrustChangeListener = (change: TrustChange) => void | Promise<void>;

export class TrustScores {
  private readonly changeListeners: Array<(creatorId: string) => void> = [];
  private readonly trustListeners: TrustChangeListener[] = [];
  /** Creators whose score awaits recomputation at the end of a bulk write (an import). */
  private deferred: Set<string> | null = null;
  /** Inside a bulk write, once known: whether every stored creator is in `deferred` (`everyCreatorDeferred`). */
  private allDeferred: boolean | null = null;
  /** Set by `scoreAheadOfEntries`: the time it scored at, and each creator's basis but its penalties. */
  private ahead: { now: number; basis: Map<string, ScoreBasis> } | null = null;
  /** The store's synchronous capability (SQLite only): the import and blacklist writes use it there. */
  private readonly sync: CreatorsSyncStore | null;

  constructor(
    private readonly store: CreatorsStore,
    private readonly clock: Clock,
    private readonly outbox: Outbox,
    blacklist: BlacklistService,
  ) {
    this.sync = store.sync ?? null;
    // On SQLite the blacklist's transaction is synchronous: the recomputation runs inside it as is.
    blacklist.onEntryChange(
      (row, _change, emit) => (this.sync ? this.afterEntryChangeNow(row, emit) : this.afterEntryChange(row, emit)),
      (rows, _change, emit) => (this.sync ? this.afterEntriesChangeNow(rows, emit) : this.afterEntriesChange(rows, emit)),
    );
    blacklist.onBulkEntries((afterRowid) => {
      const store = this.syncStore();
      // An import that brought every creator has them all awaiting recomputation already: the
      // entries cannot add one, and finding whom they name read every new entry (1 s at 1M).
      if (this.deferred && this.deferred.size >= store.creatorCountNow()) return;
      for (const id of store.creatorsNamedSince(afterRowid)) this.recomputeNow(id, this.clock.now(), false);
    });
  }

  /**
   * Told, inside the writing transaction, about every creator whose row was rewritten; listeners
   * must only take note (the transaction may still roll back) and read the row later.
   */
  onChange(listener: (creatorId: string) => void): void {
    this.changeListeners.push(listener);
  }

  /**
   * Told, inside the writing transaction and awaited by it, when an emitting write lowered a
   * creator's score or blacklisted them; a listener's writes commit or roll back with the change.
   */
  onTrustChange(listener: TrustChangeListener): void {
    this.trustListeners.push(listener);
  }

  private syncStore(): CreatorsSyncStore {
    if (!this.sync) throw new Error("This path of the creators module runs on SQLite only (the import is not converted yet).");
    return this.sync;
  }

  /**
   * Recomputes one creator's score, counters and search text from the live rows and records
   * today's snapshot. The caller holds the transaction. Inside a bulk write the work waits for
   * `endBulk`. A creator who becomes blacklisted emits `creator.blacklisted` when `emit`.
   */
  async recompute(creatorId: string, now: number, emit: boolean): Promise<void> {
    if (this.deferred) {
      this.deferred.add(creatorId);
      return;
    }
    const row = await this.store.byId(creatorId);
    if (!row) return;
    const { fields, banEntry } = scoreOf(row, await this.store.scoreBasis(row, now), now);
    await this.store.writeTrust(creatorId, fields);
    await this.store.writeSnapshot(creatorId, utcDay(now), fields.trustScore);
    await this.afterWrite(row, fields, banEntry, now, emit);
  }

  /**
   * `recompute` with the score written synchronously, on SQLite (the import and the blacklist's
   * writes). A promise comes back only when trust-change listeners have work left: the caller,
   * inside the transaction, awaits it.
   */
  recomputeNow(creatorId: string, now: number, emit: boolean): void | Promise<void> {
    if (this.deferred) {
      this.deferred.add(creatorId);
      return;
    }
    const store = this.syncStore();
    const row = store.byId(creatorId);
    if (row) return this.applyNow(row, store.scoreBasis(row, now), now, emit);
  }

  private applyNow(row: CreatorRow, basis: ScoreBasis, now: number, emit: boolean): void | Promise<void> {
    const store = this.syncStore();
    const { fields, banEntry } = scoreOf(row, basis, now);
    store.writeTrust(row.id, fields);
    store.writeSnapshot(row.id, utcDay(now), fields.trustScore);
    return this.afterWrite(row, fields, banEntry, now, emit);
  }

  private afterWrite(row: CreatorRow, fields: TrustFields, banEntry: string | null, now: number, emit: boolean): void | Promise<void> {
    for (const listener of this.changeListeners) listener(row.id);
    if (!emit) return;
    const becameBlacklisted = !!fields.blacklisted && !row.blacklisted;
    // The caller awaits what is returned inside its transaction: the event (the outbox decides
    // whether it may name the entry: not when the ban runs through a private link) and listeners' work.
    const event = becameBlacklisted ? this.outbox.write("creator.blacklisted", { creator_id: row.id, handle: row.handle, entry_id: banEntry }, now) : undefined;
    if (this.trustListeners.length === 0 || (!becameBlacklisted && fields.trustScore >= row.trustScore)) return event;
    const change: TrustChange = { creatorId: row.id, handle: row.handle, before: row.trustScore, after: fields.trustScore, becameBlacklisted, at: now };
    return (async () => {
      await event;
      for (const listener of this.trustListeners) await listener(change);
    })();
  }

  /** Recomputes the creators an entry names, in the entry's transaction. */
  private async afterEntryChange(row: EntryRow, emit: boolean): Promise<void> {
    const { handle, provider, accountId } = namedBy(row);
    await this.recomputeAll(await this.store.creatorsNamedBy(handle, provider, accountId), emit);
  }

  /** Entries added together: each creator any of them names is recomputed once. */
  private async afterEntriesChange(rows: EntryRow[], emit: boolean): Promise<void> {
    if (await this.everyCreatorDeferred()) return;
    await this.recomputeAll(await this.store.creatorsNamedByAny(rows.map(namedBy)), emit);
  }

  /**
   * Inside a bulk write: whether every stored creator awaits recomputation already (an import that
   * brought them all), so entries need not look up whom they name, as on SQLite (`onBulkEntries`).
   * Once true it stays so: a creator stored later in the write is deferred as it is stored. (The
   * look-up was a statement per window of an import's entries on PostgreSQL.)
   */
  private async everyCreatorDeferred(): Promise<boolean> {
    if (!this.deferred) return false;
    this.allDeferred ??= this.deferred.size >= (await this.store.countCreators());
    return this.allDeferred;
  }

  private async recomputeAll(creatorIds: string[], emit: boolean): Promise<void> {
    const now = this.clock.now();
    for (const id of creatorIds) await this.recompute(id, now, emit);
  }

  private afterEntryChangeNow(row: EntryRow, emit: boolean): void | Promise<void> {
    const { handle, provider, accountId } = namedBy(row);
    return this.recomputeAllNow(this.syncStore().creatorsNamedBy(handle, provider, accountId), emit);
  }

  private afterEntriesChangeNow(rows: EntryRow[], emit: boolean): void | Promise<void> {
    return this.recomputeAllNow(this.syncStore().creatorsNamedByAny(rows.map(namedBy)), emit);
  }

  /** `recomputeAll` on SQLite: a promise only when trust-change listeners have work left. */
  private recomputeAllNow(creatorIds: string[], emit: boolean): void | Promise<void> {
    const now = this.clock.now();
    const pending: Promise<void>[] = [];
    for (const id of creatorIds) {
      const left = this.recomputeNow(id, now, emit);
      if (left) pending.push(left);
    }
    if (pending.length > 0) return Promise.all(pending).then(() => undefined);
  }

  async trend(row: CreatorRow): Promise<TrustTrend> {
    const windowStart = utcDay(this.clock.now() - 30 * DAY_MS);
    return trustTrend(row.trustScore, await this.store.trendFrom(row.id, windowStart));
  }

  /** Defers recomputation until `endBulk`, so an import computes each creator once. */
  beginBulk(): void {
    this.deferred = new Set();
    this.allDeferred = null;
  }

  /**
   * Inside a bulk write on SQLite whose every input but the entries is stored (an import, its
   * other lines done, its entries still being prepared): computes and writes each deferred
   * creator's score from everything but the penalties, and keeps each basis, so that `endBulk`
   * only rescores the creators the entries penalise. The scores of 100k imported creators took
   * 1 s of the import's tail, where nothing else can run beside them; here the entries' thread
   * still works. Below `RECOMPUTE_TOGETHER_FROM` creators it leaves everything to `endBulk`
   * (which calls it when the bulk write did not).
   */
  scoreAheadOfEntries(): void {
    const pending = this.deferred;
    if (!pending || pending.size < RECOMPUTE_TOGETHER_FROM) return;
    const store = this.syncStore();
    const now = this.clock.now();
    const basis = store.everyScoreBasisButPenalties();
    // Read whole before writing: the writes update the table being read.
    for (const row of store.allCreators()) {
      if (!pending.has(row.id)) continue;
      let own = basis.get(row.id);
      if (!own) basis.set(row.id, (own = emptyScoreBasis()));
      this.applyNow(row, own, now, false);
    }
    this.ahead = { now, basis };
  }

  /**
   * Recomputes every creator touched since `beginBulk`, inside the caller's transaction (SQLite):
   * many at once through `scoreAheadOfEntries` and then their penalties, a few one by one.
   */
  endBulk(): number {
    if (!this.ahead) this.scoreAheadOfEntries();
    const pending = this.deferred;
    const ahead = this.ahead;
    this.deferred = null;
    this.ahead = null;
    if (!pending) return 0;
    if (ahead) {
      this.endBulkAfterScoresAhead(pending, ahead);
    } else {
      const now = this.clock.now();
      for (const id of pending) this.recomputeNow(id, now, false);
    }
    return pending.size;
  }

  /** `endBulk` after `scoreAheadOfEntries`: the creators with penalties, and any deferred since, at the same time. */
  private endBulkAfterScoresAhead(pending: Set<string>, ahead: { now: number; basis: Map<string, ScoreBasis> }): void {
    const store = this.syncStore();
    const penalties = store.everyPenalty(ahead.now);
    for (const id of pending) {
      const basis = ahead.basis.get(id);
      if (!basis) {
        this.recomputeNow(id, ahead.now, false);
        continue;
      }
      const own = penalties.get(id);
      const row = own && store.byId(id);
      if (row) this.applyNow(row, { ...basis, penalties: own }, ahead.now, false);
    }
  }

  /**
   * `endBulk` awaiting the store (the import on PostgreSQL): with a store that reads and writes
   * many rows at once, `SCORE_TOGETHER` creators a round of grouped reads and two writes;
   * otherwise one creator at a time.
   */
  async endBulkAsync(): Promise<number> {
    const pending = this.deferred;
    this.deferred = null;
    this.allDeferred = null;
    if (!pending) return 0;
    const now = this.clock.now();
    const ids = [...pending];
    const many = this.store.many;
    if (many) {
      // The next round's reads are sent before this round's writes, so the server reads them while
      // this process scores and writes (creators are scored independently of one another).
      const read = async (from: number) => {
        const rows = await many.creatorsByIds(ids.slice(from, from + SCORE_TOGETHER));
        return { rows, bases: await many.scoreBases(rows, now) };
      };
      let next = read(0);
      for (let i = 0; i < ids.length; i += SCORE_TOGETHER) {
        const { rows, bases } = await next;
        if (i + SCORE_TOGETHER < ids.length) {
          next = read(i + SCORE_TOGETHER);
          // Awaited by the next turn of the loop; when this round's writes fail first, theirs is the error thrown.
          next.catch(() => {});
        }
        const scored = rows.map((row) => ({ row, ...scoreOf(row, bases.get(row.id) ?? emptyScoreBasis(), now) }));
        await many.writeTrusts(
          scored.map(({ row, fields }) => ({ id: row.id, fields })),
          utcDay(now),
        );
        for (const { row, fields, banEntry } of scored) await this.afterWrite(row, fields, banEntry, now, false);
      }
      return pending.size;
    }
    // Creators are scored independently: a window of them at once lets the connection pipeline
    // their statements, one round trip a window instead of several a creator.
    for (let i = 0; i < ids.length; i += RECOMPUTE_WINDOW) {
      const settled = await Promise.allSettled(ids.slice(i, i + RECOMPUTE_WINDOW).map((id) => this.recompute(id, now, false)));
      // Every statement of the window has ended before a failure rolls the transaction back.
      const failed = settled.find((r) => r.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
    }
    return pending.size;
  }

  /** Leaves bulk mode without recomputing (the bulk write was rolled back). */
  abandonBulk(): void {
    this.deferred = null;
    this.allDeferred = null;
    this.ahead = null;
  }

  /**
   * The daily job (00:05 UTC): recompute every creator and record the day's snapshot. Works in
   * batches so requests are served in between.
   */
  async refreshAll(batch = REFRESH_SLICE_CREATORS): Promise<number> {
    let after = "";
    let total = 0;
    for (;;) {
      const page = await this.store.creatorIdsAfter(after, batch);
      if (page.length === 0) return total;
      const now = this.clock.now();
      await this.store.transaction(async () => {
        for (const id of page) await this.recompute(id, now, true);
      });
      total += page.length;
      after = page[page.length - 1]!;
      await yieldToRequests();
    }
  }
}

/** What an entry names a creator by: a handle, or a linked account. */
function namedBy(row: EntryRow): { handle: string; provider: string; accountId: string } {
  return { handle: row.creatorHandle ?? "", provider: row.provider, accountId: row.providerUserId };
}
