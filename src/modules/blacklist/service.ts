// Blacklist logic, as the rest of the app sees it: checks (check.ts), the list and its change
// feed (feed.ts), adding and overturning entries (writes.ts), the import's bulk writes (bulk.ts)
// and the expiry job (expiry.ts), over one store and one subject filter. Its tables are read and
// written through the blacklist store (store.ts) only.
import type { Clock } from "../../clock";
import type { CursorCodec } from "../../cursor";
import type { Database } from "../../db/database";
import type { Provider, Vertical } from "../../domain";
import type { Actor, AuditLog } from "../audit/service";
import type { Outbox } from "../outbox/service";
import { BlacklistBulk, type BulkEntriesListener } from "./bulk";
import { BlacklistChecks, type CheckResult, type CheckVerdict } from "./check";
import { type NewEntry, prepareEntryAt } from "./entry";
import { expireDue, EXPIRY_SLICE_ROWS } from "./expiry";
import { BlacklistFeed } from "./feed";
import { type BlacklistStore, createBlacklistStore, type EntryRow, type SubjectKey } from "./store";
import { SUBJECTS_NOTE } from "./store.shared";
import { SubjectFilter } from "./subject-filter";
import { BlacklistWrites, type EntriesListener, type EntryListener } from "./writes";

export type { BatchRow, CheckResult, CheckVerdict } from "./check";
export { isProvider, type NewEntry, normalizeAccountId, prepareEntryAt, type PublicEntry, toPublicEntry, toStaffEntry } from "./entry";
export type { Change, Page } from "./feed";
export type { EntryRow } from "./store";
export type { BulkEntriesListener } from "./bulk";
export type { EntryListener } from "./writes";

export class BlacklistService {
  private readonly store: BlacklistStore;
  /** Subjects with an active row: lets a check of an unlisted account skip the database. */
  readonly subjects: SubjectFilter;
  private readonly checks: BlacklistChecks;
  private readonly feed: BlacklistFeed;
  private readonly writes: BlacklistWrites;
  private readonly bulk: BlacklistBulk;

  constructor(
    database: Database,
    private readonly clock: Clock,
    cursors: CursorCodec,
    outbox: Outbox,
    audit: AuditLog,
  ) {
    this.store = createBlacklistStore(database);
    this.subjects = new SubjectFilter(this.store);
    this.checks = new BlacklistChecks(this.store, this.subjects, clock);
    this.feed = new BlacklistFeed(this.store, clock, cursors);
    this.writes = new BlacklistWrites(this.store, this.checks, this.subjects, outbox, audit, clock);
    this.bulk = new BlacklistBulk(this.store, this.subjects);
    database.changes.onExternalCommit((notes) => {
      // PostgreSQL says which subjects another instance listed (none when the topic is absent);
      // SQLite cannot, and the filter then reads the rows past the last one it saw.
      this.subjects.noticeExternalWrite(notes === null ? null : ((notes[SUBJECTS_NOTE] as SubjectKey[] | undefined) ?? []));
      this.checks.forgetAll();
    });
  }

  onEntryChange(one: EntryListener, many?: EntriesListener): void {
    this.writes.onEntryChange(one, many);
  }

  onBulkEntries(listener: BulkEntriesListener): void {
    this.bulk.onBulkEntries(listener);
  }

  /** Loads the subject filter in the background; until it is ready every check asks the database. */
  warm(): Promise<void> {
    return this.subjects.build();
  }

  // The checks (check.ts).

  /**
   * Active rows of one subject on one vertical, reduced to the answer's ingredients; synchronous,
   * where the store answers without a promise (the public search calls it inside its own
   * synchronous reads).
   */
  verdict(provider: Provider, accountId: string, vertical: Vertical, now: number): CheckVerdict {
    const verdict = this.checks.verdictOf(provider, accountId, vertical, now);
    if (verdict instanceof Promise) throw new Error("BlacklistService.verdict is synchronous on SQLite only; use verdictOf");
    return verdict;
  }

  /** The verdict without a promise where it can (check.ts). */
  verdictOf(provider: Provider, accountId: string, vertical: Vertical, now: number): CheckVerdict | Promise<CheckVerdict> {
    return this.checks.verdictOf(provider, accountId, vertical, now);
  }

  /** The single check. `provider` is already one of the known providers. */
  async check(provider: Provider, rawId: string, vertical: Vertical = "all"): Promise<CheckResult> {
    return this.checks.checkNow(provider, rawId, vertical);
  }

  /**
   * The single check, without a promise on SQLite (every step there is a synchronous prepared
   * statement or a filter probe): the keyed check route, the hot path, awaits only on PostgreSQL.
   */
  checkNow(provider: Provider, rawId: string, vertical: Vertical = "all"): CheckResult | Promise<CheckResult> {
    return this.checks.checkNow(provider, rawId, vertical);
  }

  /** Both batch routes: one independent row per input, in input order. */
  checkMany(accounts: Array<{ provider?: string | null; id?: string | null }>, vertical: Vertical = "all") {
    return this.checks.checkMany(accounts, vertical);
  }

