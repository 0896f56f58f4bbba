// What creators do with each other: vouches, deals and their transitions, reviews of completed
// deals, referrals; and the community servers that run a bot against this instance. Each write is
// one transaction with the Trust Score recomputation and the events it causes.
import type { Statement } from "bun:sqlite";
import { type Clock, iso } from "../../clock";
import type { Store } from "../../db/client";
import type { DealStatus } from "../../db/schema";
import { conflict, notFound, unprocessable } from "../../errors";
import { newId } from "../../ids";
import type { Outbox } from "../../outbox";
import { cleanText, parseTime, requireHandle } from "../../values";
import { type CreatorRow, type CreatorsService, creatorNotFound } from "../creators/service";

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

export interface Vouch {
  id: string;
  from: string;
  to: string;
  message: string | null;
  created_at: string;
}

export interface Deal {
  id: string;
  from: string;
  to: string;
  status: DealStatus;
  created_at: string;
  updated_at: string;
}

export interface Review {
  id: string;
  deal_id: string;
  from: string;
  to: string;
  rating: number;
  created_at: string;
}

export interface Referral {
  referrer: string;
  referred: string;
  created_at: string;
}

export interface Server {
  platform: string;
  server_id: string;
  name: string | null;
  created_at: string;
}

export type DealAction = "confirm" | "decline" | "complete";

/** The deal state machine: which status each action needs, and what it leads to. */
const TRANSITIONS: Record<DealAction, { from: DealStatus; to: DealStatus }> = {
  confirm: { from: "pending", to: "confirmed" },
  decline: { from: "pending", to: "declined" },
  complete: { from: "confirmed", to: "completed" },
};

const DEAL_ID = /^deal_[0-9a-z]{1,60}$/;

