// Blacklist logic: checks, the public list and change feed, adding and overturning entries.
// Its tables are read and written through the blacklist store (store.ts); every write runs in one
// transaction with its change-feed row, its outbox event and the listeners' derived changes.
import { type Clock, iso } from "../../clock";
import type { CursorCodec } from "../../cursor";
import type { Database } from "../../db/database";
import { UniqueViolation } from "../../db/errors";
import {
  type ChangeType,
  type EntryScope,
  type EntryStatus,
  PROVIDERS,
  type Provider,
  type Severity,
  type Vertical,
} from "../../domain";
import { ServiceError, conflict, notFound, unprocessable } from "../../errors";
import { newId } from "../../ids";
import type { Outbox } from "../../outbox";
import { parseTime, requireHandle } from "../../values";
import { yieldToRequests } from "../../yield";
import type {
  BatchCheckResult,
  BlacklistEntry,
  ChangesPage,
  CheckResult as CheckResultModel,
  OverturnResult,
} from "./model";
import { type BlacklistStore, createBlacklistStore, type EntryRow, type HitRow, SqliteBlacklistStore, SUBJECTS_NOTE, type SubjectKey } from "./store";
import { SubjectFilter } from "./subject-filter";

export type { EntryRow } from "./store";

export type PublicEntry = typeof BlacklistEntry.static;
export type CheckResult = typeof CheckResultModel.static;
export type BatchRow = typeof BatchCheckResult.static;
export type Change = (typeof ChangesPage.static)["data"][number];

export function toPublicEntry(row: EntryRow): PublicEntry {
  return {
    id: row.id,
    severity: row.severity,
    scope: row.scope,
    vertical: row.vertical,
    reason_code: row.reason_code,
    summary: row.summary,
    issued_at: iso(row.issued_at),
    expires_at: iso(row.expires_at),
    appealable: !!row.appealable,
  };
}

/** How far ahead of the server's clock a writer's `issued_at` may be (SPEC section 4). */
const MAX_ISSUED_AHEAD_MS = 60_000;

const SEVERITY_RANK: Record<Severity, number> = { warn: 1, restrict: 2, ban: 3 };
const KNOWN_PROVIDERS = new Set<string>(PROVIDERS);

/**
 * The stored form of a platform id: trimmed; Discord and Roblox ids are digits only; Minecraft
 * UUIDs and Epic ids are compared without case (and Minecraft without dashes). Null when the id
 * cannot be an id of that platform.
 */
export function normalizeAccountId(provider: Provider, raw: string): string | null {
  let id = raw.trim();
  if (id.length === 0 || id.length > 128) return null;
  if (/[\u0000-\u001f\u007f]/.test(id)) return null;
  switch (provider) {
    case "discord":
    case "roblox":
      return /^\d{1,20}$/.test(id) ? id : null;
    case "minecraft":
      id = id.toLowerCase();
      return /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/.test(id) ? id.replaceAll("-", "") : id;
    case "epic":
      return id.toLowerCase();
    default:
      return id;
  }
}

export function isProvider(value: unknown): value is Provider {
  return typeof value === "string" && KNOWN_PROVIDERS.has(value);
}

/** An entry of scope `global` matches every vertical; a `vertical` one matches `all` or its own. */
function matchesVertical(row: { scope: EntryScope; vertical: string }, vertical: Vertical): boolean {
  return row.scope === "global" || vertical === "all" || row.vertical === vertical;
}

export interface CheckVerdict {
  /** The most severe confirmed hit, if any. */
  hit: HitRow | null;
  highRisk: boolean;
  watchlist: boolean;
}

