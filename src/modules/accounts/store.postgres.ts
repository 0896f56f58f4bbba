// The accounts tables on PostgreSQL (the contract: store.ts). Every write of an account or a key
// notes KEYS_NOTE, so the other instances drop their key caches when it commits.
import { translatingConflicts } from "../../db/errors";
import type { PostgresDatabase } from "../../db/postgres";
import { columnsOf, rowReader } from "../../db/rows";
import type { AccountPatch, AccountRow, AccountsStore, EndpointUsage, KeyLookupRow, KeyRow, UsageIncrement } from "./store";
import { KEY_LOOKUP_COLUMNS, KEYS_NOTE, LOOKUP_ACCOUNT_FIELDS, LOOKUP_KEY_FIELDS } from "./store.shared";
import { accounts, apiKeys, usageDaily } from "./tables";

const ACCOUNT_COLUMNS = columnsOf(accounts);
const KEY_COLUMNS = columnsOf(apiKeys);
const readAccount = rowReader(accounts);
const readKey = rowReader(apiKeys);
const readLookupKey = rowReader(apiKeys, LOOKUP_KEY_FIELDS);
const readLookupAccount = rowReader(accounts, LOOKUP_ACCOUNT_FIELDS);
const readDaily = rowReader(usageDaily, ["accountId", "count"]);

export class PostgresAccountsStore implements AccountsStore {
  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  transaction<T>(fn: () => Promise<T>, options?: { waitMs?: number }): Promise<T> {
    return this.database.write(fn, options);
  }

  insertAccount(row: AccountRow): Promise<void> {
    // Each write in a transaction of its own (or the caller's): its commit notifies the other instances.
    return translatingConflicts(() => this.database.write(async () => {
      this.database.note(KEYS_NOTE, row.id);
      await this.sql`INSERT INTO accounts (id, name, tier, daily_quota, status, created_at)
        VALUES (${row.id}, ${row.name}, ${row.tier}, ${row.dailyQuota}, ${row.status}, ${row.createdAt})`;
    }));
  }

  async listAccounts(): Promise<AccountRow[]> {
    const rows = await this.sql.unsafe(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at`);
    return rows.map(readAccount);
  }

  async findAccount(idOrName: string): Promise<AccountRow | null> {
    const [row] = await this.sql.unsafe(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1 OR name = $1 LIMIT 1`, [idOrName]);
    return row ? readAccount(row) : null;
  }

  async updateAccount(id: string, patch: AccountPatch): Promise<void> {
    await this.database.write(async () => {
      this.database.note(KEYS_NOTE, id);
      if (patch.tier !== undefined) await this.sql`UPDATE accounts SET tier = ${patch.tier} WHERE id = ${id}`;
      if (patch.dailyQuota !== undefined) await this.sql`UPDATE accounts SET daily_quota = ${patch.dailyQuota} WHERE id = ${id}`;
      if (patch.status !== undefined) await this.sql`UPDATE accounts SET status = ${patch.status} WHERE id = ${id}`;
      if (patch.federation !== undefined) await this.sql`UPDATE accounts SET federation = ${patch.federation} WHERE id = ${id}`;
    });
  }

  async countAccounts(): Promise<number> {
    const [row] = await this.sql`SELECT count(*)::int AS n FROM accounts`;
    return row.n;
  }

  insertKey(row: KeyRow): Promise<void> {
    return translatingConflicts(() => this.database.write(async () => {
      this.database.note(KEYS_NOTE, row.accountId);
      await this.sql`INSERT INTO api_keys (id, account_id, name, hash, prefix, scope, rate_tier, burst_rate, created_at, revoked_at)
        VALUES (${row.id}, ${row.accountId}, ${row.name}, ${row.hash}, ${row.prefix}, ${row.scope}, ${row.rateTier},
                ${row.burstRate}, ${row.createdAt}, ${row.revokedAt})`;
    }));
  }

  async liveKeyCount(accountId: string): Promise<number> {
    // Locks the account row, so two concurrent creates count one after the other.
    await this.sql`SELECT 1 FROM accounts WHERE id = ${accountId} FOR UPDATE`;
    const [row] = await this.sql`SELECT count(*)::int AS n FROM api_keys WHERE account_id = ${accountId} AND revoked_at IS NULL`;
    return row.n;
  }

