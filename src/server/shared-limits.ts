// The daily quota and the per-key burst buckets of `serve --workers N`, held in the workers'
// shared memory (shared-memory.ts) so that they are one count and one bucket whichever worker a
// request lands on. Same interfaces as the single-process limiters (http/limits.ts).
//
// Bounds: a bucket is exact (take happens under the slot's lock). The daily quota is checked, then
// charged after the burst bucket: two workers may both pass the check on the last call, so a quota
// admits at most `workers - 1` calls over its figure. When an account's or key's slots are all
// taken (more than 65,536 accounts calling in one day, or keys mid-burst, meeting on the same 16
// slots) that one falls back to the worker's own limiter.
import { utcDay } from "../clock";
import { type BucketRule, type DayCount, QuotaCounter, TokenBuckets } from "../http/limits";
import type { AccountsStore } from "../modules/accounts/store";
import { BUCKET_TABLE, QUOTA_TABLE, type SharedRegion } from "./shared-memory";

const DAY_MS = 86_400_000;

export class SharedQuotaCounter extends QuotaCounter {
  /** Accounts this worker admitted calls of today: what `catchUpWithFleet` reads (PostgreSQL). */
  private readonly served = new Set<string>();
  private servedDay = 0;
  /** Other machines may count the same accounts (PostgreSQL). */
  private readonly fleetWide: boolean;

  constructor(
    private readonly region: SharedRegion,
    store: AccountsStore,
    now: () => number,
    unflushedCalls: (accountId: string, day: string) => number,
  ) {
    super(store, now, unflushedCalls);
    this.fleetWide = store.hotPath === null;
  }

  override used(accountId: string): number {
    return this.counter(accountId).used;
  }

  override counter(accountId: string): DayCount {
    const now = this.now();
    const dayNumber = Math.floor(now / DAY_MS);
    const { region } = this;
    const slot = region.acquire(QUOTA_TABLE, region.keyOf(accountId), (s) => region.doubles[region.value(s, 0)] !== dayNumber);
    if (slot < 0) return super.counter(accountId);
    const dayAt = region.value(slot, 0);
    const usedAt = region.value(slot, 1);
    try {
      if (region.fresh || region.doubles[dayAt] !== dayNumber) {
        // First call of the account today on any worker: what is persisted plus this worker's unflushed calls.
        region.doubles[dayAt] = dayNumber;
        region.doubles[usedAt] = this.firstCount(accountId, utcDay(now));
      }
      return { day: utcDay(now), used: region.doubles[usedAt]! };
    } finally {
      region.release(slot);
    }
  }

  override charge(accountId: string, count: DayCount): void {
    const dayNumber = Math.floor(this.now() / DAY_MS);
    if (this.fleetWide) {
      if (this.servedDay !== dayNumber) {
        this.served.clear();
        this.servedDay = dayNumber;
      }
      this.served.add(accountId);
    }
    const { region } = this;
    const slot = region.acquire(QUOTA_TABLE, region.keyOf(accountId), (s) => region.doubles[region.value(s, 0)] !== dayNumber);
    if (slot < 0) return super.charge(accountId, super.counter(accountId));
    const dayAt = region.value(slot, 0);
    const usedAt = region.value(slot, 1);
    if (region.fresh || region.doubles[dayAt] !== dayNumber) {
      region.doubles[dayAt] = dayNumber;
      region.doubles[usedAt] = count.used + 1;
    } else {
      region.doubles[usedAt]!++;
    }
    region.release(slot);
  }

