// The accounts module's tables: `accounts`, `api_keys`, `usage_daily` and `usage_endpoints`, on
// SQLite or PostgreSQL. The only place their SQL lives. The key lookup and the daily count are on
// every keyed request's path, so SQLite also answers them synchronously (`lookupNow`).
import type { Database as SqliteConnection } from "bun:sqlite";
import type { Database } from "../../db/database";
import { translatingConflicts } from "../../db/errors";
import { type ReadSnapshot, snapshotRows } from "../../db/snapshot";
import type { AccountStatus, ApiTier, KeyScope, RateTier } from "../../domain";

export interface AccountRow {
  id: string;
  name: string;
  tier: ApiTier;
  dailyQuota: number | null;
  status: AccountStatus;
  createdAt: number;
}

export interface KeyRow {
  id: string;
  accountId: string;
  name: string | null;
  hash: string;
  prefix: string;
  scope: KeyScope;
  rateTier: RateTier;
  burstRate: number | null;
  createdAt: number;
  revokedAt: number | null;
}

/** A live key with its account, as the request path needs it. */
export interface KeyLookupRow {
  id: string;
  account_id: string;
  scope: KeyScope;
  rate_tier: RateTier;
  burst_rate: number | null;
  hash: string;
  tier: ApiTier;
  daily_quota: number | null;
  status: AccountStatus;
}

/** One key's calls of one UTC day, by endpoint. */
export interface UsageIncrement {
  keyId: string;
  accountId: string;
  day: string;
  /** Calls by endpoint. */
  counts: Map<string, number>;
}

export interface AccountPatch {
  tier?: ApiTier;
  dailyQuota?: number | null;
  status?: AccountStatus;
}

/** Synchronous reads of the request path, where the database can answer them at once (SQLite). */
export interface HotPathReads {
  keyByHash(hash: string): KeyLookupRow | null;
  dailyCount(accountId: string, day: string): number;
}

export interface AccountsStore {
  /** One transaction around `fn`; store calls inside join it. `waitMs`: how long to wait for another writer's lock. */
  transaction<T>(fn: () => Promise<T>, options?: { waitMs?: number }): Promise<T>;
  /** Throws UniqueViolation when the name is taken. */
  insertAccount(row: AccountRow): Promise<void>;
  listAccounts(): Promise<AccountRow[]>;
  /** By id or by name. */
  findAccount(idOrName: string): Promise<AccountRow | null>;
  updateAccount(id: string, patch: AccountPatch): Promise<void>;
  countAccounts(): Promise<number>;
  insertKey(row: KeyRow): Promise<void>;
  liveKeyCount(accountId: string): Promise<number>;
  listKeys(accountId?: string): Promise<KeyRow[]>;
  findKey(id: string): Promise<KeyRow | null>;
  setKeyRevoked(id: string, revokedAt: number): Promise<void>;
  setKeySecret(id: string, hash: string, prefix: string): Promise<void>;
  /** A live (not revoked) key by the hash of its secret, with its account. */
  keyByHash(hash: string): Promise<KeyLookupRow | null>;
  /** Adds the counts to `usage_endpoints` and `usage_daily`; call inside a transaction. */
  addUsage(increments: UsageIncrement[]): Promise<void>;
  dailyCount(accountId: string, day: string): Promise<number>;
  /** The persisted calls of `day` of each account given (absent: none). */
  dailyCounts(accountIds: string[], day: string): Promise<Map<string, number>>;
  /** Per endpoint: all retained calls of a key, and those on or after `monthStart`. */
  usageByEndpoint(keyId: string, monthStart: string): Promise<{ endpoint: string; total: number; month: number }[]>;
  /** Deletes usage rows before `cutoff` (a day), a slice at a time, calling `between` after each slice. */
  pruneUsage(cutoff: string, sliceRows: number, between: () => Promise<void>): Promise<number>;
  /** Present on SQLite only. */
  readonly hotPath: HotPathReads | null;
}

