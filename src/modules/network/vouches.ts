// Vouches: one creator vouching for another, the partner's write and the import's, and the vouches
// a creator gave; its own file as one of the network's concepts (service.ts is the facade).
import { iso } from "../../clock";
import { conflict } from "../../errors";
import { newId } from "../../ids";
import { cleanText } from "../../values";
import type { CreatorRow } from "../creators/service";
import type * as Model from "./model";
import type { GivenVouchRow, VouchPosition, VouchRow } from "./store";
import { conflictOnRepeat, type Dated, type NetworkWriting, timeOf } from "./writing";

export type Vouch = typeof Model.Vouch.static;
export type VouchInput = typeof Model.VouchBody.static & Dated;

export class NetworkVouches {
  constructor(private readonly base: NetworkWriting) {}

  async vouch(input: typeof Model.VouchBody.static): Promise<Vouch> {
    return this.base.write(async (now) => {
      const [from, to] = await this.base.pair(input.from, input.to, "vouch for");
      const row = newVouch(from, to, input, now);
      await alreadyVouched(from, to, () => this.base.store.insertVouch(row));
      await this.base.creators.recompute(to.id, now, true);
      return vouchView(row, from, to);
    });
  }

  vouchNow(input: VouchInput, now: number): Vouch {
    const [from, to] = this.base.pairNow(input.from, input.to, "vouch for");
    const row = newVouch(from, to, input, now);
    alreadyVouched(from, to, () => this.base.syncStore().insertVouch(row));
    this.base.creators.recomputeNow(to.id, now, true);
    return vouchView(row, from, to);
  }

  /** `vouchNow` awaiting the store: the import on PostgreSQL, inside its transaction. */
  async vouchImported(input: VouchInput, now: number): Promise<void> {
    const [from, to] = await this.base.pair(input.from, input.to, "vouch for");
    await alreadyVouched(from, to, () => this.base.store.insertVouch(newVouch(from, to, input, now)));
    await this.base.creators.recompute(to.id, now, true);
  }

  /** Vouches a creator gave, newest first: after `after` (keyset) or skipping `offset` rows. */
  vouchesGiven(creatorId: string, after: VouchPosition | null, offset: number, limit: number): Promise<GivenVouchRow[]> {
    return this.base.store.vouchesGiven(creatorId, after, offset, limit);
  }

  countVouchesGiven(creatorId: string): Promise<number> {
    return this.base.store.countVouchesGiven(creatorId);
  }
}

function newVouch(from: CreatorRow, to: CreatorRow, input: { message?: string | null } & Dated, now: number): VouchRow {
  const createdAt = timeOf(input, now);
  return { id: newId("vch", createdAt), fromCreatorId: from.id, toCreatorId: to.id, message: cleanText(input.message), createdAt };
}

function vouchView(row: VouchRow, from: CreatorRow, to: CreatorRow): Vouch {
  return { id: row.id, from: from.handle, to: to.handle, message: row.message, created_at: iso(row.createdAt) };
}

const alreadyVouched = (from: CreatorRow, to: CreatorRow, insert: () => unknown) =>
  conflictOnRepeat(insert, () => conflict(`${from.handle} already vouched for ${to.handle}.`));