  /** PostgreSQL: reads today's persisted count once, before the (synchronous) `counter`. */
  override async load(accountId: string): Promise<void> {
    if (this.store.hotPath) return;
    const now = this.now();
    const dayNumber = Math.floor(now / DAY_MS);
    const { region } = this;
    const probe = region.acquire(QUOTA_TABLE, region.keyOf(accountId), (s) => region.doubles[region.value(s, 0)] !== dayNumber);
    if (probe < 0) return super.load(accountId);
    const known = !region.fresh && region.doubles[region.value(probe, 0)] === dayNumber;
    if (region.fresh) region.doubles[region.value(probe, 0)] = -1;
    region.release(probe);
    if (known) return;
    const persisted = (await this.store.dailyCount(accountId, utcDay(now))) + this.unflushedCalls(accountId, utcDay(now));
    const slot = region.acquire(QUOTA_TABLE, region.keyOf(accountId), (s) => region.doubles[region.value(s, 0)] !== dayNumber);
    if (slot < 0) return;
    // Another worker may have loaded (and counted) meanwhile: its count stands.
    if (region.fresh || region.doubles[region.value(slot, 0)] !== dayNumber) {
      region.doubles[region.value(slot, 0)] = dayNumber;
      region.doubles[region.value(slot, 1)] = persisted;
    }
    region.release(slot);
  }

  /**
   * PostgreSQL, where instances on other machines count the same accounts: raises each shared
   * count this worker has served today to what the fleet persisted plus this worker's unflushed
   * calls (never lowers one: this machine's other workers' calls are in it already).
   */
  override async catchUpWithFleet(): Promise<void> {
    const now = this.now();
    const dayNumber = Math.floor(now / DAY_MS);
    const today = utcDay(now);
    if (this.servedDay !== dayNumber) {
      this.served.clear();
      this.servedDay = dayNumber;
    }
    const held = [...this.served];
    const { region } = this;
    for (let i = 0; i < held.length; i += 500) {
      const slice = held.slice(i, i + 500);
      const persisted = await this.store.dailyCounts(slice, today);
      for (const id of slice) {
        const fleet = (persisted.get(id) ?? 0) + this.unflushedCalls(id, today);
        const slot = region.acquire(QUOTA_TABLE, region.keyOf(id), (s) => region.doubles[region.value(s, 0)] !== dayNumber);
        if (slot < 0) continue;
        const dayAt = region.value(slot, 0);
        const usedAt = region.value(slot, 1);
        if (region.fresh || region.doubles[dayAt] !== dayNumber) {
          region.doubles[dayAt] = dayNumber;
          region.doubles[usedAt] = fleet;
        } else if (region.doubles[usedAt]! < fleet) {
          region.doubles[usedAt] = fleet;
        }
        region.release(slot);
      }
    }
    await super.catchUpWithFleet();
  }

  private firstCount(accountId: string, day: string): number {
    const persisted = this.store.hotPath?.dailyCount(accountId, day) ?? 0;
    return persisted + this.unflushedCalls(accountId, day);
  }
}

/**
 * Burst buckets per key in shared memory: values are the tokens, when they were counted and when
 * the bucket is full again (a full bucket holds nothing worth keeping, so its slot may be reused).
 */
export class SharedTokenBuckets extends TokenBuckets {
  constructor(
    private readonly region: SharedRegion,
    now: () => number,
  ) {
    super(now);
  }

  override tryTake(id: string, rule: BucketRule): number {
    const now = this.now();
    const { region } = this;
    const slot = region.acquire(BUCKET_TABLE, region.keyOf(id), (s) => region.doubles[region.value(s, 2)]! <= now);
    if (slot < 0) return super.tryTake(id, rule);
    const tokensAt = region.value(slot, 0);
    const updatedAt = region.value(slot, 1);
    let tokens: number;
    if (region.fresh) {
      tokens = rule.capacity;
    } else {
      const elapsed = now - region.doubles[updatedAt]!;
      tokens = Math.min(rule.capacity, region.doubles[tokensAt]! + (elapsed > 0 ? (elapsed / 1000) * rule.rate : 0));
    }
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    region.doubles[tokensAt] = tokens;
    region.doubles[updatedAt] = Math.max(now, region.fresh ? now : region.doubles[updatedAt]!);
    region.doubles[region.value(slot, 2)] = now + ((rule.capacity - tokens) / rule.rate) * 1000;
    region.release(slot);
    return allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / rule.rate));
  }
}
