// What a visitor sees without a key: search across every platform, trust tiers, resolving a linked
// account, the creator directory, vouches received, public counters and the referral leaderboard.
import type { Database, Statement } from "bun:sqlite";
import { type Clock, iso } from "../../clock";
import type { Store } from "../../db/client";
import { invalid, unprocessable } from "../../errors";
import { type BlacklistService, isProvider } from "../blacklist/service";
import { type CreatorRow, type CreatorsService, creatorNotFound } from "../creators/service";
import { TIER_COLORS, type TrustBand, tierLabel } from "../creators/trust";
import { DirectoryIndex } from "./directory-index";
import { type LeaderboardPeriod, ReferralCounts, type ReferralLeaderboard } from "./leaderboard";
import { type PublicCheckHit, PublicAccounts, type PublicLinkedAccount } from "./disclosure";
import { yieldToRequests } from "../../yield";
import { similarity, trigrams } from "./trigrams";

export const DIRECTORY_SORTS = ["newest", "trust", "vouches", "deals"] as const;
export type DirectorySort = (typeof DIRECTORY_SORTS)[number];
export { LEADERBOARD_PERIODS } from "./leaderboard";

/**
 * Deepest row the directory lists (`page` x `limit`). Any page within it is a bounded selection
 * from the in-memory index, or an index walk of at most this many rows; deeper pages cost as much
 * as sorting every match (60 ms at 50k creators), and nobody reads a listing that far: past it the
 * answer is 422, asking for a narrower query.
 */
export const MAX_DIRECTORY_ROWS = 1_000;
/** Longest accepted search text. */
export const MAX_QUERY_LENGTH = 64;
const MAX_SUGGESTIONS = 5;
/** Trigram similarity (Jaccard) a name needs to be suggested. */
const SUGGESTION_THRESHOLD = 0.3;
/**
 * Most index postings one suggestion lookup reads. Common trigrams ("_12", "ost") sit in tens of
 * thousands of names, so the rarest of the query's trigrams are read first, up to this many.
 */
const SUGGESTION_POSTINGS_BUDGET = 3_000;
/** Names, by most shared trigrams, whose similarity is computed exactly. */
const SUGGESTION_CANDIDATES = 48;

export interface PublicCheckResult {
  query: string;
  found: boolean;
  platforms: PublicCheckHit[];
  suggestions: string[];
  checked_at: string;
}

export interface PublicTrust {
  handle: string;
  found: boolean;
  band?: TrustBand;
  tier?: string;
  tier_color?: string;
  trust_score?: number;
  blacklisted?: boolean;
  checked_at?: string;
}

export type ResolveResult =
  | { found: false }
  | { found: true; handle: string; trust_score: number; band: TrustBand; blacklisted: boolean; profile_url: string };

export interface DirectoryItem {
  id: string;
  handle: string;
  display_name: string | null;
  verification_level: number;
  karma: number;
  avatar_r2_key: string | null;
  created_at: string;
  trust_score: number;
  vouch_count: number;
  deal_count: number;
  platforms: string[];
  match: string;
}

export interface DirectoryPage {
  items: DirectoryItem[];
  page: number;
  limit: number;
  page_size: number;
  total: number;
  total_pages: number;
  has_more: boolean;
  sort: DirectorySort;
}

export interface PublicVouch {
  id: string;
  from_username: string;
  from_display_name: string | null;
  from_verification_level: number;
  from_avatar_url: string | null;
  message: string | null;
  created_at: string;
}

export interface VouchesPage {
  count: number;
  limit: number;
  offset: number;
  vouches: PublicVouch[];
}

export interface PublicStats {
  creators_verified: number;
  servers_protected: number;
  entries_listed: number;
  deals_completed: number;
  cached: boolean;
}

/** Rows per slice when the public counters are recounted. */
const STATS_SLICE_ROWS = 10_000;

