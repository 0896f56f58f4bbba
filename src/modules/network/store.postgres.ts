// The network's tables on PostgreSQL through Bun.SQL (the contract: store.ts). Every statement runs
// on `database.sql()`, so it joins the caller's transaction; bigint times come back as numbers
// through the tables' row readers.
import { asUniqueViolation } from "../../db/errors";
import type { PostgresDatabase } from "../../db/postgres";
import { columnsOf, rowReader } from "../../db/rows";
import type { DealStatus } from "../../domain";
import { creatorsPg } from "../creators/tables";
import type {
  DealRow,
  DealView,
  GivenVouchRow,
  NetworkStore,
  ReceivedVouchRow,
  ReviewRow,
  ServerRow,
  StoredReferral,
  VouchPosition,
  VouchRow,
} from "./store";
import { dealsPg, serversPg, vouchesPg } from "./tables";

async function translatedAsync<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw asUniqueViolation(error) ?? error;
  }
}

const DEAL_VIEW_COLUMNS = `${columnsOf(dealsPg, undefined, "d")}, f.handle AS "fromHandle", t.handle AS "toHandle"`;
const readDeal = rowReader(dealsPg);
const SERVER_FIELDS = ["name", "createdAt"] as const;
const readServer = rowReader(serversPg, SERVER_FIELDS);
const RECEIVED_COLUMNS = `${columnsOf(vouchesPg, ["id", "message", "createdAt"], "v")}, ${columnsOf(creatorsPg, ["handle", "displayName", "verificationLevel", "avatarR2Key"], "c")}`;
const GIVEN_COLUMNS = `${columnsOf(vouchesPg, ["id", "createdAt"], "v")}, ${columnsOf(creatorsPg, ["handle", "displayName", "avatarR2Key", "trustScore"], "c")}`;
/** The creators' columns of a vouch row are int4 and text, which the driver hands back as they are typed. */
const readVouch = rowReader(vouchesPg, ["createdAt"]);

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
      VALUES (${v.id}, ${v.fromCreatorId}, ${v.toCreatorId}, ${v.message}, ${v.createdAt})`);
  }

  async insertDeal(d: DealRow): Promise<void> {
    await translatedAsync(this.sql`
      INSERT INTO deals (id, from_creator_id, to_creator_id, status, created_at, updated_at)
      VALUES (${d.id}, ${d.fromCreatorId}, ${d.toCreatorId}, ${d.status}, ${d.createdAt}, ${d.updatedAt})`);
  }

  async dealById(id: string): Promise<DealView | null> {
    const [row] = await this.sql.unsafe(
      `SELECT ${DEAL_VIEW_COLUMNS}
       FROM deals d JOIN creators f ON f.id = d.from_creator_id JOIN creators t ON t.id = d.to_creator_id
       WHERE d.id = $1`,
      [id],
    );
    return row ? (readDeal(row) as DealView) : null;
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
      VALUES (${r.id}, ${r.dealId}, ${r.fromCreatorId}, ${r.toCreatorId}, ${r.rating}, ${r.createdAt})`);
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
    const [row] = await this.sql.unsafe(`SELECT ${columnsOf(serversPg, SERVER_FIELDS)} FROM servers WHERE platform = $1 AND server_id = $2`, [
      platform,
      serverId,
    ]);
    return row ? readServer(row) : null;
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
    const rows = await this.sql.unsafe(
      `SELECT ${RECEIVED_COLUMNS}
       FROM vouches v JOIN creators c ON c.id = v.from_creator_id
       WHERE v.to_creator_id = $1 ORDER BY v.created_at DESC, v.id DESC LIMIT $2 OFFSET $3`,
      [creatorId, limit, offset],
    );
    return rows.map((row: Record<string, unknown>) => readVouch(row) as ReceivedVouchRow);
  }

  async vouchesGiven(creatorId: string, after: VouchPosition | null, offset: number, limit: number): Promise<GivenVouchRow[]> {
    const from = "FROM vouches v JOIN creators c ON c.id = v.to_creator_id WHERE v.from_creator_id = $1";
    const rows = after
      ? await this.sql.unsafe(
          `SELECT ${GIVEN_COLUMNS} ${from} AND (v.created_at, v.id) < ($2, $3) ORDER BY v.created_at DESC, v.id DESC LIMIT $4`,
          [creatorId, after.createdAt, after.id, limit],
        )
      : await this.sql.unsafe(`SELECT ${GIVEN_COLUMNS} ${from} ORDER BY v.created_at DESC, v.id DESC LIMIT $2 OFFSET $3`, [creatorId, limit, offset]);
    return rows.map((row: Record<string, unknown>) => readVouch(row) as GivenVouchRow);
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
      createdAt: Number(row.created_at),
    }));
  }
}
