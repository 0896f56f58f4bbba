// @ts-check
// The bot's calls to trustlist, through the SDK and a short-lived cache. The SDK already waits out
// a short 429 and retries 5xx and network errors for a while; this adds the cache and, on plans
// that allow it, one batch call per group of members instead of one call each. Every call names
// the server's vertical, batch or not, so a member listed only for another game counts the same
// either way. A batch row names no entry: the one-member check (`discordUser`) does, and the bot
// asks it for a member it is about to act on.
import { TtlCache } from "./cache.js";
import { VERTICALS } from "./state.js";

/** @typedef {import("./policy.js").CheckLike} CheckLike */
/** @typedef {import("@trustlist/sdk").Trustlist} Trustlist */
/** @typedef {import("@trustlist/sdk").PublicSearchResult} PublicSearchResult */
/** @typedef {import("@trustlist/sdk").Vertical} Vertical */

/** Accounts per batch call, the API's limit. */
export const BATCH_SIZE = 50;

/**
 * @param {{ tl: Pick<Trustlist, "checkAccount" | "batchCheck" | "searchPublic">, ttlMs?: number, batch?: boolean, now?: () => number }} options
 */
export function createChecker(options) {
  const { tl, batch = false } = options;
  /** @type {TtlCache<CheckLike>} */
  const singles = new TtlCache({ ttlMs: options.ttlMs ?? 300_000, now: options.now });
  /** @type {TtlCache<CheckLike>} */
  const rows = new TtlCache({ ttlMs: options.ttlMs ?? 300_000, now: options.now });
  /** @type {TtlCache<PublicSearchResult>} */
  const searches = new TtlCache({ ttlMs: options.ttlMs ?? 300_000, max: 1000, now: options.now });
  const key = (/** @type {string} */ vertical, /** @type {string} */ id) => `${vertical}:${id}`;

  /**
   * One Discord user, with the entry that decided the answer (`entry.id`).
   * @param {string} id
   * @param {string} [vertical]
   * @returns {Promise<CheckLike>}
   */
  const discordUser = (id, vertical = "all") =>
    singles.getOrLoad(key(vertical, id), () => tl.checkAccount({ provider: "discord", id, vertical: /** @type {Vertical} */ (vertical) }));

  return {
    discordUser,

    /** Drops what is kept about a user (its entry was overturned: a rejoin must be checked afresh). @param {string} id */
    forget(id) {
      for (const vertical of VERTICALS) {
        singles.delete(key(vertical, id));
        rows.delete(key(vertical, id));
      }
    },

    /**
     * Several Discord users: from the cache where it can, the rest in batch calls (up to 50 each)
     * when the plan allows batches, else one by one. A user the server could not check maps to
     * an Error: the SDK's error when the call failed, so its code and retryAfter say what to do.
     * @param {string[]} ids
     * @param {string} [vertical]
     * @returns {Promise<Map<string, CheckLike | Error>>}
     */
    async discordUsers(ids, vertical = "all") {
      /** @type {Map<string, CheckLike | Error>} */
      const results = new Map();
      const missing = [];
      for (const id of ids) {
        const kept = singles.get(key(vertical, id)) ?? rows.get(key(vertical, id));
        if (kept) results.set(id, kept);
        else missing.push(id);
      }
      if (batch && missing.length > 1) {
        for (let i = 0; i < missing.length; i += BATCH_SIZE) {
          const group = missing.slice(i, i + BATCH_SIZE);
          try {
            const answer = await tl.batchCheck(
              group.map((id) => ({ provider: "discord", id })),
              { vertical: /** @type {Vertical} */ (vertical) },
            );
            answer.results.forEach((row, n) => {
              const id = /** @type {string} */ (group[n]);
              if (row.error) return void results.set(id, Object.assign(new Error(`trustlist could not check ${id}: ${row.error}`), { code: row.error, status: 422 }));
              rows.set(key(vertical, id), row);
              results.set(id, row);
            });
          } catch (error) {
            for (const id of group) results.set(id, /** @type {Error} */ (error));
          }
        }
      } else {
        for (const id of missing) {
          try {
            results.set(id, await discordUser(id, vertical));
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
