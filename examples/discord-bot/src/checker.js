// @ts-check
// The bot's calls to trustlist, through the SDK and a short-lived cache. The SDK already waits out
// a 429's Retry-After and retries 5xx and network errors; this adds the cache and, on plans that
// allow it, one batch call per group of joining members instead of one call each.
import { TtlCache } from "./cache.js";

/** @typedef {import("./policy.js").CheckLike} CheckLike */
/** @typedef {import("@trustlist/sdk").Trustlist} Trustlist */
/** @typedef {import("@trustlist/sdk").PublicSearchResult} PublicSearchResult */

/**
 * @param {{ tl: Pick<Trustlist, "checkAccount" | "batchCheck" | "searchPublic">, vertical?: string, ttlMs?: number, batch?: boolean, now?: () => number }} options
 */
export function createChecker(options) {
  const { tl, batch = false } = options;
  const vertical = /** @type {import("@trustlist/sdk").CheckQuery["vertical"]} */ (options.vertical ?? "all");
  /** @type {TtlCache<CheckLike>} */
  const accounts = new TtlCache({ ttlMs: options.ttlMs ?? 300_000, now: options.now });
  /** @type {TtlCache<PublicSearchResult>} */
  const searches = new TtlCache({ ttlMs: options.ttlMs ?? 300_000, max: 1000, now: options.now });
  const accountKey = (/** @type {string} */ id) => `discord:${id}`;

  /**
   * One Discord user.
   * @param {string} id
   * @returns {Promise<CheckLike>}
   */
  const discordUser = (id) => accounts.getOrLoad(accountKey(id), () => tl.checkAccount({ provider: "discord", id, vertical }));

  return {
    discordUser,

    /**
     * Several Discord users: from the cache where it can, the rest in one batch call (up to 50)
     * when the plan allows batches, else one by one. A user the server could not check maps to
     * an Error.
     * @param {string[]} ids
     * @returns {Promise<Map<string, CheckLike | Error>>}
     */
    async discordUsers(ids) {
      /** @type {Map<string, CheckLike | Error>} */
      const results = new Map();
      const missing = [];
      for (const id of ids) {
        const kept = accounts.get(accountKey(id));
        if (kept) results.set(id, kept);
        else missing.push(id);
      }
      if (batch && missing.length > 1) {
        for (let i = 0; i < missing.length; i += 50) {
          const group = missing.slice(i, i + 50);
          const answer = await tl.batchCheck(group.map((id) => ({ provider: "discord", id })));
          answer.results.forEach((row, n) => {
            const id = /** @type {string} */ (group[n]);
            if (row.error) return void results.set(id, new Error(`trustlist could not check ${id}: ${row.error}`));
            accounts.set(accountKey(id), row);
            results.set(id, row);
          });
        }
      } else {
        for (const id of missing) {
          try {
            results.set(id, await discordUser(id));
          } catch (error) {
            results.set(id, /** @type {Error} */ (error));
          }
        }
      }
      return results;
    },

    /**
     * The public search: a Roblox, Epic or Minecraft id or username, or a creator handle.
     * @param {string} q
     */
    search(q) {
      const query = q.trim().replace(/^@/, "");
      return searches.getOrLoad(query.toLowerCase(), () => tl.searchPublic(query));
    },
  };
}