export interface NewEntry {
  id?: string;
  provider: Provider;
  provider_user_id: string;
  username?: string | null;
  severity: Severity;
  scope?: EntryScope;
  vertical?: Vertical;
  reason_code: string;
  summary?: string | null;
  issued_at?: string;
  expires_at?: string | null;
  appealable?: boolean;
  high_risk?: boolean;
  watchlist?: boolean;
  creator?: string | null;
  evidence?: string | null;
  status?: EntryStatus;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/**
 * Told, inside the writing transaction, about every entry that became or stopped being active,
 * so derived state (a creator's Trust Score) changes atomically with the entry. `emit` is false
 * for imports, which write no events.
 */
export type EntryListener = (row: EntryRow, change: ChangeType, emit: boolean) => void | Promise<void>;

/**
 * Told, at the end of a bulk write (an import) and inside its transaction, that the active
 * entries stored past `afterRowid` were added: listeners catch up in one pass instead of one
 * look-up per entry.
 */
export type BulkEntriesListener = (afterRowid: number) => void;

/**
 * Entries expired per transaction by the expiry job. Each costs the row update, its feed row, the
 * suggestion-name trigger and a look-up of the creators it names: at 1M entries of the bench data
 * set, 250 rows held the request thread for up to 48 ms and 100 rows for 29 ms, and 20,000 due
 * entries took 2.25 s either way.
 */
const EXPIRY_SLICE_ROWS = 100;

const CLEAN: CheckVerdict = Object.freeze({ hit: null, highRisk: false, watchlist: false });

/** Subjects whose rows the PostgreSQL verdict cache holds at most; past it, the cache starts over. */
const MAX_CACHED_SUBJECTS = 100_000;

/**
 * Validates a new entry and resolves its defaults at `now`; shared by the API, the CLI and import
 * (whose large files prepare their entries on a second thread, line-check-worker.ts).
 */
export function prepareEntryAt(input: NewEntry, reporter: string, now: number, options: { allowPast?: boolean } = {}): EntryRow {
  if (!isProvider(input.provider)) throw unprocessable(`Unknown provider '${String(input.provider)}'.`);
  const providerUserId = normalizeAccountId(input.provider, String(input.provider_user_id ?? ""));
  if (providerUserId === null) {
    throw unprocessable(`'${String(input.provider_user_id).slice(0, 64)}' is not a valid ${input.provider} user id.`);
  }
  const scope = input.scope ?? (input.vertical && input.vertical !== "all" ? "vertical" : "global");
  const vertical = input.vertical ?? "all";
  if (scope === "global" && vertical !== "all") throw unprocessable("A global entry has vertical 'all'; use scope 'vertical' for one vertical.");
  if (scope === "vertical" && vertical === "all") throw unprocessable("An entry of scope 'vertical' names one vertical: roblox, uefn or minecraft.");
  const issuedAt = input.issued_at !== undefined ? parseTime(input.issued_at, "issued_at") : now;
  const expiresAt = input.expires_at != null ? parseTime(input.expires_at, "expires_at") : null;
  if (expiresAt !== null && expiresAt <= issuedAt) throw unprocessable("expires_at must be after issued_at.");
  if (expiresAt !== null && expiresAt <= now && !options.allowPast) throw unprocessable("expires_at must be in the future.");
  // A future issued_at would sort after entries added in the next minutes and move a mirror's
  // `since` high-water mark past them; 60 s covers a writer's clock skew.
  if (issuedAt > now + MAX_ISSUED_AHEAD_MS) {
    throw unprocessable(`issued_at ${iso(issuedAt)} is more than 60 s in the future (server time ${iso(now)}); omit it to use the server's time.`);
  }
  const creator = input.creator ? requireHandle(input.creator) : null;
  const status = input.status ?? "active";
  return {
    id: input.id ?? newId("bl", issuedAt),
    provider: input.provider,
    provider_user_id: providerUserId,
    username: input.username?.trim() || null,
    severity: input.severity,
    scope,
    vertical,
    reason_code: input.reason_code,
    summary: input.summary ?? null,
    issued_at: issuedAt,
    expires_at: expiresAt,
    appealable: input.appealable === false ? 0 : 1,
    high_risk: input.high_risk ? 1 : 0,
    watchlist: input.watchlist ? 1 : 0,
    creator_handle: creator,
    evidence: input.evidence ?? null,
    reporter,
    status,
    overturned_at: status === "overturned" ? now : null,
    overturn_reason: null,
    created_at: now,
  };
}

export class BlacklistService {
  private readonly store: BlacklistStore;
  /** The SQLite store, whose synchronous reads keep the keyed check free of promises; null on PostgreSQL. */
  private readonly sqlite: SqliteBlacklistStore | null;
  /** Subjects with an active row: lets a check of an unlisted account skip the database. */
  readonly subjects: SubjectFilter;
  /**
   * PostgreSQL: the active rows of subjects checked lately. Dropped for a subject this instance
   * writes (inside its transaction and again once it ended) and entirely when another instance
   * commits; a read that began before such a drop does not fill it (`hitGeneration`).
   */
  private readonly hits = new Map<string, HitRow[]>();
  private hitGeneration = 0;
  private readonly listeners: EntryListener[] = [];
  private readonly bulkListeners: BulkEntriesListener[] = [];
  /** Inside a bulk write: the largest rowid before it began; feed rows and listeners wait for `endBulk`. */
  private bulkAfterRowid: number | null = null;