/**
 * The topic a PostgreSQL commit that changes an account or a key notes (db/changes.ts): other
 * instances drop their key caches on such commits only, not on every write of the fleet.
 */
export const KEYS_NOTE = "accounts.keys";

export function createAccountsStore(database: Database): AccountsStore {
  return database.dialect === "sqlite" ? new SqliteAccountsStore(database) : new PostgresAccountsStore(database);
}

const KEY_LOOKUP_COLUMNS = "k.id, k.account_id, k.scope, k.rate_tier, k.burst_rate, k.hash, a.tier, a.daily_quota, a.status";

type SqliteStore = Extract<Database, { dialect: "sqlite" }>;

interface SqliteAccount {
  id: string;
  name: string;
  tier: ApiTier;
  daily_quota: number | null;
  status: AccountStatus;
  created_at: number;
}

interface SqliteKey {
  id: string;
  account_id: string;
  name: string | null;
  hash: string;
  prefix: string;
  scope: KeyScope;
  rate_tier: RateTier;
  burst_rate: number | null;
  created_at: number;
  revoked_at: number | null;
}

function toAccountRow(r: SqliteAccount): AccountRow {
  return {
    id: r.id,
    name: r.name,
    tier: r.tier,
    dailyQuota: r.daily_quota === null ? null : Number(r.daily_quota),
    status: r.status,
    createdAt: Number(r.created_at),
  };
}

function toKeyRow(r: SqliteKey): KeyRow {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    hash: r.hash,
    prefix: r.prefix,
    scope: r.scope,
    rateTier: r.rate_tier,
    burstRate: r.burst_rate === null ? null : Number(r.burst_rate),
    createdAt: Number(r.created_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  };
}

class SqliteAccountsStore implements AccountsStore {
  private readonly sqlite: SqliteConnection;
  readonly hotPath: HotPathReads;
  private readonly statements;

  constructor(private readonly store: SqliteStore) {
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
      byEndpoint: sqlite.prepare<{ endpoint: string; total: number; month: number }, [string, string]>(
        `SELECT endpoint, sum(count) AS total, sum(CASE WHEN day >= ?2 THEN count ELSE 0 END) AS month
         FROM usage_endpoints WHERE key_id = ?1 GROUP BY endpoint`,
      ),
      findAccount: sqlite.prepare<SqliteAccount, [string]>("SELECT * FROM accounts WHERE id = ?1 OR name = ?1 LIMIT 1"),
      findKey: sqlite.prepare<SqliteKey, [string]>("SELECT * FROM api_keys WHERE id = ?"),
    };
    const { keyByHash, dailyCount } = this.statements;
    this.hotPath = {
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
    return this.sqlite.query<SqliteAccount, []>("SELECT * FROM accounts ORDER BY created_at").all().map(toAccountRow);
  }

  async findAccount(idOrName: string): Promise<AccountRow | null> {
    const row = this.statements.findAccount.get(idOrName);
    return row ? toAccountRow(row) : null;
  }

