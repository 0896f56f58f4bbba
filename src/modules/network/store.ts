// The network's tables (vouches, deals, reviews, referrals, servers): the contract each database
// implements (store.sqlite.ts, store.postgres.ts, the only places their SQL lives) and the factory
// that picks one. SQLite answers synchronously, so its store also offers the optional `sync`
// capability the import's synchronous transaction writes through; PostgreSQL answers with
// promises, every statement joining the caller's transaction. Inserts that repeat a unique key
// throw UniqueViolation.
import type { Database } from "../../db/database";
import type { RowOf } from "../../db/rows";
import type { DealStatus } from "../../domain";
import type { Awaitable } from "../creators/store";
import type { creators } from "../creators/tables";
import { PostgresNetworkStore } from "./store.postgres";
import { SqliteNetworkStore } from "./store.sqlite";
import type { deals, reviews, servers, vouches } from "./tables";

export { dealsForExport, referralsForExport, reviewsForExport, serversForExport, vouchesForExport } from "./export";

export type VouchRow = RowOf<typeof vouches>;
export type DealRow = RowOf<typeof deals>;
export type ReviewRow = RowOf<typeof reviews>;
export type ServerRow = RowOf<typeof servers, "name" | "createdAt">;

/** A deal with its parties' handles. */
export type DealView = DealRow & { fromHandle: string; toHandle: string };

/** A vouch a creator received, with who gave it. */
export type ReceivedVouchRow = RowOf<typeof vouches, "id" | "message" | "createdAt"> &
  RowOf<typeof creators, "handle" | "displayName" | "verificationLevel" | "avatarR2Key">;

/** A vouch a creator gave, with whom it went to. */
export type GivenVouchRow = RowOf<typeof vouches, "id" | "createdAt"> & RowOf<typeof creators, "handle" | "displayName" | "avatarR2Key" | "trustScore">;

/** Where a page of vouches given starts: after this vouch in newest-first order. */
export type VouchPosition = RowOf<typeof vouches, "createdAt" | "id">;

/** A referral in storing order (`position`: SQLite's rowid, PostgreSQL's seq), with the referrer's handle. */
export type StoredReferral = { position: number; handle: string; createdAt: number };

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

  /** The same store answering synchronously, where the database can (SQLite); absent otherwise. */
  readonly sync?: NetworkSyncStore;
}

/** The writes the import's synchronous transaction makes on SQLite, without a promise per statement. */
export interface NetworkSyncStore {
  insertVouch(vouch: VouchRow): void;
  insertDeal(deal: DealRow): void;
  reviewableDeal(reviewerId: string, otherId: string): { id: string; reviewed: boolean } | null;
  insertReview(review: ReviewRow): void;
  insertReferral(referredId: string, referrerId: string, createdAt: number): void;
  serverById(platform: string, serverId: string): ServerRow | null;
  insertServer(platform: string, serverId: string, name: string | null, registeredBy: string, createdAt: number): void;
  renameServer(platform: string, serverId: string, name: string | null): void;
}

export function createNetworkStore(database: Database): NetworkStore {
  return database.dialect === "sqlite" ? new SqliteNetworkStore(database) : new PostgresNetworkStore(database);
}
