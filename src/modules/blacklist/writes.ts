// Adding and overturning entries. Every write is one transaction with everything it causes: the
// entry's change-feed row, its outbox event and the listeners' derived changes (a creator's Trust
// Score, a tripwire), so a failure anywhere leaves nothing behind.
import { type Clock, iso } from "../../clock";
import { UniqueViolation } from "../../db/errors";
import type { ChangeType } from "../../domain";
import { conflict, notFound } from "../../errors";
import { type Actor, type AuditLog, accountSubject, actorText, type EventToRecord } from "../audit/service";
import type { Outbox } from "../outbox/service";
import type { BlacklistChecks } from "./check";
import { type NewEntry, prepareEntryAt, toPublicEntry } from "./entry";
import type { OverturnResult } from "./model";
import type { BlacklistStore, EntryRow } from "./store";
import type { SubjectFilter } from "./subject-filter";

/**
 * Told, inside the writing transaction, about every entry that became or stopped being active,
 * so derived state (a creator's Trust Score) changes atomically with the entry. `emit` is false
 * for imports, which write no events.
 */
export type EntryListener = (row: EntryRow, change: ChangeType, emit: boolean) => void | Promise<void>;
/** An EntryListener's form for several entries of one write at once (a sync's page); told once for them all. */
export type EntriesListener = (rows: EntryRow[], change: ChangeType, emit: boolean) => void | Promise<void>;

/** What an added entry's audit event is also about, and the followed source's item it came from. */
export type AddRefs = { caseId?: string; appealId?: string; details?: object; origin?: { source: string; upstreamId: string } };

export class BlacklistWrites {
  private readonly listeners: Array<{ one: EntryListener; many?: EntriesListener }> = [];

