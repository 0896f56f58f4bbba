// Write-behind metering: each metered call bumps an in-memory counter; `flush` persists all of
// them in one transaction (every second and on shutdown), so a call never costs a disk write.
// While another process holds the write lock, a flush keeps every count and tries again next time.
import { utcDay } from "../clock";
import { DatabaseBusy } from "../db/errors";
import type { AccountsStore, UsageIncrement } from "../modules/accounts/store";

/** One key's calls of one UTC day, by route pattern. */
interface KeyDay {
  accountId: string;
  counts: Map<string, number>;
}

interface Day {
  day: string;
  keys: Map<string, KeyDay>;
}

export interface PendingUsage {
  keyId: string;
  day: string;
  endpoint: string;
  count: number;
}

export class Meter {
  private current: Day = { day: "", keys: new Map() };
  /** Days that ended, or flushes that failed, waiting for the next flush. */
  private waiting: Day[] = [];
  /** Days a flush is writing: still pending until their transaction commits. */
  private flushing: Day[] = [];
  /** Flushes put off because another process held the write lock (a Prometheus counter). */
  deferredFlushes = 0;

  constructor(
    private readonly store: AccountsStore,
    private readonly now: () => number,
  ) {}

  /** Counts one call: two Map lookups, no string building. */
  record(keyId: string, accountId: string, endpoint: string): void {
    const day = utcDay(this.now());
    if (day !== this.current.day) {
      if (this.current.keys.size > 0) this.waiting.push(this.current);
      this.current = { day, keys: new Map() };
    }
    let usage = this.current.keys.get(keyId);
    if (!usage) {
      usage = { accountId, counts: new Map() };
      this.current.keys.set(keyId, usage);
    }
    usage.counts.set(endpoint, (usage.counts.get(endpoint) ?? 0) + 1);
  }

  /** Calls of one key not yet persisted, by day and endpoint. */
  pendingFor(keyId: string): PendingUsage[] {
    const rows: PendingUsage[] = [];
    for (const { day, keys } of [...this.flushing, ...this.waiting, this.current]) {
      const usage = keys.get(keyId);
      if (usage) for (const [endpoint, count] of usage.counts) rows.push({ keyId, day, endpoint, count });
    }
    return rows;
  }

  /** Calls of one account on `day` not yet persisted: what `usage_daily` does not count yet. */
  pendingCallsOf(accountId: string, day: string): number {
    let calls = 0;
    for (const buffered of [...this.waiting, this.current]) {
      if (buffered.day !== day) continue;
      for (const usage of buffered.keys.values()) {
        if (usage.accountId === accountId) for (const count of usage.counts.values()) calls += count;
      }
    }
    return calls;
  }

  /** Counters waiting for the next flush. */
  get pendingCount(): number {
    let rows = 0;
    for (const { keys } of [...this.flushing, ...this.waiting, this.current]) for (const usage of keys.values()) rows += usage.counts.size;
    return rows;
  }

  /**
   * Persists everything buffered; resolves to the number of key-days written. The per-second
   * flush makes one try: while another process holds the lock it resolves to 0 and the counts wait
   * for the next one. Shutdown passes `waitForLock` (up to 5 s). Any other failure keeps the counts
   * too, and is thrown.
   */
  async flush(options: { waitForLock?: boolean } = {}): Promise<number> {
    const days = [...this.waiting, this.current].filter((d) => d.keys.size > 0);
    if (days.length === 0) return 0;
    this.flushing.push(...days);
    this.waiting = [];
    this.current = { day: this.current.day, keys: new Map() };
    const done = () => (this.flushing = this.flushing.filter((d) => !days.includes(d)));
    try {
      await this.store.transaction(async () => {
        await this.store.addUsage(increments(days));
        // In the transaction, so no reader ever sees these counts both persisted and pending.
        done();
      }, options.waitForLock ? {} : { waitMs: 0 });
    } catch (error) {
      done();
      this.waiting = [...days, ...this.waiting];
      if (error instanceof DatabaseBusy) {
        this.deferredFlushes++;
        return 0;
      }
      throw error;
    }
    return days.reduce((n, d) => n + d.keys.size, 0);
  }
}

function increments(days: Day[]): UsageIncrement[] {
  const rows: UsageIncrement[] = [];
  for (const { day, keys } of days) for (const [keyId, usage] of keys) rows.push({ keyId, accountId: usage.accountId, day, counts: usage.counts });
  return rows;
}