  async updateAccount(id: string, patch: AccountPatch): Promise<void> {
    await this.store.write(() => {
      if (patch.tier !== undefined) this.sqlite.run("UPDATE accounts SET tier = ? WHERE id = ?", [patch.tier, id]);
      if (patch.dailyQuota !== undefined) this.sqlite.run("UPDATE accounts SET daily_quota = ? WHERE id = ?", [patch.dailyQuota, id]);
      if (patch.status !== undefined) this.sqlite.run("UPDATE accounts SET status = ? WHERE id = ?", [patch.status, id]);
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
    const rows =
      accountId === undefined
        ? this.sqlite.query<SqliteKey, []>("SELECT * FROM api_keys ORDER BY created_at").all()
        : this.sqlite.query<SqliteKey, [string]>("SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at").all(accountId);
    return rows.map(toKeyRow);
  }

  async findKey(id: string): Promise<KeyRow | null> {
    const row = this.statements.findKey.get(id);
    return row ? toKeyRow(row) : null;
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
    return this.hotPath.keyByHash(hash);
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
    return this.hotPath.dailyCount(accountId, day);
  }

  async dailyCounts(accountIds: string[], day: string): Promise<Map<string, number>> {
    return new Map(accountIds.map((id) => [id, this.hotPath.dailyCount(id, day)]));
  }

  async usageByEndpoint(keyId: string, monthStart: string) {
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

type PostgresStore = Extract<Database, { dialect: "postgres" }>;

class PostgresAccountsStore implements AccountsStore {
  readonly hotPath = null;

  constructor(private readonly database: PostgresStore) {}

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
    const rows = await this.sql`SELECT * FROM accounts ORDER BY created_at`;
    return rows.map(toAccountRow);
  }

  async findAccount(idOrName: string): Promise<AccountRow | null> {
    const [row] = await this.sql`SELECT * FROM accounts WHERE id = ${idOrName} OR name = ${idOrName} LIMIT 1`;
    return row ? toAccountRow(row) : null;
  }

  async updateAccount(id: string, patch: AccountPatch): Promise<void> {
    await this.database.write(async () => {
      this.database.note(KEYS_NOTE, id);
      if (patch.tier !== undefined) await this.sql`UPDATE accounts SET tier = ${patch.tier} WHERE id = ${id}`;
      if (patch.dailyQuota !== undefined) await this.sql`UPDATE accounts SET daily_quota = ${patch.dailyQuota} WHERE id = ${id}`;
      if (patch.status !== undefined) await this.sql`UPDATE accounts SET status = ${patch.status} WHERE id = ${id}`;
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
        ? await this.sql`SELECT * FROM api_keys ORDER BY created_at`
        : await this.sql`SELECT * FROM api_keys WHERE account_id = ${accountId} ORDER BY created_at`;
    return rows.map(toKeyRow);
  }

  async findKey(id: string): Promise<KeyRow | null> {
    const [row] = await this.sql`SELECT * FROM api_keys WHERE id = ${id}`;
    return row ? toKeyRow(row) : null;
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
    const [row] = await this.sql`SELECT k.id, k.account_id, k.scope, k.rate_tier, k.burst_rate, k.hash, a.tier, a.daily_quota, a.status
      FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ${hash} AND k.revoked_at IS NULL`;
    return row ?? null;
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
    const rows = await this.sql`SELECT account_id, count FROM usage_daily WHERE day = ${day} AND account_id IN ${this.sql(accountIds)}`;
    return new Map(rows.map((row: { account_id: string; count: number | string }) => [row.account_id, Number(row.count)]));
  }

  async usageByEndpoint(keyId: string, monthStart: string) {
    const rows = await this.sql`SELECT endpoint, sum(count)::float8 AS total,
        sum(CASE WHEN day >= ${monthStart} THEN count ELSE 0 END)::float8 AS month
      FROM usage_endpoints WHERE key_id = ${keyId} GROUP BY endpoint`;
    return rows.map((r: { endpoint: string; total: number; month: number }) => ({ endpoint: r.endpoint, total: Number(r.total), month: Number(r.month) }));
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

export interface AccountExportRow {
  name: string;
  tier: ApiTier;
  status: AccountStatus;
  daily_quota: number | null;
}

/** Every account, oldest first, as of the export's snapshot. */
export async function* accountsForExport(snapshot: ReadSnapshot): AsyncGenerator<AccountExportRow> {
  const rows = snapshotRows<AccountExportRow>(snapshot, "SELECT name, tier, status, daily_quota FROM accounts ORDER BY created_at, id");
  for await (const row of rows) yield { ...row, daily_quota: row.daily_quota === null ? null : Number(row.daily_quota) };
}
