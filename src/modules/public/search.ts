// Keyless search: one query across every platform (creator handles, public linked accounts,
// blacklist subjects) and, when nothing matches, the known names most like it.
import { type Clock, iso } from "../../clock";
import { invalid } from "../../errors";
import type { CreatorsService } from "../creators/service";
import type { PublicAccounts } from "./disclosure";
import type { PublicCheckResult as PublicCheckResultSchema } from "./model";
import type { SearchNamesStore } from "./store";
import { similarityTo } from "./trigrams";

/** Longest accepted search text. */
export const MAX_QUERY_LENGTH = 64;
const MAX_SUGGESTIONS = 5;
/** Trigram similarity (Jaccard) a name needs to be suggested. */
const SUGGESTION_THRESHOLD = 0.3;
/** Names, by most shared trigrams, whose similarity is computed exactly. */
const SUGGESTION_CANDIDATES = 48;

export type PublicCheckResult = typeof PublicCheckResultSchema.static;

export class PublicSearch {
  constructor(
    private readonly names: SearchNamesStore,
    private readonly clock: Clock,
    private readonly accounts: PublicAccounts,
    private readonly creators: CreatorsService,
  ) {}

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
    const platforms = await this.accounts.hits(query, await this.creators.find(lower), now);
    const found = platforms.length > 0;
    // A numeric id that matched nothing has no "close" names: neighbouring ids mean nothing.
    const suggestions = found || /^\d+$/.test(lower) ? [] : await this.suggest(lower);
    return { query, found, platforms, suggestions, checked_at: iso(now) };
  }

  /**
   * Up to five known names most similar to `lower` by trigram overlap (Jaccard), from the
   * candidates the suggestion pool's index finds (store.ts).
   */
  async suggest(lower: string): Promise<string[]> {
    // Both stores answer no candidates for text without a trigram.
    const similarityOf = similarityTo(lower);
    const scored: Array<{ name: string; score: number }> = [];
    for (const name of await this.names.candidates(lower, { minSimilarity: SUGGESTION_THRESHOLD, limit: SUGGESTION_CANDIDATES })) {
      if (name === lower) continue;
      const score = similarityOf(name);
      if (score >= SUGGESTION_THRESHOLD) scored.push({ name, score });
    }
    scored.sort((a, b) => b.score - a.score || a.name.length - b.name.length || (a.name < b.name ? -1 : 1));
    return scored.slice(0, MAX_SUGGESTIONS).map((s) => s.name);
  }

  /** Re-reads what the suggestion index ranks by; on SQLite done before it returns. */
  refreshGramCounts(): Promise<number> {
    return this.names.refreshStatistics(false);
  }

  /** The same with the event loop running between slices: the hourly job and serve's warm-up. */
  refreshGramCountsInSlices(): Promise<number> {
    return this.names.refreshStatistics(true);
  }
}
