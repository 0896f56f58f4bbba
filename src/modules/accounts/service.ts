// Accounts, their API keys and their usage. Used by the admin routes, the CLI and the usage route.
import type { Database } from "bun:sqlite";
import { and, asc, eq, isNull, or } from "drizzle-orm";
import { type Clock, iso, nextUtcMidnight } from "../../clock";
import type { Db, Store } from "../../db/client";
import {
  type AccountStatus,
  accounts,
  apiKeys,
  type ApiTier,
  type KeyScope,
  type RateTier,
} from "../../db/schema";
import { conflict, notFound, ServiceError, unprocessable } from "../../errors";
import { generateKey, hashKey } from "../../http/auth";
import { PLAN_DAILY_QUOTA, type QuotaCounter } from "../../http/limits";
import type { Meter } from "../../http/metering";
import { newId } from "../../ids";
import { yieldToRequests } from "../../yield";

/** Usage rows deleted (or, for usage_daily, rowids walked) per slice of the daily prune. */
const PRUNE_SLICE_ROWS = 2_000;

/** Most keys (revoked ones excluded) an account of each plan may hold. */
export const KEY_CAP: Record<ApiTier, number> = { free: 2, pro: 5, max: 10, enterprise: 25 };

export interface AccountView {
  id: string;
  name: string;
  tier: ApiTier;
  daily_quota: number;
  daily_quota_override: number | null;
  status: AccountStatus;
  created_at: string;
}

export interface KeyView {
  id: string;
  account_id: string;
  name: string | null;
  prefix: string;
  scope: KeyScope;
  rate_tier: RateTier;
  burst: number | null;
  created_at: string;
  revoked_at: string | null;
}

export interface IssuedKey extends KeyView {
  /** The secret, shown once. */
  key: string;
}

type AccountRow = typeof accounts.$inferSelect;
type KeyRow = typeof apiKeys.$inferSelect;

export function toAccountView(row: AccountRow): AccountView {
  return {
    id: row.id,
    name: row.name,
    tier: row.tier,
    daily_quota: row.dailyQuota ?? PLAN_DAILY_QUOTA[row.tier],
    daily_quota_override: row.dailyQuota,
    status: row.status,
    created_at: iso(row.createdAt),
  };
}

export function toKeyView(row: KeyRow): KeyView {
  return {
    id: row.id,
    account_id: row.accountId,
    name: row.name,
    prefix: row.prefix,
    scope: row.scope,
    rate_tier: row.rateTier,
    burst: row.burstRate,
    created_at: iso(row.createdAt),
    revoked_at: iso(row.revokedAt),
  };
}

const ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/;

