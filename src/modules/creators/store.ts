// The creators' tables (creators, connections, trust_snapshots) and the reads the Trust Score is
// computed from: the contract each database implements (store.sqlite.ts, store.postgres.ts, the only
// places their SQL lives) and the factory that picks one. SQLite answers synchronously (prepared
// statements), PostgreSQL with promises; the service awaits either. The paths that must stay
// synchronous on SQLite (the import, the badge, a blacklist write's recomputation) use the
// optional `sync` capability, which only the SQLite store offers.
import type { Database } from "../../db/database";
import type { RowOf } from "../../db/rows";
import type { blacklistEntries } from "../blacklist/tables";
import { PostgresCreatorsStore } from "./store.postgres";
import type { DIRECTORY_INDEX_FIELDS, DIRECTORY_LIST_FIELDS, PENALTY_FIELDS } from "./store.shared";
import { SqliteCreatorsStore } from "./store.sqlite";
import type { connections, creators } from "./tables";

export type Awaitable<T> = T | Promise<T>;

/**
 * The directory index's key, which no column declares on both databases: SQLite's implicit rowid,
 * PostgreSQL's `seq` (both dense, in insertion order). Rows that carry it read it as `rowid`.
 */
export type Rowid = { rowid: number };

/** A creator's whole row, with its `rowid`. */
export type CreatorRow = RowOf<typeof creators> & Rowid;

export type ConnectionRow = RowOf<typeof connections>;

export type NewCreator = RowOf<typeof creators, "id" | "handle" | "displayName" | "verificationLevel" | "karma" | "joinedAt" | "avatarR2Key" | "createdAt">;

export type ProfileFields = RowOf<typeof creators, "displayName" | "verificationLevel" | "karma" | "joinedAt" | "avatarR2Key">;

export type NewConnection = Omit<ConnectionRow, "id">;

export type ConnectionFields = RowOf<typeof connections, "providerUsername" | "providerUrl" | "verifiedAt" | "public">;

/** What a recomputation writes on the creator row. */
export type TrustFields = RowOf<
  typeof creators,
  | "trustScore"
  | "trustBand"
  | "blacklisted"
  | "trustComputedAt"
  | "linkedAccounts"
  | "verifiedConnections"
  | "vouchCount"
  | "dealCount"
  | "reviewCount"
  | "reviewSum"
  | "searchText"
  | "platforms"
>;

/** An active blacklist entry naming a creator, as much of it as the score weighs. */
export type PenaltyRow = RowOf<typeof blacklistEntries, (typeof PENALTY_FIELDS)[number]>;

/** The stored rows a creator's score is computed from, besides the creator row itself. */
export interface ScoreBasis {
  /** Oldest first, as the haystack lists the usernames. */
  connections: ConnectionRow[];
  vouches: number;
  deals: number;
  reviews: { n: number; sum: number | null };
  /** Active entries naming the creator or one of its connections, each once. */
  penalties: PenaltyRow[];
}

/** The orders creators are listed in (the public directory): each descending, then by id. */
export type CreatorOrder = "newest" | "trust" | "vouches" | "deals";

/**
 * Which creators a directory scan keeps; each filter is off when null. `text`: the haystack
 * (`searchText`) holds it; `words`: holds every one; `handlePrefix`: the handle starts with it;
 * `platform`: one name of the comma-separated platform list.
 */
export interface CreatorScan {
  text: string | null;
  words: string[] | null;
  handlePrefix: string | null;
  platform: string | null;
}

/** What the in-memory directory index holds of one creator, keyed by `rowid`. */
export type DirectoryIndexRow = RowOf<typeof creators, (typeof DIRECTORY_INDEX_FIELDS)[number]> & Rowid;

/**
 * What a directory item shows of one creator (public/directory.ts), with its `rowid`: the pages of
 * the directory read only these columns (a 100-row page of whole rows read 20-70 µs more).
 */
export type DirectoryListRow = RowOf<typeof creators, (typeof DIRECTORY_LIST_FIELDS)[number]> & Rowid;

