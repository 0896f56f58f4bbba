// The creators' tables on SQLite (the contract: store.ts): prepared statements that answer
// synchronously, so the store also offers the contract's `sync` capability. Rows come back under
// their tables' field names (the aliases are in the prepared SQL); only rows holding a flag
// (`blacklisted`, a connection's `public`, a penalty's `highRisk` and `watchlist`: 0 or 1 here)
// go through their table's reader. The directory's rows hold none and are handed on as read.
import type { Database, Statement } from "bun:sqlite";
import type { Store } from "../../db/client";
import { countInSlices } from "../../db/count-slices";
import { asUniqueViolation } from "../../db/errors";
import { columnsOf, rowReader } from "../../db/rows";
import { suspendTriggers } from "../../db/search-index";
import { blacklistEntries } from "../blacklist/tables";
import type {
  ConnectionFields,
  ConnectionRow,
  CreatorOrder,
  CreatorRow,
  CreatorScan,
  CreatorsStore,
  CreatorsSyncStore,
  DirectoryIndexRow,
  DirectoryListRow,
  NewConnection,
  NewCreator,
  PenaltyRow,
  ProfileFields,
  ScoreBasis,
  TrustFields,
} from "./store";
import { DIRECTORY_INDEX_FIELDS, DIRECTORY_LIST_FIELDS, emptyScoreBasis, PENALTY_FIELDS } from "./store.shared";
import { connections, creators } from "./tables";

// biome-ignore lint/suspicious/noExplicitAny: driver rows are untyped until read
type Raw = any;

const CREATOR_COLUMNS = `rowid, ${columnsOf(creators)}`;
/** The table's reader, with the `rowid` beside its columns (an integer already). */
const readCreator = rowReader(creators) as (raw: Raw) => CreatorRow;
const CONNECTION_COLUMNS = columnsOf(connections);
const readConnection = rowReader(connections);
const PENALTY_COLUMNS_OF_E = columnsOf(blacklistEntries, PENALTY_FIELDS, "e");
const readPenalty = rowReader(blacklistEntries, PENALTY_FIELDS);
const INDEX_COLUMNS = `rowid, ${columnsOf(creators, DIRECTORY_INDEX_FIELDS)}`;
const LIST_COLUMNS = `rowid, ${columnsOf(creators, DIRECTORY_LIST_FIELDS)}`;

/** Each order's ORDER BY, and the index that holds it. */
const ORDER_SQL: Record<CreatorOrder, string> = {
  newest: "created_at DESC, id",
  trust: "trust_score DESC, id",
  vouches: "vouch_count DESC, id",
  deals: "deal_count DESC, id",
};
const ORDER_INDEX: Record<CreatorOrder, string> = {
  newest: "creators_newest_idx",
  trust: "creators_trust_idx",
  vouches: "creators_vouches_idx",
  deals: "creators_deals_idx",
};

/** A CreatorScan in SQL: ?1 text, ?2 words (JSON), ?3 handle prefix, ?4 platform. */
const SCAN_WHERE = `(?1 IS NULL OR instr(search_text, ?1) > 0)
  AND (?2 IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(?2) WHERE instr(search_text, value) = 0))
  AND (?3 IS NULL OR (handle >= ?3 AND handle < ?3 || '~'))
  AND (?4 IS NULL OR instr(',' || platforms || ',', ',' || ?4 || ',') > 0)`;
type ScanParams = [string | null, string | null, string | null, string | null];

/** Triggers counting creator writes in meta.creators_version (migration 0006). */
const CREATORS_VERSION_TRIGGERS = ["creators_version_ai", "creators_version_au"];