const SORT_ORDER: Record<DirectorySort, string> = {
  newest: "created_at DESC, id",
  trust: "trust_score DESC, id",
  vouches: "vouch_count DESC, id",
  deals: "deal_count DESC, id",
};
/** The index that holds each sort's order. */
const SORT_INDEX: Record<DirectorySort, string> = {
  newest: "creators_newest_idx",
  trust: "creators_trust_idx",
  vouches: "creators_vouches_idx",
  deals: "creators_deals_idx",
};

/** The directory scan's text, words (JSON), handle prefix and platform; each null when not asked. */
type DirectoryScanParams = [string | null, string | null, string | null, string | null];

export class PublicService {
  private readonly sqlite: Database;
  /** The only source of the platform accounts keyless answers show. */
  private readonly accounts: PublicAccounts;
  private readonly referrals: ReferralCounts;
  private readonly gramPostings: Statement<unknown, [string]>;
  private readonly directoryIndex: DirectoryIndex;
  private readonly creatorsByRowid: Statement<CreatorRow, [string]>;
  private readonly namesById: Statement<{ name: string }, [string]>;
  private readonly gramSlice: Statement<{ term: string; doc: number }, [string, number]>;
  private readonly vouchRows: Statement<
    { id: string; message: string | null; created_at: number; handle: string; display_name: string | null; verification_level: number; avatar_r2_key: string | null },
    [string, number, number]
  >;
  /** While the directory index builds: a page of matching creators per sort, and how many match. */
  private readonly directoryScan: Record<DirectorySort, Statement<CreatorRow, [...DirectoryScanParams, number, number]>>;
  private readonly directoryScanCount: Statement<{ n: number }, DirectoryScanParams>;
  private readonly creatorCount: Statement<{ n: number }, []>;
  /** The unfiltered directory's page, per sort. */
  private readonly directoryPage: Record<DirectorySort, Statement<CreatorRow, [number, number]>>;
  /** Names per trigram in the suggestion index, to pick the rarest; refreshed hourly. */
  private gramCounts: Map<string, number> | null = null;
  private stats: Omit<PublicStats, "cached"> | null = null;
  private statsRefresh: Promise<Omit<PublicStats, "cached">> | null = null;

  constructor(
    store: Store,
    private readonly clock: Clock,
    blacklist: BlacklistService,
    private readonly creators: CreatorsService,
  ) {
    const db = (this.sqlite = store.sqlite);
    this.accounts = new PublicAccounts(db, blacklist);
    this.referrals = new ReferralCounts(db);
    // The index's vocabulary as a table; temporary, so it lives with this connection only.
    db.run("CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_names_vocab USING fts5vocab(main, search_names_fts, 'row')");
    this.gramSlice = db.prepare("SELECT term, doc FROM temp.search_names_vocab WHERE term > ? ORDER BY term LIMIT ?");
    this.directoryIndex = new DirectoryIndex(db, store.changes);
    creators.onChange((id) => this.directoryIndex.markDirty(id));
    this.creatorsByRowid = db.prepare("SELECT rowid, * FROM creators WHERE rowid IN (SELECT value FROM json_each(?))");
    this.directoryPage = Object.fromEntries(
      DIRECTORY_SORTS.map((sort) => [sort, db.prepare(`SELECT rowid, * FROM creators INDEXED BY ${SORT_INDEX[sort]} ORDER BY ${SORT_ORDER[sort]} LIMIT ? OFFSET ?`)]),
    ) as PublicService["directoryPage"];
    // What the directory index answers, said in SQL: the haystack is search_text, a short q is a
    // handle prefix, and the platform filter matches one name of the comma list.
    const scanWhere = `(?1 IS NULL OR instr(search_text, ?1) > 0)
      AND (?2 IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(?2) WHERE instr(search_text, value) = 0))
      AND (?3 IS NULL OR (handle >= ?3 AND handle < ?3 || '~'))
      AND (?4 IS NULL OR instr(',' || platforms || ',', ',' || ?4 || ',') > 0)`;
    this.directoryScan = Object.fromEntries(
      DIRECTORY_SORTS.map((sort) => [sort, db.prepare(`SELECT rowid, * FROM creators WHERE ${scanWhere} ORDER BY ${SORT_ORDER[sort]} LIMIT ?5 OFFSET ?6`)]),
    ) as PublicService["directoryScan"];
    this.directoryScanCount = db.prepare(`SELECT count(*) AS n FROM creators WHERE ${scanWhere}`);
    this.creatorCount = db.prepare("SELECT count(*) AS n FROM creators");
    this.gramPostings = db.prepare("SELECT rowid FROM search_names_fts WHERE search_names_fts MATCH ?");
    this.namesById = db.prepare("SELECT name FROM search_names WHERE id IN (SELECT value FROM json_each(?)) AND suggestible");
    this.vouchRows = db.prepare(
      `SELECT v.id, v.message, v.created_at, c.handle, c.display_name, c.verification_level, c.avatar_r2_key
       FROM vouches v INDEXED BY vouches_to_idx JOIN creators c ON c.id = v.from_creator_id
       WHERE v.to_creator_id = ? ORDER BY v.created_at DESC, v.id DESC LIMIT ? OFFSET ?`,
    );
  }

