// @ts-check
// The bot's settings, from environment variables, checked before it connects: a typo in an action
// or a missing key stops it with a message naming the variable, not at the first join. Each
// server's own settings (mod-log channel, vertical, actions) are set in Discord with /trustlist;
// the ON_* and TRUSTLIST_VERTICAL variables are only the defaults a new server starts with.
import { ALLOWED_ACTIONS, DEFAULT_ACTIONS } from "./policy.js";
import { VERTICALS } from "./state.js";

/**
 * @typedef {{
 *   discordToken: string,
 *   trustlistUrl: string,
 *   trustlistKey: string,
 *   vertical: string,
 *   actions: import("./policy.js").Actions,
 *   stateFile: string,
 *   cacheTtlMs: number,
 *   joinBatch: boolean,
 *   joinIntervalMs: number,
 *   maxPendingJoins: number,
 *   followPollMs: number,
 *   sweepReserve: number,
 * }} BotConfig
 */

/**
 * @param {Record<string, string | undefined>} env
 * @returns {BotConfig}
 */
export function loadConfig(env) {
  const problems = [];
  const required = (/** @type {string} */ name) => {
    const value = env[name]?.trim();
    if (!value) problems.push(`${name} is required`);
    return value ?? "";
  };
  const number = (/** @type {string} */ name, /** @type {number} */ fallback, /** @type {number} */ min) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) problems.push(`${name} must be a whole number of at least ${min}, got "${raw}"`);
    return value;
  };
  const actions = { ...DEFAULT_ACTIONS };
  for (const verdict of /** @type {(keyof typeof ALLOWED_ACTIONS)[]} */ (Object.keys(ALLOWED_ACTIONS))) {
    const name = `ON_${verdict.toUpperCase()}`;
    const raw = env[name]?.trim().toLowerCase();
    if (!raw) continue;
    if (!ALLOWED_ACTIONS[verdict].includes(/** @type {any} */ (raw))) problems.push(`${name} must be one of ${ALLOWED_ACTIONS[verdict].join(", ")}, got "${raw}"`);
    else actions[verdict] = /** @type {import("./policy.js").Action} */ (raw);
  }
  const vertical = env.TRUSTLIST_VERTICAL?.trim() || "all";
  if (!VERTICALS.includes(vertical)) problems.push(`TRUSTLIST_VERTICAL must be one of ${VERTICALS.join(", ")}, got "${vertical}"`);
  const trustlistKey = required("TRUSTLIST_KEY");
  if (trustlistKey && !/^tl_live_[A-Za-z0-9]{32}$/.test(trustlistKey)) problems.push("TRUSTLIST_KEY must look like tl_live_ followed by 32 letters and digits");
  // One global channel posted every server's alerts into one server's channel.
  if (env.MOD_CHANNEL_ID?.trim()) problems.push("MOD_CHANNEL_ID is no longer read: set each server's mod-log channel in Discord with /trustlist channel");
  const config = {
    discordToken: required("DISCORD_TOKEN"),
    trustlistUrl: required("TRUSTLIST_URL"),
    trustlistKey,
    vertical,
    actions,
    stateFile: env.STATE_FILE?.trim() || "trustlist-bot-state.json",
    cacheTtlMs: number("CACHE_TTL_SECONDS", 300, 0) * 1000,
    joinBatch: env.TRUSTLIST_BATCH === "1",
    joinIntervalMs: number("JOIN_CHECK_INTERVAL_MS", 2000, 0),
    maxPendingJoins: number("MAX_PENDING_JOINS", 1000, 1),
    followPollMs: number("FOLLOW_POLL_SECONDS", 30, 1) * 1000,
    sweepReserve: number("SWEEP_RESERVE_CALLS", 20, 0),
  };
  if (config.trustlistUrl && !/^https?:\/\/\S+$/.test(config.trustlistUrl)) problems.push(`TRUSTLIST_URL must be an http(s) URL, got "${config.trustlistUrl}"`);
  if (problems.length) throw new Error(`The bot's settings are not usable:\n- ${problems.join("\n- ")}`);
  return config;
}