export class SqliteCreatorsStore implements CreatorsStore, CreatorsSyncStore {
  /** Every method here answers synchronously: the store is its own synchronous capability. */
  readonly sync: CreatorsSyncStore = this;
  private readonly sqlite: Database;
  private scanCount: Statement<{ n: number }, ScanParams> | null = null;
  private readonly scanStatements: Partial<Record<CreatorOrder, Statement<DirectoryListRow, [...ScanParams, number, number]>>> = {};
  private readonly inOrderStatements: Partial<Record<CreatorOrder, Statement<DirectoryListRow, [number, number]>>> = {};
  private readonly byHandleStatement: Statement<Raw, [string]>;
  private readonly byIdStatement: Statement<Raw, [string]>;
  private readonly insertCreatorStatement: Statement;
  private readonly updateProfileStatement: Statement;
  private readonly connectionByAccountStatement: Statement<Raw, [string, string]>;
  private readonly connectionsOfStatement: Statement<Raw, [string]>;
  private readonly byAccountsStatements: Array<Statement<Raw, string[]>> = [];
  private readonly insertConnectionStatement: Statement;
  private readonly updateConnectionStatement: Statement;
  private readonly deleteConnectionStatement: Statement;
  private readonly countVouches: Statement<{ n: number }, [string]>;
  private readonly countDeals: Statement<{ n: number }, [string]>;
  private readonly reviewTotals: Statement<{ n: number; sum: number | null }, [string]>;
  private readonly penaltyRows: Statement<Raw, [string, string, number]>;
  private readonly creatorsNamedByStatement: Statement<{ id: string }, [string, string, string]>;
  private readonly creatorsNamedSinceStatement: Statement<{ id: string }, [number]>;
  private readonly writeTrustStatement: Statement;
  private readonly writeSnapshotStatement: Statement;
  private readonly snapshotOnOrBefore: Statement<{ score: number }, [string, string]>;
  private readonly oldestSnapshot: Statement<{ score: number }, [string]>;
  private readonly idsAfter: Statement<{ id: string }, [string, number]>;
  private readonly indexRowsAfterStatement: Statement<DirectoryIndexRow, [number, number]>;
  private readonly indexRowsByIdsStatement: Statement<DirectoryIndexRow, [string]>;
  private readonly rowidsByHandlePrefixStatement: Statement<{ rowid: number }, [string, string]>;
  private readonly creatorsByRowidsStatement: Statement<DirectoryListRow, [string]>;
  /** By limit: see `publicConnectionsByUsername`. */
  private readonly publicConnectionsByUsernameStatements: Array<Statement<Raw, [string]>> = [];

