// The network's tables on SQLite (the contract: store.ts): prepared statements that answer
// synchronously, so the store also offers the contract's `sync` capability (the import).
import type { Statement } from "bun:sqlite";
import type { Store } from "../../db/client";
import { countInSlices } from "../../db/count-slices";
import { asUniqueViolation } from "../../db/errors";
import { columnsOf } from "../../db/rows";
import type { DealStatus } from "../../domain";
import { creators } from "../creators/tables";
import type {
  DealRow,
  DealView,
  GivenVouchRow,
  NetworkStore,
  NetworkSyncStore,
  ReceivedVouchRow,
  ReviewRow,
  ServerRow,
  StoredReferral,
  VouchPosition,
  VouchRow,
} from "./store";
import { deals, servers, vouches } from "./tables";

function translated<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw asUniqueViolation(error) ?? error;
  }
}

/** A deal with its parties' handles, `d` joined to `f` and `t`. */
const DEAL_VIEW_COLUMNS = `${columnsOf(deals, undefined, "d")}, f.handle AS "fromHandle", t.handle AS "toHandle"`;
const GIVEN_COLUMNS = `${columnsOf(vouches, ["id", "createdAt"], "v")}, ${columnsOf(creators, ["handle", "displayName", "avatarR2Key", "trustScore"], "c")}`;

export class SqliteNetworkStore implements NetworkStore, NetworkSyncStore {
  /** Every method here answers synchronously: the store is its own synchronous capability. */
  readonly sync: NetworkSyncStore = this;
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
      `SELECT ${DEAL_VIEW_COLUMNS}
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
    this.serverByIdStatement = db.prepare(`SELECT ${columnsOf(servers, ["name", "createdAt"])} FROM servers WHERE platform = ? AND server_id = ?`);
    this.insertServerStatement = db.prepare(
      "INSERT INTO servers (platform, server_id, name, registered_by, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    );
    this.renameServerStatement = db.prepare("UPDATE servers SET name = ?3 WHERE platform = ?1 AND server_id = ?2");
    this.deleteServerStatement = db.prepare("DELETE FROM servers WHERE platform = ? AND server_id = ?");
    this.lastReferralStatement = db.prepare("SELECT coalesce(max(rowid), 0) AS n FROM referrals");
    this.referralsAfterStatement = db.prepare(
      `SELECT r.rowid AS position, c.handle, r.created_at AS "createdAt" FROM referrals r JOIN creators c ON c.id = r.referrer_id
       WHERE r.rowid > ? ORDER BY r.rowid LIMIT ?`,
    );
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.write(fn);
  }

  insertVouch(v: VouchRow): void {
    translated(() => this.insertVouchStatement.run(v.id, v.fromCreatorId, v.toCreatorId, v.message, v.createdAt));
  }

  insertDeal(d: DealRow): void {
    translated(() => this.insertDealStatement.run(d.id, d.fromCreatorId, d.toCreatorId, d.status, d.createdAt, d.updatedAt));
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
    translated(() => this.insertReviewStatement.run(r.id, r.dealId, r.fromCreatorId, r.toCreatorId, r.rating, r.createdAt));
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
      `SELECT ${columnsOf(vouches, ["id", "message", "createdAt"], "v")}, ${columnsOf(creators, ["handle", "displayName", "verificationLevel", "avatarR2Key"], "c")}
       FROM vouches v INDEXED BY vouches_to_idx JOIN creators c ON c.id = v.from_creator_id
       WHERE v.to_creator_id = ? ORDER BY v.created_at DESC, v.id DESC LIMIT ? OFFSET ?`,
    );
    return this.vouchesReceivedStatement.all(creatorId, limit, offset);
  }

  async vouchesGiven(creatorId: string, after: VouchPosition | null, offset: number, limit: number): Promise<GivenVouchRow[]> {
    // One creator's vouches are few (at most one per other creator): the pair index finds them and
    // the sort is over that handful.
    const from = "FROM vouches v JOIN creators c ON c.id = v.to_creator_id WHERE v.from_creator_id = ?1";
    if (after) {
      return this.store.sqlite
        .query<GivenVouchRow, [string, number, string, number]>(
          `SELECT ${GIVEN_COLUMNS} ${from} AND (v.created_at < ?2 OR (v.created_at = ?2 AND v.id < ?3)) ORDER BY v.created_at DESC, v.id DESC LIMIT ?4`,
        )
        .all(creatorId, after.createdAt, after.id, limit);
    }
    return this.store.sqlite
      .query<GivenVouchRow, [string, number, number]>(`SELECT ${GIVEN_COLUMNS} ${from} ORDER BY v.created_at DESC, v.id DESC LIMIT ?2 OFFSET ?3`)
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