  constructor(
    database: Database,
    private readonly clock: Clock,
    private readonly cursors: CursorCodec,
    private readonly outbox: Outbox,
  ) {
    this.store = createBlacklistStore(database);
    this.sqlite = this.store instanceof SqliteBlacklistStore ? this.store : null;
    this.subjects = new SubjectFilter(this.store);
    database.changes.onExternalCommit((notes) => {
      // PostgreSQL says which subjects another instance listed (none when the topic is absent);
      // SQLite cannot, and the filter then reads the rows past the last one it saw.
      this.subjects.noticeExternalWrite(notes === null ? null : ((notes[SUBJECTS_NOTE] as SubjectKey[] | undefined) ?? []));
      this.forgetAllHits();
    });
  }

  onEntryChange(listener: EntryListener): void {
    this.listeners.push(listener);
  }

  onBulkEntries(listener: BulkEntriesListener): void {
    this.bulkListeners.push(listener);
  }

  /** The synchronous SQLite store of the import's bulk methods. */
  private bulkStore(): SqliteBlacklistStore {
    if (!this.sqlite) throw new Error("bulk blacklist writes (import) run on SQLite only for now");
    return this.sqlite;
  }

  /**
   * Stores entries without their feed rows and listener calls until `endBulk`, which writes them
   * in one pass: at a million imported entries, one INSERT ... SELECT and one catch-up query per
   * listener instead of a million of each. The caller holds the transaction throughout.
   */
  beginBulk(): void {
    this.bulkAfterRowid = this.storedCount();
  }

  /** Rows ever stored (the largest rowid): a free upper bound of the table's size. */
  storedCount(): number {
    return this.bulkStore().storedCountNow();
  }

  /** Writes the feed rows of the entries stored since `beginBulk`, in storing order, and tells the listeners. */
  endBulk(): void {
    const after = this.bulkAfterRowid;
    this.bulkAfterRowid = null;
    if (after === null) return;
    this.bulkStore().addedFeedRowsAfterNow(after);
    for (const listener of this.bulkListeners) listener(after);
  }

  /** blacklist_entries' CREATE statement, for a file of entries prepared apart (SQLite). */
  entriesTableSql(): string {
    return this.bulkStore().entriesTableSqlNow();
  }

  /**
   * Stores, inside a bulk write, the entries a large import prepared on a second thread into the
   * `EntriesFile` at `path`: null when done, or the place in the file (1 for its first entry) of
   * the first entry whose id is already stored.
   */
  storeEntriesFrom(path: string): number | null {
    const after = this.bulkAfterRowid;
    if (after === null) throw new Error("storeEntriesFrom runs inside beginBulk/endBulk");
    const store = this.bulkStore();
    const duplicate = store.copyEntriesNow(path);
    if (duplicate !== null) return duplicate;
    if (this.subjects.keepingUp) for (const row of store.rowsAfterNow(after)) this.subjects.add(row.provider, row.provider_user_id);
    return null;
  }

  /** Lets go of the file `storeEntriesFrom` read, once the bulk write's transaction has ended. */
  releaseEntriesFile(): void {
    this.bulkStore().detachEntriesNow();
  }

  /** Leaves bulk mode without writing anything (the bulk write was rolled back). */
  abandonBulk(): void {
    this.bulkAfterRowid = null;
  }

  /** Tells the listeners in order, each awaited, inside the writing transaction. */
  private async notify(row: EntryRow, change: ChangeType, emit: boolean) {
    for (const listener of this.listeners) await listener(row, change, emit);
  }

  /** Loads the subject filter in the background; until it is ready every check asks the database. */
  warm(): Promise<void> {
    return this.subjects.build();
  }

