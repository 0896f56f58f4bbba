// Deals and their state machine: opening one, the import's deals of any status, and confirm,
// decline and complete; its own file as one of the network's concepts (service.ts is the facade).
import { iso } from "../../clock";
import type { DealStatus } from "../../domain";
import { conflict, notFound, unprocessable } from "../../errors";
import { newId } from "../../ids";
import type { Outbox } from "../outbox/service";
import type { CreatorRow } from "../creators/service";
import type * as Model from "./model";
import type { DealRow, DealView } from "./store";
import { conflictOnRepeat, type Dated, type NetworkWriting, timeOf } from "./writing";

export type Deal = typeof Model.Deal.static;

export type DealAction = "confirm" | "decline" | "complete";

/** The import also gives a deal its id and any status; a partner's opens pending. */
export type DealInput = typeof Model.DealBody.static & { id?: string; status: DealStatus } & Dated;

/** The deal state machine: which status each action needs, and what it leads to. */
const TRANSITIONS: Record<DealAction, { from: DealStatus; to: DealStatus }> = {
  confirm: { from: "pending", to: "confirmed" },
  decline: { from: "pending", to: "declined" },
  complete: { from: "confirmed", to: "completed" },
};

const DEAL_ID = /^deal_[0-9a-z]{1,60}$/;

export class NetworkDeals {
  constructor(
    private readonly base: NetworkWriting,
    private readonly outbox: Outbox,
  ) {}

  async openDeal(input: typeof Model.DealBody.static): Promise<Deal> {
    return this.base.write(async (now) => {
      const [from, to] = await this.base.pair(input.from, input.to, "make a deal with");
      const row = newDeal(from, to, { ...input, status: "pending" }, now);
      await dealExists(row.id, () => this.base.store.insertDeal(row));
      return dealView({ ...row, fromHandle: from.handle, toHandle: to.handle });
    });
  }

  /** A new deal in the import's transaction: it may have any status, an id and a creation time. */
  dealNow(input: DealInput, now: number): Deal {
    const [from, to] = this.base.pairNow(input.from, input.to, "make a deal with");
    const row = newDeal(from, to, input, now);
    dealExists(row.id, () => this.base.syncStore().insertDeal(row));
    if (input.status === "completed") {
      this.base.creators.recomputeNow(from.id, now, true);
      this.base.creators.recomputeNow(to.id, now, true);
    }
    return dealView({ ...row, fromHandle: from.handle, toHandle: to.handle });
  }

  /** `dealNow` awaiting the store: the import on PostgreSQL, inside its transaction. */
  async dealImported(input: DealInput, now: number): Promise<void> {
    const [from, to] = await this.base.pair(input.from, input.to, "make a deal with");
    const row = newDeal(from, to, input, now);
    await dealExists(row.id, () => this.base.store.insertDeal(row));
    if (input.status === "completed") {
      await this.base.creators.recompute(from.id, now, true);
      await this.base.creators.recompute(to.id, now, true);
    }
  }

  async getDeal(id: string): Promise<Deal> {
    const row = await this.base.store.dealById(id);
    if (!row) throw notFound(`No deal ${id.slice(0, 64)}.`);
    return dealView(row);
  }

  /** confirm (pending → confirmed), decline (pending → declined), complete (confirmed → completed). */
  async transition(id: string, action: DealAction): Promise<Deal> {
    return this.base.write(async (now) => {
      const row = await this.base.store.dealById(id);
      if (!row) throw notFound(`No deal ${id.slice(0, 64)}.`);
      const rule = TRANSITIONS[action];
      if (row.status !== rule.from) {
        throw conflict(`Deal ${id} is ${row.status}; only a ${rule.from} deal can be ${rule.to}.`);
      }
      await this.base.store.setDealStatus(id, rule.to, now);
      const deal = dealView({ ...row, status: rule.to, updatedAt: now });
      if (rule.to === "completed") {
        await this.base.creators.recompute(row.fromCreatorId, now, true);
        await this.base.creators.recompute(row.toCreatorId, now, true);
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
}

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
