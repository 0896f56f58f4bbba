// API keys on the request path: look up the bearer key by its SHA-256, then apply scope, account
// status, the daily quota and the burst bucket in that order, meter the call and set the
// rate-limit headers. Every keyed route runs exactly this.
import { timingSafeEqual } from "node:crypto";
import type { AccountStatus, ApiTier, KeyScope, RateTier } from "../domain";
import { ApiError } from "./errors";
import { type BucketRule, burstOverrideRule, type QuotaCounter, RATE_TIER_RULES, type TokenBuckets } from "./limits";
import { hashKey, KEY_PATTERN, PLAN_DAILY_QUOTA } from "../modules/accounts/keys";
import type { Meter } from "./metering";
import type { ChangeNotifier } from "../db/changes";
import type { AccountsStore, KeyLookupRow } from "../modules/accounts/store";

export interface Caller {
  keyId: string;
  accountId: string;
  scope: KeyScope;
  rateTier: RateTier;
  apiTier: ApiTier;
  bucket: BucketRule;
  dailyQuota: number;
  status: AccountStatus;
}

const SCOPE_RANK: Record<KeyScope, number> = { read: 0, write: 1, admin: 2 };

export function scopeAllows(granted: KeyScope, needed: KeyScope): boolean {
  return SCOPE_RANK[granted] >= SCOPE_RANK[needed];
}

/**
 * Valid keys, cached in memory after a lookup by hash. Another process (the CLI) or instance may
 * revoke a key or suspend an account at any time, so the cache is dropped whenever the store's
 * change notifier (src/db/changes.ts) reports that someone else changed keys or accounts, and by
 * this process's own admin writes.
 */
export class KeyRegistry {
  private readonly cache = new Map<string, Caller>();
  private readonly byHeader = new Map<string, Caller>();

  /** Bumped by `invalidate`, so a lookup that was in flight meanwhile is not cached. */
  private generation = 0;

  /** The workers of one `serve --workers N`: a count any of them bumps when it changed keys or accounts. */
  private peers: PeerGeneration | null = null;
  private peersSeen = 0;

  /**
   * `changes` tells of other processes' and instances' changes to keys and accounts; on PostgreSQL
   * `load` also waits for it to have read them (ChangeNotifier.keysAtRequest).
   */
  constructor(
    private readonly store: AccountsStore,
    private readonly changes?: ChangeNotifier,
  ) {
    changes?.onKeysChanged(() => this.invalidate());
  }

  /**
   * Shares key and account changes with the other workers (server/worker.ts): from the next
   * lookup on, one worker's revoke, rotation or suspension empties every worker's cache, without
   * waiting for the database's change notification.
   */
  shareWith(peers: PeerGeneration): void {
    this.peers = peers;
    this.peersSeen = peers.read();
  }

  /** This process changed a key or an account: forget every cached caller here and in the other workers. */
  changed(): void {
    this.invalidate();
    if (this.peers) this.peersSeen = this.peers.bump();
  }

  /** Drops the cache when another worker has changed keys or accounts since the last look. */
  private syncWithPeers(): void {
    const seen = this.peers!.read();
    if (seen === this.peersSeen) return;
    this.peersSeen = seen;
    this.invalidate();
  }

  /**
   * True when the database answers a lookup at once (SQLite's prepared statement). Otherwise
   * (PostgreSQL) the request path awaits `load` first and then finds the caller in the cache.
   */
  get answersAtOnce(): boolean {
    return this.store.sync !== undefined;
  }

  /** The caller of an `Authorization` header value; the header itself is the cache key. */
  fromHeader(authorization: string): Caller | null {
    if (this.peers !== null) this.syncWithPeers();
    const cached = this.byHeader.get(authorization);
    if (cached) return cached;
    if (!authorization.startsWith("Bearer ")) return null;
    const key = authorization.slice(7).trim();
    const caller = this.find(key);
    // Only the canonical form is remembered, so padded variants of one key cannot grow the map.
    if (caller && authorization.length === key.length + 7) this.byHeader.set(authorization, caller);
    return caller;
  }

  find(key: string): Caller | null {
    // Keyed by the presented secret: a bot repeats the same key thousands of times, and a Map
    // lookup costs less than hashing it each time. Only keys that matched a stored hash get in.
    const cached = this.cache.get(key);
    if (cached) return cached;
    const reads = this.store.sync;
    if (!reads || !KEY_PATTERN.test(key)) return null;
    const hash = hashKey(key);
    return this.remember(key, hash, reads.keyByHash(hash));
  }

