// The public counters (verified creators, protected servers, listed entries, completed deals):
// a cache the 5-minute job refills, each table counted by the store that owns it.
import type { Clock } from "../../clock";
import type { BlacklistStore } from "../blacklist/store";
import type { CreatorsStore } from "../creators/store";
import type { NetworkStore } from "../network/store";
import type { PublicStats as PublicStatsSchema } from "./model";

export type PublicStats = typeof PublicStatsSchema.static;

/** The stores that own what is counted. */
export interface CountedStores {
  creators: CreatorsStore;
  blacklist: BlacklistStore;
  network: NetworkStore;
}

export class PublicCounters {
  private stats: Omit<PublicStats, "cached"> | null = null;
  private statsRefresh: Promise<Omit<PublicStats, "cached">> | null = null;

  constructor(
    private readonly stores: CountedStores,
    private readonly clock: Clock,
  ) {}

  /** Public counters from the cache the 5-minute job fills; computed on a cold cache. */
  async publicStats(): Promise<PublicStats> {
    if (this.stats) return { ...this.stats, cached: true };
    return { ...(await this.refresh()), cached: false };
  }

  /** Recounts the public counters; run every 5 minutes. */
  async refresh(): Promise<Omit<PublicStats, "cached">> {
    this.statsRefresh ??= this.countStats().finally(() => {
      this.statsRefresh = null;
    });
    return this.statsRefresh;
  }

  /** Each table is counted by the store that owns it (SQLite counts the big ones in slices). */
  private async countStats(): Promise<Omit<PublicStats, "cached">> {
    const now = this.clock.now();
    this.stats = {
      creators_verified: await this.stores.creators.countVerified(),
      servers_protected: await this.stores.network.countServers(),
      entries_listed: await this.stores.blacklist.countListed(now),
      deals_completed: await this.stores.network.countCompletedDeals(),
    };
    return this.stats;
  }
}
