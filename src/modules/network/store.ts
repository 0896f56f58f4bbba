// The network's tables (vouches, deals, reviews, referrals, servers): the only place their SQL
// lives. SQLite answers synchronously (the import shares the service's synchronous paths);
// PostgreSQL with promises, every statement on `database.sql()` so it joins the caller's
// transaction. Inserts that repeat a unique key throw UniqueViolation.
import type { Statement } from "bun:sqlite";
import type { Store } from "../../db/client";
import type { Database } from "../../db/database";
import { countInSlices } from "../../db/count-slices";
import { asUniqueViolation } from "../../db/errors";
import { type ReadSnapshot, snapshotRows } from "../../db/snapshot";
import type { PostgresDatabase } from "../../db/postgres";
import type { DealStatus } from "../../domain";
import type { Awaitable } from "../creators/store";

export interface VouchRow {
  id: string;
  from_creator_id: string;
  to_creator_id: string;
  message: string | null;
  created_at: number;
}

export interface DealRow {
  id: string;
  from_creator_id: string;
  to_creator_id: string;
  status: DealStatus;
  created_at: number;
  updated_at: number;
}

/** A deal with its parties' handles. */
export type DealView = DealRow & { from_handle: string; to_handle: string };

export interface ReviewRow {
  id: string;
  deal_id: string;
  from_creator_id: string;
  to_creator_id: string;
  rating: number;
  created_at: number;
}

/** A vouch a creator received, with who gave it. */
export interface ReceivedVouchRow {
  id: string;
  message: string | null;
  created_at: number;
  handle: string;
  display_name: string | null;
  verification_level: number;
  avatar_r2_key: string | null;
}

/** A vouch a creator gave, with whom it went to. */
export interface GivenVouchRow {
  id: string;
  created_at: number;
  handle: string;
  display_name: string | null;
  avatar_r2_key: string | null;
  trust_score: number;
}

/** Where a page of vouches given starts: after this vouch in newest-first order. */
export interface VouchPosition {
  created_at: number;
  id: string;
}

/** A referral in storing order (`position`: SQLite's rowid, PostgreSQL's seq), with the referrer's handle. */
export interface StoredReferral {
  position: number;
  handle: string;
  created_at: number;
}

export interface ServerRow {
  name: string | null;
  created_at: number;
}

export interface NetworkStore {
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** Throws UniqueViolation when `from` already vouched for `to`. */
  insertVouch(vouch: VouchRow): Awaitable<void>;
  /** Throws UniqueViolation when the id is taken. */
  insertDeal(deal: DealRow): Awaitable<void>;
  dealById(id: string): Awaitable<DealView | null>;
  setDealStatus(id: string, status: DealStatus, now: number): Awaitable<void>;
  /** The newest completed deal between the two that `reviewer` has not reviewed yet comes first. */
  reviewableDeal(reviewerId: string, otherId: string): Awaitable<{ id: string; reviewed: boolean } | null>;
  insertReview(review: ReviewRow): Awaitable<void>;
  /** Throws UniqueViolation when `referred` was already referred. */
  insertReferral(referredId: string, referrerId: string, createdAt: number): Awaitable<void>;
  serverById(platform: string, serverId: string): Awaitable<ServerRow | null>;
  insertServer(platform: string, serverId: string, name: string | null, registeredBy: string, createdAt: number): Awaitable<void>;
  renameServer(platform: string, serverId: string, name: string | null): Awaitable<void>;
  deleteServer(platform: string, serverId: string): Awaitable<void>;
  /** Vouches `creatorId` received, newest first. */
  vouchesReceived(creatorId: string, limit: number, offset: number): Promise<ReceivedVouchRow[]>;
  /** Vouches `creatorId` gave, newest first, after `after` (keyset) or skipping `offset` rows. */
  vouchesGiven(creatorId: string, after: VouchPosition | null, offset: number, limit: number): Promise<GivenVouchRow[]>;
  /** How many vouches `creatorId` gave. */
  countVouchesGiven(creatorId: string): Promise<number>;
  /** Completed deals (the public counters; SQLite counts in slices). */
  countCompletedDeals(): Promise<number>;
  /** Servers registered (the public counters). */
  countServers(): Promise<number>;
  /**
   * The position of the last referral stored, 0 when none. Referrals are only ever inserted, in
   * position order as they commit, so it moves with every new one (the referral leaderboard).
   */
  lastReferralPosition(): Awaitable<number>;
  /** Referrals stored past `position`, in position order. */
  referralsAfter(position: number, limit: number): Awaitable<StoredReferral[]>;
}