  constructor(private readonly store: Store) {
    const db = (this.sqlite = store.sqlite);
    this.byHandleStatement = db.prepare(`SELECT ${CREATOR_COLUMNS} FROM creators WHERE handle = ?`);
    this.byIdStatement = db.prepare(`SELECT ${CREATOR_COLUMNS} FROM creators WHERE id = ?`);
    this.insertCreatorStatement = db.prepare(
      `INSERT INTO creators (id, handle, display_name, verification_level, karma, joined_at, avatar_r2_key, created_at,
         updated_at, trust_computed_at, search_text)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?8, ?2)`,
    );
    this.updateProfileStatement = db.prepare(
      `UPDATE creators SET display_name = ?2, verification_level = ?3, karma = ?4, joined_at = ?5, avatar_r2_key = ?6,
         updated_at = ?7 WHERE id = ?1`,
    );
    this.connectionByAccountStatement = db.prepare(`SELECT ${CONNECTION_COLUMNS} FROM connections WHERE provider = ? AND provider_user_id = ?`);
    // Ordered by `connectionsOf`: with an ORDER BY beside its bound `=`, SQLite prepared the
    // statement again at every run (see `publicConnectionsByUsername`): 16 us a call on the bench
    // data, against 8.
    this.connectionsOfStatement = db.prepare(`SELECT ${CONNECTION_COLUMNS} FROM connections WHERE creator_id = ?`);
    this.insertConnectionStatement = db.prepare(
      `INSERT INTO connections (creator_id, provider, provider_user_id, provider_username, provider_url, verified_at, public, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (provider, provider_user_id) DO NOTHING`,
    );
    this.updateConnectionStatement = db.prepare(
      "UPDATE connections SET provider_username = ?2, provider_url = ?3, verified_at = ?4, public = ?5 WHERE id = ?1",
    );
    this.deleteConnectionStatement = db.prepare("DELETE FROM connections WHERE id = ?");
    this.countVouches = db.prepare("SELECT count(*) AS n FROM vouches WHERE to_creator_id = ?");
    this.countDeals = db.prepare(
      `SELECT (SELECT count(*) FROM deals WHERE from_creator_id = ?1 AND status = 'completed')
            + (SELECT count(*) FROM deals WHERE to_creator_id = ?1 AND status = 'completed') AS n`,
    );
    this.reviewTotals = db.prepare("SELECT count(*) AS n, sum(rating) AS sum FROM reviews WHERE to_creator_id = ?");
    // Active rows naming the creator directly or through any of its connections, each row once.
    this.penaltyRows = db.prepare(
      `SELECT ${columnsOf(blacklistEntries, PENALTY_FIELDS)} FROM blacklist_entries INDEXED BY blacklist_creator_idx
       WHERE creator_handle = ?1 AND status = 'active' AND (expires_at IS NULL OR expires_at > ?3)
       UNION
       SELECT ${PENALTY_COLUMNS_OF_E}
       FROM connections c JOIN blacklist_entries e ON e.provider = c.provider AND e.provider_user_id = c.provider_user_id
       WHERE c.creator_id = ?2 AND e.status = 'active' AND (e.expires_at IS NULL OR e.expires_at > ?3)`,
    );
    this.creatorsNamedByStatement = db.prepare(
      `SELECT id FROM creators WHERE handle = ?1
       UNION SELECT creator_id FROM connections WHERE provider = ?2 AND provider_user_id = ?3`,
    );
    // Connections are fewer than a bulk write's entries: each is looked up in the subject index.
    this.creatorsNamedSinceStatement = db.prepare(
      `SELECT id FROM creators WHERE handle IN (
         SELECT creator_handle FROM blacklist_entries WHERE rowid > ?1 AND status = 'active' AND creator_handle IS NOT NULL)
       UNION
       SELECT c.creator_id FROM connections c WHERE EXISTS (
         SELECT 1 FROM blacklist_entries e
         WHERE e.provider = c.provider AND e.provider_user_id = c.provider_user_id AND e.rowid > ?1 AND e.status = 'active')`,
    );
    this.writeTrustStatement = db.prepare(
      `UPDATE creators SET trust_score = ?2, trust_band = ?3, blacklisted = ?4, trust_computed_at = ?5, linked_accounts = ?6,
         verified_connections = ?7, vouch_count = ?8, deal_count = ?9, review_count = ?10, review_sum = ?11,
         search_text = ?12, platforms = ?13
       WHERE id = ?1`,
    );
    this.writeSnapshotStatement = db.prepare(
      `INSERT INTO trust_snapshots (creator_id, day, score) VALUES (?1, ?2, ?3)
       ON CONFLICT (creator_id, day) DO UPDATE SET score = excluded.score`,
    );
    this.snapshotOnOrBefore = db.prepare(
      "SELECT score FROM trust_snapshots WHERE creator_id = ? AND day <= ? ORDER BY day DESC LIMIT 1",
    );
    this.oldestSnapshot = db.prepare("SELECT score FROM trust_snapshots WHERE creator_id = ? ORDER BY day LIMIT 1");
    this.idsAfter = db.prepare("SELECT id FROM creators WHERE id > ? ORDER BY id LIMIT ?");
    this.indexRowsAfterStatement = db.prepare(`SELECT ${INDEX_COLUMNS} FROM creators WHERE rowid > ? ORDER BY rowid LIMIT ?`);
    this.indexRowsByIdsStatement = db.prepare(`SELECT ${INDEX_COLUMNS} FROM creators WHERE id IN (SELECT value FROM json_each(?))`);
    // '~' sorts after every character a handle may hold.
    this.rowidsByHandlePrefixStatement = db.prepare("SELECT rowid FROM creators WHERE handle >= ?1 AND handle < ?2");
    this.creatorsByRowidsStatement = db.prepare(`SELECT ${LIST_COLUMNS} FROM creators WHERE rowid IN (SELECT value FROM json_each(?))`);
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.write(fn);
  }

  async holdVersion(): Promise<() => Promise<void>> {
    // Dropped inside the caller's transaction: a rollback brings them back by itself.
    const resume = suspendTriggers(this.sqlite, CREATORS_VERSION_TRIGGERS);
    return async () => {
      resume();
      this.sqlite.run("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'creators_version'");
    };
  }

