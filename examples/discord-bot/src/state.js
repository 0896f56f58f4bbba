// @ts-check
// What the bot remembers, per server and across restarts, in one JSON file: each server's settings
// (set with /trustlist by members with Manage Server), the actions it took that it can undo (a ban,
// a timeout, a quarantine role, with the entry behind each, so an overturned entry lifts exactly
// the bot's own actions), its place in trustlist's change feed, and the appeals members filed.
// Written whole to a temporary file and renamed over the old one, so a crash leaves one or the
// other, never half. Without a file (tests) it lives in memory.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { DEFAULT_ACTIONS } from "./policy.js";

/**
 * @typedef {{
 *   modLogChannelId: string | null,
 *   vertical: string,
 *   actions: import("./policy.js").Actions,
 *   quarantineRoleId: string | null,
 *   timeoutMinutes: number,
 * }} GuildSettings
 * @typedef {{ guildId: string, userId: string, entryId: string, action: "ban" | "timeout" | "quarantine", roleId?: string | null, at: string }} TakenAction
 * @typedef {{ guilds: Record<string, Partial<GuildSettings>>, actions: TakenAction[], feed: { cursor?: string, seq?: number }, appeals: Record<string, string> }} StateData
 */

export const VERTICALS = ["all", "roblox", "uefn", "minecraft"];

export class BotState {
  /** @type {StateData} */
  #data = { guilds: {}, actions: [], feed: {}, appeals: {} };

  /**
   * @param {{ file?: string | null, defaults?: Partial<GuildSettings> }} [options]
   */
  constructor(options = {}) {
    this.file = options.file ?? null;
    /** @type {GuildSettings} */
    this.defaults = { modLogChannelId: null, vertical: "all", actions: { ...DEFAULT_ACTIONS }, quarantineRoleId: null, timeoutMinutes: 60, ...options.defaults };
    if (this.file && existsSync(this.file)) this.#data = { ...this.#data, ...JSON.parse(readFileSync(this.file, "utf8")) };
  }

  /** A server's settings, its own over the bot's defaults. @param {string} guildId @returns {GuildSettings} */
  settings(guildId) {
    const own = this.#data.guilds[guildId] ?? {};
    return { ...this.defaults, ...own, actions: { ...this.defaults.actions, ...own.actions } };
  }

  /** @param {string} guildId @param {Partial<GuildSettings>} patch */
  update(guildId, patch) {
    const own = this.#data.guilds[guildId] ?? {};
    this.#data.guilds[guildId] = { ...own, ...patch, ...(patch.actions ? { actions: { ...this.defaults.actions, ...own.actions, ...patch.actions } } : {}) };
    this.#save();
    return this.settings(guildId);
  }

  /** @param {TakenAction} action */
  recordAction(action) {
    this.#data.actions = this.#data.actions.filter((a) => !(a.guildId === action.guildId && a.userId === action.userId && a.action === action.action));
    this.#data.actions.push(action);
    this.#save();
  }

  /** The bot's own undoable actions taken because of `entryId`. @param {string} entryId */
  actionsFor(entryId) {
    return this.#data.actions.filter((a) => a.entryId === entryId);
  }

  /** @param {TakenAction} action */
  forgetAction(action) {
    this.#data.actions = this.#data.actions.filter((a) => a !== action && !(a.guildId === action.guildId && a.userId === action.userId && a.action === action.action));
    this.#save();
  }

  /** Where the change-feed follower resumes. */
  get feed() {
    return { ...this.#data.feed };
  }

  /** @param {{ cursor?: string, seq?: number }} position */
  set feed(position) {
    this.#data.feed = position;
    this.#save();
  }

  /** The last appeal a Discord user filed through the bot. @param {string} userId */
  appealOf(userId) {
    return this.#data.appeals[userId] ?? null;
  }

  /** @param {string} userId @param {string} appealId */
  recordAppeal(userId, appealId) {
    this.#data.appeals[userId] = appealId;
    this.#save();
  }

  #save() {
    if (!this.file) return;
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(this.#data, null, 2));
    renameSync(temporary, this.file);
  }
}
