// What a visitor sees without a key: search across every platform (search.ts), trust tiers and
// resolving a linked account (tier.ts), the creator directory (directory.ts), vouches received
// (vouches.ts), public counters (stats.ts) and the referral leaderboard (leaderboard.ts).
import type { Clock } from "../../clock";
import type { Database } from "../../db/database";
import { createMetaStore } from "../../db/meta-store";
import type { BlacklistService } from "../blacklist/service";
import { createBlacklistStore } from "../blacklist/store";
import { createNetworkStore } from "../network/store";
import type { CreatorRow, CreatorsService } from "../creators/service";
import { type DirectoryPage, type DirectorySort, PublicDirectory } from "./directory";
import type { DirectorySnapshotShelf } from "./directory-snapshot";
import { type LeaderboardPeriod, ReferralCounts, type ReferralLeaderboard } from "./leaderboard";
import type { Viewer } from "../sessions/service";
import { PublicAccounts, type PublicLinkedAccount } from "./disclosure";
import { type PublicCheckResult, PublicSearch } from "./search";
import { createSearchNamesStore } from "./store";
import { PublicCounters, type PublicStats } from "./stats";
import { type PublicTrust, PublicTiers, type ResolveResult } from "./tier";
import { PublicVouches, type VouchesPage } from "./vouches";

export { DIRECTORY_SORTS, type DirectoryItem, type DirectoryPage, type DirectorySort, MAX_DIRECTORY_ROWS } from "./directory";
export { LEADERBOARD_PERIODS } from "./leaderboard";
export { MAX_QUERY_LENGTH, type PublicCheckResult } from "./search";
export type { PublicStats } from "./stats";
export type { PublicTrust, ResolveResult } from "./tier";
export type { VouchesPage } from "./vouches";

/**
 * The keyless answers the routes, pages and jobs ask for, a facade over one file per concept:
 * search, trust tiers and resolving, directory, counters, the leaderboard and vouches.
 */
export class PublicService {
  /** The only source of the platform accounts keyless answers show. */
  private readonly accounts: PublicAccounts;
  private readonly referrals: ReferralCounts;
  private readonly searcher: PublicSearch;
  private readonly directoryPages: PublicDirectory;
  private readonly counters: PublicCounters;
  private readonly tiers: PublicTiers;
  private readonly vouchPages: PublicVouches;

  constructor(
    database: Database,
    private readonly clock: Clock,
    blacklist: BlacklistService,
    creators: CreatorsService,
  ) {
    const entries = createBlacklistStore(database);
    const network = createNetworkStore(database);
    this.accounts = new PublicAccounts({ creators: creators.store, blacklist: entries }, blacklist);
    this.referrals = new ReferralCounts(network);
    this.searcher = new PublicSearch(createSearchNamesStore(database), clock, this.accounts, creators);
    this.directoryPages = new PublicDirectory(database, createMetaStore(database), creators);
    this.counters = new PublicCounters({ creators: creators.store, blacklist: entries, network }, clock);
    this.tiers = new PublicTiers(clock, this.accounts, creators);
    this.vouchPages = new PublicVouches(creators, network);
  }

  // Trust tier and resolve (tier.ts).

  /** The trust tier of one handle; `trust_score` only for a signed-in (session) caller. */
  publicTrust(rawHandle: string, viewer: Viewer | null = null): Promise<PublicTrust> {
    return this.tiers.publicTrust(rawHandle, viewer);
  }

  /** The creator a public linked account belongs to. */
  resolve(input: { provider?: string; id?: string; username?: string }): Promise<ResolveResult> {
    return this.tiers.resolve(input);
  }

  // Search, directory, counters and leaderboard (each in its own file).

  /** Keyless blacklist search with suggestions (search.ts). */
  search(rawQuery: string): Promise<PublicCheckResult> {
    return this.searcher.search(rawQuery);
  }

  /** Re-reads the suggestion index's trigram counts at once (search.ts). */
  refreshGramCounts(): Promise<number> {
    return this.searcher.refreshGramCounts();
  }

  /** The same in slices, for the hourly job (search.ts). */
  refreshGramCountsInSlices(): Promise<number> {
    return this.searcher.refreshGramCountsInSlices();
  }

  /** One page of the creator directory (directory.ts). */
  directory(options: { q?: string; sort?: DirectorySort; page?: number; limit?: number; platform?: string }): Promise<DirectoryPage> {
    return this.directoryPages.page(options);
  }

  /** The workers of one serve build the directory index once and share it (server/shared-snapshots.ts). */
  shareDirectoryWith(shelf: DirectorySnapshotShelf): void {
    this.directoryPages.shareWith(shelf);
  }

  /** Builds the directory index ahead of the first query that needs it. */
  warmDirectory(): Promise<void> {
    return this.directoryPages.warm();
  }

  /** Public counters from the cache the 5-minute job fills (stats.ts). */
  publicStats(): Promise<PublicStats> {
    return this.counters.publicStats();
  }

  /** Recounts the public counters; run every 5 minutes. */
  refreshStats(): Promise<Omit<PublicStats, "cached">> {
    return this.counters.refresh();
  }

  /** The top 25 referrers: exact after every referral, from counts kept in memory (leaderboard.ts). */
  async leaderboard(period: LeaderboardPeriod = "all"): Promise<ReferralLeaderboard> {
    return { period, leaders: await this.referrals.leaders(period, this.clock.now()) };
  }

  /**
   * Reads ahead, with requests served in between, what keyless answers come from besides the
   * directory index (serve warms that first, `warmDirectory`): the suggestion index's vocabulary
   * (else the first search that misses reads it), the public counters and the referral counts.
   */
  async warm(): Promise<void> {
    await this.refreshGramCountsInSlices();
    await this.refreshStats();
    await this.referrals.leaders("all", this.clock.now());
  }

  /** A creator's public linked accounts (never a private one), for its public profile page. */
  linkedAccounts(creator: CreatorRow): Promise<PublicLinkedAccount[]> {
    return this.accounts.linkedAccounts(creator.id);
  }

  // Vouches (vouches.ts).

  vouches(rawHandle: string, options: { limit?: number; offset?: number }): Promise<VouchesPage> {
    return this.vouchPages.vouches(rawHandle, options);
  }
}
