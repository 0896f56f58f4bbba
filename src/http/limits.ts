// In-memory limiters: token buckets for bursts (per key, per client IP) and the per-account daily
// quota counter. Both are plain synchronous Map work so a check costs nanoseconds, and both are
// exact within one process because JavaScript runs each check to completion.
import type { AccountsStore } from "../modules/accounts/store";
import { nextUtcMidnight, utcDay } from "../clock";
import type { RateTier } from "../domain";

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
  /** The rule it last refilled by, so a sweep can tell when it is full again. */
  rule: BucketRule;
}

/**
 * Client buckets held at most: about 8.5 MB (170 bytes a bucket, heap measured in Bun 1.4.5). The
 * prune job's sweep of a full table took 1-18 ms on the 2-core bench machine (100,000: up to
 * 100 ms). A bucket left alone refills within 6 s, so only more than 8,000 new clients a second,
 * beyond what the limited keyless routes serve, fill it with buckets that all still refill.
 */
export const MAX_CLIENT_BUCKETS = 50_000;
/** Oldest buckets a newcomer looks at, when the table is full, for one that has refilled. */
const EVICTION_PROBES = 8;

/**
 * Token buckets by id. Memory is bounded by `maxBuckets`: a new id that finds the table full looks
 * at the longest-held buckets for one that has refilled completely (it holds no information: a
 * new bucket starts full) and takes its place; one still refilling goes to the back. When none of
 * EVICTION_PROBES has refilled, the newcomer is charged to one shared overflow bucket per rule. A
 * bucket that still holds a debt is never dropped, so no number of new addresses can reset a busy
 * client's bucket, and a newcomer's work stays constant however large the table.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly overflow = new Map<BucketRule, Bucket>();
  /**
   * The buckets, oldest first, walked across calls by the newcomers that make room: each bucket
   * it passes is dropped or goes to the back, so the next one it gives is always the oldest. A
   * fresh `entries()` for every newcomer stepped over the slot of every bucket deleted since the
   * table was last rebuilt (JavaScriptCore keeps them until then): 40-60 us a newcomer once the
   * table was full, against about 1 us, on the 2-core bench machine.
   */
  private oldestFirst: MapIterator<[string, Bucket]> | null = null;

  /** `maxBuckets`: the per-key instance leaves it unbounded, since only valid keys make buckets. */
  constructor(
    protected readonly now: () => number,
    private readonly maxBuckets = Number.POSITIVE_INFINITY,
  ) {}

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
  prune(): number {
    const now = this.now();
    let removed = 0;
    for (const [id, bucket] of this.buckets) {
      if (isFull(bucket, bucket.rule, now)) {
        this.buckets.delete(id);
        removed++;
      }
    }
    for (const [rule, bucket] of this.overflow) if (isFull(bucket, rule, now)) this.overflow.delete(rule);
    return removed;
  }

  /** Buckets held, overflow buckets included. */
  get size() {
    return this.buckets.size + this.overflow.size;
  }

  private refill(id: string, rule: BucketRule): Bucket {
    const now = this.now();
    let bucket = this.buckets.get(id);
    if (!bucket) {
      if (this.buckets.size >= this.maxBuckets && !this.makeRoom(now)) return this.refillOverflow(rule, now);
      bucket = { tokens: rule.capacity, updatedAt: now, rule };
      this.buckets.set(id, bucket);
      return bucket;
    }
    bucket.rule = rule;
    return topUp(bucket, rule, now);
  }

  /** Drops one refilled bucket among the longest-held ones; false when all of them still refill. */
  private makeRoom(now: number): boolean {
    for (let probe = 0; probe < EVICTION_PROBES; probe++) {
      let oldest = this.oldestFirst?.next();
      if (oldest === undefined || oldest.done) {
        // The first newcomer at the cap, or a walk that met the end of the table (a spent
        // iterator stays spent): from its start again.
        this.oldestFirst = this.buckets.entries();
        oldest = this.oldestFirst.next();
      }
      if (oldest.done) return true;
      const [id, bucket] = oldest.value;
      this.buckets.delete(id);
      if (isFull(bucket, bucket.rule, now)) return true;
      this.buckets.set(id, bucket);
    }
    return false;
  }

  private refillOverflow(rule: BucketRule, now: number): Bucket {
    const bucket = this.overflow.get(rule);
    if (bucket) return topUp(bucket, rule, now);
    const fresh = { tokens: rule.capacity, updatedAt: now, rule };
    this.overflow.set(rule, fresh);
    return fresh;
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

function isFull(bucket: Bucket, rule: BucketRule, now: number): boolean {
  return bucket.tokens + ((now - bucket.updatedAt) / 1000) * rule.rate >= rule.capacity;
}

/** Adds the tokens earned since the bucket was last touched. */
function topUp(bucket: Bucket, rule: BucketRule, now: number): Bucket {
  const elapsed = now - bucket.updatedAt;
  if (elapsed > 0) {
    bucket.tokens = Math.min(rule.capacity, bucket.tokens + (elapsed / 1000) * rule.rate);
    bucket.updatedAt = now;
  }
  return bucket;
}

export interface DayCount {
  day: string;
  used: number;
}

/** Accounts whose daily count is held at most: about 16 MB (164 bytes each with its id, Bun 1.4.5 heap). */
export const MAX_QUOTA_COUNTERS = 100_000;

/**
 * Calls per account in the current UTC day, shared by all of the account's keys. The count is
 * read the first time an account is seen each day, then kept in memory; the metering flush
 * persists the increments. At most `maxCounters` are held: a dropped counter is read again exactly
 * (`usage_daily` plus the calls the meter has not flushed yet), so dropping one never resets a quota.
 */
export class QuotaCounter {
  private readonly counts = new Map<string, DayCount>();
  private nextMidnightMs = 0;

  constructor(
    /** Reads `usage_daily`: at once on SQLite; on PostgreSQL `load` comes before `counter`. */
    protected readonly store: AccountsStore,
    protected readonly now: () => number,
    /** Calls of an account on a day that are counted but not yet in `usage_daily`. */
    protected readonly unflushedCalls: (accountId: string, day: string) => number,
    private readonly maxCounters = MAX_QUOTA_COUNTERS,
  ) {}

  /** Calls the account has made today. */
  used(accountId: string): number {
    return this.counter(accountId).used;
  }

  /** Today's counter of the account; the caller checks `used` against the quota, then `charge`s it. */
  counter(accountId: string): DayCount {
    return this.current(accountId);
  }

  /** Counts one admitted call on the counter `counter` returned for the account. */
  charge(_accountId: string, count: DayCount): void {
    count.used++;
  }

  /** Where the count is read asynchronously (PostgreSQL): reads today's count of an account not held yet. */
  async load(accountId: string): Promise<void> {
    if (this.store.sync) return;
    const today = utcDay(this.now());
    if (this.counts.get(accountId)?.day === today) return;
    const persisted = await this.store.dailyCount(accountId, today);
    // Another request of the account may have loaded (and counted) meanwhile: its count stands.
    const held = this.counts.get(accountId);
    if (held?.day === today) return;
    if (!held && this.counts.size >= this.maxCounters) this.makeRoom();
    this.counts.set(accountId, { day: today, used: persisted + this.unflushedCalls(accountId, today) });
  }

  /**
   * Where other instances count the same accounts (several servers on PostgreSQL): raises each of
   * today's counters to what the fleet has persisted plus this instance's unflushed calls. Run
   * after each metering flush, so an instance learns the others' calls within about two flushes:
   * the bound on over-admission the README states.
   */
  async catchUpWithFleet(): Promise<void> {
    const today = utcDay(this.now());
    const held = [...this.counts].filter(([, count]) => count.day === today).map(([id]) => id);
    for (let i = 0; i < held.length; i += 500) {
      const slice = held.slice(i, i + 500);
      const persisted = await this.store.dailyCounts(slice, today);
      for (const id of slice) {
        const count = this.counts.get(id);
        if (count?.day !== today) continue;
        count.used = Math.max(count.used, (persisted.get(id) ?? 0) + this.unflushedCalls(id, today));
      }
    }
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

  get size() {
    return this.counts.size;
  }

  private current(accountId: string): DayCount {
    const today = utcDay(this.now());
    let count = this.counts.get(accountId);
    if (!count || count.day !== today) {
      if (!count && this.counts.size >= this.maxCounters) this.makeRoom();
      const persisted = this.store.sync?.dailyCount(accountId, today) ?? 0;
      count = { day: today, used: persisted + this.unflushedCalls(accountId, today) };
      this.counts.set(accountId, count);
    }
    return count;
  }

  /** Past days' counters first, then the longest-held tenth of today's (Map order is insertion). */
  private makeRoom(): void {
    this.prune();
    let excess = this.counts.size - Math.floor(this.maxCounters * 0.9);
    for (const id of this.counts.keys()) {
      if (excess-- <= 0) break;
      this.counts.delete(id);
    }
  }
}