  /** Where lookups are asynchronous: one query for a key the cache does not hold, then `find` answers. */
  async load(authorization: string | null): Promise<void> {
    if (this.answersAtOnce || authorization === null || !authorization.startsWith("Bearer ")) return;
    const key = authorization.slice(7).trim();
    if (!KEY_PATTERN.test(key)) return;
    // Before the cache answers: a revoke or suspension another instance committed before this
    // request arrived has emptied it by then, whenever that instance's notification comes.
    await this.changes?.keysAtRequest();
    if (this.peers !== null) this.syncWithPeers();
    if (this.cache.has(key)) return;
    const hash = hashKey(key);
    for (let attempt = 0; ; attempt++) {
      const generation = this.generation;
      const row = await this.store.keyByHash(hash);
      // A revoke or suspension committed while the query ran: the row may be stale, so it is read
      // again (accounts and keys change seldom; the third read is kept whatever happens meanwhile).
      if (generation === this.generation || attempt === 2) {
        this.remember(key, hash, row);
        return;
      }
    }
  }

  private remember(key: string, hash: string, row: KeyLookupRow | null): Caller | null {
    if (!row || !timingSafeEqual(Buffer.from(row.hash), Buffer.from(hash))) return null;
    const caller: Caller = {
      keyId: row.id,
      accountId: row.accountId,
      scope: row.scope,
      rateTier: row.rateTier,
      apiTier: row.tier,
      bucket: row.burstRate ? burstOverrideRule(row.burstRate) : RATE_TIER_RULES[row.rateTier],
      dailyQuota: row.dailyQuota ?? PLAN_DAILY_QUOTA[row.tier],
      status: row.status,
    };
    this.cache.set(key, caller);
    return caller;
  }

  invalidate(): void {
    this.generation++;
    this.cache.clear();
    this.byHeader.clear();
  }
}

/** A counter shared by the workers of one serve: `bump` adds one and answers the new value. */
export interface PeerGeneration {
  read(): number;
  bump(): number;
}

export interface KeyGate {
  keys: KeyRegistry;
  quota: QuotaCounter;
  buckets: TokenBuckets;
  meter: Meter;
}

/**
 * Authenticates a keyed request and charges it. Throws the envelope's 401, 402, 403 or 429;
 * writes the rate-limit headers into `headers` either way once the account is known.
 */
export function admitKeyed(
  gate: KeyGate,
  authorization: string | null,
  needed: KeyScope,
  endpoint: string,
  headers: Record<string, string | number>,
): Caller {
  const caller = authorization === null ? null : gate.keys.fromHeader(authorization);
  if (!caller) {
    const presented = authorization?.startsWith("Bearer ") && authorization.slice(7).trim() !== "";
    throw new ApiError(401, "unauthorized", presented ? "Invalid or revoked API key." : "Missing API key: send 'Authorization: Bearer <key>'.");
  }

  const count = gate.quota.counter(caller.accountId);
  const used = count.used;
  headers["x-ratelimit-limit"] = caller.dailyQuota;
  headers["x-ratelimit-reset"] = gate.quota.resetAt();

  if (caller.status === "suspended" || !scopeAllows(caller.scope, needed) || used >= caller.dailyQuota) {
    headers["x-ratelimit-remaining"] = Math.max(0, caller.dailyQuota - used);
    if (caller.status === "suspended") {
      throw new ApiError(402, "subscription_required", "This account is suspended: its subscription is required to use the API.");
    }
    if (!scopeAllows(caller.scope, needed)) {
      throw new ApiError(403, "forbidden", `This key's scope '${caller.scope}' does not allow this route; it needs '${needed}'.`);
    }
    throw new ApiError(429, "quota_exceeded", `Daily quota of ${caller.dailyQuota} calls used up; it resets at midnight UTC.`, {
      "retry-after": String(gate.quota.retryAfter()),
    });
  }
  const retryAfter = gate.buckets.tryTake(caller.keyId, caller.bucket);
  if (retryAfter > 0) {
    headers["x-ratelimit-remaining"] = caller.dailyQuota - used;
    throw new ApiError(429, "rate_limited", `Too many requests for this key; retry in ${retryAfter} s.`, {
      "retry-after": String(retryAfter),
    });
  }
  // Counted only once admitted: a request refused above costs the account nothing.
  gate.quota.charge(caller.accountId, count);
  gate.meter.record(caller.keyId, caller.accountId, endpoint);
  headers["x-ratelimit-remaining"] = caller.dailyQuota - used - 1;
  return caller;
}
