// The blacklist's tables, `blacklist_entries` and `blacklist_changes`: the contract every database
// implements, the rows it answers (typed by their tables), and the factory that picks one. Their
// SQL lives in store.sqlite.ts and store.postgres.ts only. On SQLite the check's read and the
// import's bulk writes are also offered without a promise (`sync`): the keyed check route stays
// synchronous there, and an import of a million entries never waits on a promise per line.
import type { Database } from "../../db/database";
import { columnsOf, type RowOf, rowReader } from "../../db/rows";
import { type ReadSnapshot, snapshotRows } from "../../db/snapshot";
import type { ChangeType, Provider, Vertical } from "../../domain";
import type { HIT_FIELDS } from "./store.shared";
import { PostgresBlacklistStore } from "./store.postgres";
import { SqliteBlacklistStore } from "./store.sqlite";
import { blacklistEntries, type blacklistChanges } from "./tables";

export type EntryRow = RowOf<typeof blacklistEntries>;

/**
 * A row whose flags come as the driver stores them: 0/1 on SQLite, where the check's hot path
 * reads them without a per-row mapping (its readers only test them as truthy).
 */
type FlagsAsStored<R> = { [K in keyof R]: R[K] extends boolean ? boolean | number : R[K] };

/** What a check needs of one active row of a subject. */
export type HitRow = FlagsAsStored<RowOf<typeof blacklistEntries, (typeof HIT_FIELDS)[number]>>;

/** A change-feed row with the entry it names. */
export type ChangeRow = EntryRow & RowOf<typeof blacklistChanges, "seq" | "type" | "entryId" | "at">;

export type SubjectKey = [provider: string, providerUserId: string];

/** An account named by active entries, with the username one of them gives it. */
export type SubjectName = RowOf<typeof blacklistEntries, "provider" | "providerUserId" | "username">;

/** An active row's subject and its place in storing order (SQLite's rowid). */
export type StoredSubject = RowOf<typeof blacklistEntries, "provider" | "providerUserId"> & { position: number };

export interface BlacklistStore {
  /** One write transaction (a write inside a write joins it). */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Active rows of each subject, expired ones included (the caller compares `expiresAt` with its
   * clock), in the order the subjects were given: one statement for them all.
   */
  subjectRows(subjects: SubjectKey[]): Promise<HitRow[][]>;
  /** Active confirmed rows past (afterTime, afterId) in list order, unexpired at `now`, on `vertical`. */
  page(afterTime: number, afterId: string, now: number, vertical: Vertical, limit: number): Promise<EntryRow[]>;
  byId(id: string): Promise<EntryRow | null>;
  /** `byId` that holds the row until the transaction ends (PostgreSQL: FOR UPDATE). */
  lockById(id: string): Promise<EntryRow | null>;
  /** Every entry of one account or (with `creatorHandle`) naming one creator, whatever its status, oldest first: a moderation case's history. */
  entriesOf(subject: { provider: Provider; providerUserId: string } | { creatorHandle: string }): Promise<EntryRow[]>;
  /** The keyed change feed: confirmed entries' changes past `seq`. */
  changesAfter(seq: number, limit: number): Promise<ChangeRow[]>;
  /** The signed federation feed: changes past `seq` of entries that originated here (no source), watchlist rows included. */
  originChangesAfter(seq: number, limit: number): Promise<ChangeRow[]>;
  /**
   * The SQLite file another thread of this process may open read-only to read the feed's pages
   * (`originChangesOn`); undefined where there is none (PostgreSQL, an in-memory database).
   */
  readonly readableFile?: string;
  /** The active entry applied from `source` for its item `upstreamId`, if any. */
  heldFrom(source: string, upstreamId: string): Promise<EntryRow | null>;
  /** Which of `upstreamIds` have an active entry applied from `source` (a sync's page, one look-up). */
  heldUpstreamIds(source: string, upstreamIds: string[]): Promise<Set<string>>;
  /** Active entries applied from `source` past `afterUpstreamId`, in upstream id order. */
  heldPage(source: string, afterUpstreamId: string, limit: number): Promise<EntryRow[]>;
  /** Active entries of one account applied from any source. */
  heldOfSubject(provider: Provider, id: string): Promise<EntryRow[]>;
  heldCount(source: string): Promise<number>;
  /** Marks one entry expired (a source said its item expired); the caller writes its feed row. */
  markExpiredNow(id: string): Promise<void>;
  /** Throws UniqueViolation for an id already taken. */
  insertEntry(row: EntryRow): Promise<void>;
  /** Stores several entries in order: a sync's page (one statement on PostgreSQL); UniqueViolation as `insertEntry`. */
  insertEntries(rows: EntryRow[]): Promise<void>;
  /** Which of `ids` name a stored entry (one statement). */
  storedIds(ids: string[]): Promise<Set<string>>;
  insertChange(type: ChangeType, entryId: string, at: number): Promise<void>;
  /** `insertChange` for many entries' additions, in order, in one statement where the database takes one. */
  insertAddedChanges(rows: EntryRow[]): Promise<void>;
  markOverturned(id: string, at: number, reason: string | null): Promise<void>;
  /** Marks up to `limit` active rows lapsed at `now` expired and returns them (as they were before). */
  expireDue(now: number, limit: number): Promise<EntryRow[]>;
  /** Subjects with an active row past `after` in (provider, id) order: the subject filter's fill. */
  subjectsAfter(after: SubjectKey, limit: number): Promise<SubjectKey[]>;
  /** A position past every row stored so far (SQLite: max rowid), or null where rows have no order (PostgreSQL). */
  lastPosition(): Promise<number | null>;
  /** Active rows stored past `position` (SQLite only: PostgreSQL returns null and the filter refills). */
  rowsAfter(position: number, limit: number): Promise<StoredSubject[] | null>;
  /** Active confirmed entries unexpired at `now` (the public counters; SQLite counts in slices). */
  countListed(now: number): Promise<number>;
  /**
   * Accounts with an active entry unexpired at `now` whose username, without case, is
   * `lowerUsername` (keyless search; src/modules/public/disclosure.ts decides what they may show).
   * SQLite answers without a promise.
   */
  subjectsByUsername(lowerUsername: string, now: number, limit: number): SubjectName[] | Promise<SubjectName[]>;
  /**
   * The username the newest active entry unexpired at `now` gives an account (one that gives one
   * first), or null when it has no such entry. SQLite answers without a promise.
   */
  subjectName(provider: string, id: string, now: number): SubjectName | null | Promise<SubjectName | null>;
  /** The same reads and the import's writes without a promise, where the database answers that way (SQLite). */
  readonly sync?: BlacklistSyncStore;
}

