// The referral leaderboard from counts held in memory. Grouping every referral on each call cost
// 36-61 ms at 50k creators (one JavaScript thread, every other request waiting); here each
// referral is read once, and a call costs one indexed read (the table's last position: SQLite's
// rowid, PostgreSQL's seq) plus, after a write, one pass over the referrers to pick the top 25.
//
// Freshness: exact. Referrals are only ever inserted (no update or delete touches the table), in
// position order as they commit (the network store sees to it on PostgreSQL), so the last position
// moves with every referral any process or instance writes: a call that finds it moved reads the
// new rows (past the last one read) before answering, so a referral shows from the next request
// on, whether this server, another instance, the CLI or an import wrote it. Handles never change,
// so counts are kept by handle. The month's counts restart when the UTC month turns.
import type { NetworkStore } from "../network/store";
import { yieldToRequests } from "../../yield";
import type { ReferralLeaderboard as ReferralLeaderboardSchema } from "./model";

export const LEADERBOARD_PERIODS = ["all", "month"] as const;
export type LeaderboardPeriod = (typeof LEADERBOARD_PERIODS)[number];
export type ReferralLeaderboard = typeof ReferralLeaderboardSchema.static;

/** Leaders shown (docs/api.md). */
const TOP = 25;
/** Referrals read per slice when catching up (the first call, or after an import). */
const CATCH_UP_SLICE = 5_000;

/** Referral badge tiers, highest first (docs/api.md). */
const REFERRAL_TIERS = [
  { at: 100, tier: "gold", name: "Legend" },
  { at: 25, tier: "silver", name: "Ambassador" },
  { at: 5, tier: "bronze", name: "Recruiter" },
] as const;

type Leaders = ReferralLeaderboard["leaders"];

export class ReferralCounts {
  private readonly all = new Map<string, number>();
  private readonly month = new Map<string, number>();
  private monthStart = -1;
  private readPosition = 0;
  private catchingUp: Promise<void> | null = null;
  /** The answer per period, valid while nothing was read since. */
  private readonly answers = new Map<LeaderboardPeriod, Leaders>();

  /** `referrals`: the network module's store, which owns the table. */
  constructor(private readonly referrals: NetworkStore) {}

  /** The top referrers of `period` (the UTC month holding `now`, or all time). */
  async leaders(period: LeaderboardPeriod, now: number): Promise<Leaders> {
    for (;;) {
      if (this.catchingUp) {
        await this.catchingUp;
        continue;
      }
      const start = monthStart(now);
      if (start > this.monthStart) {
        // A new month: every referral is read again, so the month's counts hold only its own.
        this.all.clear();
        this.month.clear();
        this.answers.clear();
        this.readPosition = 0;
        this.monthStart = start;
      }
      const month = this.monthStart;
      const last = await this.referrals.lastReferralPosition();
      // Another call may have started catching up, or a new month, while the read was out.
      if (this.catchingUp || this.monthStart !== month) continue;
      if (last <= this.readPosition) break;
      this.catchingUp = this.catchUp().finally(() => {
        this.catchingUp = null;
      });
    }
    let leaders = this.answers.get(period);
    if (!leaders) {
      leaders = top(period === "all" ? this.all : this.month);
      this.answers.set(period, leaders);
    }
    return leaders;
  }

  /** Reads referrals past the last one read, a slice at a time with requests served in between. */
  private async catchUp(): Promise<void> {
    for (;;) {
      const rows = await this.referrals.referralsAfter(this.readPosition, CATCH_UP_SLICE);
      for (const row of rows) {
        this.all.set(row.handle, (this.all.get(row.handle) ?? 0) + 1);
        if (row.createdAt >= this.monthStart) this.month.set(row.handle, (this.month.get(row.handle) ?? 0) + 1);
      }
      if (rows.length > 0) {
        this.readPosition = rows[rows.length - 1]!.position;
        this.answers.clear();
      }
      if (rows.length < CATCH_UP_SLICE) return;
      await yieldToRequests();
    }
  }
}

/** The first TOP by count, then handle; equal counts share a rank (competition ranking). */
function top(counts: Map<string, number>): Leaders {
  const before = (a: [string, number], b: [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1);
  // Kept sorted and at most TOP long: most referrers are turned away by one comparison.
  const best: Array<[string, number]> = [];
  for (const entry of counts) {
    if (best.length === TOP && before(entry, best[TOP - 1]!) > 0) continue;
    let i = best.length;
    while (i > 0 && before(entry, best[i - 1]!) < 0) i--;
    best.splice(i, 0, entry);
    if (best.length > TOP) best.pop();
  }
  let rank = 0;
  return best.map(([handle, count], i) => {
    if (i === 0 || best[i - 1]![1] !== count) rank = i + 1;
    const tier = REFERRAL_TIERS.find((t) => count >= t.at);
    return { rank, handle, count, badge: tier ? { tier: tier.tier, name: tier.name } : null };
  });
}

function monthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}