export class AccountsService {
  private readonly db: Db;
  private readonly sqlite: Database;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Called after any change that a cached key may reflect (revoke, rotate, tier, status). */
    private readonly onKeysChanged: () => void = () => {},
  ) {
    this.db = store.db;
    this.sqlite = store.sqlite;
  }

  async createAccount(input: { name: string; tier: ApiTier; daily_quota?: number | null; status?: AccountStatus }): Promise<AccountView> {
    const name = input.name.trim();
    if (!ACCOUNT_NAME.test(name)) throw unprocessable("Account names are 1-64 letters, digits, spaces, '_', '.' or '-'.");
    if (await this.findAccountRow(name)) throw conflict(`An account named '${name}' already exists.`);
    const row: AccountRow = {
      id: newId("acct", this.clock.now()),
      name,
      tier: input.tier,
      dailyQuota: input.daily_quota ?? null,
      status: input.status ?? "active",
      createdAt: this.clock.now(),
    };
    await this.store.write(() => this.db.insert(accounts).values(row).run());
    return toAccountView(row);
  }

  async listAccounts(): Promise<AccountView[]> {
    return this.db.select().from(accounts).orderBy(asc(accounts.createdAt)).all().map(toAccountView);
  }

  /** By id or by name. */
  async getAccount(idOrName: string): Promise<AccountView> {
    const row = await this.findAccountRow(idOrName);
    if (!row) throw notFound(`No account '${idOrName}'.`);
    return toAccountView(row);
  }

  async updateAccount(
    idOrName: string,
    changes: { tier?: ApiTier; daily_quota?: number | null; status?: AccountStatus },
  ): Promise<AccountView> {
    const row = await this.findAccountRow(idOrName);
    if (!row) throw notFound(`No account '${idOrName}'.`);
    const patch: Partial<AccountRow> = {};
    if (changes.tier !== undefined) patch.tier = changes.tier;
    if (changes.daily_quota !== undefined) patch.dailyQuota = changes.daily_quota;
    if (changes.status !== undefined) patch.status = changes.status;
    if (Object.keys(patch).length > 0) {
      await this.store.write(() => this.db.update(accounts).set(patch).where(eq(accounts.id, row.id)).run());
      this.onKeysChanged();
    }
    return toAccountView({ ...row, ...patch });
  }

  async createKey(input: {
    account: string;
    name?: string | null;
    scope?: KeyScope;
    rate_tier?: RateTier;
    burst?: number | null;
  }): Promise<IssuedKey> {
    const account = await this.findAccountRow(input.account);
    if (!account) throw notFound(`No account '${input.account}'.`);
    const key = generateKey();
    const now = this.clock.now();
    const row: KeyRow = {
      id: newId("key", now),
      accountId: account.id,
      name: input.name ?? null,
      hash: hashKey(key),
      prefix: key.slice(0, 12),
      scope: input.scope ?? "read",
      rateTier: input.rate_tier ?? "free",
      burstRate: input.burst ?? null,
      createdAt: now,
      revokedAt: null,
    };
    // The cap check and the insert share one transaction so two concurrent creates cannot both pass.
    await this.store.write(() => {
      const live = this.db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(and(eq(apiKeys.accountId, account.id), isNull(apiKeys.revokedAt)))
        .all().length;
      const cap = KEY_CAP[account.tier];
      if (live >= cap) {
        throw new ServiceError("limit", `Account '${account.name}' already holds ${live} keys, the most a ${account.tier} plan allows (${cap}). Revoke one first.`);
      }
      this.db.insert(apiKeys).values(row).run();
    });
    return { ...toKeyView(row), key };
  }

  async listKeys(account?: string): Promise<KeyView[]> {
    if (account === undefined) return this.db.select().from(apiKeys).orderBy(asc(apiKeys.createdAt)).all().map(toKeyView);
    const owner = await this.findAccountRow(account);
    if (!owner) throw notFound(`No account '${account}'.`);
    return this.db.select().from(apiKeys).where(eq(apiKeys.accountId, owner.id)).orderBy(asc(apiKeys.createdAt)).all().map(toKeyView);
  }

  async getKey(id: string): Promise<KeyView> {
    const row = this.db.select().from(apiKeys).where(eq(apiKeys.id, id)).get();
    if (!row) throw notFound(`No key ${id}.`);
    return toKeyView(row);
  }

  async revokeKey(id: string): Promise<KeyView> {
    const row = this.db.select().from(apiKeys).where(eq(apiKeys.id, id)).get();
    if (!row) throw notFound(`No key ${id}.`);
    if (row.revokedAt !== null) return toKeyView(row);
    const revokedAt = this.clock.now();
    await this.store.write(() => this.db.update(apiKeys).set({ revokedAt }).where(eq(apiKeys.id, id)).run());
    this.onKeysChanged();
    return toKeyView({ ...row, revokedAt });
  }

  /** A new secret for the same key id (usage history stays with it); the old secret stops working. */
  async rotateKey(id: string): Promise<IssuedKey> {
    const row = this.db.select().from(apiKeys).where(eq(apiKeys.id, id)).get();
    if (!row) throw notFound(`No key ${id}.`);
    if (row.revokedAt !== null) throw conflict(`Key ${id} is revoked; create a new one instead.`);
    const key = generateKey();
    const patch = { hash: hashKey(key), prefix: key.slice(0, 12) };
    await this.store.write(() => this.db.update(apiKeys).set(patch).where(eq(apiKeys.id, id)).run());
    this.onKeysChanged();
    return { ...toKeyView({ ...row, ...patch }), key };
  }

  async countAccounts(): Promise<number> {
    return (this.sqlite.query("SELECT count(*) AS n FROM accounts").get() as { n: number }).n;
  }

  private async findAccountRow(idOrName: string): Promise<AccountRow | undefined> {
    return this.db
      .select()
      .from(accounts)
      .where(or(eq(accounts.id, idOrName), eq(accounts.name, idOrName)))
      .get();
  }
}