  async listKeys(accountId?: string): Promise<KeyRow[]> {
    const rows =
      accountId === undefined
        ? await this.sql.unsafe(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at`)
        : await this.sql.unsafe(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at`, [accountId]);
    return rows.map(readKey);
  }

  async findKey(id: string): Promise<KeyRow | null> {
    const [row] = await this.sql.unsafe(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    return row ? readKey(row) : null;
  }

  async setKeyRevoked(id: string, revokedAt: number): Promise<void> {
    await this.database.write(() => {
      this.database.note(KEYS_NOTE, id);
      return this.sql`UPDATE api_keys SET revoked_at = ${revokedAt} WHERE id = ${id}`;
    });
  }

  setKeySecret(id: string, hash: string, prefix: string): Promise<void> {
    return translatingConflicts(() => this.database.write(async () => {
      this.database.note(KEYS_NOTE, id);
      await this.sql`UPDATE api_keys SET hash = ${hash}, prefix = ${prefix} WHERE id = ${id}`;
    }));
  }

  async keyByHash(hash: string): Promise<KeyLookupRow | null> {
    const [row] = await this.sql.unsafe(
      `SELECT ${KEY_LOOKUP_COLUMNS} FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1 AND k.revoked_at IS NULL`,
      [hash],
    );
    return row ? { ...readLookupKey(row), ...readLookupAccount(row) } : null;
  }

  async addUsage(increments: UsageIncrement[]): Promise<void> {
    for (const { keyId, accountId, day, counts } of increments) {
      let total = 0;
      for (const [endpoint, count] of counts) {
        await this.sql`INSERT INTO usage_endpoints (key_id, day, endpoint, count) VALUES (${keyId}, ${day}, ${endpoint}, ${count})
          ON CONFLICT (key_id, day, endpoint) DO UPDATE SET count = usage_endpoints.count + excluded.count`;
        total += count;
      }
      await this.sql`INSERT INTO usage_daily (account_id, day, count) VALUES (${accountId}, ${day}, ${total})
        ON CONFLICT (account_id, day) DO UPDATE SET count = usage_daily.count + excluded.count`;
    }
  }

  async dailyCount(accountId: string, day: string): Promise<number> {
    const [row] = await this.sql`SELECT count FROM usage_daily WHERE account_id = ${accountId} AND day = ${day}`;
    return row ? Number(row.count) : 0;
  }

  async dailyCounts(accountIds: string[], day: string): Promise<Map<string, number>> {
    if (accountIds.length === 0) return new Map();
    const rows = await this.sql`SELECT account_id AS "accountId", count FROM usage_daily WHERE day = ${day} AND account_id IN ${this.sql(accountIds)}`;
    return new Map(rows.map((raw: Record<string, unknown>) => {
      const row = readDaily(raw);
      return [row.accountId, row.count];
    }));
  }

  async usageByEndpoint(keyId: string, monthStart: string): Promise<EndpointUsage[]> {
    const rows = await this.sql`SELECT endpoint, sum(count)::float8 AS total,
        sum(CASE WHEN day >= ${monthStart} THEN count ELSE 0 END)::float8 AS month
      FROM usage_endpoints WHERE key_id = ${keyId} GROUP BY endpoint`;
    return rows.map((r: EndpointUsage) => ({ endpoint: r.endpoint, total: Number(r.total), month: Number(r.month) }));
  }

  async pruneUsage(cutoff: string, sliceRows: number, between: () => Promise<void>): Promise<number> {
    let deleted = 0;
    for (const table of ["usage_endpoints", "usage_daily"] as const) {
      for (;;) {
        const n = await this.database.write(async () => {
          const rows =
            table === "usage_endpoints"
              ? await this.sql`DELETE FROM usage_endpoints WHERE ctid IN (SELECT ctid FROM usage_endpoints WHERE day < ${cutoff} LIMIT ${sliceRows}) RETURNING 1`
              : await this.sql`DELETE FROM usage_daily WHERE ctid IN (SELECT ctid FROM usage_daily WHERE day < ${cutoff} LIMIT ${sliceRows}) RETURNING 1`;
          return rows.length as number;
        });
        deleted += n;
        if (n < sliceRows) break;
        await between();
      }
    }
    return deleted;
  }
}