  constructor(
    private readonly store: BlacklistStore,
    private readonly checks: BlacklistChecks,
    private readonly subjects: SubjectFilter,
    private readonly outbox: Outbox,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  /** `many`, when given, is told instead of `one` about the entries a write adds together. */
  onEntryChange(one: EntryListener, many?: EntriesListener): void {
    this.listeners.push({ one, many });
  }

  /** Tells the listeners in order, each awaited, inside the writing transaction. */
  async notify(row: EntryRow, change: ChangeType, emit: boolean): Promise<void> {
    // A listener with nothing left to do answers no promise (SQLite): none is waited for.
    for (const { one } of this.listeners) {
      const pending = one(row, change, emit);
      if (pending) await pending;
    }
  }

  /** `notify` for several entries of one write: a listener's `many` once, or its `one` for each in turn. */
  private async notifyMany(rows: EntryRow[], change: ChangeType, emit: boolean): Promise<void> {
    if (rows.length === 0) return;
    for (const { one, many } of this.listeners) {
      if (many) {
        const pending = many(rows, change, emit);
        if (pending) await pending;
        continue;
      }
      for (const row of rows) {
        const pending = one(row, change, emit);
        if (pending) await pending;
      }
    }
  }

  /** One write transaction; a verdict cache forgets what it may have read meanwhile. */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await this.store.transaction(fn);
    } finally {
      if (this.checks.caching) this.checks.forgetAll();
    }
  }

  /**
   * Stores a prepared entry with its change-feed row and its outbox event, and tells the
   * listeners. The caller holds the transaction. Watchlist rows are unconfirmed reports: they
   * stay off the list, the keyed change feed and the events, but get a feed row, which only the
   * signed federation feed reads (followers hold them as watchlist rows).
   */
  private async writeEntry(row: EntryRow): Promise<void> {
    try {
      await this.store.insertEntry(row);
    } catch (error) {
      // Only the entry's own id: a listener's constraint failure is its own error, not a duplicate entry.
      if (error instanceof UniqueViolation) throw conflict(`Entry ${row.id} already exists.`);
      throw error;
    }
    if (row.status !== "active") return;
    this.subjects.add(row.provider, row.providerUserId);
    this.checks.forget(row.provider, row.providerUserId);
    await this.store.insertChange("added", row.id, row.createdAt);
    if (!row.watchlist) await this.outbox.write("blacklist.added", toPublicEntry(row), row.createdAt);
    await this.notify(row, "added", true);
  }

  /**
   * Stores prepared entries of an import that awaits its store (PostgreSQL), inside its
   * transaction: feed rows and listeners, no events. Answers -1, or the index of the entry whose id
   * is stored already, as the database named it in refusing the rows: the import names that line,
   * and its transaction is over. (A look-up of the ids first cost a statement a window, which
   * the planner ran as a scan before the import's first ANALYZE: 100k entries 5.3 s with it,
   * 3.9 s without, bench data set, 2-core machine, Nov 2026.)
   */
  async importEntries(rows: EntryRow[]): Promise<number> {
    if (rows.length === 0) return -1;
    // Every statement of the window is sent before any answer is awaited (the listeners' look-ups
    // read only what is sent before them): awaited one after the other, the server sat idle while
    // the import read its next lines, and the two took turns (300k entries of the bench data set).
    const active = rows.filter((row) => row.status === "active");
    const [stored, told] = await Promise.allSettled([this.storeTogether(rows), this.notifyMany(active, "added", false)]);
    const failure = stored.status === "rejected" ? stored.reason : told.status === "rejected" ? told.reason : null;
    if (failure === null) return -1;
    const taken = failure instanceof UniqueViolation ? rows.findIndex((row) => row.id === failure.key) : -1;
    if (taken === -1) throw failure;
    return taken;
  }

  /**
   * Entries written together, with the feed rows of the active ones (answered), noted by the check's
   * caches. The feed rows are sent behind the entries without waiting for them; the entries'
   * failure is the answer when both fail.
   */
  private async storeTogether(rows: EntryRow[]): Promise<EntryRow[]> {
    const active = rows.filter((row) => row.status === "active");
    const [entries, feed] = await Promise.allSettled([this.store.insertEntries(rows), this.store.insertAddedChanges(active)]);
    if (entries.status === "rejected") throw entries.reason;
    if (feed.status === "rejected") throw feed.reason;
    for (const row of active) {
      this.subjects.add(row.provider, row.providerUserId);
      this.checks.forget(row.provider, row.providerUserId);
    }
    return active;
  }

  /**
   * Adds one entry: the partner route, `trustlist blacklist add`, a moderator's decision and an
   * appeal's downgrade, with its audit event. Inside a caller's transaction it joins it (a
   * decision closes its case in the same one); `refs` names what else the event is about.
   */
  async add(input: NewEntry, actor: Actor, refs: AddRefs = {}): Promise<EntryRow> {
    const row = this.prepareAdded(input, actor, refs);
    await this.transaction(() => this.writeAdded(row, actor, refs));
    return row;
  }

  /**
   * Adds entries in order, each as `add` would, in one transaction without a savepoint each: a
   * sync's page of a followed source's fresh items, which rolls back whole when one fails. The
   * entries, their feed rows, their events and their audit events are each written in one go
   * (one statement each on PostgreSQL, where a round trip per entry was most of a follower's
   * sync), then the listeners are told about them all at once: a creator two of them name is
   * scored once, with both. Joins a caller's transaction.
   */
  addMany(batch: Array<{ input: NewEntry; actor: Actor; refs: AddRefs }>): Promise<EntryRow[]> {
    return this.transaction(async () => {
      const rows = batch.map(({ input, actor, refs }) => this.prepareAdded(input, actor, refs));
      let active: EntryRow[];
      try {
        active = await this.storeTogether(rows);
      } catch (error) {
        if (error instanceof UniqueViolation) throw conflict("An entry of this batch already exists.");
        throw error;
      }
      await this.outbox.writeMany(active.filter((row) => !row.watchlist).map((row) => ({ type: "blacklist.added" as const, data: toPublicEntry(row), at: row.createdAt })));
      await this.notifyMany(active, "added", true);
      await this.audit.recordMany(batch.map(({ actor, refs }, i) => addedEvent(rows[i]!, actor, refs)));
      return rows;
    });
  }

  private prepareAdded(input: NewEntry, actor: Actor, refs: AddRefs): EntryRow {
    const row = prepareEntryAt({ ...input, id: undefined, status: undefined }, reporterOf(actor), this.clock.now(), { allowPast: refs.origin !== undefined });
    // An entry applied from a followed source names it and the source's own id for it.
    if (refs.origin) {
      row.source = refs.origin.source;
      row.upstreamId = refs.origin.upstreamId;
    }
    return row;
  }

  private async writeAdded(row: EntryRow, actor: Actor, refs: AddRefs): Promise<void> {
    await this.writeEntry(row);
    const { action, refs: about, details, at } = addedEvent(row, actor, refs);
    await this.audit.record(actor, action, about, details, at);
  }

  /** Overturns an active entry, with its audit event; inside a caller's transaction it joins it (an appeal's decision). */
  async overturn(id: string, reason: string | null, actor: Actor, refs: { appealId?: string } = {}): Promise<typeof OverturnResult.static> {
    const now = this.clock.now();
    await this.transaction(async () => {
      const row = await this.store.lockById(id);
      if (!row) throw notFound(`No blacklist entry ${id}.`);
      if (row.status !== "active") throw conflict(`Entry ${id} is ${row.status}, not active.`);
      await this.store.markOverturned(id, now, reason);
      this.checks.forget(row.provider, row.providerUserId);
      await this.store.insertChange("overturned", id, now);
      if (!row.watchlist) await this.outbox.write("blacklist.overturned", toPublicEntry(row), now);
      await this.notify({ ...row, status: "overturned" }, "overturned", true);
      await this.audit.record(actor, "entry.overturned", { entryId: id, subject: accountSubject(row.provider, row.providerUserId), ...refs }, { reason }, now);
    });
    return { id, status: "overturned", overturned_at: iso(now) };
  }

  /**
   * Expires one active entry now, as the expiry job would (a followed source said its item
   * expired); false when it is no longer active. Joins a caller's transaction.
   */
  async expire(id: string, actor: Actor): Promise<boolean> {
    const now = this.clock.now();
    return this.transaction(async () => {
      const row = await this.store.lockById(id);
      if (!row || row.status !== "active") return false;
      await this.store.markExpiredNow(id);
      this.checks.forget(row.provider, row.providerUserId);
      await this.store.insertChange("expired", id, now);
      await this.notify({ ...row, status: "expired" }, "expired", true);
      await this.audit.record(actor, "entry.expired", { entryId: id, subject: accountSubject(row.provider, row.providerUserId) }, { expires_at: iso(row.expiresAt) }, now);
      return true;
    });
  }

  /** Records the expiry job's change of one entry (expiry.ts), inside its slice's transaction. */
  recordExpiry(row: EntryRow, at: number): Promise<void> {
    return this.audit.record(EXPIRY_JOB, "entry.expired", { entryId: row.id, subject: accountSubject(row.provider, row.providerUserId) }, { expires_at: iso(row.expiresAt) }, at);
  }
}

/** An added entry's audit event. */
function addedEvent(row: EntryRow, actor: Actor, refs: AddRefs): EventToRecord {
  return {
    actor,
    action: "entry.added",
    refs: { entryId: row.id, subject: accountSubject(row.provider, row.providerUserId), ...refs },
    details: { ...entryDetails(row), ...refs.details },
    at: row.createdAt,
  };
}

/** The expiry job, as the audit log names it. */
const EXPIRY_JOB: Actor = { kind: "job", id: "expiry" };

/** What an entry's `reporter` column keeps of who filed it: a key id, `cli`, or the actor's `kind:id`. */
function reporterOf(actor: Actor): string {
  if (actor.kind === "key") return actor.id;
  if (actor.kind === "cli") return "cli";
  return actorText(actor);
}

/** An added entry, as its audit event details it: everything a moderator decided, private fields included. */
function entryDetails(row: EntryRow): object {
  return {
    ...toPublicEntry(row),
    provider: row.provider,
    provider_user_id: row.providerUserId,
    username: row.username,
    creator: row.creatorHandle,
    high_risk: row.highRisk,
    watchlist: row.watchlist,
    supersedes: row.supersedes,
  };
}
