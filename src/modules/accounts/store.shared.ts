// What both implementations of the accounts store (and the runtime) need as values, kept apart from
// store.ts so an implementation never imports a value back from its contract's file.
import { columnsOf } from "../../db/rows";
import { accounts, apiKeys } from "./tables";

/**
 * The topic a PostgreSQL commit that changes an account or a key notes (db/changes.ts): other
 * instances drop their key caches on such commits only, not on every write of the fleet.
 */
export const KEYS_NOTE = "accounts.keys";

/** The key lookup's fields (KeyLookupRow): the key's, then its account's. */
export const LOOKUP_KEY_FIELDS = ["id", "accountId", "scope", "rateTier", "burstRate", "hash"] as const;
export const LOOKUP_ACCOUNT_FIELDS = ["tier", "dailyQuota", "status"] as const;

/** The key lookup's SELECT list over `api_keys k JOIN accounts a`. */
export const KEY_LOOKUP_COLUMNS = `${columnsOf(apiKeys, LOOKUP_KEY_FIELDS, "k")}, ${columnsOf(accounts, LOOKUP_ACCOUNT_FIELDS, "a")}`;
