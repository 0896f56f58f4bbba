// What creators do with each other: vouches, deals and their transitions, reviews of completed
// deals, referrals; and the community servers that run a bot against this instance. Each write is
// one transaction with the Trust Score recomputation and the events it causes. The `...Now` forms
// run inside the import's synchronous transaction on SQLite.
import { type Clock, iso } from "../../clock";
import type { Database } from "../../db/database";
import type { DealStatus } from "../../domain";
import { UniqueViolation } from "../../db/errors";
import { conflict, notFound, unprocessable } from "../../errors";
import { newId } from "../../ids";
import type { Outbox } from "../outbox/service";
import { cleanText, parseTime, requireHandle } from "../../values";
import { type CreatorRow, type CreatorsService, creatorNotFound } from "../creators/service";
import type * as Model from "./model";
import {
  createNetworkStore,
  type DealRow,
  type DealView,
  type GivenVouchRow,
  type NetworkStore,
  type NetworkSyncStore,
  type ReviewRow,
  type ServerRow,
  type VouchPosition,
  type VouchRow,
} from "./store";

export type { DealRow, GivenVouchRow, VouchPosition, VouchRow } from "./store";
export type Vouch = typeof Model.Vouch.static;
export type Deal = typeof Model.Deal.static;
export type Review = typeof Model.Review.static;
export type Referral = typeof Model.Referral.static;
export type Server = typeof Model.Server.static;

export type DealAction = "confirm" | "decline" | "complete";

/** The deal state machine: which status each action needs, and what it leads to. */
const TRANSITIONS: Record<DealAction, { from: DealStatus; to: DealStatus }> = {
  confirm: { from: "pending", to: "confirmed" },
  decline: { from: "pending", to: "declined" },
  complete: { from: "confirmed", to: "completed" },
};

const DEAL_ID = /^deal_[0-9a-z]{1,60}$/;

/** An import line may date what it records; a partner's write happens now. */
type Dated = { created_at?: string };
type VouchInput = typeof Model.VouchBody.static & Dated;
/** The import also gives a deal its id and any status; a partner's opens pending. */
type DealInput = typeof Model.DealBody.static & { id?: string; status: DealStatus } & Dated;
type ReviewInput = typeof Model.ReviewBody.static & Dated;
type ReferralInput = typeof Model.ReferralBody.static & Dated;
type ServerInput = typeof Model.ServerParams.static & NonNullable<typeof Model.ServerBody.static> & Dated;

export class NetworkService {
  readonly store: NetworkStore;
  /** The store's synchronous capability (SQLite only), for the import's `...Now` forms. */
  private readonly sync: NetworkSyncStore | null;

  constructor(
    database: Database,
    private readonly clock: Clock,
    private readonly outbox: Outbox,
    private readonly creators: CreatorsService,
  ) {
    this.store = createNetworkStore(database);
    this.sync = this.store.sync ?? null;
  }

  private syncStore(): NetworkSyncStore {
    if (!this.sync) throw new Error("The import's network lines run on SQLite only (the import is not converted yet).");
    return this.sync;
  }

  private async creator(raw: string, role: string): Promise<CreatorRow> {
    const row = await this.creators.find(requireHandle(raw));
    if (!row) throw creatorNotFound(raw, role);
    return row;
  }

  private async pair(fromRaw: string, toRaw: string, what: string): Promise<[CreatorRow, CreatorRow]> {
    return distinct(await this.creator(fromRaw, "from"), await this.creator(toRaw, "to"), what);
  }

  private pairNow(fromRaw: string, toRaw: string, what: string): [CreatorRow, CreatorRow] {
    const from = this.creators.findNow(requireHandle(fromRaw));
    if (!from) throw creatorNotFound(fromRaw, "from");
    const to = this.creators.findNow(requireHandle(toRaw));
    if (!to) throw creatorNotFound(toRaw, "to");
    return distinct(from, to, what);
  }

  /** Runs `work` in one transaction, at one instant. */
  private write<T>(work: (now: number) => Promise<T>): Promise<T> {
    const now = this.clock.now();
    return this.store.transaction(() => work(now));
  }

  // ---- vouches --------------------------------------------------------------------------------

