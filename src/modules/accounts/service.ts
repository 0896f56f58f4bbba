// Accounts, their API keys and their usage. Used by the admin routes, the CLI and the usage route.
import { type Clock, iso, nextUtcMidnight } from "../../clock";
import { UniqueViolation } from "../../db/errors";
import type { ApiTier, RateTier } from "../../domain";
import { conflict, notFound, ServiceError, unprocessable } from "../../errors";
import { newId } from "../../ids";
import { yieldToRequests } from "../../yield";
import { generateKey, hashKey, PLAN_DAILY_QUOTA } from "./keys";
import type * as Model from "./model";
import type { AccountPatch, AccountRow, AccountsStore, KeyRow } from "./store";

/** Usage rows deleted (or, for usage_daily on SQLite, rowids walked) per slice of the daily prune. */
const PRUNE_SLICE_ROWS = 2_000;

/** Most keys (revoked ones excluded) an account of each plan may hold. */
export const KEY_CAP: Record<ApiTier, number> = { free: 2, pro: 5, max: 10, enterprise: 25 };

export type AccountView = typeof Model.Account.static;
export type KeyView = typeof Model.ApiKey.static;
/** A key with its secret, shown once. */
export type IssuedKey = typeof Model.IssuedKey.static;
export type UsageStats = typeof Model.UsageStats.static;

/** A new account: the admin route's body, plus the status an import may carry. */
export type NewAccount = typeof Model.NewAccountBody.static & Pick<typeof Model.AccountPatchBody.static, "status">;
export type AccountChanges = typeof Model.AccountPatchBody.static;
/** A new key: the admin route's body and the account (id or name) it belongs to. */
export type NewKey = typeof Model.NewKeyBody.static & { account: string };

/** Calls counted but not yet written, by day and endpoint (the request path's meter). */
export interface PendingUsage {
  pendingFor(keyId: string): Array<{ day: string; endpoint: string; count: number }>;
}

/** Today's calls of an account as its daily quota counts them (the request path's counter). */
export interface QuotaUsed {
  used(accountId: string): number;
}

export function toAccountView(row: AccountRow): AccountView {
  return {
    id: row.id,
    name: row.name,
    tier: row.tier,
    daily_quota: row.dailyQuota ?? PLAN_DAILY_QUOTA[row.tier],
    daily_quota_override: row.dailyQuota,
    status: row.status,
    federation: row.federation,
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
  constructor(
    private readonly store: AccountsStore,
    private readonly clock: Clock,
    /** Called after any change that a cached key may reflect (revoke, rotate, tier, status). */
    private readonly onKeysChanged: () => void = () => {},
  ) {}

  async createAccount(input: NewAccount): Promise<AccountView> {
    const name = input.name.trim();
    if (!ACCOUNT_NAME.test(name)) throw unprocessable("Account names are 1-64 letters, digits, spaces, '_', '.' or '-'.");
    if (await this.findAccountRow(name)) throw conflict(`An account named '${name}' already exists.`);
    const row: AccountRow = {
      id: newId("acct", this.clock.now()),
      name,
      tier: input.tier,
      dailyQuota: input.daily_quota ?? null,
      status: input.status ?? "active",
      federation: false,
      createdAt: this.clock.now(),
    };
    try {
      await this.store.insertAccount(row);
    } catch (error) {
      // Another request took the name since the check above.
      if (error instanceof UniqueViolation) throw conflict(`An account named '${name}' already exists.`);
      throw error;
    }
    return toAccountView(row);
  }

  async listAccounts(): Promise<AccountView[]> {
    return (await this.store.listAccounts()).map(toAccountView);
  }

  /** By id or by name. */
  async getAccount(idOrName: string): Promise<AccountView> {
    const row = await this.findAccountRow(idOrName);
    if (!row) throw notFound(`No account '${idOrName}'.`);
    return toAccountView(row);
  }

  async updateAccount(idOrName: string, changes: AccountChanges): Promise<AccountView> {
    const row = await this.findAccountRow(idOrName);
    if (!row) throw notFound(`No account '${idOrName}'.`);
    const patch: AccountPatch = {};
    if (changes.tier !== undefined) patch.tier = changes.tier;
    if (changes.daily_quota !== undefined) patch.dailyQuota = changes.daily_quota;
    if (changes.status !== undefined) patch.status = changes.status;
    if (changes.federation !== undefined) patch.federation = changes.federation;
    if (Object.keys(patch).length > 0) {
      await this.store.updateAccount(row.id, patch);
      this.onKeysChanged();
    }
    return toAccountView({ ...row, ...patch });
  }

  async createKey(input: NewKey): Promise<IssuedKey> {
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
    await this.store.transaction(async () => {
      const live = await this.store.liveKeyCount(account.id);
      const cap = KEY_CAP[account.tier];
      if (live >= cap) {
        throw new ServiceError("limit", `Account '${account.name}' already holds ${live} keys, the most a ${account.tier} plan allows (${cap}). Revoke one first.`);
      }
      await this.store.insertKey(row);
    });
    return { ...toKeyView(row), key };
  }

  async listKeys(account?: string): Promise<KeyView[]> {
    if (account === undefined) return (await this.store.listKeys()).map(toKeyView);
    const owner = await this.findAccountRow(account);
    if (!owner) throw notFound(`No account '${account}'.`);
    return (await this.store.listKeys(owner.id)).map(toKeyView);
  }

  async getKey(id: string): Promise<KeyView> {
    const row = await this.store.findKey(id);
    if (!row) throw notFound(`No key ${id}.`);
    return toKeyView(row);
  }

  async revokeKey(id: string): Promise<KeyView> {
    const row = await this.store.findKey(id);
    if (!row) throw notFound(`No key ${id}.`);
    if (row.revokedAt !== null) return toKeyView(row);
    const revokedAt = this.clock.now();
    await this.store.setKeyRevoked(id, revokedAt);
    this.onKeysChanged();
    return toKeyView({ ...row, revokedAt });
  }

  /** A new secret for the same key id (usage history stays with it); the old secret stops working. */
  async rotateKey(id: string): Promise<IssuedKey> {
    const row = await this.store.findKey(id);
    if (!row) throw notFound(`No key ${id}.`);
    if (row.revokedAt !== null) throw conflict(`Key ${id} is revoked; create a new one instead.`);
    const key = generateKey();
    const patch = { hash: hashKey(key), prefix: key.slice(0, 12) };
    await this.store.setKeySecret(id, patch.hash, patch.prefix);
    this.onKeysChanged();
    return { ...toKeyView({ ...row, ...patch }), key };
  }

  async countAccounts(): Promise<number> {
    return this.store.countAccounts();
  }

  private findAccountRow(idOrName: string): Promise<AccountRow | null> {
    return this.store.findAccount(idOrName);
  }
}

/** UsageStats of one key: persisted counts plus what the meter has not flushed yet. */
export class UsageService {
  constructor(
    private readonly store: AccountsStore,
    private readonly clock: Clock,
    private readonly meter: PendingUsage,
    private readonly quota: QuotaUsed,
  ) {}

  async forKey(caller: { keyId: string; accountId: string; rateTier: RateTier; apiTier: ApiTier; dailyQuota: number }): Promise<UsageStats> {
    const now = this.clock.now();
    const monthStart = iso(now).slice(0, 8) + "01";
    const counts = new Map<string, { total: number; month: number }>();
    for (const row of await this.store.usageByEndpoint(caller.keyId, monthStart)) counts.set(row.endpoint, { total: row.total, month: row.month });
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
    return this.store.pruneUsage(cutoff, sliceRows, yieldToRequests);
  }
}