export class NetworkService {
  private readonly insertVouch: Statement;
  private readonly vouchPair: Statement<{ id: string }, [string, string]>;
  private readonly insertDeal: Statement;
  private readonly dealById: Statement<DealRow & { from_handle: string; to_handle: string }, [string]>;
  private readonly setDealStatus: Statement;
  private readonly reviewableDeal: Statement<{ id: string; reviewed: number }, [string, string]>;
  private readonly insertReview: Statement;
  private readonly insertReferral: Statement;
  private readonly referralOf: Statement<{ referrer_id: string }, [string]>;
  private readonly serverById: Statement<{ name: string | null; created_at: number }, [string, string]>;
  private readonly insertServer: Statement;
  private readonly renameServer: Statement;
  private readonly deleteServer: Statement;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly outbox: Outbox,
    private readonly creators: CreatorsService,
  ) {
    const db = store.sqlite;
    this.insertVouch = db.prepare(
      "INSERT INTO vouches (id, from_creator_id, to_creator_id, message, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    );
    this.vouchPair = db.prepare("SELECT id FROM vouches WHERE from_creator_id = ? AND to_creator_id = ?");
    this.insertDeal = db.prepare(
      "INSERT INTO deals (id, from_creator_id, to_creator_id, status, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
    );
    this.dealById = db.prepare(
      `SELECT d.*, f.handle AS from_handle, t.handle AS to_handle
       FROM deals d JOIN creators f ON f.id = d.from_creator_id JOIN creators t ON t.id = d.to_creator_id
       WHERE d.id = ?`,
    );
    this.setDealStatus = db.prepare("UPDATE deals SET status = ?2, updated_at = ?3 WHERE id = ?1");
    // The newest completed deal between the two that the reviewer has not reviewed yet comes first.
    this.reviewableDeal = db.prepare(
      `SELECT d.id, EXISTS (SELECT 1 FROM reviews r WHERE r.deal_id = d.id AND r.from_creator_id = ?1) AS reviewed
       FROM deals d
       WHERE d.status = 'completed'
         AND ((d.from_creator_id = ?1 AND d.to_creator_id = ?2) OR (d.from_creator_id = ?2 AND d.to_creator_id = ?1))
       ORDER BY reviewed, d.updated_at DESC, d.id DESC LIMIT 1`,
    );
    this.insertReview = db.prepare(
      "INSERT INTO reviews (id, deal_id, from_creator_id, to_creator_id, rating, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    );
    this.insertReferral = db.prepare("INSERT INTO referrals (referred_id, referrer_id, created_at) VALUES (?1, ?2, ?3)");
    this.referralOf = db.prepare("SELECT referrer_id FROM referrals WHERE referred_id = ?");
    this.serverById = db.prepare("SELECT name, created_at FROM servers WHERE platform = ? AND server_id = ?");
    this.insertServer = db.prepare(
      "INSERT INTO servers (platform, server_id, name, registered_by, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    );
    this.renameServer = db.prepare("UPDATE servers SET name = ?3 WHERE platform = ?1 AND server_id = ?2");
    this.deleteServer = db.prepare("DELETE FROM servers WHERE platform = ? AND server_id = ?");
  }

  private creator(raw: string, role: string): CreatorRow {
    const row = this.creators.findNow(requireHandle(raw));
    if (!row) throw creatorNotFound(raw, role);
    return row;
  }

  private pair(fromRaw: string, toRaw: string, what: string): [CreatorRow, CreatorRow] {
    const from = this.creator(fromRaw, "from");
    const to = this.creator(toRaw, "to");
    if (from.id === to.id) throw unprocessable(`A creator cannot ${what} themselves.`);
    return [from, to];
  }

  /** Runs `work` in one transaction, at one instant. */
  private write<T>(work: (now: number) => T): Promise<T> {
    const now = this.clock.now();
    return this.store.write(() => work(now));
  }

  // ---- vouches --------------------------------------------------------------------------------

  async vouch(input: { from: string; to: string; message?: string | null }): Promise<Vouch> {
    return this.write((now) => this.vouchNow(input, now));
  }

  vouchNow(input: { from: string; to: string; message?: string | null; created_at?: string }, now: number): Vouch {
    const [from, to] = this.pair(input.from, input.to, "vouch for");
    if (this.vouchPair.get(from.id, to.id)) throw conflict(`${from.handle} already vouched for ${to.handle}.`);
    const createdAt = input.created_at !== undefined ? parseTime(input.created_at, "created_at") : now;
    const id = newId("vch", createdAt);
    const message = cleanText(input.message);
    this.insertVouch.run(id, from.id, to.id, message, createdAt);
    this.creators.recompute(to.id, now, true);
    return { id, from: from.handle, to: to.handle, message, created_at: iso(createdAt) };
  }

  // ---- deals ----------------------------------------------------------------------------------

  async openDeal(input: { from: string; to: string }): Promise<Deal> {
    return this.write((now) => this.dealNow({ ...input, status: "pending" }, now));
  }

  /** A new deal; import may give it any status, an id and a creation time. */
  dealNow(input: { id?: string; from: string; to: string; status: DealStatus; created_at?: string }, now: number): Deal {
    const [from, to] = this.pair(input.from, input.to, "make a deal with");
    if (input.id !== undefined && !DEAL_ID.test(input.id)) throw unprocessable(`'${input.id.slice(0, 40)}' is not a deal id.`);
    const createdAt = input.created_at !== undefined ? parseTime(input.created_at, "created_at") : now;
    const id = input.id ?? newId("deal", createdAt);
    if (this.dealById.get(id)) throw conflict(`Deal ${id} already exists.`);
    this.insertDeal.run(id, from.id, to.id, input.status, createdAt);
    if (input.status === "completed") {
      this.creators.recompute(from.id, now, true);
      this.creators.recompute(to.id, now, true);
    }
    return { id, from: from.handle, to: to.handle, status: input.status, created_at: iso(createdAt), updated_at: iso(createdAt) };
  }

  async getDeal(id: string): Promise<Deal> {
    const row = this.dealById.get(id);
    if (!row) throw notFound(`No deal ${id.slice(0, 64)}.`);
    return this.toDeal(row);
  }

  /** confirm (pending → confirmed), decline (pending → declined), complete (confirmed → completed). */
  async transition(id: string, action: DealAction): Promise<Deal> {
    return this.write((now) => {
      const row = this.dealById.get(id);
      if (!row) throw notFound(`No deal ${id.slice(0, 64)}.`);
      const rule = TRANSITIONS[action];
      if (row.status !== rule.from) {
        throw conflict(`Deal ${id} is ${row.status}; only a ${rule.from} deal can be ${rule.to}.`);
      }
      this.setDealStatus.run(id, rule.to, now);
      const deal = this.toDeal({ ...row, status: rule.to, updated_at: now });
      if (rule.to === "completed") {
        this.creators.recompute(row.from_creator_id, now, true);
        this.creators.recompute(row.to_creator_id, now, true);
      } else {
        this.outbox.write(rule.to === "confirmed" ? "deal.confirmed" : "deal.declined", {
          deal_id: id,
          from: deal.from,
          to: deal.to,
          status: rule.to,
        }, now);
      }
      return deal;
    });
  }

  private toDeal(row: DealRow & { from_handle: string; to_handle: string }): Deal {
    return {
      id: row.id,
      from: row.from_handle,
      to: row.to_handle,
      status: row.status,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    };
  }

  // ---- reviews --------------------------------------------------------------------------------

  async review(input: { from: string; to: string; rating: number }): Promise<Review> {
    return this.write((now) => this.reviewNow(input, now));
  }

  /** A review of `to` by `from`, attached to a completed deal between them that `from` has not reviewed. */
  reviewNow(input: { from: string; to: string; rating: number; created_at?: string }, now: number): Review {
    const [from, to] = this.pair(input.from, input.to, "review");
    if (!Number.isInteger(input.rating) || input.rating < 1 || input.rating > 5) throw unprocessable("rating is a whole number from 1 to 5.");
    const deal = this.reviewableDeal.get(from.id, to.id);
    if (!deal) throw conflict(`${from.handle} and ${to.handle} have no completed deal to review.`);
    if (deal.reviewed) throw conflict(`${from.handle} already reviewed every completed deal with ${to.handle}.`);
    const createdAt = input.created_at !== undefined ? parseTime(input.created_at, "created_at") : now;
    const id = newId("rev", createdAt);
    this.insertReview.run(id, deal.id, from.id, to.id, input.rating, createdAt);
    this.creators.recompute(to.id, now, true);
    return { id, deal_id: deal.id, from: from.handle, to: to.handle, rating: input.rating, created_at: iso(createdAt) };
  }

  // ---- referrals ------------------------------------------------------------------------------

  async refer(input: { referrer: string; referred: string }): Promise<Referral> {
    return this.write((now) => this.referNow(input, now));
  }

  referNow(input: { referrer: string; referred: string; created_at?: string }, now: number): Referral {
    const [referrer, referred] = this.pair(input.referrer, input.referred, "refer");
    if (this.referralOf.get(referred.id)) throw conflict(`${referred.handle} was already referred.`);
    const createdAt = input.created_at !== undefined ? parseTime(input.created_at, "created_at") : now;
    this.insertReferral.run(referred.id, referrer.id, createdAt);
    return { referrer: referrer.handle, referred: referred.handle, created_at: iso(createdAt) };
  }

  // ---- servers --------------------------------------------------------------------------------

  async registerServer(input: { platform: string; server_id: string; name?: string | null }, registeredBy: string): Promise<{ created: boolean; server: Server }> {
    return this.write((now) => this.registerServerNow(input, registeredBy, now));
  }

  registerServerNow(input: { platform: string; server_id: string; name?: string | null; created_at?: string }, registeredBy: string, now: number) {
    const createdAt = input.created_at !== undefined ? parseTime(input.created_at, "created_at") : now;
    const name = cleanText(input.name);
    const existing = this.serverById.get(input.platform, input.server_id);
    if (!existing) this.insertServer.run(input.platform, input.server_id, name, registeredBy, createdAt);
    else if (input.name !== undefined) this.renameServer.run(input.platform, input.server_id, name);
    const row = this.serverById.get(input.platform, input.server_id)!;
    return {
      created: !existing,
      server: { platform: input.platform, server_id: input.server_id, name: row.name, created_at: iso(row.created_at) },
    };
  }

  async unregisterServer(platform: string, serverId: string): Promise<Server> {
    return this.write(() => {
      const row = this.serverById.get(platform, serverId);
      if (!row) throw notFound(`No registered ${platform} server ${serverId.slice(0, 64)}.`);
      this.deleteServer.run(platform, serverId);
      return { platform, server_id: serverId, name: row.name, created_at: iso(row.created_at) };
    });
  }
}