/**
 * The synchronous side of a store: the keyed check's read, and the bulk writes of an import,
 * which holds its own transaction throughout (raw driver errors, no feed rows until the end).
 */
export interface BlacklistSyncStore {
  subjectRowsNow(provider: string, id: string): HitRow[];
  /** The import's insert (a raw driver error for an id already taken). */
  insertEntryNow(row: EntryRow): void;
  /** Every active row stored past `position` (an import's, inside its transaction). */
  rowsAfterNow(position: number): StoredSubject[];
  /** Rows ever stored (the largest rowid): a free upper bound of the table's size. */
  storedCountNow(): number;
  /** Feed rows of the active confirmed entries stored past `afterPosition`, in storing order (end of an import). */
  addedFeedRowsAfterNow(afterPosition: number): void;
  /** The table's CREATE statement, which a file of entries prepared apart repeats (entries-file.ts). */
  entriesTableSqlNow(): string;
  /**
   * Stores every entry of an `EntriesFile` after the stored ones, in the file's order, inside the
   * caller's transaction; null when done, or the place in the file (1 for its first entry) of the
   * first entry whose id is already stored (nothing of the file is then stored). The file stays
   * attached until `detachEntriesNow`, after the transaction ends.
   */
  copyEntriesNow(path: string): number | null;
  /** Lets go of the file `copyEntriesNow` attached (once its transaction has ended); no-op when none is. */
  detachEntriesNow(): void;
}

export function createBlacklistStore(database: Database): BlacklistStore {
  return database.dialect === "sqlite" ? new SqliteBlacklistStore(database) : new PostgresBlacklistStore(database);
}

const readEntry = rowReader(blacklistEntries);

/** Every entry in issue order, as of the export's snapshot. */
export async function* entriesForExport(snapshot: ReadSnapshot): AsyncGenerator<EntryRow> {
  const query = `SELECT ${columnsOf(blacklistEntries)} FROM blacklist_entries ORDER BY issued_at, id`;
  for await (const row of snapshotRows<Record<string, unknown>>(snapshot, query)) yield readEntry(row);
}
