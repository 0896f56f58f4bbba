// The public counters (verified creators, protected servers, listed entries, completed deals):
// a cache the 5-minute job refills, counted in slices so requests keep flowing.
import type { Database } from "bun:sqlite";
import type { Clock } from "../../clock";
import { yieldToRequests } from "../../yield";

export interface PublicStats {
  creators_verified: number;
  servers_protected: number;
  entries_listed: number;
  deals_completed: number;
  cached: boolean;
}

/** Rows per slice when the public counters are recounted. */
const STATS_SLICE_ROWS = 10_000;

export class PublicCounters {
  private stats: Omit<PublicStats, "cached"> | null = null;
  private statsRefresh: Promise<Omit<PublicStats, "cached">> | null = null;

  constructor(
    private readonly sqlite: Database,
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
}