  async vouch(input: typeof Model.VouchBody.static): Promise<Vouch> {
    return this.write(async (now) => {
      const [from, to] = await this.pair(input.from, input.to, "vouch for");
      const row = newVouch(from, to, input, now);
      await alreadyVouched(from, to, () => this.store.insertVouch(row));
      await this.creators.recompute(to.id, now, true);
      return vouchView(row, from, to);
    });
  }

  vouchNow(input: VouchInput, now: number): Vouch {
    const [from, to] = this.pairNow(input.from, input.to, "vouch for");
    const row = newVouch(from, to, input, now);
    alreadyVouched(from, to, () => this.syncStore().insertVouch(row));
    this.creators.recomputeNow(to.id, now, true);
    return vouchView(row, from, to);
  }

  /** Vouches a creator gave, newest first: after `after` (keyset) or skipping `offset` rows. */
  vouchesGiven(creatorId: string, after: VouchPosition | null, offset: number, limit: number): Promise<GivenVouchRow[]> {
    return this.store.vouchesGiven(creatorId, after, offset, limit);
  }

  countVouchesGiven(creatorId: string): Promise<number> {
    return this.store.countVouchesGiven(creatorId);
  }

  // ---- deals ----------------------------------------------------------------------------------

  async openDeal(input: typeof Model.DealBody.static): Promise<Deal> {
    return this.write(async (now) => {
      const [from, to] = await this.pair(input.from, input.to, "make a deal with");
      const row = newDeal(from, to, { ...input, status: "pending" }, now);
      await dealExists(row.id, () => this.store.insertDeal(row));
      return dealView({ ...row, fromHandle: from.handle, toHandle: to.handle });
    });
  }

  /** A new deal in the import's transaction: it may have any status, an id and a creation time. */
  dealNow(input: DealInput, now: number): Deal {
    const [from, to] = this.pairNow(input.from, input.to, "make a deal with");
    const row = newDeal(from, to, input, now);
    dealExists(row.id, () => this.syncStore().insertDeal(row));
    if (input.status === "completed") {
      this.creators.recomputeNow(from.id, now, true);
      this.creators.recomputeNow(to.id, now, true);
    }
    return dealView({ ...row, fromHandle: from.handle, toHandle: to.handle });
  }

  /** The `...Now` forms awaiting the store: the import on PostgreSQL, inside its transaction. */
  async vouchImported(input: VouchInput, now: number): Promise<void> {
    const [from, to] = await this.pair(input.from, input.to, "vouch for");
    await alreadyVouched(from, to, () => this.store.insertVouch(newVouch(from, to, input, now)));
    await this.creators.recompute(to.id, now, true);
  }

  async dealImported(input: DealInput, now: number): Promise<void> {
    const [from, to] = await this.pair(input.from, input.to, "make a deal with");
    const row = newDeal(from, to, input, now);
    await dealExists(row.id, () => this.store.insertDeal(row));
    if (input.status === "completed") {
      await this.creators.recompute(from.id, now, true);
      await this.creators.recompute(to.id, now, true);
    }
  }

  async reviewImported(input: ReviewInput, now: number): Promise<void> {
    const [from, to] = await this.pair(input.from, input.to, "review");
    checkRating(input.rating);
    await this.store.insertReview(newReview(from, to, await this.store.reviewableDeal(from.id, to.id), input, now));
    await this.creators.recompute(to.id, now, true);
  }

  async referImported(input: ReferralInput, now: number): Promise<void> {
    const [referrer, referred] = await this.pair(input.referrer, input.referred, "refer");
    const createdAt = timeOf(input, now);
    await alreadyReferred(referred, () => this.store.insertReferral(referred.id, referrer.id, createdAt));
  }

  async registerServerImported(input: ServerInput, registeredBy: string, now: number): Promise<void> {
    const createdAt = timeOf(input, now);
    const name = cleanText(input.name);
    const existing = await this.store.serverById(input.platform, input.server_id);
    if (!existing) await this.store.insertServer(input.platform, input.server_id, name, registeredBy, createdAt);
    else if (input.name !== undefined) await this.store.renameServer(input.platform, input.server_id, name);
  }

  async getDeal(id: string): Promise<Deal> {
    const row = await this.store.dealById(id);
    if (!row) throw notFound(`No deal ${id.slice(0, 64)}.`);
    return dealView(row);
  }