  private forgetHits(provider: string, id: string) {
    this.hits.delete(`${provider}\0${id}`);
    this.hitGeneration++;
  }

  private forgetAllHits() {
    this.hits.clear();
    this.hitGeneration++;
  }

  /** One write transaction; on PostgreSQL the verdict cache forgets what it may have read meanwhile. */
  private async write<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await this.store.transaction(fn);
    } finally {
      if (!this.sqlite) this.forgetAllHits();
    }
  }

  /**
   * Active rows of one subject on one vertical, reduced to the answer's ingredients; synchronous,
   * on SQLite only (the public search calls it inside its own synchronous reads).
   */
  verdict(provider: Provider, accountId: string, vertical: Vertical, now: number): CheckVerdict {
    const verdict = this.verdictOf(provider, accountId, vertical, now);
    if (verdict instanceof Promise) throw new Error("BlacklistService.verdict is synchronous on SQLite only; use verdictOf");
    return verdict;
  }

  /**
   * The verdict without a promise where it can: always on SQLite; on PostgreSQL for subjects the
   * filter rules out or the cache holds. A cache miss is one query.
   */
  verdictOf(provider: Provider, accountId: string, vertical: Vertical, now: number): CheckVerdict | Promise<CheckVerdict> {
    if (!this.subjects.mightContain(provider, accountId)) return CLEAN;
    if (this.sqlite) return reduceRows(this.sqlite.subjectRowsNow(provider, accountId), vertical, now);
    const key = `${provider}\0${accountId}`;
    const cached = this.hits.get(key);
    if (cached) return reduceRows(cached, vertical, now);
    const generation = this.hitGeneration;
    return this.store.subjectRows(provider, accountId).then((rows) => {
      if (generation === this.hitGeneration) {
        if (this.hits.size >= MAX_CACHED_SUBJECTS) this.hits.clear();
        this.hits.set(key, rows);
      }
      return reduceRows(rows, vertical, now);
    });
  }

  /** The single check. `provider` is already one of the known providers. */
  async check(provider: Provider, rawId: string, vertical: Vertical = "all"): Promise<CheckResult> {
    return this.checkNow(provider, rawId, vertical);
  }

  /**
   * The single check, without a promise on SQLite (every step there is a synchronous prepared
   * statement or a filter probe): the keyed check route, the hot path, awaits only on PostgreSQL.
   */
  checkNow(provider: Provider, rawId: string, vertical: Vertical = "all"): CheckResult | Promise<CheckResult> {
    const id = normalizeAccountId(provider, rawId);
    if (id === null) throw new ServiceError("invalid", `'${rawId.slice(0, 64)}' is not a valid ${provider} user id.`);
    const now = this.clock.now();
    const verdict = this.verdictOf(provider, id, vertical, now);
    return verdict instanceof Promise
      ? verdict.then((v) => checkResult(provider, id, now, v))
      : checkResult(provider, id, now, verdict);
  }

  /** Both batch routes: one independent row per input, in input order. */
  async checkMany(
    accounts: Array<{ provider?: string | null; id?: string | null }>,
    vertical: Vertical = "all",
  ): Promise<{ results: BatchRow[]; checked_at: string }> {
    const now = this.clock.now();
    const results = await Promise.all(
      accounts.map(async (account): Promise<BatchRow> => {
        const provider = typeof account.provider === "string" ? account.provider : null;
        const rawId = typeof account.id === "string" ? account.id : null;
        const id = isProvider(provider) && rawId !== null ? normalizeAccountId(provider, rawId) : null;
        if (!isProvider(provider) || id === null) {
          return { provider, id: rawId, banned: false, error: "invalid_account" };
        }
        const { hit, highRisk, watchlist } = await this.verdictOf(provider, id, vertical, now);
        const row: BatchRow = { provider, id, banned: hit?.severity === "ban" };
        if (highRisk) row.high_risk = true;
        if (watchlist) row.watchlist = true;
        if (hit) {
          row.severity = hit.severity;
          row.scope = hit.scope;
          row.reason_code = hit.reason_code;
        }
        return row;
      }),
    );
    return { results, checked_at: iso(now) };
  }

  /** Active, confirmed entries in (issued_at, id) order, one keyset page at a time. */
  async list(options: { cursor?: string; limit?: number; vertical?: Vertical; since?: string }): Promise<Page<PublicEntry>> {
    const limit = options.limit ?? 50;
    let afterTime = -1;
    let afterId = "";
    if (options.cursor !== undefined) {
      const position = this.cursors.decode(options.cursor);
      if (!position || position.k !== "list" || typeof position.t !== "number" || typeof position.i !== "string") {
        throw new ServiceError("invalid_cursor", "The cursor is malformed or was not issued by this server.");
      }
      afterTime = position.t;
      afterId = position.i;
    }
    if (options.since !== undefined) {
      const since = Date.parse(options.since);
      // "Strictly after `since`": start past every id at that instant ('~' sorts after any id).
      if (since > afterTime || (since === afterTime && afterId < "~")) {
        afterTime = since;
        afterId = "~";
      }
    }
    const rows = await this.store.page(afterTime, afterId, this.clock.now(), options.vertical ?? "all", limit + 1);
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    const last = page[page.length - 1];
    return {
      data: page.map(toPublicEntry),
      next_cursor: hasMore && last ? this.cursors.encode({ k: "list", t: last.issued_at, i: last.id }) : null,
      has_more: hasMore,
    };
  }

  /** One active, confirmed entry; null for unknown, overturned, expired or watchlist rows. */
  async get(id: string): Promise<PublicEntry | null> {
    const row = await this.store.byId(id);
    if (!row || row.status !== "active" || row.watchlist || (row.expires_at !== null && row.expires_at <= this.clock.now())) {
      return null;
    }
    return toPublicEntry(row);
  }

  async changes(options: { cursor?: string; limit?: number }): Promise<Page<Change>> {
    const limit = options.limit ?? 100;
    let after = 0;
    if (options.cursor !== undefined) {
      const position = this.cursors.decode(options.cursor);
      if (!position || position.k !== "changes" || typeof position.s !== "number") {
        throw new ServiceError("invalid_cursor", "The cursor is malformed or was not issued by this server.");
      }
      after = position.s;
    }
    const rows = await this.store.changesAfter(after, limit + 1);
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    const lastSeq = page.length > 0 ? page[page.length - 1]!.seq : after;
    return {
      data: page.map((row) => {
        const change: Change = { seq: row.seq, type: row.type, entry_id: row.entry_id, at: iso(row.at) };
        if (row.type === "added") change.entry = toPublicEntry({ ...row, id: row.entry_id });
        return change;
      }),
      next_cursor: this.cursors.encode({ k: "changes", s: lastSeq }),
      has_more: hasMore,
    };
  }

  /** Validates a new entry and resolves its defaults; shared by the API, the CLI and import. */
  prepareEntry(input: NewEntry, reporter: string, options: { allowPast?: boolean } = {}): EntryRow {
    return prepareEntryAt(input, reporter, this.clock.now(), options);
  }

  /**
   * Stores a prepared entry inside an import's bulk write (SQLite, synchronous): no feed row, no
   * event and no listener call until `endBulk`, which writes them for every entry at once.
   */
  storeEntry(row: EntryRow, _emit: boolean): void {
    if (this.bulkAfterRowid === null) throw new Error("storeEntry runs inside beginBulk/endBulk; use add");
    this.bulkStore().insertEntryNow(row);
    if (row.status === "active") this.subjects.add(row.provider, row.provider_user_id);
  }

  /**
   * Stores a prepared entry with its change-feed row and, when `emit`, its outbox event, and tells
   * the listeners. The caller holds the transaction. Watchlist rows are unconfirmed reports: they
   * stay off the list and the feed.
   */
  private async writeEntry(row: EntryRow, emit: boolean): Promise<void> {
    try {
      await this.store.insertEntry(row);
    } catch (error) {
      // Only the entry's own id: a listener's constraint failure is its own error, not a duplicate entry.
      if (error instanceof UniqueViolation) throw conflict(`Entry ${row.id} already exists.`);
      throw error;
    }
    if (row.status !== "active") return;
    this.subjects.add(row.provider, row.provider_user_id);
    this.forgetHits(row.provider, row.provider_user_id);
    if (!row.watchlist) {
      await this.store.insertChange("added", row.id, row.created_at);
      if (emit) await this.outbox.write("blacklist.added", toPublicEntry(row), row.created_at);
    }
    await this.notify(row, "added", emit);
  }

  /** Stores a prepared entry of an import on PostgreSQL, inside its transaction: feed row and listeners, no event. */
  importEntry(row: EntryRow): Promise<void> {
    return this.writeEntry(row, false);
  }

  /** Adds one entry: the partner route and `trustlist blacklist add`. */
  async add(input: NewEntry, reporter: string): Promise<EntryRow> {
    const row = this.prepareEntry({ ...input, id: undefined, status: undefined }, reporter);
    await this.write(() => this.writeEntry(row, true));
    return row;
  }

  async overturn(id: string, reason: string | null): Promise<typeof OverturnResult.static> {
    const now = this.clock.now();
    await this.write(async () => {
      const row = await this.store.lockById(id);
      if (!row) throw notFound(`No blacklist entry ${id}.`);
      if (row.status !== "active") throw conflict(`Entry ${id} is ${row.status}, not active.`);
      await this.store.markOverturned(id, now, reason);
      this.forgetHits(row.provider, row.provider_user_id);
      if (!row.watchlist) {
        await this.store.insertChange("overturned", id, now);
        await this.outbox.write("blacklist.overturned", toPublicEntry(row), now);
      }
      await this.notify({ ...row, status: "overturned" }, "overturned", true);
    });
    return { id, status: "overturned", overturned_at: iso(now) };
  }

  /**
   * Marks lapsed entries `expired` and records each in the feed once; run by cron. Works one short
   * transaction of at most `sliceRows` rows at a time and lets requests in between, so 50k due rows
   * after an import no longer hold the server for seconds. A row overturned between slices is no
   * longer active and is left alone.
   */
  async expireDue(sliceRows = EXPIRY_SLICE_ROWS): Promise<number> {
    const now = this.clock.now();
    let total = 0;
    for (;;) {
      const done = await this.write(async () => {
        const rows = await this.store.expireDue(now, sliceRows);
        for (const row of rows) {
          this.forgetHits(row.provider, row.provider_user_id);
          if (!row.watchlist) await this.store.insertChange("expired", row.id, row.expires_at ?? now);
          await this.notify({ ...row, status: "expired" }, "expired", true);
        }
        return rows.length;
      });
      total += done;
      if (done < sliceRows) return total;
      await yieldToRequests();
    }
  }
}

