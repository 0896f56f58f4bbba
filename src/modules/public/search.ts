// Keyless search: one query across every platform (creator handles, public linked accounts,
// blacklist subjects) and, when nothing matches, the known names most like it.
import type { Database, Statement } from "bun:sqlite";
import { type Clock, iso } from "../../clock";
import { invalid } from "../../errors";
import type { CreatorsService } from "../creators/service";
import type { PublicAccounts, PublicCheckHit } from "./disclosure";
import { yieldToRequests } from "../../yield";
import { similarity, trigrams } from "./trigrams";

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

export class PublicSearch {
  private readonly gramPostings: Statement<unknown, [string]>;
  private readonly namesById: Statement<{ name: string }, [string]>;
  private readonly gramSlice: Statement<{ term: string; doc: number }, [string, number]>;
  /** Names per trigram in the suggestion index, to pick the rarest; refreshed hourly. */
  private gramCounts: Map<string, number> | null = null;

  constructor(
    db: Database,
    private readonly clock: Clock,
    private readonly accounts: PublicAccounts,
    private readonly creators: CreatorsService,
  ) {
    // The index's vocabulary as a table; temporary, so it lives with this connection only.
    db.run("CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_names_vocab USING fts5vocab(main, search_names_fts, 'row')");
    this.gramSlice = db.prepare("SELECT term, doc FROM temp.search_names_vocab WHERE term > ? ORDER BY term LIMIT ?");
    this.gramPostings = db.prepare("SELECT rowid FROM search_names_fts WHERE search_names_fts MATCH ?");
    this.namesById = db.prepare("SELECT name FROM search_names WHERE id IN (SELECT value FROM json_each(?)) AND suggestible");
  }

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
}