  /** confirm (pending → confirmed), decline (pending → declined), complete (confirmed → completed). */
  async transition(id: string, action: DealAction): Promise<Deal> {
    return this.write(async (now) => {
      const row = await this.store.dealById(id);
      if (!row) throw notFound(`No deal ${id.slice(0, 64)}.`);
      const rule = TRANSITIONS[action];
      if (row.status !== rule.from) {
        throw conflict(`Deal ${id} is ${row.status}; only a ${rule.from} deal can be ${rule.to}.`);
      }
      await this.store.setDealStatus(id, rule.to, now);
      const deal = dealView({ ...row, status: rule.to, updatedAt: now });
      if (rule.to === "completed") {
        await this.creators.recompute(row.fromCreatorId, now, true);
        await this.creators.recompute(row.toCreatorId, now, true);
      } else {
        await this.outbox.write(rule.to === "confirmed" ? "deal.confirmed" : "deal.declined", {
          deal_id: id,
          from: deal.from,
          to: deal.to,
          status: rule.to,
        }, now);
      }
      return deal;
    });
  }

  // ---- reviews --------------------------------------------------------------------------------

  /** A review of `to` by `from`, attached to a completed deal between them that `from` has not reviewed. */
  async review(input: typeof Model.ReviewBody.static): Promise<Review> {
    return this.write(async (now) => {
      const [from, to] = await this.pair(input.from, input.to, "review");
      checkRating(input.rating);
      const row = newReview(from, to, await this.store.reviewableDeal(from.id, to.id), input, now);
      await this.store.insertReview(row);
      await this.creators.recompute(to.id, now, true);
      return reviewView(row, from, to);
    });
  }

  reviewNow(input: ReviewInput, now: number): Review {
    const [from, to] = this.pairNow(input.from, input.to, "review");
    checkRating(input.rating);
    const row = newReview(from, to, this.syncStore().reviewableDeal(from.id, to.id), input, now);
    this.syncStore().insertReview(row);
    this.creators.recomputeNow(to.id, now, true);
    return reviewView(row, from, to);
  }

  // ---- referrals ------------------------------------------------------------------------------

  async refer(input: typeof Model.ReferralBody.static): Promise<Referral> {
    return this.write(async (now) => {
      const [referrer, referred] = await this.pair(input.referrer, input.referred, "refer");
      const createdAt = timeOf(input, now);
      await alreadyReferred(referred, () => this.store.insertReferral(referred.id, referrer.id, createdAt));
      return { referrer: referrer.handle, referred: referred.handle, created_at: iso(createdAt) };
    });
  }

  referNow(input: ReferralInput, now: number): Referral {
    const [referrer, referred] = this.pairNow(input.referrer, input.referred, "refer");
    const createdAt = timeOf(input, now);
    alreadyReferred(referred, () => this.syncStore().insertReferral(referred.id, referrer.id, createdAt));
    return { referrer: referrer.handle, referred: referred.handle, created_at: iso(createdAt) };
  }

  // ---- servers --------------------------------------------------------------------------------

  async registerServer(input: ServerInput, registeredBy: string): Promise<{ created: boolean; server: Server }> {
    return this.write(async (now) => {
      const createdAt = timeOf(input, now);
      const name = cleanText(input.name);
      const existing = await this.store.serverById(input.platform, input.server_id);
      if (!existing) await this.store.insertServer(input.platform, input.server_id, name, registeredBy, createdAt);
      else if (input.name !== undefined) await this.store.renameServer(input.platform, input.server_id, name);
      const row = (await this.store.serverById(input.platform, input.server_id))!;
      return { created: !existing, server: serverView(input.platform, input.server_id, row) };
    });
  }

  registerServerNow(input: ServerInput, registeredBy: string, now: number): { created: boolean; server: Server } {
    const store = this.syncStore();
    const createdAt = timeOf(input, now);
    const name = cleanText(input.name);
    const existing = store.serverById(input.platform, input.server_id);
    if (!existing) store.insertServer(input.platform, input.server_id, name, registeredBy, createdAt);
    else if (input.name !== undefined) store.renameServer(input.platform, input.server_id, name);
    const row = store.serverById(input.platform, input.server_id)!;
    return { created: !existing, server: serverView(input.platform, input.server_id, row) };
  }

