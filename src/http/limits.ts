// In-memory limiters: token buckets for bursts (per key, per client IP) and the per-account daily
// quota counter. Both are plain synchronous Map work so a check costs nanoseconds, and both are
// exact within one process because JavaScript runs each check to completion.
import type { Database } from "bun:sqlite";
import { nextUtcMidnight, utcDay } from "../clock";
import type { ApiTier, RateTier } from "../db/schema";

export interface BucketRule {
  /** Tokens added per second. */
  rate: number;
  /** Most tokens a bucket holds: the burst. */
  capacity: number;
}

export const RATE_TIER_RULES: Record<RateTier, BucketRule> = {
  free: { rate: 5, capacity: 20 },
  verified: { rate: 20, capacity: 80 },
  partner: { rate: 100, capacity: 400 },
};

/** `--burst R`: R requests per second with a burst of 4 × R, like the tiers. */
export const burstOverrideRule = (rate: number): BucketRule => ({ rate, capacity: rate * 4 });

export const PUBLIC_IP_RULE: BucketRule = { rate: 10, capacity: 60 };
export const LEADERBOARD_IP_RULE: BucketRule = { rate: 2, capacity: 10 };

export const PLAN_DAILY_QUOTA: Record<ApiTier, number> = {
  free: 100,
  pro: 1_000,
  max: 5_000,
  enterprise: 100_000,
};

export interface BucketResult {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until a token is available (only meaningful when refused). */
  retryAfter: number;
  /** Epoch seconds when the bucket is full again. */
  resetAt: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number) {}

  /** Takes one token from the bucket `id` if it has one. */
  take(id: string, rule: BucketRule): BucketResult {
    const bucket = this.refill(id, rule);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return this.result(bucket, rule, allowed);
  }

  /**
   * Takes one token; 0 when it was there, else the whole seconds until one is. The keyed hot
   * path uses this form: it needs no remaining count, and allocates nothing.
   */
  tryTake(id: string, rule: BucketRule): number {
    const bucket = this.refill(id, rule);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rule.rate));
  }

  /** Reports the bucket without taking from it. */
  peek(id: string, rule: BucketRule): BucketResult {
    const bucket = this.buckets.get(id);
    if (!bucket) return { allowed: true, remaining: rule.capacity, retryAfter: 0, resetAt: Math.ceil(this.now() / 1000) };
    return this.result(this.refill(id, rule), rule, true);
  }

  /** Forgets buckets that have refilled completely: they hold no information. */
  prune(maxRule: BucketRule): number {
    const now = this.now();
    let removed = 0;
    const fullAfterMs = (maxRule.capacity / maxRule.rate) * 1000;
    for (const [id, bucket] of this.buckets) {
      if (now - bucket.updatedAt >= fullAfterMs) {
        this.buckets.delete(id);
        removed++;
      }
    }
    return removed;
  }

  get size() {
    return this.buckets.size;
  }

  private refill(id: string, rule: BucketRule): Bucket {
    const now = this.now();
    let bucket = this.buckets.get(id);
    if (!bucket) {
      bucket = { tokens: rule.capacity, updatedAt: now };
      this.buckets.set(id, bucket);
      return bucket;
    }
    const elapsed = now - bucket.updatedAt;
    if (elapsed > 0) {
      bucket.tokens = Math.min(rule.capacity, bucket.tokens + (elapsed / 1000) * rule.rate);
      bucket.updatedAt = now;
    }
    return bucket;
  }

  private result(bucket: Bucket, rule: BucketRule, allowed: boolean): BucketResult {
    const missing = rule.capacity - bucket.tokens;
    return {
      allowed,
      remaining: Math.floor(bucket.tokens),
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / rule.rate)),
      resetAt: Math.ceil((bucket.updatedAt + (missing / rule.rate) * 1000) / 1000),
    };
  }
}

export interface DayCount {
  day: string;
  used: number;
}

/**
 * Calls per account in the current UTC day, shared by all of the account's keys. The count is
 * read from `usage_daily` the first time an account is seen each day, then kept in memory; the
 * metering flush persists the increments.
 */
export class QuotaCounter {
  private readonly counts = new Map<string, DayCount>();
  private readonly readDay;
  private nextMidnightMs = 0;

  constructor(
    sqlite: Database,
    private readonly now: () => number,
  ) {
    this.readDay = sqlite.prepare<{ count: number }, [string, string]>(
      "SELECT count FROM usage_daily WHERE account_id = ? AND day = ?",
    );
  }

  /** Calls the account has made today. */
  used(accountId: string): number {
    return this.counter(accountId).used;
  }

  /** Today's counter of the account; the caller checks `used` against the quota, then increments it. */
  counter(accountId: string): DayCount {
    return this.current(accountId);
  }

  /** Next midnight UTC as epoch seconds: when every counter resets. */
  resetAt(): number {
    const now = this.now();
    if (now >= this.nextMidnightMs) this.nextMidnightMs = nextUtcMidnight(now);
    return this.nextMidnightMs / 1000;
  }

  /** Whole seconds until the reset, at least 1: the Retry-After of a spent quota. */
  retryAfter(): number {
    return Math.max(1, Math.ceil(this.resetAt() - this.now() / 1000));
  }

  /** Drops counters of past days. */
  prune(): void {
    const today = utcDay(this.now());
    for (const [id, count] of this.counts) if (count.day !== today) this.counts.delete(id);
  }

  private current(accountId: string): DayCount {
    const today = utcDay(this.now());
    let count = this.counts.get(accountId);
    if (!count || count.day !== today) {
      const row = this.readDay.get(accountId, today);
      count = { day: today, used: row?.count ?? 0 };
      this.counts.set(accountId, count);
    }
    return count;
  }
}