/** The most severe confirmed hit among a subject's active rows on `vertical`, unexpired at `now`. */
function reduceRows(rows: HitRow[], vertical: Vertical, now: number): CheckVerdict {
  let hit: HitRow | null = null;
  let highRisk = false;
  let watchlist = false;
  for (const row of rows) {
    if (row.expires_at !== null && row.expires_at <= now) continue;
    if (!matchesVertical(row, vertical)) continue;
    if (row.high_risk) highRisk = true;
    if (row.watchlist) {
      watchlist = true;
      continue;
    }
    if (
      !hit ||
      SEVERITY_RANK[row.severity] > SEVERITY_RANK[hit.severity] ||
      (row.severity === hit.severity && (row.issued_at > hit.issued_at || (row.issued_at === hit.issued_at && row.id > hit.id)))
    ) {
      hit = row;
    }
  }
  return { hit, highRisk, watchlist };
}

function checkResult(provider: Provider, id: string, now: number, { hit, highRisk, watchlist }: CheckVerdict): CheckResult {
  const result: CheckResult = { provider, id, banned: hit?.severity === "ban", checked_at: iso(now) };
  if (hit) {
    result.high_risk = highRisk;
    result.watchlist = watchlist;
    result.severity = hit.severity;
    result.scope = hit.scope;
    result.reason_code = hit.reason_code;
    result.summary = hit.summary;
    result.appealable = !!hit.appealable;
    result.entry = {
      id: hit.id,
      severity: hit.severity,
      scope: hit.scope,
      vertical: hit.vertical,
      reason_code: hit.reason_code,
      summary: hit.summary,
    };
  } else if (watchlist || highRisk) {
    result.high_risk = highRisk;
    result.watchlist = watchlist;
  }
  return result;
}