  byHandle(handle: string): CreatorRow | null {
    const row = this.byHandleStatement.get(handle);
    return row && readCreator(row);
  }

  byId(id: string): CreatorRow | null {
    const row = this.byIdStatement.get(id);
    return row && readCreator(row);
  }

  insertCreatorUnlessTaken(c: NewCreator): boolean {
    const taken = this.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM creators WHERE handle = ?").get(c.handle)!.n > 0;
    if (!taken) this.insertCreator(c);
    return !taken;
  }

  insertCreator(c: NewCreator): void {
    try {
      this.insertCreatorStatement.run(c.id, c.handle, c.displayName, c.verificationLevel, c.karma, c.joinedAt, c.avatarR2Key, c.createdAt);
    } catch (error) {
      throw asUniqueViolation(error) ?? error;
    }
  }

  updateProfile(id: string, f: ProfileFields, now: number): void {
    this.updateProfileStatement.run(id, f.displayName, f.verificationLevel, f.karma, f.joinedAt, f.avatarR2Key, now);
  }

  connectionByAccount(provider: string, accountId: string): ConnectionRow | null {
    const row = this.connectionByAccountStatement.get(provider, accountId);
    return row && readConnection(row);
  }

  connectionsByAccounts(accounts: ReadonlyArray<{ provider: string; id: string }>): ConnectionRow[] {
    if (accounts.length === 0) return [];
    // One arm per account on the unique (provider, provider_user_id) index, a statement kept per
    // count: a name-like search fits seven platforms' id syntax.
    const statement = (this.byAccountsStatements[accounts.length] ??= this.sqlite.prepare(
      accounts.map((_, i) => `SELECT ${CONNECTION_COLUMNS} FROM connections WHERE provider = ?${2 * i + 1} AND provider_user_id = ?${2 * i + 2}`).join(" UNION ALL "),
    ));
    return statement.all(...accounts.flatMap((account) => [account.provider, account.id])).map(readConnection);
  }

  connectionsOf(creatorId: string): ConnectionRow[] {
    return this.connectionsOfStatement
      .all(creatorId)
      .map(readConnection)
      .sort((a, b) => a.createdAt - b.createdAt || a.id - b.id);
  }

  insertConnection(c: NewConnection): boolean {
    const result = this.insertConnectionStatement.run(
      c.creatorId,
      c.provider,
      c.providerUserId,
      c.providerUsername,
      c.providerUrl,
      c.verifiedAt,
      c.public,
      c.createdAt,
    );
    return result.changes > 0;
  }

  updateConnection(id: number, f: ConnectionFields): void {
    this.updateConnectionStatement.run(id, f.providerUsername, f.providerUrl, f.verifiedAt, f.public);
  }

  deleteConnection(id: number): void {
    this.deleteConnectionStatement.run(id);
  }

  scoreBasis(creator: Pick<CreatorRow, "id" | "handle">, now: number): ScoreBasis {
    return {
      connections: this.connectionsOf(creator.id),
      vouches: this.countVouches.get(creator.id)!.n,
      deals: this.countDeals.get(creator.id)!.n,
      reviews: this.reviewTotals.get(creator.id)!,
      penalties: this.penaltyRows.all(creator.handle, creator.id, now).map(readPenalty),
    };
  }

  creatorsNamedByAny(subjects: Array<{ handle: string; provider: string; accountId: string }>): string[] {
    const ids = new Set<string>();
    for (const { handle, provider, accountId } of subjects) for (const id of this.creatorsNamedBy(handle, provider, accountId)) ids.add(id);
    return [...ids];
  }

  creatorsNamedBy(handle: string, provider: string, accountId: string): string[] {
    return this.creatorsNamedByStatement.all(handle, provider, accountId).map((row) => row.id);
  }

  /** Creators named by active entries stored past `afterRowid` (a bulk write's catch-up). */
  creatorsNamedSince(afterRowid: number): string[] {
    return this.creatorsNamedSinceStatement.all(afterRowid).map((row) => row.id);
  }

