// What a visitor sees without a key: search across every platform, trust tiers, resolving a linked
// account, the creator directory, vouches received, public counters and the referral leaderboard.
import { type Clock, iso } from "../../clock";
import type { Database } from "../../db/database";
import { createMetaStore } from "../../db/meta-store";
import { invalid } from "../../errors";
import { type BlacklistService, isProvider } from "../blacklist/service";
import { createBlacklistStore } from "../blacklist/store";
import { createNetworkStore, type NetworkStore } from "../network/store";
import { type CreatorRow, type CreatorsService, creatorNotFound } from "../creators/service";
import { TIER_COLORS, tierLabel } from "../creators/trust";
import { type DirectoryPage, type DirectorySort, PublicDirectory } from "./directory";
import type { DirectorySnapshotShelf } from "./directory-snapshot";
import { type LeaderboardPeriod, ReferralCounts, type ReferralLeaderboard } from "./leaderboard";
import type { Viewer } from "../sessions/service";
import { PublicAccounts, type PublicLinkedAccount, showsTrustScore } from "./disclosure";
import type { PublicTrust as PublicTrustSchema, ResolveResult as ResolveResultSchema, VouchesPage as VouchesPageSchema } from "./model";
import { type PublicCheckResult, PublicSearch } from "./search";
import { createSearchNamesStore } from "./store";
import { PublicCounters, type PublicStats } from "./stats";

export { DIRECTORY_SORTS, type DirectoryItem, type DirectoryPage, type DirectorySort, MAX_DIRECTORY_ROWS } from "./directory";
export { LEADERBOARD_PERIODS } from "./leaderboard";
export { MAX_QUERY_LENGTH, type PublicCheckResult } from "./search";
export type { PublicStats } from "./stats";

export type PublicTrust = typeof PublicTrustSchema.static;
export type ResolveResult = typeof ResolveResultSchema.static;
export type VouchesPage = typeof VouchesPageSchema.static;

/**
 * The keyless answers the routes, pages and jobs ask for. Search, directory, counters and the
 * leaderboard each live in their own file; trust tiers, resolving and vouches are answered here.
 */
export class PublicService {
  /** The only source of the platform accounts keyless answers show. */
  private readonly accounts: PublicAccounts;
  private readonly referrals: ReferralCounts;
  private readonly searcher: PublicSearch;
  private readonly directoryPages: PublicDirectory;
  private readonly counters: PublicCounters;
  private readonly network: NetworkStore;

  constructor(
    database: Database,
    private readonly clock: Clock,
    blacklist: BlacklistService,
    private readonly creators: CreatorsService,
  ) {
    const entries = createBlacklistStore(database);
    this.network = createNetworkStore(database);
    this.accounts = new PublicAccounts({ creators: creators.store, blacklist: entries }, blacklist);
    this.referrals = new ReferralCounts(this.network);
    this.searcher = new PublicSearch(createSearchNamesStore(database), clock, this.accounts, creators);
    this.directoryPages = new PublicDirectory(database.changes, createMetaStore(database), creators);
    this.counters = new PublicCounters({ creators: creators.store, blacklist: entries, network: this.network }, clock);
  }

  // ---- trust tier and resolve ---------------------------------------------------------------

  /** The trust tier of one handle; `trust_score` only for a signed-in (session) caller. */
  async publicTrust(rawHandle: string, viewer: Viewer | null = null): Promise<PublicTrust> {
    const shown = rawHandle.trim().replace(/^@/, "").toLowerCase().slice(0, 64);
    const row = await this.creators.find(rawHandle);
    if (!row) return { handle: shown, found: false };
    const result: PublicTrust = {
      handle: row.handle,
      found: true,
      band: row.trustBand,
      tier: tierLabel(row.trustBand),
      tier_color: TIER_COLORS[row.trustBand],
      blacklisted: !!row.blacklisted,
      checked_at: iso(this.clock.now()),
    };
    if (showsTrustScore(viewer)) result.trust_score = row.trustScore;
    return result;
  }

  /** The creator a public linked account belongs to. */
  async resolve(input: { provider?: string; id?: string; username?: string }): Promise<ResolveResult> {
    const provider = input.provider;
    if (provider !== undefined && !isProvider(provider)) throw invalid(`Unknown provider '${provider.slice(0, 32)}'.`);
    const id = input.id?.trim();
    const username = input.username?.trim().replace(/^@/, "").toLowerCase();
    if (!id && !username) throw invalid("Give id or username (with an optional provider).");
    const creatorId = await this.accounts.creatorIdOf(provider, id, username);
    const creator = creatorId ? await this.creators.findById(creatorId) : null;
    if (!creator) return { found: false };
    return {
      found: true,
      handle: creator.handle,
      trust_score: creator.trustScore,
      band: creator.trustBand,
      blacklisted: !!creator.blacklisted,
      profile_url: this.creators.profileUrl(creator.handle),
    };
  }

  // ---- search, directory, counters and leaderboard (each in its own file) ---------------------

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

  // ---- vouches --------------------------------------------------------------------------------

  async vouches(rawHandle: string, options: { limit?: number; offset?: number }): Promise<VouchesPage> {
    const creator = await this.creators.find(rawHandle);
    if (!creator) throw creatorNotFound(rawHandle);
    const limit = options.limit ?? 20;
    const offset = options.offset ?? 0;
    return {
      count: creator.vouchCount,
      limit,
      offset,
      vouches: (await this.network.vouchesReceived(creator.id, limit, offset)).map((v) => ({
        id: v.id,
        from_username: v.handle,
        from_display_name: v.displayName,
        from_verification_level: v.verificationLevel,
        from_avatar_url: v.avatarR2Key ? `/avatars/${encodeURIComponent(v.avatarR2Key)}` : null,
        message: v.message,
        created_at: iso(v.createdAt),
      })),
    };
  }
}
