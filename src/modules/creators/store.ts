// The creators' tables (creators, connections, trust_snapshots) and the reads the Trust Score is
// computed from: the contract each database implements (store.sqlite.ts, store.postgres.ts, the only
// places their SQL lives) and the factory that picks one. SQLite answers synchronously (prepared
// statements), PostgreSQL with promises; the service awaits either. The paths that must stay
// synchronous on SQLite (the import, the badge, a blacklist write's recomputation) use the
// optional `sync` capability, which only the SQLite store offers.
import type { Database } from "../../db/database";
import { type ReadSnapshot, snapshotRows } from "../../db/snapshot";
import type { Provider } from "../../domain";
import type { EntryRow } from "../blacklist/service";
import { PostgresCreatorsStore } from "./store.postgres";
import { SqliteCreatorsStore } from "./store.sqlite";
import type { TrustBand } from "./trust";

export type Awaitable<T> = T | Promise<T>;

export interface CreatorRow {
  /** The directory index's key: SQLite's rowid, PostgreSQL's `seq` (both dense, in insertion order). */
  rowid: number;
  id: string;
  handle: string;
  display_name: string | null;
  verification_level: number;
  karma: number;
  joined_at: number;
  avatar_r2_key: string | null;
  created_at: number;
  updated_at: number;
  trust_score: number;
  trust_band: TrustBand;
  /** 0 or 1 on both databases. */
  blacklisted: number;
  trust_computed_at: number;
  linked_accounts: number;
  verified_connections: number;
  vouch_count: number;
  deal_count: number;
  review_count: number;
  review_sum: number;
  courses_passed: number;
  search_text: string;
  platforms: string;
}

export interface ConnectionRow {
  id: number;
  creator_id: string;
  provider: Provider;
  provider_user_id: string;
  provider_username: string | null;
  provider_url: string | null;
  verified_at: number | null;
  /** 0 or 1 on both databases. */
  public: number;
  created_at: number;
}

export type NewCreator = Pick<
  CreatorRow,
  "id" | "handle" | "display_name" | "verification_level" | "karma" | "joined_at" | "avatar_r2_key" | "created_at"
>;

export type ProfileFields = Pick<CreatorRow, "display_name" | "verification_level" | "karma" | "joined_at" | "avatar_r2_key">;

export type NewConnection = Omit<ConnectionRow, "id">;

export type ConnectionFields = Pick<ConnectionRow, "provider_username" | "provider_url" | "verified_at" | "public">;

/** What a recomputation writes on the creator row. */
export type TrustFields = Pick<
  CreatorRow,
  | "trust_score"
  | "trust_band"
  | "blacklisted"
  | "trust_computed_at"
  | "linked_accounts"
  | "verified_connections"
  | "vouch_count"
  | "deal_count"
  | "review_count"
  | "review_sum"
  | "search_text"
  | "platforms"
>;

export interface PenaltyRow {
  id: string;
  severity: EntryRow["severity"];
  high_risk: number;
  watchlist: number;
}

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
 * (search_text) holds it; `words`: holds every one; `handlePrefix`: the handle starts with it;
 * `platform`: one name of the comma-separated platform list.
 */
export interface CreatorScan {
  text: string | null;
  words: string[] | null;
  handlePrefix: string | null;
  platform: string | null;
}

/** What the in-memory directory index holds of one creator, keyed by `rowid`. */
export type DirectoryIndexRow = Pick<
  CreatorRow,
  "rowid" | "id" | "search_text" | "created_at" | "trust_score" | "vouch_count" | "deal_count" | "platforms"
>;

/**
 * What a directory item shows of one creator (public/directory.ts), with its `rowid`: the pages of
 * the directory read only these columns (a 100-row page of whole rows read 20-70 µs more).
 */
export type DirectoryListRow = Pick<
  CreatorRow,
  | "rowid"
  | "id"
  | "handle"
  | "display_name"
  | "verification_level"
  | "karma"
  | "avatar_r2_key"
  | "created_at"
  | "trust_score"
  | "vouch_count"
  | "deal_count"
  | "platforms"
  | "search_text"
>;

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
  updateProfile(id: string, fields: ProfileFields, now: number): Awaitable<void>;
  connectionByAccount(provider: string, accountId: string): Awaitable<ConnectionRow | null>;
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

export type CreatorExportRow = Pick<CreatorRow, "id" | "handle" | "display_name" | "verification_level" | "karma" | "joined_at" | "avatar_r2_key">;

/** Every creator's profile, oldest first, as of the export's snapshot. */
export async function* creatorsForExport(snapshot: ReadSnapshot): AsyncGenerator<CreatorExportRow> {
  const rows = snapshotRows<CreatorExportRow>(
    snapshot,
    "SELECT id, handle, display_name, verification_level, karma, joined_at, avatar_r2_key FROM creators ORDER BY created_at, id",
  );
  for await (const row of rows) yield { ...row, verification_level: Number(row.verification_level), karma: Number(row.karma), joined_at: Number(row.joined_at) };
}

export type ConnectionExportRow = Pick<ConnectionRow, "provider" | "provider_user_id" | "provider_username" | "provider_url" | "verified_at"> & {
  handle: string;
  public: boolean;
};

/** Every link with its creator's handle (joined here rather than held in memory), as of the export's snapshot. */
export async function* connectionsForExport(snapshot: ReadSnapshot): AsyncGenerator<ConnectionExportRow> {
  const rows = snapshotRows<ConnectionExportRow>(
    snapshot,
    `SELECT c.provider, c.provider_user_id, c.provider_username, c.provider_url, c.verified_at, c.public, cr.handle
     FROM connections c JOIN creators cr ON cr.id = c.creator_id ORDER BY c.id`,
  );
  for await (const row of rows) yield { ...row, verified_at: row.verified_at === null ? null : Number(row.verified_at), public: !!row.public };
}