export interface UsageStats {
  key_id: string;
  rate_limit_tier: RateTier;
  api_tier: ApiTier;
  total_requests: number;
  requests_this_month: number;
  rate_limit: { limit: number; used: number; remaining: number; reset: number; window_seconds: number };
  by_endpoint: { endpoint: string; count: number }[];
}

/** UsageStats of one key: persisted counts plus what the meter has not flushed yet. */
export class UsageService {
  private readonly byEndpoint;
  private readonly sqlite: Database;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly meter: Meter,
    private readonly quota: QuotaCounter,
  ) {
    this.sqlite = store.sqlite;
    this.byEndpoint = store.sqlite.prepare<{ endpoint: string; total: number; month: number }, [string, string]>(
      `SELECT endpoint, sum(count) AS total, sum(CASE WHEN day >= ?2 THEN count ELSE 0 END) AS month
       FROM usage_endpoints WHERE key_id = ?1 GROUP BY endpoint`,
    );
  }

  async forKey(caller: { keyId: string; accountId: string; rateTier: RateTier; apiTier: ApiTier; dailyQuota: number }): Promise<UsageStats> {
    const now = this.clock.now();
    const monthStart = iso(now).slice(0, 8) + "01";
    const counts = new Map<string, { total: number; month: number }>();
    for (const row of this.byEndpoint.all(caller.keyId, monthStart)) counts.set(row.endpoint, { total: row.total, month: row.month });
    for (const pending of this.meter.pendingFor(caller.keyId)) {
      const c = counts.get(pending.endpoint) ?? { total: 0, month: 0 };
      c.total += pending.count;
      if (pending.day >= monthStart) c.month += pending.count;
      counts.set(pending.endpoint, c);
    }
    let total = 0;
    let month = 0;
    for (const c of counts.values()) {
      total += c.total;
      month += c.month;
    }
    const used = this.quota.used(caller.accountId);
    return {
      key_id: caller.keyId,
      rate_limit_tier: caller.rateTier,
      api_tier: caller.apiTier,
      total_requests: total,
      requests_this_month: month,
      rate_limit: {
        limit: caller.dailyQuota,
        used,
        remaining: Math.max(0, caller.dailyQuota - used),
        reset: nextUtcMidnight(now) / 1000,
        window_seconds: 86_400,
      },
      by_endpoint: [...counts.entries()]
        .map(([endpoint, c]) => ({ endpoint, count: c.total }))
        .sort((a, b) => b.count - a.count || a.endpoint.localeCompare(b.endpoint)),
    };
  }

  /** Deletes usage rows older than `days` days, a slice at a time; run by cron. */
  async prune(days = 93, sliceRows = PRUNE_SLICE_ROWS): Promise<number> {
    const cutoff = iso(this.clock.now() - days * 86_400_000).slice(0, 10);
    let deleted = 0;
    // usage_endpoints: the oldest rows through its day index, a slice at a time.
    const endpoints = this.sqlite.prepare<unknown, [string, number]>(
      "DELETE FROM usage_endpoints WHERE rowid IN (SELECT rowid FROM usage_endpoints WHERE day < ?1 LIMIT ?2)",
    );
    for (;;) {
      const n = await this.store.write(() => endpoints.run(cutoff, sliceRows).changes);
      deleted += n;
      if (n < sliceRows) break;
      await yieldToRequests();
    }
    // usage_daily has no day index (its key leads with the account): walked in rowid ranges, so a
    // slice reads a bounded number of rows whatever the table holds.
    const last = this.sqlite.query<{ n: number }, []>("SELECT coalesce(max(rowid), 0) AS n FROM usage_daily").get()!.n;
    const daily = this.sqlite.prepare<unknown, [string, number, number]>(
      "DELETE FROM usage_daily WHERE rowid > ?2 AND rowid <= ?3 AND day < ?1",
    );
    for (let from = 0; from < last; from += sliceRows) {
      deleted += await this.store.write(() => daily.run(cutoff, from, from + sliceRows).changes);
      await yieldToRequests();
    }
    return deleted;
  }
}
