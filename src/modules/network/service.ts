// What creators do with each other: vouches (vouches.ts), deals and their transitions (deals.ts),
// reviews of completed deals (reviews.ts), referrals (referrals.ts); and the community servers that
// run a bot against this instance (servers.ts), over one store and the shared write steps
// (writing.ts). Each write is one transaction with the Trust Score recomputation and the events it
// causes. The `...Now` forms run inside the import's synchronous transaction on SQLite.
import type { Clock } from "../../clock";
import type { Database } from "../../db/database";
import type { Outbox } from "../outbox/service";
import type { CreatorsService } from "../creators/service";
import { type Deal, type DealAction, type DealInput, NetworkDeals } from "./deals";
import type * as Model from "./model";
import { NetworkReferrals, type Referral, type ReferralInput } from "./referrals";
import { NetworkReviews, type Review, type ReviewInput } from "./reviews";
import { NetworkServers, type Server, type ServerInput } from "./servers";
import { createNetworkStore, type GivenVouchRow, type NetworkStore, type VouchPosition } from "./store";
import { NetworkVouches, type Vouch, type VouchInput } from "./vouches";
import { NetworkWriting } from "./writing";

export type { DealRow, GivenVouchRow, VouchPosition, VouchRow } from "./store";
export type { Vouch } from "./vouches";
export type { Deal, DealAction } from "./deals";
export type { Review } from "./reviews";
export type { Referral } from "./referrals";
export type { Server } from "./servers";

export class NetworkService {
  readonly store: NetworkStore;
  private readonly vouches: NetworkVouches;
  private readonly deals: NetworkDeals;
  private readonly reviews: NetworkReviews;
  private readonly referrals: NetworkReferrals;
  private readonly servers: NetworkServers;

  constructor(
    database: Database,
    clock: Clock,
    outbox: Outbox,
    creators: CreatorsService,
  ) {
    this.store = createNetworkStore(database);
    const base = new NetworkWriting(this.store, clock, creators);
    this.vouches = new NetworkVouches(base);
    this.deals = new NetworkDeals(base, outbox);
    this.reviews = new NetworkReviews(base);
    this.referrals = new NetworkReferrals(base);
    this.servers = new NetworkServers(base);
  }

  // Vouches (vouches.ts).

  vouch(input: typeof Model.VouchBody.static): Promise<Vouch> {
    return this.vouches.vouch(input);
  }

  vouchNow(input: VouchInput, now: number): Vouch {
    return this.vouches.vouchNow(input, now);
  }

  /** Vouches a creator gave, newest first: after `after` (keyset) or skipping `offset` rows. */
  vouchesGiven(creatorId: string, after: VouchPosition | null, offset: number, limit: number): Promise<GivenVouchRow[]> {
    return this.vouches.vouchesGiven(creatorId, after, offset, limit);
  }

  countVouchesGiven(creatorId: string): Promise<number> {
    return this.vouches.countVouchesGiven(creatorId);
  }

  // Deals (deals.ts).

  openDeal(input: typeof Model.DealBody.static): Promise<Deal> {
    return this.deals.openDeal(input);
  }

  /** A new deal in the import's transaction: it may have any status, an id and a creation time. */
  dealNow(input: DealInput, now: number): Deal {
    return this.deals.dealNow(input, now);
  }

  getDeal(id: string): Promise<Deal> {
    return this.deals.getDeal(id);
  }

  /** confirm (pending → confirmed), decline (pending → declined), complete (confirmed → completed). */
  transition(id: string, action: DealAction): Promise<Deal> {
    return this.deals.transition(id, action);
  }

  // The `...Now` forms awaiting the store: the import on PostgreSQL, inside its transaction.

  vouchImported(input: VouchInput, now: number): Promise<void> {
    return this.vouches.vouchImported(input, now);
  }

  dealImported(input: DealInput, now: number): Promise<void> {
    return this.deals.dealImported(input, now);
  }

  reviewImported(input: ReviewInput, now: number): Promise<void> {
    return this.reviews.reviewImported(input, now);
  }

  referImported(input: ReferralInput, now: number): Promise<void> {
    return this.referrals.referImported(input, now);
  }

  registerServerImported(input: ServerInput, registeredBy: string, now: number): Promise<void> {
    return this.servers.registerServerImported(input, registeredBy, now);
  }

  // Reviews (reviews.ts).

  /** A review of `to` by `from`, attached to a completed deal between them that `from` has not reviewed. */
  review(input: typeof Model.ReviewBody.static): Promise<Review> {
    return this.reviews.review(input);
  }

  reviewNow(input: ReviewInput, now: number): Review {
    return this.reviews.reviewNow(input, now);
  }

  // Referrals (referrals.ts).

  refer(input: typeof Model.ReferralBody.static): Promise<Referral> {
    return this.referrals.refer(input);
  }

  referNow(input: ReferralInput, now: number): Referral {
    return this.referrals.referNow(input, now);
  }

  // Servers (servers.ts).

  registerServer(input: ServerInput, registeredBy: string): Promise<{ created: boolean; server: Server }> {
    return this.servers.registerServer(input, registeredBy);
  }

  registerServerNow(input: ServerInput, registeredBy: string, now: number): { created: boolean; server: Server } {
    return this.servers.registerServerNow(input, registeredBy, now);
  }

  unregisterServer(platform: string, serverId: string): Promise<Server> {
    return this.servers.unregisterServer(platform, serverId);
  }
}