  writeTrust(id: string, t: TrustFields): void {
    this.writeTrustStatement.run(
      id,
      t.trustScore,
      t.trustBand,
      t.blacklisted,
      t.trustComputedAt,
      t.linkedAccounts,
      t.verifiedConnections,
      t.vouchCount,
      t.dealCount,
      t.reviewCount,
      t.reviewSum,
      t.searchText,
      t.platforms,
    );
  }

  writeCoursesPassed(id: string, count: number): void {
    this.store.sqlite.query("UPDATE creators SET courses_passed = ?2 WHERE id = ?1").run(id, count);
  }

  writeSnapshot(id: string, day: string, score: number): void {
    this.writeSnapshotStatement.run(id, day, score);
  }

  trendFrom(id: string, day: string): number | null {
    return (this.snapshotOnOrBefore.get(id, day) ?? this.oldestSnapshot.get(id))?.score ?? null;
  }

  creatorIdsAfter(after: string, limit: number): string[] {
    return this.idsAfter.all(after, limit).map((row) => row.id);
  }

  /** Every creator row, read whole (the caller writes to the table afterwards). */
  allCreators(): CreatorRow[] {
    return this.sqlite.query<Raw, []>(`SELECT ${CREATOR_COLUMNS} FROM creators`).all().map(readCreator);
  }

  /**
   * Every creator's score basis but the penalties (`everyPenalty`), in one grouped query per
   * table: the same rows `scoreBasis` reads for one creator, connections in the same order.
   */
  everyScoreBasisButPenalties(): Map<string, ScoreBasis> {
    const all = new Map<string, ScoreBasis>();
    const of = (id: string) => {
      let basis = all.get(id);
      if (!basis) all.set(id, (basis = emptyScoreBasis()));
      return basis;
    };
    const db = this.sqlite;
    for (const raw of db.query<Raw, []>(`SELECT ${CONNECTION_COLUMNS} FROM connections ORDER BY creator_id, created_at, id`).iterate()) {
      const c = readConnection(raw);
      of(c.creatorId).connections.push(c);
    }
    for (const v of db.query<{ id: string; n: number }, []>("SELECT to_creator_id AS id, count(*) AS n FROM vouches GROUP BY to_creator_id").iterate()) {
      of(v.id).vouches = v.n;
    }
    const deals = db.query<{ id: string; n: number }, []>(
      `SELECT from_creator_id AS id, count(*) AS n FROM deals WHERE status = 'completed' GROUP BY from_creator_id
       UNION ALL
       SELECT to_creator_id AS id, count(*) AS n FROM deals WHERE status = 'completed' GROUP BY to_creator_id`,
    );
    for (const d of deals.iterate()) of(d.id).deals += d.n;
    const reviews = db.query<{ id: string; n: number; sum: number | null }, []>(
      "SELECT to_creator_id AS id, count(*) AS n, sum(rating) AS sum FROM reviews GROUP BY to_creator_id",
    );
    for (const r of reviews.iterate()) of(r.id).reviews = { n: r.n, sum: r.sum };
    return all;
  }

  /** The penalties of every creator that has any, by creator id: `scoreBasis`'s, deduplicated per creator as its UNION does. */
  everyPenalty(now: number): Map<string, PenaltyRow[]> {
    const all = new Map<string, PenaltyRow[]>();
    // Without statistics (a fresh import) the planner scanned all of blacklist_entries and looked
    // each entry up among the connections: 2 s at 1M entries. Entries are the larger side, so each
    // connection is looked up in the subject index instead (CROSS JOIN keeps that order), and
    // only the named entries of the creator index are read (the NULLs sort first): 0.2 s. The
    // connections are walked in account order, the subject index's own, so one look-up lands
    // next to the last: 0.17 s for 300k connections against 0.7 s in creator order.
    const penalties = this.sqlite.query<Raw, [number]>(
      `SELECT c.id AS "creatorId", ${PENALTY_COLUMNS_OF_E}
       FROM creators c JOIN blacklist_entries e INDEXED BY blacklist_creator_idx ON e.creator_handle = c.handle
       WHERE e.creator_handle IS NOT NULL AND e.status = 'active' AND (e.expires_at IS NULL OR e.expires_at > ?1)
       UNION
       SELECT c.creator_id, ${PENALTY_COLUMNS_OF_E}
       FROM connections c INDEXED BY connections_account_idx CROSS JOIN blacklist_entries e INDEXED BY blacklist_subject_idx
         ON e.provider = c.provider AND e.provider_user_id = c.provider_user_id
       WHERE e.status = 'active' AND (e.expires_at IS NULL OR e.expires_at > ?1)`,
    );
    for (const { creatorId, ...penalty } of penalties.iterate(now)) {
      const found = all.get(creatorId);
      if (found) found.push(readPenalty(penalty));
      else all.set(creatorId, [readPenalty(penalty)]);
    }
    return all;
  }