  // The list and the feed (feed.ts).

  list(options: Parameters<BlacklistFeed["list"]>[0]) {
    return this.feed.list(options);
  }

  get(id: string) {
    return this.feed.get(id);
  }

  changes(options: Parameters<BlacklistFeed["changes"]>[0]) {
    return this.feed.changes(options);
  }

  // Writes (writes.ts) and expiry (expiry.ts).

  /** Validates a new entry and resolves its defaults; shared by the API, the CLI and import. */
  prepareEntry(input: NewEntry, reporter: string, options: { allowPast?: boolean } = {}): EntryRow {
    return prepareEntryAt(input, reporter, this.clock.now(), options);
  }

  /** Adds one entry with its audit event (writes.ts): the partner route, the CLI, decisions and downgrades. */
  add(input: NewEntry, actor: Actor, refs?: Parameters<BlacklistWrites["add"]>[2]): Promise<EntryRow> {
    return this.writes.add(input, actor, refs);
  }

  overturn(id: string, reason: string | null, actor: Actor, refs?: Parameters<BlacklistWrites["overturn"]>[3]) {
    return this.writes.overturn(id, reason, actor, refs);
  }

  /** Expires one active entry now (a followed source's expiry); false when it was not active. */
  expire(id: string, actor: Actor): Promise<boolean> {
    return this.writes.expire(id, actor);
  }

  // What was applied from followed sources (the federation module), and the signed feed's rows.

  originChangesAfter(seq: number, limit: number) {
    return this.store.originChangesAfter(seq, limit);
  }

  /** The file a thread of this process may read the feed's pages from (see BlacklistStore.readableFile). */
  get feedFile(): string | undefined {
    return this.store.readableFile;
  }

  heldFrom(source: string, upstreamId: string) {
    return this.store.heldFrom(source, upstreamId);
  }

  heldUpstreamIds(source: string, upstreamIds: string[]) {
    return this.store.heldUpstreamIds(source, upstreamIds);
  }

  /** Adds a followed source's fresh entries in order, each as `add` would, in one transaction (writes.ts). */
  addMany(batch: Parameters<BlacklistWrites["addMany"]>[0]): Promise<EntryRow[]> {
    return this.writes.addMany(batch);
  }

  heldPage(source: string, afterUpstreamId: string, limit: number) {
    return this.store.heldPage(source, afterUpstreamId, limit);
  }

  heldOfSubject(provider: Provider, id: string) {
    return this.store.heldOfSubject(provider, id);
  }

  heldCount(source: string) {
    return this.store.heldCount(source);
  }

  /** One write transaction that a decision's entry and its case's changes share. */
  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.writes.transaction(fn);
  }

  /** Any entry by id, whatever its status: staff views, appeals and decisions. */
  entryRow(id: string): Promise<EntryRow | null> {
    return this.store.byId(id);
  }

  /** Every entry of one account, or naming one creator, whatever its status: a moderation case's history. */
  entriesOf(subject: Parameters<BlacklistStore["entriesOf"]>[0]): Promise<EntryRow[]> {
    return this.store.entriesOf(subject);
  }

  /** A window of an import that awaits its store, stored at once (see BlacklistWrites.importEntries). */
  importEntries(rows: EntryRow[]): Promise<number> {
    return this.writes.importEntries(rows);
  }


  /** Marks lapsed entries `expired`, a short transaction at a time (expiry.ts); run by cron. */
  expireDue(sliceRows = EXPIRY_SLICE_ROWS): Promise<number> {
    return expireDue({ store: this.store, writes: this.writes, checks: this.checks, clock: this.clock }, sliceRows);
  }

  // The import's bulk writes (bulk.ts), inside the transaction the import holds.

  /** Stores entries without their feed rows and listener calls until `endBulk`, which writes them in one pass. */
  beginBulk(): void {
    this.bulk.begin();
  }

  /** Rows ever stored (the largest rowid): a free upper bound of the table's size. */
  storedCount(): number {
    return this.bulk.storedCount();
  }

  /** Writes the feed rows of the entries stored since `beginBulk`, in storing order, and tells the listeners. */
  endBulk(): void {
    this.bulk.end();
  }

  /** Leaves bulk mode without writing anything (the bulk write was rolled back). */
  abandonBulk(): void {
    this.bulk.abandon();
  }

  /** blacklist_entries' CREATE statement, for a file of entries prepared apart (entries-file.ts). */
  entriesTableSql(): string {
    return this.bulk.entriesTableSql();
  }

  /** Stores the entries a large import prepared apart in the file at `path` (bulk.ts). */
  storeEntriesFrom(path: string): number | null {
    return this.bulk.storeEntriesFrom(path);
  }

  /** Lets go of the file `storeEntriesFrom` read, once the bulk write's transaction has ended. */
  releaseEntriesFile(): void {
    this.bulk.releaseEntriesFile();
  }

  /** Stores a prepared entry inside an import's bulk write, synchronously: feed row and listeners wait for `endBulk`. */
  storeEntry(row: EntryRow, _emit: boolean): void {
    this.bulk.storeEntry(row);
  }
}