  // ---- search -----------------------------------------------------------------------------

  /**
   * Unified search: creator handles, public connection usernames and ids, and blacklist subjects'
   * ids and usernames, without case or a leading `@`. One hit per matched platform account.
   */
  async search(rawQuery: string): Promise<PublicCheckResult> {
    const query = rawQuery.trim().replace(/^@/, "");
    if (query === "") throw invalid("q is required: a username, handle or platform id.");
    if (query.length > MAX_QUERY_LENGTH) throw invalid(`q is longer than ${MAX_QUERY_LENGTH} characters.`);
    const lower = query.toLowerCase();
    const now = this.clock.now();
    const platforms = this.accounts.hits(query, this.creators.findNow(lower), now);
    const found = platforms.length > 0;
    // A numeric id that matched nothing has no "close" names: neighbouring ids mean nothing.
    const suggestions = found || /^\d+$/.test(lower) ? [] : this.suggest(lower);
    return { query, found, platforms, suggestions, checked_at: iso(now) };
  }

  /**
   * Up to five known names most similar to `lower` by trigram overlap (Jaccard). A name sharing
   * at least 30% of the query's trigrams (the similarity threshold implies as much) holds one of
   * the query's rarest n - ceil(0.3 n) + 1 trigrams, so only those posting lists are read, within
   * a budget. Only name ids are read from the index (ranking inside FTS5 costs 15-25x more); the
   * names sharing the most of them are then scored exactly.
   */
  suggest(lower: string): string[] {
    const grams = trigrams(lower);
    if (grams.size === 0) return [];
    const counts = this.gramCounts ?? this.refreshGramCounts();
    // A trigram the counts have not seen yet came with names added since they were taken: rare.
    const byRarity = [...grams].map((g) => ({ g, n: counts.get(g) ?? 1 })).sort((a, b) => a.n - b.n);
    const shared = new Map<number, number>();
    let postings = 0;
    for (const { g, n } of byRarity.slice(0, grams.size - Math.ceil(grams.size * SUGGESTION_THRESHOLD) + 1)) {
      if (n === 0) continue;
      if (postings > 0 && postings + n > SUGGESTION_POSTINGS_BUDGET) break;
      postings += n;
      for (const [id] of this.gramPostings.values(`"${g.replaceAll('"', '""')}"`)) shared.set(id as number, (shared.get(id as number) ?? 0) + 1);
    }
    if (shared.size === 0) return [];
    const ids = [...shared].sort((a, b) => b[1] - a[1]).slice(0, SUGGESTION_CANDIDATES).map(([id]) => id);
    const scored: Array<{ name: string; score: number }> = [];
    for (const { name } of this.namesById.all(JSON.stringify(ids))) {
      if (name === lower) continue;
      const score = similarity(grams, trigrams(name));
      if (score >= SUGGESTION_THRESHOLD) scored.push({ name, score });
    }
    scored.sort((a, b) => b.score - a.score || a.name.length - b.name.length || (a.name < b.name ? -1 : 1));
    return scored.slice(0, MAX_SUGGESTIONS).map((s) => s.name);
  }