export interface CreatorsStore {
  /** One transaction (joins the caller's when inside one). */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Inside a bulk write transaction (the import): creators_version stops moving with each write
   * until the returned function moves it once (SQLite drops its counting triggers meanwhile,
   * PostgreSQL's trigger stands still while the transaction says trustlist.bulk).
   */
  holdVersion(): Promise<() => Promise<void>>;
  byHandle(handle: string): Awaitable<CreatorRow | null>;
  byId(id: string): Awaitable<CreatorRow | null>;
  /** Throws UniqueViolation when the handle (or id) is taken. */
  insertCreator(creator: NewCreator): Awaitable<void>;
  /** Stores a creator unless its handle is stored already (then writes nothing and answers false). */
  insertCreatorUnlessTaken(creator: NewCreator): Awaitable<boolean>;
  updateProfile(id: string, fields: ProfileFields, now: number): Awaitable<void>;
  connectionByAccount(provider: string, accountId: string): Awaitable<ConnectionRow | null>;
  /** The links of any of `accounts` (one statement, whatever their number), in no set order. */
  connectionsByAccounts(accounts: ReadonlyArray<{ provider: string; id: string }>): Awaitable<ConnectionRow[]>;
  /** Oldest first. */
  connectionsOf(creatorId: string): Awaitable<ConnectionRow[]>;
  /** False, writing nothing, when the account is already linked (to this creator or another). */
  insertConnection(connection: NewConnection): Awaitable<boolean>;
  updateConnection(id: number, fields: ConnectionFields): Awaitable<void>;
  deleteConnection(id: number): Awaitable<void>;
  /**
   * The rows a score is computed from. Its penalties still join blacklist_entries here (one
   * statement per recomputation, inside the entry's transaction) rather than asking the blacklist.
   */
  scoreBasis(creator: Pick<CreatorRow, "id" | "handle">, now: number): Awaitable<ScoreBasis>;
  /** Creators an entry names: by handle, or through a linked account. */
  creatorsNamedBy(handle: string, provider: string, accountId: string): Awaitable<string[]>;
  /** Creators any of several entries names (each once): a sync's page in one statement on PostgreSQL. */
  creatorsNamedByAny(subjects: Array<{ handle: string; provider: string; accountId: string }>): Awaitable<string[]>;
  writeTrust(id: string, fields: TrustFields): Awaitable<void>;
  /** The number of courses the creator passed (the course buff's input; the courses module counts them). */
  writeCoursesPassed(id: string, count: number): Awaitable<void>;
  /** Today's snapshot; a later recomputation the same day replaces it. */
  writeSnapshot(id: string, day: string, score: number): Awaitable<void>;
  /** The latest snapshot dated on or before `day`, else the oldest, else null. */
  trendFrom(id: string, day: string): Awaitable<number | null>;
  /** A page of creator ids in id order, after `after`. */
  creatorIdsAfter(after: string, limit: number): Awaitable<string[]>;
  /** A page of every creator in `order` (SQLite walks that order's index). */
  creatorsInOrder(order: CreatorOrder, limit: number, offset: number): Promise<DirectoryListRow[]>;
  /** Every creator. */
  countCreators(): Promise<number>;
  /** How many creators `scan` keeps, and a page of them in `order` (reads every creator: for while the directory index builds). */
  scanCreators(scan: CreatorScan, order: CreatorOrder, limit: number, offset: number): Promise<{ total: number; rows: DirectoryListRow[] }>;
  /** Creators verified at level 1 or more (the public counters; SQLite counts in slices). */
  countVerified(): Promise<number>;

  // The directory index's reads, keyed by `rowid` (SQLite's rowid, PostgreSQL's seq).
  /** Index rows past `rowid`, in rowid order. */
  indexRowsAfter(rowid: number, limit: number): Awaitable<DirectoryIndexRow[]>;
  /** Index rows of the creators `ids` names, in no particular order (unknown ones left out). */
  indexRowsByIds(ids: string[]): Awaitable<DirectoryIndexRow[]>;
  /** Rowids of the creators whose handle starts with `prefix`, read from the handle index. */
  rowidsByHandlePrefix(prefix: string): Awaitable<number[]>;
  /** The creators of `rowids`, in no particular order (unknown ones left out). */
  creatorsByRowids(rowids: number[]): Awaitable<DirectoryListRow[]>;

  /**
   * Public connections whose username, without case, is `lowerUsername`, in id order (keyless
   * search and resolve; src/modules/public/disclosure.ts decides what they may show).
   */
  publicConnectionsByUsername(lowerUsername: string, limit: number): Awaitable<ConnectionRow[]>;

  /** The same store answering synchronously, where the database can (SQLite); absent otherwise. */
  readonly sync?: CreatorsSyncStore;
  /** Many rows a statement, for the import that awaits its store: PostgreSQL only. */
  readonly many?: CreatorsManyStore;
}

/**
 * Writes of many rows in one statement each, for the import on PostgreSQL (a statement a line
 * was most of its time), inside the caller's transaction.
 */
export interface CreatorsManyStore {
  /** Inserts each creator whose handle and id are both free; the ids inserted. */
  insertCreatorsUnlessTaken(creators: NewCreator[]): Promise<Set<string>>;
  /** Inserts each link whose account is not linked yet and whose creator is stored; the places (in `links`) of those inserted. */
  insertConnectionsUnlessTaken(links: NewConnection[]): Promise<Set<number>>;
  /** The creators of `ids` that are stored, in no particular order. */
  creatorsByIds(ids: string[]): Promise<CreatorRow[]>;
  /** Each creator's `scoreBasis`, read with one grouped query per table for all of them. */
  scoreBases(creators: Array<Pick<CreatorRow, "id" | "handle">>, now: number): Promise<Map<string, ScoreBasis>>;
  /** `writeTrust` and `writeSnapshot` (of `day`) for every row, one statement each. */
  writeTrusts(rows: Array<{ id: string; fields: TrustFields }>, day: string): Promise<void>;
}

/**
 * The synchronous reads and writes a SQLite store offers besides the contract: the import's
 * transaction, a blacklist write's recomputation (inside the blacklist's synchronous transaction)
 * and the keyless hot reads run through them without a promise per statement.
 */
export interface CreatorsSyncStore {
  byHandle(handle: string): CreatorRow | null;
  byId(id: string): CreatorRow | null;
  insertCreator(creator: NewCreator): void;
  updateProfile(id: string, fields: ProfileFields, now: number): void;
  connectionByAccount(provider: string, accountId: string): ConnectionRow | null;
  insertConnection(connection: NewConnection): boolean;
  updateConnection(id: number, fields: ConnectionFields): void;
  scoreBasis(creator: Pick<CreatorRow, "id" | "handle">, now: number): ScoreBasis;
  creatorsNamedBy(handle: string, provider: string, accountId: string): string[];
  creatorsNamedByAny(subjects: Array<{ handle: string; provider: string; accountId: string }>): string[];
  /** Creators named by active entries stored past `afterRowid` (a bulk write's catch-up). */
  creatorsNamedSince(afterRowid: number): string[];
  writeTrust(id: string, fields: TrustFields): void;
  writeSnapshot(id: string, day: string, score: number): void;
  creatorCountNow(): number;
  /** Every creator row, read whole (the caller writes to the table afterwards). */
  allCreators(): CreatorRow[];
  /**
   * Every creator's score basis but the penalties (`everyPenalty`), in one grouped query per
   * table: the same rows `scoreBasis` reads for one creator, connections in the same order.
   */
  everyScoreBasisButPenalties(): Map<string, ScoreBasis>;
  /** The penalties of every creator that has any, by creator id, deduplicated per creator as `scoreBasis` does. */
  everyPenalty(now: number): Map<string, PenaltyRow[]>;
}

export function createCreatorsStore(database: Database): CreatorsStore {
  return database.dialect === "sqlite" ? new SqliteCreatorsStore(database) : new PostgresCreatorsStore(database);
}
