// The accounts module's tables, `accounts`, `api_keys`, `usage_daily` and `usage_endpoints`: the
// contract every database implements, and the factory that picks one. Their SQL lives in
// store.sqlite.ts, store.postgres.ts and, for the export's snapshot read, export.ts. The key lookup
// and the daily count are on every keyed request's path, so a database that can answer them at
// once (SQLite) also offers them synchronously (`sync`).
import type { Database } from "../../db/database";
import type { RowOf } from "../../db/rows";
import { PostgresAccountsStore } from "./store.postgres";
import type { LOOKUP_ACCOUNT_FIELDS, LOOKUP_KEY_FIELDS } from "./store.shared";
import { SqliteAccountsStore } from "./store.sqlite";
import type { accounts, apiKeys, usageEndpoints } from "./tables";

export { KEYS_NOTE } from "./store.shared";

export type AccountRow = RowOf<typeof accounts>;
export type KeyRow = RowOf<typeof apiKeys>;

/** A live key with its account, as the request path needs it. */
export type KeyLookupRow = RowOf<typeof apiKeys, (typeof LOOKUP_KEY_FIELDS)[number]> & RowOf<typeof accounts, (typeof LOOKUP_ACCOUNT_FIELDS)[number]>;

/** All retained calls of one key on one endpoint, and those of the current month. */
export type EndpointUsage = RowOf<typeof usageEndpoints, "endpoint"> & { total: number; month: number };

/** One key's calls of one UTC day, by endpoint. */
export interface UsageIncrement {
  keyId: string;
  accountId: string;
  day: string;
  /** Calls by endpoint. */
  counts: Map<string, number>;
}

export type AccountPatch = Partial<Pick<AccountRow, "tier" | "dailyQuota" | "status" | "federation">>;

/** The request path's reads, answered at once where the database can (SQLite). */
export interface AccountsSyncStore {
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
  usageByEndpoint(keyId: string, monthStart: string): Promise<EndpointUsage[]>;
  /** Deletes usage rows before `cutoff` (a day), a slice at a time, calling `between` after each slice. */
  pruneUsage(cutoff: string, sliceRows: number, between: () => Promise<void>): Promise<number>;
  /** The request path's reads without a promise; present where the database answers at once (SQLite). */
  readonly sync?: AccountsSyncStore;
}

export function createAccountsStore(database: Database): AccountsStore {
  return database.dialect === "sqlite" ? new SqliteAccountsStore(database) : new PostgresAccountsStore(database);
}
