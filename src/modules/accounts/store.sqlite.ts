// The accounts tables on SQLite (the contract: store.ts). The key lookup and the daily count are
// prepared once and also answered synchronously (`sync`), for the request path.
import type { Database as SqliteConnection } from "bun:sqlite";
import type { Store } from "../../db/client";
import { translatingConflicts } from "../../db/errors";
import { columnsOf, rowReader } from "../../db/rows";
import type { AccountPatch, AccountRow, AccountsStore, AccountsSyncStore, EndpointUsage, KeyLookupRow, KeyRow, UsageIncrement } from "./store";
import { KEY_LOOKUP_COLUMNS } from "./store.shared";
import { accounts, apiKeys } from "./tables";

const ACCOUNT_COLUMNS = columnsOf(accounts);
const KEY_COLUMNS = columnsOf(apiKeys);
const readAccount = rowReader(accounts);

export class SqliteAccountsStore implements AccountsStore {
  private readonly sqlite: SqliteConnection;
  readonly sync: AccountsSyncStore;
  private readonly statements;

  constructor(private readonly store: Store) {
    const sqlite = (this.sqlite = store.sqlite);
    this.statements = {
      keyByHash: sqlite.prepare<KeyLookupRow, [string]>(
        `SELECT ${KEY_LOOKUP_COLUMNS} FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ? AND k.revoked_at IS NULL`,
      ),
      dailyCount: sqlite.prepare<{ count: number }, [string, string]>("SELECT count FROM usage_daily WHERE account_id = ? AND day = ?"),
      upsertEndpoint: sqlite.prepare(
        `INSERT INTO usage_endpoints (key_id, day, endpoint, count) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (key_id, day, endpoint) DO UPDATE SET count = count + excluded.count`,
      ),
      upsertAccount: sqlite.prepare(
        `INSERT INTO usage_daily (account_id, day, count) VALUES (?1, ?2, ?3)
         ON CONFLICT (account_id, day) DO UPDATE SET count = count + excluded.count`,
      ),
      byEndpoint: sqlite.prepare<EndpointUsage, [string, string]>(
        `SELECT endpoint, sum(count) AS total, sum(CASE WHEN day >= ?2 THEN count ELSE 0 END) AS month
         FROM usage_endpoints WHERE key_id = ?1 GROUP BY endpoint`,
      ),
      findAccount: sqlite.prepare<Record<string, unknown>, [string]>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?1 OR name = ?1 LIMIT 1`),
      findKey: sqlite.prepare<KeyRow, [string]>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`),
    };
    const { keyByHash, dailyCount } = this.statements;
    this.sync = {
      keyByHash: (hash) => keyByHash.get(hash),
      dailyCount: (accountId, day) => dailyCount.get(accountId, day)?.count ?? 0,
    };
  }

  transaction<T>(fn: () => Promise<T>, options?: { waitMs?: number }): Promise<T> {
    return this.store.write(fn, options);
  }

  insertAccount(row: AccountRow): Promise<void> {
    return translatingConflicts(() =>
      this.store.write(() => {
        this.sqlite.run("INSERT INTO accounts (id, name, tier, daily_quota, status, created_at) VALUES (?, ?, ?, ?, ?, ?)", [
          row.id,
          row.name,
          row.tier,
          row.dailyQuota,
          row.status,
          row.createdAt,
        ]);
      }),
    );
  }

  async listAccounts(): Promise<AccountRow[]> {
    return this.sqlite.query<Record<string, unknown>, []>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at`).all().map(readAccount);
  }

  async findAccount(idOrName: string): Promise<AccountRow | null> {
    const row = this.statements.findAccount.get(idOrName);
    return row ? readAccount(row) : null;
  }

  async updateAccount(id: string, patch: AccountPatch): Promise<void> {
    await this.store.write(() => {
      if (patch.tier !== undefined) this.sqlite.run("UPDATE accounts SET tier = ? WHERE id = ?", [patch.tier, id]);
      if (patch.dailyQuota !== undefined) this.sqlite.run("UPDATE accounts SET daily_quota = ? WHERE id = ?", [patch.dailyQuota, id]);
      if (patch.status !== undefined) this.sqlite.run("UPDATE accounts SET status = ? WHERE id = ?", [patch.status, id]);
      if (patch.federation !== undefined) this.sqlite.run("UPDATE accounts SET federation = ? WHERE id = ?", [patch.federation ? 1 : 0, id]);
    });
  }

  async countAccounts(): Promise<number> {
    return this.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM accounts").get()!.n;
  }

  insertKey(row: KeyRow): Promise<void> {
    return translatingConflicts(() =>
      this.store.write(() => {
        this.sqlite.run(
          `INSERT INTO api_keys (id, account_id, name, hash, prefix, scope, rate_tier, burst_rate, created_at, revoked_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [row.id, row.accountId, row.name, row.hash, row.prefix, row.scope, row.rateTier, row.burstRate, row.createdAt, row.revokedAt],
        );
      }),
    );
  }

  async liveKeyCount(accountId: string): Promise<number> {
    return this.sqlite
      .query<{ n: number }, [string]>("SELECT count(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL")
      .get(accountId)!.n;
  }

  async listKeys(accountId?: string): Promise<KeyRow[]> {
    return accountId === undefined
      ? this.sqlite.query<KeyRow, []>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at`).all()
      : this.sqlite.query<KeyRow, [string]>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at`).all(accountId);
  }

  async findKey(id: string): Promise<KeyRow | null> {
    return this.statements.findKey.get(id);
  }

  async setKeyRevoked(id: string, revokedAt: number): Promise<void> {
    await this.store.write(() => this.sqlite.run("UPDATE api_keys SET revoked_at = ? WHERE id = ?", [revokedAt, id]));
  }

  setKeySecret(id: string, hash: string, prefix: string): Promise<void> {
    return translatingConflicts(() =>
      this.store.write(() => {
        this.sqlite.run("UPDATE api_keys SET hash = ?, prefix = ? WHERE id = ?", [hash, prefix, id]);
      }),
    );
  }

  async keyByHash(hash: string): Promise<KeyLookupRow | null> {
    return this.sync.keyByHash(hash);
  }

  async addUsage(increments: UsageIncrement[]): Promise<void> {
    const { upsertEndpoint, upsertAccount } = this.statements;
    for (const { keyId, accountId, day, counts } of increments) {
      let total = 0;
      for (const [endpoint, count] of counts) {
        upsertEndpoint.run(keyId, day, endpoint, count);
        total += count;
      }
      upsertAccount.run(accountId, day, total);
    }
  }

  async dailyCount(accountId: string, day: string): Promise<number> {
    return this.sync.dailyCount(accountId, day);
  }

  async dailyCounts(accountIds: string[], day: string): Promise<Map<string, number>> {
    return new Map(accountIds.map((id) => [id, this.sync.dailyCount(id, day)]));
  }

  async usageByEndpoint(keyId: string, monthStart: string): Promise<EndpointUsage[]> {
    return this.statements.byEndpoint.all(keyId, monthStart);
  }

  async pruneUsage(cutoff: string, sliceRows: number, between: () => Promise<void>): Promise<number> {
    let deleted = 0;
    // usage_endpoints: the oldest rows through its day index, a slice at a time.
    const endpoints = this.sqlite.prepare<unknown, [string, number]>(
      "DELETE FROM usage_endpoints WHERE rowid IN (SELECT rowid FROM usage_endpoints WHERE day < ?1 LIMIT ?2)",
    );
    for (;;) {
      const n = await this.store.write(() => endpoints.run(cutoff, sliceRows).changes);
      deleted += n;
      if (n < sliceRows) break;
      await between();
    }
    // usage_daily has no day index (its key leads with the account): walked in rowid ranges, so a
    // slice reads a bounded number of rows whatever the table holds.
    const last = this.sqlite.query<{ n: number }, []>("SELECT coalesce(max(rowid), 0) AS n FROM usage_daily").get()!.n;
    const daily = this.sqlite.prepare<unknown, [string, number, number]>("DELETE FROM usage_daily WHERE rowid > ?2 AND rowid <= ?3 AND day < ?1");
    for (let from = 0; from < last; from += sliceRows) {
      deleted += await this.store.write(() => daily.run(cutoff, from, from + sliceRows).changes);
      await between();
    }
    return deleted;
  }
}