  async unregisterServer(platform: string, serverId: string): Promise<Server> {
    return this.write(async () => {
      const row = await this.store.serverById(platform, serverId);
      if (!row) throw notFound(`No registered ${platform} server ${serverId.slice(0, 64)}.`);
      await this.store.deleteServer(platform, serverId);
      return serverView(platform, serverId, row);
    });
  }
}

function distinct(from: CreatorRow, to: CreatorRow, what: string): [CreatorRow, CreatorRow] {
  if (from.id === to.id) throw unprocessable(`A creator cannot ${what} themselves.`);
  return [from, to];
}

function timeOf(input: { created_at?: string } | object, now: number): number {
  const createdAt = (input as { created_at?: string }).created_at;
  return createdAt !== undefined ? parseTime(createdAt, "created_at") : now;
}

function newVouch(from: CreatorRow, to: CreatorRow, input: { message?: string | null } & Dated, now: number): VouchRow {
  const createdAt = timeOf(input, now);
  return { id: newId("vch", createdAt), fromCreatorId: from.id, toCreatorId: to.id, message: cleanText(input.message), createdAt };
}

function vouchView(row: VouchRow, from: CreatorRow, to: CreatorRow): Vouch {
  return { id: row.id, from: from.handle, to: to.handle, message: row.message, created_at: iso(row.createdAt) };
}

/**
 * Runs an insert, answering a repeated key with `conflictError()`: synchronously for the SQLite
 * store's plain calls (the import), through the promise for PostgreSQL's.
 */
function conflictOnRepeat(insert: () => unknown, conflictError: () => Error): void | Promise<void> {
  const translate = (error: unknown) => (error instanceof UniqueViolation ? conflictError() : error);
  let result: unknown;
  try {
    result = insert();
  } catch (error) {
    throw translate(error);
  }
  if (result instanceof Promise) {
    return result.then(
      () => undefined,
      (error) => {
        throw translate(error);
      },
    );
  }
}

const alreadyVouched = (from: CreatorRow, to: CreatorRow, insert: () => unknown) =>
  conflictOnRepeat(insert, () => conflict(`${from.handle} already vouched for ${to.handle}.`));
const alreadyReferred = (referred: CreatorRow, insert: () => unknown) =>
  conflictOnRepeat(insert, () => conflict(`${referred.handle} was already referred.`));
const dealExists = (id: string, insert: () => unknown) => conflictOnRepeat(insert, () => conflict(`Deal ${id} already exists.`));

function newDeal(from: CreatorRow, to: CreatorRow, input: DealInput, now: number): DealRow {
  if (input.id !== undefined && !DEAL_ID.test(input.id)) throw unprocessable(`'${input.id.slice(0, 40)}' is not a deal id.`);
  const createdAt = timeOf(input, now);
  const id = input.id ?? newId("deal", createdAt);
  return { id, fromCreatorId: from.id, toCreatorId: to.id, status: input.status, createdAt, updatedAt: createdAt };
}

function dealView(row: DealView): Deal {
  return {
    id: row.id,
    from: row.fromHandle,
    to: row.toHandle,
    status: row.status,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

function checkRating(rating: number) {
  if (!Number.isInteger(rating) || rating < 1 || rating > 5) throw unprocessable("rating is a whole number from 1 to 5.");
}

function newReview(from: CreatorRow, to: CreatorRow, deal: { id: string; reviewed: boolean } | null, input: ReviewInput, now: number): ReviewRow {
  if (!deal) throw conflict(`${from.handle} and ${to.handle} have no completed deal to review.`);
  if (deal.reviewed) throw conflict(`${from.handle} already reviewed every completed deal with ${to.handle}.`);
  const createdAt = timeOf(input, now);
  return { id: newId("rev", createdAt), dealId: deal.id, fromCreatorId: from.id, toCreatorId: to.id, rating: input.rating, createdAt };
}

function reviewView(row: ReviewRow, from: CreatorRow, to: CreatorRow): Review {
  return { id: row.id, deal_id: row.dealId, from: from.handle, to: to.handle, rating: row.rating, created_at: iso(row.createdAt) };
}

function serverView(platform: string, serverId: string, row: ServerRow): Server {
  return { platform, server_id: serverId, name: row.name, created_at: iso(row.createdAt) };
}