  /** Re-reads how many names hold each trigram, at once (the first suggestion before warm-up). */
  refreshGramCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const _ of this.gramCountSlices(counts));
    this.gramCounts = counts;
    return counts;
  }

  /**
   * The same with the event loop running between slices: counting a common trigram's names reads
   * its whole posting list, and the full scan of a million names blocks for about 100 ms. The
   * hourly job and serve's warm-up use this.
   */
  async refreshGramCountsInSlices(): Promise<number> {
    const counts = new Map<string, number>();
    for (const _ of this.gramCountSlices(counts)) await yieldToRequests();
    this.gramCounts = counts;
    return counts.size;
  }

  /** Fills `counts` from the index's vocabulary, a hundred trigrams per step. */
  private *gramCountSlices(counts: Map<string, number>): Generator<void> {
    for (let after = ""; ; ) {
      const rows = this.gramSlice.all(after, 100);
      for (const row of rows) counts.set(row.term, row.doc);
      if (rows.length < 100) return;
      after = rows[rows.length - 1]!.term;
      yield;
    }
  }

  // ---- trust tier and resolve ---------------------------------------------------------------

  /** The trust tier of one handle; `trust_score` only for a signed-in (session) caller. */
  async publicTrust(rawHandle: string, withScore = false): Promise<PublicTrust> {
    const shown = rawHandle.trim().replace(/^@/, "").toLowerCase().slice(0, 64);
    const row = this.creators.findNow(rawHandle);
    if (!row) return { handle: shown, found: false };
    const result: PublicTrust = {
      handle: row.handle,
      found: true,
      band: row.trust_band,
      tier: tierLabel(row.trust_band),
      tier_color: TIER_COLORS[row.trust_band],
      blacklisted: !!row.blacklisted,
      checked_at: iso(this.clock.now()),
    };
    if (withScore) result.trust_score = row.trust_score;
    return result;
  }

  /** The creator a public linked account belongs to. */
  async resolve(input: { provider?: string; id?: string; username?: string }): Promise<ResolveResult> {
    const provider = input.provider;
    if (provider !== undefined && !isProvider(provider)) throw invalid(`Unknown provider '${provider.slice(0, 32)}'.`);
    const id = input.id?.trim();
    const username = input.username?.trim().replace(/^@/, "").toLowerCase();
    if (!id && !username) throw invalid("Give id or username (with an optional provider).");
    const creatorId = this.accounts.creatorIdOf(provider, id, username);
    const creator = creatorId ? await this.creators.findById(creatorId) : null;
    if (!creator) return { found: false };
    return {
      found: true,
      handle: creator.handle,
      trust_score: creator.trust_score,
      band: creator.trust_band,
      blacklisted: !!creator.blacklisted,
      profile_url: this.creators.profileUrl(creator.handle),
    };
  }

  // ---- directory ------------------------------------------------------------------------------

  /**
   * One page of the creator directory, at most MAX_DIRECTORY_ROWS deep. `q` (3+ characters) is
   * matched without case against each creator's haystack (handle, display name, public connection
   * usernames) by the in-memory directory index: as typed, anywhere in it ("ht dr" finds "knight
   * drake"), or, when that finds nothing, every word of three characters or more in any order. A
   * shorter `q` is a handle prefix. Any filter (`q`, `platform`) is answered from that index (which
   * keeps each recent query's ordered first rows until the next change); the unfiltered list walks
   * the sort's index in SQLite, at most MAX_DIRECTORY_ROWS entries.
   */
  async directory(options: { q?: string; sort?: DirectorySort; page?: number; limit?: number; platform?: string }): Promise<DirectoryPage> {
    const sort = options.sort ?? "newest";
    const page = options.page ?? 1;
    const limit = options.limit ?? 24;
    if (page * limit > MAX_DIRECTORY_ROWS) {
      throw unprocessable(
        `page x limit is ${page * limit}; the directory lists the first ${MAX_DIRECTORY_ROWS} rows of a query. Narrow it with q or platform, or sort differently.`,
      );
    }
    const text = (options.q ?? "").toLowerCase().replace(/\s+/g, " ").trim();
    const platform = options.platform ?? null;
    const offset = (page - 1) * limit;
    const refreshed = this.directoryIndex.refresh();
    let total: number;
    let rows: CreatorRow[];
    if (!this.directoryIndex.ready) {
      // The index is being built (about 1.5 s at 100k creators after a start): nobody waits for
      // it; SQLite answers meanwhile, scanning the creators (20-40 ms a query at 100k).
      refreshed.catch(() => {}); // a failed build is retried by the next query
      ({ total, rows } = this.directoryFromSqlite(text, platform, sort, offset, Math.min(limit, MAX_DIRECTORY_ROWS - offset)));
    } else if ((await refreshed, text === "" && platform === null)) {
      total = this.directoryIndex.size;
      rows = offset < total ? this.directoryPage[sort].all(limit, offset) : [];
    } else {
      const found = this.directoryIndex.query(text, platform, sort, offset, limit, MAX_DIRECTORY_ROWS);
      total = found.total;
      const rowids = found.rowids;
      const byRowid = new Map(this.creatorsByRowid.all(JSON.stringify(rowids)).map((row) => [row.rowid, row]));
      rows = rowids.flatMap((rowid) => byRowid.get(rowid) ?? []);
    }
    const totalPages = Math.ceil(total / limit);
    return {
      items: rows.map(directoryItem),
      page,
      limit,
      page_size: rows.length,
      total,
      total_pages: totalPages,
      has_more: page < totalPages,
      sort,
    };
  }

  /** The directory index's answer read from SQLite, for queries that come while it builds. */
  private directoryFromSqlite(text: string, platform: string | null, sort: DirectorySort, offset: number, limit: number) {
    if (text === "" && platform === null) {
      return { total: this.creatorCount.get()!.n, rows: this.directoryPage[sort].all(limit, offset) };
    }
    const page = (params: DirectoryScanParams) => {
      const total = this.directoryScanCount.get(...params)!.n;
      return { total, rows: offset < total ? this.directoryScan[sort].all(...params, limit, offset) : [] };
    };
    if ([...text].length < 3) return page([null, null, text === "" ? null : text, platform]);
    const exact = page([text, null, null, platform]);
    const words = [...new Set(text.split(" ").filter((w) => [...w].length >= 3))];
    return exact.total > 0 || words.length < 2 ? exact : page([null, JSON.stringify(words), null, platform]);
  }

  /** Builds the directory index ahead of the first query that needs it. */
  warmDirectory(): Promise<void> {
    return this.directoryIndex.refresh();
  }

  /**
   * Reads ahead, with requests served in between, what keyless answers come from (serve calls
   * this): the suggestion index's vocabulary (else the first search that misses reads it), the
   * directory index, the public counters and the referral counts.
   */
  async warm(): Promise<void> {
    await this.refreshGramCountsInSlices();
    await this.warmDirectory();
    await this.refreshStats();
    await this.referrals.leaders("all", this.clock.now());
  }

  /** A creator's public linked accounts (never a private one), for its public profile page. */
  linkedAccounts(creator: CreatorRow): PublicLinkedAccount[] {
    return this.accounts.linkedAccounts(creator.id);
  }

  // ---- vouches --------------------------------------------------------------------------------

  async vouches(rawHandle: string, options: { limit?: number; offset?: number }): Promise<VouchesPage> {
    const creator = this.creators.findNow(rawHandle);
    if (!creator) throw creatorNotFound(rawHandle);
    const limit = options.limit ?? 20;
    const offset = options.offset ?? 0;
    return {
      count: creator.vouch_count,
      limit,
      offset,
      vouches: this.vouchRows.all(creator.id, limit, offset).map((v) => ({
        id: v.id,
        from_username: v.handle,
        from_display_name: v.display_name,
        from_verification_level: v.verification_level,
        from_avatar_url: v.avatar_r2_key ? `/avatars/${encodeURIComponent(v.avatar_r2_key)}` : null,
        message: v.message,
        created_at: iso(v.created_at),
      })),
    };
  }

  // ---- counters and leaderboard -------------------------------------------------------------

  /** Public counters from the cache the 5-minute job fills; computed on a cold cache. */
  async publicStats(): Promise<PublicStats> {
    if (this.stats) return { ...this.stats, cached: true };
    return { ...(await this.refreshStats()), cached: false };
  }

  /** Recounts the public counters; run every 5 minutes. */
  async refreshStats(): Promise<Omit<PublicStats, "cached">> {
    this.statsRefresh ??= this.countStats().finally(() => {
      this.statsRefresh = null;
    });
    return this.statsRefresh;
  }

  /**
   * Counting a million entries takes 130 ms or more: the big tables are counted a rowid range at
   * a time, with the event loop running in between, so requests are not held up.
   */
  private async countStats(): Promise<Omit<PublicStats, "cached">> {
    const now = this.clock.now();
    const [creatorsVerified, entriesListed, dealsCompleted] = [
      await this.countInSlices("creators", "verification_level >= 1"),
      await this.countInSlices("blacklist_entries", "status = 'active' AND watchlist = 0 AND (expires_at IS NULL OR expires_at > ?3)", now),
      await this.countInSlices("deals", "status = 'completed'"),
    ];
    this.stats = {
      creators_verified: creatorsVerified,
      servers_protected: (this.sqlite.query("SELECT count(*) AS n FROM servers").get() as { n: number }).n,
      entries_listed: entriesListed,
      deals_completed: dealsCompleted,
    };
    return this.stats;
  }

  /** Rows of `table` meeting `condition`, which may use `?3` for the current time. */
  private async countInSlices(table: "creators" | "blacklist_entries" | "deals", condition: string, now?: number): Promise<number> {
    const last = (this.sqlite.query(`SELECT coalesce(max(rowid), 0) AS n FROM ${table}`).get() as { n: number }).n;
    const slice = this.sqlite.prepare<{ n: number }, number[]>(
      `SELECT count(*) AS n FROM ${table} WHERE rowid > ?1 AND rowid <= ?2 AND ${condition}`,
    );
    let total = 0;
    for (let from = 0; from < last; from += STATS_SLICE_ROWS) {
      const range = [from, from + STATS_SLICE_ROWS];
      total += slice.get(...(now === undefined ? range : [...range, now]))!.n;
      await yieldToRequests();
    }
    return total;
  }

  /** The top 25 referrers: exact after every referral, from counts kept in memory (leaderboard.ts). */
  async leaderboard(period: LeaderboardPeriod = "all"): Promise<ReferralLeaderboard> {
    return { period, leaders: await this.referrals.leaders(period, this.clock.now()) };
  }
}

function directoryItem(row: CreatorRow): DirectoryItem {
  return {
    id: row.id,
    handle: row.handle,
    display_name: row.display_name,
    verification_level: row.verification_level,
    karma: row.karma,
    avatar_r2_key: row.avatar_r2_key,
    created_at: iso(row.created_at),
    trust_score: row.trust_score,
    vouch_count: row.vouch_count,
    deal_count: row.deal_count,
    platforms: row.platforms === "" ? [] : row.platforms.split(","),
    match: row.search_text,
  };
}
