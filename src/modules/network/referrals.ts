// Referrals: which creator brought in which, at most one referrer each, the partner's write and the
// import's; its own file as one of the network's concepts (service.ts is the facade).
import { iso } from "../../clock";
import { conflict } from "../../errors";
import type { CreatorRow } from "../creators/service";
import type * as Model from "./model";
import { conflictOnRepeat, type Dated, type NetworkWriting, timeOf } from "./writing";

export type Referral = typeof Model.Referral.static;
export type ReferralInput = typeof Model.ReferralBody.static & Dated;

export class NetworkReferrals {
  constructor(private readonly base: NetworkWriting) {}

  async refer(input: typeof Model.ReferralBody.static): Promise<Referral> {
    return this.base.write(async (now) => {
      const [referrer, referred] = await this.base.pair(input.referrer, input.referred, "refer");
      const createdAt = timeOf(input, now);
      await alreadyReferred(referred, () => this.base.store.insertReferral(referred.id, referrer.id, createdAt));
      return { referrer: referrer.handle, referred: referred.handle, created_at: iso(createdAt) };
    });
  }

  referNow(input: ReferralInput, now: number): Referral {
    const [referrer, referred] = this.base.pairNow(input.referrer, input.referred, "refer");
    const createdAt = timeOf(input, now);
    alreadyReferred(referred, () => this.base.syncStore().insertReferral(referred.id, referrer.id, createdAt));
    return { referrer: referrer.handle, referred: referred.handle, created_at: iso(createdAt) };
  }

  /** `referNow` awaiting the store: the import on PostgreSQL, inside its transaction. */
  async referImported(input: ReferralInput, now: number): Promise<void> {
    const [referrer, referred] = await this.base.pair(input.referrer, input.referred, "refer");
    const createdAt = timeOf(input, now);
    await alreadyReferred(referred, () => this.base.store.insertReferral(referred.id, referrer.id, createdAt));
  }
}

const alreadyReferred = (referred: CreatorRow, insert: () => unknown) =>
  conflictOnRepeat(insert, () => conflict(`${referred.handle} was already referred.`));
