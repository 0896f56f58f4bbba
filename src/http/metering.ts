// Write-behind metering: each metered call bumps in-memory counters; `flush` persists all of them
// in one transaction (every second and on shutdown), so a call never costs a disk write.
import type { Database } from "bun:sqlite";
import { utcDay } from "../clock";

interface PendingEndpoint {
  keyId: string;
  day: string;
  endpoint: string;
  count: number;
}

interface PendingAccount {
  accountId: string;
  day: string;
  count: number;
}

export class Meter {
  private endpoints = new Map<string, PendingEndpoint>();
  private accounts = new Map<string, PendingAccount>();
  private readonly upsertEndpoint;
  private readonly upsertAccount;
  private readonly persist;

  constructor(
    sqlite: Database,
    private readonly now: () => number,
  ) {
    this.upsertEndpoint = sqlite.prepare(
      `INSERT INTO usage_endpoints (key_id, day, endpoint, count) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (key_id, day, endpoint) DO UPDATE SET count = count + excluded.count`,
    );
    this.upsertAccount = sqlite.prepare(
      `INSERT INTO usage_daily (account_id, day, count) VALUES (?1, ?2, ?3)
       ON CONFLICT (account_id, day) DO UPDATE SET count = count + excluded.count`,
    );
    this.persist = sqlite.transaction((endpoints: PendingEndpoint[], accounts: PendingAccount[]) => {
      for (const e of endpoints) this.upsertEndpoint.run(e.keyId, e.day, e.endpoint, e.count);
      for (const a of accounts) this.upsertAccount.run(a.accountId, a.day, a.count);
    });
  }

  record(keyId: string, accountId: string, endpoint: string): void {
    const day = utcDay(this.now());
    const endpointKey = `${keyId} ${day} ${endpoint}`;
    const pending = this.endpoints.get(endpointKey);
    if (pending) pending.count++;
    else this.endpoints.set(endpointKey, { keyId, day, endpoint, count: 1 });
    const accountKey = `${accountId} ${day}`;
    const account = this.accounts.get(accountKey);
    if (account) account.count++;
    else this.accounts.set(accountKey, { accountId, day, count: 1 });
  }

  /** Calls of one key not yet persisted, by day and endpoint. */
  pendingFor(keyId: string): PendingEndpoint[] {
    const rows: PendingEndpoint[] = [];
    for (const e of this.endpoints.values()) if (e.keyId === keyId) rows.push(e);
    return rows;
  }

  get pendingCount(): number {
    return this.endpoints.size;
  }

  /** Persists everything buffered. On failure the counts go back into the buffer for the next try. */
  flush(): number {
    if (this.endpoints.size === 0 && this.accounts.size === 0) return 0;
    const endpoints = this.endpoints;
    const accounts = this.accounts;
    this.endpoints = new Map();
    this.accounts = new Map();
    try {
      this.persist([...endpoints.values()], [...accounts.values()]);
    } catch (error) {
      for (const [k, e] of endpoints) {
        const again = this.endpoints.get(k);
        if (again) again.count += e.count;
        else this.endpoints.set(k, e);
      }
      for (const [k, a] of accounts) {
        const again = this.accounts.get(k);
        if (again) again.count += a.count;
        else this.accounts.set(k, a);
      }
      throw error;
    }
    return endpoints.size;
  }
}