export function createNetworkStore(database: Database): NetworkStore {
  return database.dialect === "sqlite" ? new SqliteNetworkStore(database) : new PostgresNetworkStore(database);
}

function translated<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw asUniqueViolation(error) ?? error;
  }
}

export class SqliteNetworkStore implements NetworkStore {
  private readonly insertVouchStatement: Statement;
  private readonly insertDealStatement: Statement;
  private readonly dealByIdStatement: Statement<DealView, [string]>;
  private readonly setDealStatusStatement: Statement;
  private readonly reviewableDealStatement: Statement<{ id: string; reviewed: number }, [string, string]>;
  private readonly insertReviewStatement: Statement;
  private readonly insertReferralStatement: Statement;
  private readonly serverByIdStatement: Statement<ServerRow, [string, string]>;
  private vouchesReceivedStatement: Statement<ReceivedVouchRow, [string, number, number]> | null = null;
  private readonly insertServerStatement: Statement;
  private readonly renameServerStatement: Statement;
  private readonly deleteServerStatement: Statement;
  private readonly lastReferralStatement: Statement<{ n: number }, []>;
  private readonly referralsAfterStatement: Statement<StoredReferral, [number, number]>;

  constructor(private readonly store: Store) {
    const db = store.sqlite;
    this.insertVouchStatement = db.prepare(
      "INSERT INTO vouches (id, from_creator_id, to_creator_id, message, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    );
    this.insertDealStatement = db.prepare(
      "INSERT INTO deals (id, from_creator_id, to_creator_id, status, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    );
    this.dealByIdStatement = db.prepare(
      `SELECT d.*, f.handle AS from_handle, t.handle AS to_handle
       FROM deals d JOIN creators f ON f.id = d.from_creator_id JOIN creators t ON t.id = d.to_creator_id
       WHERE d.id = ?`,
    );
    this.setDealStatusStatement = db.prepare("UPDATE deals SET status = ?2, updated_at = ?3 WHERE id = ?1");
    this.reviewableDealStatement = db.prepare(
      `SELECT d.id, EXISTS (SELECT 1 FROM reviews r WHERE r.deal_id = d.id AND r.from_creator_id = ?1) AS reviewed
       FROM deals d
       WHERE d.status = 'completed'
         AND ((d.from_creator_id = ?1 AND d.to_creator_id = ?2) OR (d.from_creator_id = ?2 AND d.to_creator_id = ?1))
       ORDER BY reviewed, d.updated_at DESC, d.id DESC LIMIT 1`,
    );
    this.insertReviewStatement = db.prepare(
      "INSERT INTO reviews (id, deal_id, from_creator_id, to_creator_id, rating, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    );
    this.insertReferralStatement = db.prepare("INSERT INTO referrals (referred_id, referrer_id, created_at) VALUES (?1, ?2, ?3)");
    this.serverByIdStatement = db.prepare("SELECT name, created_at FROM servers WHERE platform = ? AND server_id = ?");
    this.insertServerStatement = db.prepare(
      "INSERT INTO servers (platform, server_id, name, registered_by, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    );
    this.renameServerStatement = db.prepare("UPDATE servers SET name = ?3 WHERE platform = ?1 AND server_id = ?2");
    this.deleteServerStatement = db.prepare("DELETE FROM servers WHERE platform = ? AND server_id = ?");
    this.lastReferralStatement = db.prepare("SELECT coalesce(max(rowid), 0) AS n FROM referrals");
    this.referralsAfterStatement = db.prepare(
      `SELECT r.rowid AS position, c.handle, r.created_at FROM referrals r JOIN creators c ON c.id = r.referrer_id
       WHERE r.rowid > ? ORDER BY r.rowid LIMIT ?`,
    );
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.write(fn);
  }

  insertVouch(v: VouchRow): void {
    translated(() => this.insertVouchStatement.run(v.id, v.from_creator_id, v.to_creator_id, v.message, v.created_at));
  }

  insertDeal(d: DealRow): void {
    translated(() => this.insertDealStatement.run(d.id, d.from_creator_id, d.to_creator_id, d.status, d.created_at, d.updated_at));
  }

  dealById(id: string): DealView | null {
    return this.dealByIdStatement.get(id);
  }

  setDealStatus(id: string, status: DealStatus, now: number): void {
    this.setDealStatusStatement.run(id, status, now);
  }

  reviewableDeal(reviewerId: string, otherId: string): { id: string; reviewed: boolean } | null {
    const row = this.reviewableDealStatement.get(reviewerId, otherId);
    return row ? { id: row.id, reviewed: !!row.reviewed } : null;
  }

  insertReview(r: ReviewRow): void {
    translated(() => this.insertReviewStatement.run(r.id, r.deal_id, r.from_creator_id, r.to_creator_id, r.rating, r.created_at));
  }

  insertReferral(referredId: string, referrerId: string, createdAt: number): void {
    translated(() => this.insertReferralStatement.run(referredId, referrerId, createdAt));
  }

  serverById(platform: string, serverId: string): ServerRow | null {
    return this.serverByIdStatement.get(platform, serverId);
  }

  insertServer(platform: string, serverId: string, name: string | null, registeredBy: string, createdAt: number): void {
    translated(() => this.insertServerStatement.run(platform, serverId, name, registeredBy, createdAt));
  }

  renameServer(platform: string, serverId: string, name: string | null): void {
    this.renameServerStatement.run(platform, serverId, name);
  }

  deleteServer(platform: string, serverId: string): void {
    this.deleteServerStatement.run(platform, serverId);
  }

  async vouchesReceived(creatorId: string, limit: number, offset: number): Promise<ReceivedVouchRow[]> {
    this.vouchesReceivedStatement ??= this.store.sqlite.prepare(
      `SELECT v.id, v.message, v.created_at, c.handle, c.display_name, c.verification_level, c.avatar_r2_key
       FROM vouches v INDEXED BY vouches_to_idx JOIN creators c ON c.id = v.from_creator_id
       WHERE v.to_creator_id = ? ORDER BY v.created_at DESC, v.id DESC LIMIT ? OFFSET ?`,
    );
    return this.vouchesReceivedStatement.all(creatorId, limit, offset);
  }

  async vouchesGiven(creatorId: string, after: VouchPosition | null, offset: number, limit: number): Promise<GivenVouchRow[]> {
    // One creator's vouches are few (at most one per other creator): the pair index finds them and
    // the sort is over that handful.
    const columns = "v.id, v.created_at, c.handle, c.display_name, c.avatar_r2_key, c.trust_score";
    const from = "FROM vouches v JOIN creators c ON c.id = v.to_creator_id WHERE v.from_creator_id = ?1";
    if (after) {
      return this.store.sqlite
        .query<GivenVouchRow, [string, number, string, number]>(
          `SELECT ${columns} ${from} AND (v.created_at < ?2 OR (v.created_at = ?2 AND v.id < ?3)) ORDER BY v.created_at DESC, v.id DESC LIMIT ?4`,
        )
        .all(creatorId, after.created_at, after.id, limit);
    }
    return this.store.sqlite
      .query<GivenVouchRow, [string, number, number]>(`SELECT ${columns} ${from} ORDER BY v.created_at DESC, v.id DESC LIMIT ?2 OFFSET ?3`)
      .all(creatorId, limit, offset);
  }

  async countVouchesGiven(creatorId: string): Promise<number> {
    return this.store.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM vouches WHERE from_creator_id = ?").get(creatorId)!.n;
  }

  countCompletedDeals(): Promise<number> {
    return countInSlices(this.store.sqlite, "deals", "status = 'completed'");
  }

  async countServers(): Promise<number> {
    return this.store.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM servers").get()!.n;
  }

  /** One writer at a time: rowids commit in order. */
  lastReferralPosition(): number {
    return this.lastReferralStatement.get()!.n;
  }

  referralsAfter(position: number, limit: number): StoredReferral[] {
    return this.referralsAfterStatement.all(position, limit);
  }
}

async function translatedAsync<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw asUniqueViolation(error) ?? error;
  }
}

export class PostgresNetworkStore implements NetworkStore {
  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.database.write(fn);
  }

  async insertVouch(v: VouchRow): Promise<void> {
    await translatedAsync(this.sql`
      INSERT INTO vouches (id, from_creator_id, to_creator_id, message, created_at)
      VALUES (${v.id}, ${v.from_creator_id}, ${v.to_creator_id}, ${v.message}, ${v.created_at})`);
  }

  async insertDeal(d: DealRow): Promise<void> {
    await translatedAsync(this.sql`
      INSERT INTO deals (id, from_creator_id, to_creator_id, status, created_at, updated_at)
      VALUES (${d.id}, ${d.from_creator_id}, ${d.to_creator_id}, ${d.status}, ${d.created_at}, ${d.updated_at})`);
  }

  async dealById(id: string): Promise<DealView | null> {
    const [row] = await this.sql`
      SELECT d.*, f.handle AS from_handle, t.handle AS to_handle
      FROM deals d JOIN creators f ON f.id = d.from_creator_id JOIN creators t ON t.id = d.to_creator_id
      WHERE d.id = ${id}`;
    return row ? { ...row, created_at: Number(row.created_at), updated_at: Number(row.updated_at) } : null;
  }

  async setDealStatus(id: string, status: DealStatus, now: number): Promise<void> {
    await this.sql`UPDATE deals SET status = ${status}, updated_at = ${now} WHERE id = ${id}`;
  }

  async reviewableDeal(reviewerId: string, otherId: string): Promise<{ id: string; reviewed: boolean } | null> {
    const [row] = await this.sql`
      SELECT d.id, EXISTS (SELECT 1 FROM reviews r WHERE r.deal_id = d.id AND r.from_creator_id = ${reviewerId}) AS reviewed
      FROM deals d
      WHERE d.status = 'completed'
        AND ((d.from_creator_id = ${reviewerId} AND d.to_creator_id = ${otherId})
          OR (d.from_creator_id = ${otherId} AND d.to_creator_id = ${reviewerId}))
      ORDER BY reviewed, d.updated_at DESC, d.id DESC LIMIT 1`;
    return row ? { id: row.id, reviewed: !!row.reviewed } : null;
  }

  async insertReview(r: ReviewRow): Promise<void> {
    await translatedAsync(this.sql`
      INSERT INTO reviews (id, deal_id, from_creator_id, to_creator_id, rating, created_at)
      VALUES (${r.id}, ${r.deal_id}, ${r.from_creator_id}, ${r.to_creator_id}, ${r.rating}, ${r.created_at})`);
  }

  /**
   * Several instances insert at once, and a seq drawn first could commit last, behind a reader
   * that has moved past it: the table lock (which reads do not wait for) makes referrals commit in
   * seq order, as SQLite's single writer does with rowids. Referrals are one per new creator, so
   * taking turns costs nothing that matters.
   */
  async insertReferral(referredId: string, referrerId: string, createdAt: number): Promise<void> {
    await this.database.write(async () => {
      await this.sql`LOCK TABLE referrals IN SHARE ROW EXCLUSIVE MODE`;
      await translatedAsync(this.sql`
        INSERT INTO referrals (referred_id, referrer_id, created_at) VALUES (${referredId}, ${referrerId}, ${createdAt})`);
    });
  }

  async serverById(platform: string, serverId: string): Promise<ServerRow | null> {
    const [row] = await this.sql`SELECT name, created_at FROM servers WHERE platform = ${platform} AND server_id = ${serverId}`;
    return row ? { name: row.name, created_at: Number(row.created_at) } : null;
  }

  async insertServer(platform: string, serverId: string, name: string | null, registeredBy: string, createdAt: number): Promise<void> {
    await translatedAsync(this.sql`
      INSERT INTO servers (platform, server_id, name, registered_by, created_at)
      VALUES (${platform}, ${serverId}, ${name}, ${registeredBy}, ${createdAt})`);
  }

  async renameServer(platform: string, serverId: string, name: string | null): Promise<void> {
    await this.sql`UPDATE servers SET name = ${name} WHERE platform = ${platform} AND server_id = ${serverId}`;
  }

  async deleteServer(platform: string, serverId: string): Promise<void> {
    await this.sql`DELETE FROM servers WHERE platform = ${platform} AND server_id = ${serverId}`;
  }

  async vouchesReceived(creatorId: string, limit: number, offset: number): Promise<ReceivedVouchRow[]> {
    const rows = await this.sql`
      SELECT v.id, v.message, v.created_at, c.handle, c.display_name, c.verification_level, c.avatar_r2_key
      FROM vouches v JOIN creators c ON c.id = v.from_creator_id
      WHERE v.to_creator_id = ${creatorId} ORDER BY v.created_at DESC, v.id DESC LIMIT ${limit} OFFSET ${offset}`;
    return rows.map((row: ReceivedVouchRow) => ({ ...row, created_at: Number(row.created_at) }));
  }

  async vouchesGiven(creatorId: string, after: VouchPosition | null, offset: number, limit: number): Promise<GivenVouchRow[]> {
    const rows = after
      ? await this.sql`
          SELECT v.id, v.created_at, c.handle, c.display_name, c.avatar_r2_key, c.trust_score
          FROM vouches v JOIN creators c ON c.id = v.to_creator_id
          WHERE v.from_creator_id = ${creatorId} AND (v.created_at, v.id) < (${after.created_at}, ${after.id})
          ORDER BY v.created_at DESC, v.id DESC LIMIT ${limit}`
      : await this.sql`
          SELECT v.id, v.created_at, c.handle, c.display_name, c.avatar_r2_key, c.trust_score
          FROM vouches v JOIN creators c ON c.id = v.to_creator_id
          WHERE v.from_creator_id = ${creatorId} ORDER BY v.created_at DESC, v.id DESC LIMIT ${limit} OFFSET ${offset}`;
    return rows.map((row: GivenVouchRow) => ({ ...row, created_at: Number(row.created_at) }));
  }

  async countVouchesGiven(creatorId: string): Promise<number> {
    const [row] = await this.sql`SELECT count(*)::int AS n FROM vouches WHERE from_creator_id = ${creatorId}`;
    return row.n as number;
  }

  async countCompletedDeals(): Promise<number> {
    const [row] = await this.sql`SELECT count(*)::int AS n FROM deals WHERE status = 'completed'`;
    return row.n as number;
  }

  async countServers(): Promise<number> {
    const [row] = await this.sql`SELECT count(*)::int AS n FROM servers`;
    return row.n as number;
  }

  async lastReferralPosition(): Promise<number> {
    const [row] = await this.sql`SELECT coalesce(max(seq), 0) AS n FROM referrals`;
    return Number(row.n);
  }

  async referralsAfter(position: number, limit: number): Promise<StoredReferral[]> {
    const rows = await this.sql`
      SELECT r.seq, c.handle, r.created_at FROM referrals r JOIN creators c ON c.id = r.referrer_id
      WHERE r.seq > ${position} ORDER BY r.seq LIMIT ${limit}`;
    return rows.map((row: { seq: string; handle: string; created_at: string }) => ({
      position: Number(row.seq),
      handle: row.handle,
      created_at: Number(row.created_at),
    }));
  }
}

// ---- the export's reads, on its snapshot: creators named by handle, joined per table ----------

type Pair = { from_handle: string; to_handle: string; created_at: number };

async function* pairsForExport<T extends Pair>(snapshot: ReadSnapshot, table: string, from: string, to: string, columns: string, order: string): AsyncGenerator<T> {
  const rows = snapshotRows<T>(
    snapshot,
    `SELECT ${columns}, x.created_at, f.handle AS from_handle, t.handle AS to_handle FROM ${table} x
     JOIN creators f ON f.id = x.${from} JOIN creators t ON t.id = x.${to} ORDER BY ${order}`,
  );
  for await (const row of rows) yield { ...row, created_at: Number(row.created_at) };
}

export const dealsForExport = (snapshot: ReadSnapshot) =>
  pairsForExport<Pair & { id: string; status: DealStatus }>(snapshot, "deals", "from_creator_id", "to_creator_id", "x.id, x.status", "x.created_at, x.id");

export async function* reviewsForExport(snapshot: ReadSnapshot): AsyncGenerator<Pair & { rating: number }> {
  const rows = pairsForExport<Pair & { rating: number }>(snapshot, "reviews", "from_creator_id", "to_creator_id", "x.rating", "x.created_at, x.id");
  for await (const row of rows) yield { ...row, rating: Number(row.rating) };
}

export const vouchesForExport = (snapshot: ReadSnapshot) =>
  pairsForExport<Pair & { message: string | null }>(snapshot, "vouches", "from_creator_id", "to_creator_id", "x.message", "x.created_at, x.id");

export const referralsForExport = (snapshot: ReadSnapshot) =>
  pairsForExport<Pair>(snapshot, "referrals", "referrer_id", "referred_id", "x.referred_id", "x.created_at, x.referred_id");

export async function* serversForExport(snapshot: ReadSnapshot): AsyncGenerator<{ platform: string; server_id: string; name: string | null; created_at: number }> {
  const rows = snapshotRows<{ platform: string; server_id: string; name: string | null; created_at: number }>(
    snapshot,
    "SELECT platform, server_id, name, created_at FROM servers ORDER BY created_at, platform, server_id",
  );
  for await (const row of rows) yield { ...row, created_at: Number(row.created_at) };
}