  async creatorsInOrder(order: CreatorOrder, limit: number, offset: number): Promise<DirectoryListRow[]> {
    const statement = (this.inOrderStatements[order] ??= this.sqlite.prepare(
      `SELECT ${LIST_COLUMNS} FROM creators INDEXED BY ${ORDER_INDEX[order]} ORDER BY ${ORDER_SQL[order]} LIMIT ? OFFSET ?`,
    ));
    return statement.all(limit, offset);
  }

  async scanCreators(scan: CreatorScan, order: CreatorOrder, limit: number, offset: number): Promise<{ total: number; rows: DirectoryListRow[] }> {
    const params: ScanParams = [scan.text, scan.words && JSON.stringify(scan.words), scan.handlePrefix, scan.platform];
    this.scanCount ??= this.sqlite.prepare(`SELECT count(*) AS n FROM creators WHERE ${SCAN_WHERE}`);
    const total = this.scanCount.get(...params)!.n;
    if (offset >= total) return { total, rows: [] };
    // NOT INDEXED: the scan reads every creator anyway, and walking the order's index instead (the
    // planner's choice, to skip the sort) looked each one up by rowid: 150-480 ms at 100k creators
    // against 37 ms for the table read in order with a bounded sort.
    const statement = (this.scanStatements[order] ??= this.sqlite.prepare(
      `SELECT ${LIST_COLUMNS} FROM creators NOT INDEXED WHERE ${SCAN_WHERE} ORDER BY ${ORDER_SQL[order]} LIMIT ?5 OFFSET ?6`,
    ));
    return { total, rows: statement.all(...params, limit, offset) };
  }

  async countCreators(): Promise<number> {
    return this.creatorCountNow();
  }

  creatorCountNow(): number {
    return this.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM creators").get()!.n;
  }

  countVerified(): Promise<number> {
    return countInSlices(this.sqlite, "creators", "verification_level >= 1");
  }

  indexRowsAfter(rowid: number, limit: number): DirectoryIndexRow[] {
    return this.indexRowsAfterStatement.all(rowid, limit);
  }

  indexRowsByIds(ids: string[]): DirectoryIndexRow[] {
    return this.indexRowsByIdsStatement.all(JSON.stringify(ids));
  }

  rowidsByHandlePrefix(prefix: string): number[] {
    return this.rowidsByHandlePrefixStatement.all(prefix, `${prefix}~`).map((row) => row.rowid);
  }

  creatorsByRowids(rowids: number[]): DirectoryListRow[] {
    return this.creatorsByRowidsStatement.all(JSON.stringify(rowids));
  }

  publicConnectionsByUsername(lowerUsername: string, limit: number): ConnectionRow[] {
    if (!Number.isSafeInteger(limit) || limit < 1) return [];
    // A statement per limit (the callers use one or two), its LIMIT written in: SQLite prepares a
    // statement again at every run when a bound value may change its plan, which a bound LIMIT
    // and an ORDER BY beside a bound `=` both do. The lowest ids come first without ORDER BY: the
    // index holds each name's rows by rowid, which `id` is, and INDEXED BY makes it the one read.
    // On the bench data 5 us a call, against 12 with ORDER BY and a bound LIMIT.
    const statement = (this.publicConnectionsByUsernameStatements[limit] ??= this.sqlite.prepare(
      `SELECT ${CONNECTION_COLUMNS} FROM connections INDEXED BY connections_username_idx
       WHERE lower(provider_username) = ? AND public LIMIT ${limit}`,
    ));
    return statement.all(lowerUsername).map(readConnection);
  }
}
