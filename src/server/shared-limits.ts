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
  private servedDay = "";
  /** Other machines may count the same accounts (PostgreSQL). */
  private readonly fleetWide: boolean;
  /** The UTC day (days since the epoch) of the last look: a slot holding another day's count is free. */
  private dayNumber = 0;
  private readonly stale = (slot: number) => this.region.doubles[this.region.value(slot, 0)] !== this.dayNumber;

  constructor(
    private readonly region: SharedRegion,
    store: AccountsStore,
    now: () => number,
    unflushedCalls: (accountId: string, day: string) => number,
  ) {
    super(store, now, unflushedCalls);
    this.fleetWide = store.sync === undefined;
  }

  override used(accountId: string): number {
    return this.counter(accountId).used;
  }

  override counter(accountId: string): DayCount {
    const day = utcDay(this.now());
    // The first call of the account today on any worker reads what is persisted plus this worker's unflushed calls.
    const used = this.update(accountId, (held) => held ?? (this.store.sync?.dailyCount(accountId, day) ?? 0) + this.unflushedCalls(accountId, day));
    return used === null ? super.counter(accountId) : { day, used };
  }

  override charge(accountId: string, count: DayCount): void {
    if (this.fleetWide) this.served.add(accountId);
    if (this.update(accountId, (held) => (held ?? count.used) + 1) === null) super.charge(accountId, super.counter(accountId));
  }

  /** PostgreSQL: reads today's persisted count once, before the (synchronous) `counter`. */
  override async load(accountId: string): Promise<void> {
    if (this.store.sync) return;
    const held = this.peek(accountId);
    if (held === undefined) return super.load(accountId);
    if (held !== null) return;
    const day = utcDay(this.now());
    const persisted = (await this.store.dailyCount(accountId, day)) + this.unflushedCalls(accountId, day);
    // Another worker may have loaded (and counted) meanwhile: its count stands.
    this.update(accountId, (count) => count ?? persisted);
  }

  /**
   * PostgreSQL, where instances on other machines count the same accounts: raises each shared
   * count this worker has served today to what the fleet persisted plus this worker's unflushed
   * calls (never lowers one: this machine's other workers' calls are in it already).
   */
  override async catchUpWithFleet(): Promise<void> {
    const day = utcDay(this.now());
    const held = [...this.served];
    for (let i = 0; i < held.length; i += 500) {
      const slice = held.slice(i, i + 500);
      const persisted = await this.store.dailyCounts(slice, day);
      for (const id of slice) {
        const fleet = (persisted.get(id) ?? 0) + this.unflushedCalls(id, day);
        this.update(id, (count) => Math.max(count ?? 0, fleet));
      }
    }
    await super.catchUpWithFleet();
  }

  override prune(): void {
    super.prune();
    const today = utcDay(this.now());
    if (this.servedDay !== today) this.served.clear();
    this.servedDay = today;
  }

  /** The account's count of today; null when no worker has counted it today; undefined when it found no slot. */
  private peek(accountId: string): number | null | undefined {
    this.dayNumber = Math.floor(this.now() / DAY_MS);
    const { region } = this;
    const slot = region.acquire(QUOTA_TABLE, region.keyOf(accountId), this.stale);
    if (slot < 0) return undefined;
    const dayAt = region.value(slot, 0);
    // A slot just claimed keeps a day that is not today: free again for whoever counts first.
    if (region.fresh) region.doubles[dayAt] = -1;
    const held = region.doubles[dayAt] === this.dayNumber ? region.doubles[region.value(slot, 1)]! : null;
    region.release(slot);
    return held;
  }

  /**
   * Sets the account's count of today to `next(held)`, under the slot's lock; `held` is null when
   * no worker has counted the account today. Answers the count stored, or null when the account
   * found no slot (the caller then uses this worker's own counter).
   */
  private update(accountId: string, next: (held: number | null) => number): number | null {
    this.dayNumber = Math.floor(this.now() / DAY_MS);
    const { region } = this;
    const slot = region.acquire(QUOTA_TABLE, region.keyOf(accountId), this.stale);
    if (slot < 0) return null;
    const dayAt = region.value(slot, 0);
    const usedAt = region.value(slot, 1);
    const current = region.fresh || region.doubles[dayAt] !== this.dayNumber ? null : region.doubles[usedAt]!;
    let value: number;
    try {
      value = next(current);
    } catch (error) {
      region.release(slot);
      throw error;
    }
    region.doubles[dayAt] = this.dayNumber;
    region.doubles[usedAt] = value;
    region.release(slot);
    return value;
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
