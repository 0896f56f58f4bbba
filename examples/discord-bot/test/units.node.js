// The bot's parts that need neither Discord nor trustlist: the decision table (each answer, each
// action a server can choose, what an unconfirmed report may never trigger), the words of a failed
// check (never an address), the settings from the environment, the answer cache, the per-server
// state and its file, the commands' shape, and the checker's calls (against a stand-in for the
// SDK that counts them; the real server is in bot.node.js).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { TtlCache } from "../src/cache.js";
import { createChecker } from "../src/checker.js";
import { APPEAL, GLOBAL_COMMANDS, GUILD_COMMANDS, MANAGE_GUILD, TRUSTLIST } from "../src/commands.js";
import { loadConfig } from "../src/config.js";
import { ALLOWED_ACTIONS, decide, DEFAULT_ACTIONS, describeFailure, describeSearch, duration, failureKind, verdictOf } from "../src/policy.js";
import { BotState } from "../src/state.js";

const at = "2026-11-21T10:00:00.000Z";
const banned = { provider: "discord", id: "1", banned: true, checked_at: at, severity: "ban", scope: "global", reason_code: "scam", appealable: false, entry: { id: "bl_1", severity: "ban", scope: "global", reason_code: "scam", summary: "Took payment, never delivered" } };
const restricted = { provider: "discord", id: "2", banned: false, checked_at: at, severity: "restrict", reason_code: "chargeback" };
const warned = { provider: "discord", id: "3", banned: false, checked_at: at, severity: "warn", reason_code: "spam", high_risk: true };
const watchlisted = { provider: "discord", id: "4", banned: false, checked_at: at, watchlist: true };
const clean = { provider: "discord", id: "5", banned: false, checked_at: at };

test("each answer maps to its verdict; a confirmed hit outranks the watchlist flag", () => {
  assert.deepEqual([banned, restricted, warned, watchlisted, clean].map(verdictOf), ["banned", "restricted", "warned", "watchlist", "clean"]);
  assert.equal(verdictOf({ ...restricted, watchlist: true }), "restricted");
});

test("the decision table: defaults, every action a server may choose, and what it may not", () => {
  assert.deepEqual(DEFAULT_ACTIONS, { banned: "ban", restricted: "alert", warned: "alert", watchlist: "alert" });
  assert.equal(decide(clean).action, "none");
  const answers = { banned, restricted, warned, watchlist: watchlisted };
  for (const [verdict, check] of Object.entries(answers)) {
    for (const action of ["ban", "kick", "timeout", "quarantine", "alert", "none"]) {
      const chosen = decide(check, { actions: { ...DEFAULT_ACTIONS, [verdict]: action } }).action;
      // Allowed actions are done as chosen; a disallowed one (set by hand in the state file) only alerts.
      const allowed = ALLOWED_ACTIONS[/** @type {keyof typeof ALLOWED_ACTIONS} */ (verdict)];
      assert.equal(chosen, allowed.includes(/** @type {any} */ (action)) ? action : "alert", `${verdict} → ${action}`);
    }
  }
  assert.deepEqual(ALLOWED_ACTIONS.watchlist, ["alert", "none"]);
  assert.ok(!ALLOWED_ACTIONS.restricted.includes("ban") && !ALLOWED_ACTIONS.warned.includes("ban"));
});

test("the message says what the answer means and what the bot did", () => {
  const ban = decide(banned, { who: "bob (1)" }).message;
  assert.ok(ban.startsWith("bob (1): Banned: a confirmed, active ban"));
  assert.match(ban, /Reason: scam: Took payment, never delivered/);
  assert.match(ban, /The bot banned the member\./);
  assert.match(decide(restricted, { actions: { ...DEFAULT_ACTIONS, restricted: "quarantine" } }).message, /quarantine role/);
  assert.match(decide(warned, { actions: { ...DEFAULT_ACTIONS, warned: "timeout" } }).message, /timed the member out/);
  assert.match(decide(warned).message, /Flagged high risk\./);
  assert.match(decide(watchlisted).message, /unconfirmed report, not a ban/);
  assert.equal(decide(clean).message, "No active report on this account.");
});

test("a failed check says what happened and when the bot tries again, never an address or a raw error", () => {
  const quota = { status: 429, code: "quota_exceeded", requestId: "req_1", retryAfter: 7200, message: "Daily quota of 100 calls used up" };
  assert.equal(describeFailure(quota, { who: "bob", retryInMs: 7_200_000 }), "bob: not checked: the trustlist key's daily quota is spent (request req_1). No action taken; the bot checks again in 2 h.");
  const down = { status: 0, code: "network_error", message: "GET http://10.0.0.5:8080/v1/blacklist/check?provider=discord failed: ECONNREFUSED" };
  const text = describeFailure(down, { retryInMs: 30_000 });
  assert.equal(text, "not checked: trustlist did not answer (it may be down or restarting). No action taken; the bot checks again in 30 s.");
  assert.doesNotMatch(text, /http|10\.0\.0\.5|ECONNREFUSED/);
  assert.equal(failureKind({ status: 503, code: "busy" }), "outage");
  assert.equal(failureKind({ status: 401, code: "unauthorized" }), "key");
  assert.equal(failureKind({ status: 422, code: "unprocessable" }), "refused");
  assert.equal(failureKind(new Error("anything")), "outage");
  assert.match(describeFailure({ status: 403, code: "forbidden" }), /refused the bot's key/);
  assert.equal(describeFailure({ status: 422, code: "invalid_account" }), "not checked: trustlist refused the check (invalid_account). No action taken.");
  assert.deepEqual([duration(45_000), duration(12 * 60_000), duration(3 * 3_600_000)], ["45 s", "12 min", "3 h"]);
});

test("a public search lists each matching account with its meaning, or the close names", () => {
  const found = {
    query: "scammer_bob",
    found: true,
    checked_at: at,
    suggestions: [],
    platforms: [
      { platform: "roblox", username: "scammer_bob", id: "4242", banned: true, severity: "ban", reason_code: "scam", summary: "Took payment", source: "blacklist" },
      { platform: "minecraft", username: "scammer_bob", id: null, banned: false, watchlist: true, source: "external" },
    ],
  };
  const text = describeSearch(/** @type {any} */ (found));
  assert.match(text, /roblox scammer_bob \(4242\): Banned/);
  assert.match(text, /minecraft scammer_bob: Watchlist: an unconfirmed report, not a ban\./);
  const missing = { query: "scamer_bob", found: false, checked_at: at, platforms: [], suggestions: ["scammer_bob"] };
  assert.equal(describeSearch(/** @type {any} */ (missing)), 'No trustlist match for "scamer_bob". Close names: scammer_bob.');
});

const env = { DISCORD_TOKEN: "token", TRUSTLIST_URL: "http://127.0.0.1:8080", TRUSTLIST_KEY: "tl_live_" + "a".repeat(32) };

test("settings: defaults, the owner's defaults for new servers, and every mistake named at once", () => {
  assert.deepEqual(
    { ...loadConfig(env), discordToken: undefined, trustlistKey: undefined },
    {
      discordToken: undefined,
      trustlistKey: undefined,
      trustlistUrl: "http://127.0.0.1:8080",
      vertical: "all",
      actions: DEFAULT_ACTIONS,
      stateFile: "trustlist-bot-state.json",
      cacheTtlMs: 300_000,
      joinBatch: false,
      joinIntervalMs: 2000,
      maxPendingJoins: 1000,
      followPollMs: 30_000,
      sweepReserve: 20,
    },
  );
  const own = loadConfig({ ...env, ON_BANNED: "kick", ON_WARNED: "timeout", ON_RESTRICTED: "quarantine", TRUSTLIST_BATCH: "1", TRUSTLIST_VERTICAL: "roblox", STATE_FILE: "/var/lib/bot.json" });
  assert.deepEqual(own.actions, { banned: "kick", restricted: "quarantine", warned: "timeout", watchlist: "alert" });
  assert.equal(own.joinBatch, true);
  assert.equal(own.vertical, "roblox");
  assert.throws(
    () => loadConfig({ TRUSTLIST_URL: "trust.example.org", TRUSTLIST_KEY: "secret", ON_WATCHLIST: "ban", ON_RESTRICTED: "ban", CACHE_TTL_SECONDS: "soon", TRUSTLIST_VERTICAL: "fortnite", MOD_CHANNEL_ID: "123" }),
    (error) => {
      for (const part of ["DISCORD_TOKEN is required", "TRUSTLIST_KEY must look like tl_live_", "ON_WATCHLIST must be one of alert, none", "ON_RESTRICTED must be one of kick, timeout, quarantine, alert, none", "CACHE_TTL_SECONDS must be a whole number", "TRUSTLIST_VERTICAL must be one of", "TRUSTLIST_URL must be an http(s) URL", "MOD_CHANNEL_ID is no longer read"]) {
        assert.ok(/** @type {Error} */ (error).message.includes(part), part);
      }
      return true;
    },
  );
});

test("the cache keeps a value for its TTL, shares a load, keeps no failure, and is bounded", async () => {
  let now = 0;
  const cache = new TtlCache({ ttlMs: 1000, now: () => now });
  let loads = 0;
  const load = async () => ++loads;
  assert.equal(await cache.getOrLoad("k", load), 1);
  now = 999;
  assert.equal(await cache.getOrLoad("k", load), 1);
  now = 1000;
  assert.equal(await cache.getOrLoad("k", load), 2);
  const shared = new TtlCache({ ttlMs: 1000 });
  let release = (/** @type {string} */ _value) => {};
  let slowLoads = 0;
  const slow = () => {
    slowLoads++;
    return new Promise((resolve) => (release = resolve));
  };
  const both = Promise.all([shared.getOrLoad("k", slow), shared.getOrLoad("k", slow)]);
  release("v");
  assert.deepEqual(await both, ["v", "v"]);
  assert.equal(slowLoads, 1);
  await assert.rejects(shared.getOrLoad("bad", () => Promise.reject(new Error("down"))), /down/);
  assert.equal(await shared.getOrLoad("bad", async () => "ok"), "ok");
  shared.delete("bad");
  assert.equal(shared.get("bad"), undefined);
  const small = new TtlCache({ ttlMs: 1000, max: 2 });
  small.set("a", 1);
  small.set("b", 2);
  small.set("c", 3);
  assert.deepEqual([small.get("a"), small.get("b"), small.get("c")], [undefined, 2, 3]);
});

test("state: each server's settings over the defaults, the bot's undoable actions, the feed position, kept in a file", () => {
  const dir = mkdtempSync(join(tmpdir(), "trustlist-bot-"));
  try {
    const file = join(dir, "state.json");
    const state = new BotState({ file, defaults: { vertical: "roblox" } });
    assert.deepEqual(state.settings("g1"), { modLogChannelId: null, vertical: "roblox", actions: DEFAULT_ACTIONS, quarantineRoleId: null, timeoutMinutes: 60 });
    state.update("g1", { modLogChannelId: "c1", actions: /** @type {any} */ ({ warned: "timeout" }) });
    state.update("g1", { actions: /** @type {any} */ ({ restricted: "kick" }) });
    state.update("g2", { vertical: "minecraft" });
    state.recordAction({ guildId: "g1", userId: "u1", entryId: "bl_1", action: "ban", at });
    state.recordAction({ guildId: "g2", userId: "u1", entryId: "bl_1", action: "quarantine", roleId: "r1", at });
    state.feed = { cursor: "cur", seq: 7 };
    state.recordAppeal("u1", "apl_1");

    const again = new BotState({ file, defaults: { vertical: "roblox" } });
    assert.deepEqual(again.settings("g1"), { modLogChannelId: "c1", vertical: "roblox", actions: { ...DEFAULT_ACTIONS, warned: "timeout", restricted: "kick" }, quarantineRoleId: null, timeoutMinutes: 60 });
    assert.equal(again.settings("g2").vertical, "minecraft");
    assert.equal(again.settings("g2").modLogChannelId, null);
    assert.deepEqual(again.actionsFor("bl_1").map((a) => [a.guildId, a.action]), [["g1", "ban"], ["g2", "quarantine"]]);
    assert.deepEqual(again.feed, { cursor: "cur", seq: 7 });
    assert.equal(again.appealOf("u1"), "apl_1");
    again.forgetAction(/** @type {any} */ (again.actionsFor("bl_1")[0]));
    assert.deepEqual(new BotState({ file }).actionsFor("bl_1").map((a) => a.guildId), ["g2"]);
    assert.doesNotThrow(() => JSON.parse(readFileSync(file, "utf8")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("commands: settings need Manage Server and stay in servers; /appeal works in direct messages", () => {
  assert.deepEqual(GUILD_COMMANDS.map((c) => c.name), ["trustcheck", "trustlist"]);
  assert.deepEqual(GLOBAL_COMMANDS, [APPEAL]);
  assert.equal(TRUSTLIST.default_member_permissions, String(MANAGE_GUILD));
  assert.equal(TRUSTLIST.dm_permission, false);
  assert.deepEqual(TRUSTLIST.options.map((o) => o.name), ["settings", "channel", "vertical", "action", "quarantine-role", "timeout", "sweep"]);
  assert.equal(APPEAL.dm_permission, true);
  assert.equal("default_member_permissions" in APPEAL, false);
  const statement = APPEAL.options[0]?.options?.[0];
  assert.deepEqual([statement?.min_length, statement?.max_length], [1, 4000]);
});

test("the checker: one batch call per 50 members with the vertical, answers kept per vertical, a refused row an Error", async () => {
  /** @type {string[]} */
  const calls = [];
  const tl = {
    checkAccount: async (/** @type {any} */ q) => (calls.push(`single ${q.vertical} ${q.id}`), { provider: "discord", id: q.id, banned: q.id === "7", checked_at: at, entry: q.id === "7" ? { id: "bl_7" } : null }),
    batchCheck: async (/** @type {any[]} */ accounts, /** @type {any} */ options) => {
      calls.push(`batch ${options.vertical} ${accounts.length}`);
      return { checked_at: at, results: accounts.map((a) => (a.id === "bad" ? { provider: "discord", id: a.id, banned: false, error: "invalid_account" } : { provider: "discord", id: a.id, banned: a.id === "7" })) };
    },
    searchPublic: async () => ({}),
  };
  const checker = createChecker({ tl: /** @type {any} */ (tl), batch: true, ttlMs: 60_000 });
  const ids = Array.from({ length: 120 }, (_, i) => String(i));
  const results = await checker.discordUsers([...ids, "bad"], "roblox");
  assert.deepEqual(calls, ["batch roblox 50", "batch roblox 50", "batch roblox 21"]);
  assert.equal(/** @type {any} */ (results.get("7")).banned, true);
  assert.ok(results.get("bad") instanceof Error);
  assert.equal(/** @type {any} */ (results.get("bad")).code, "invalid_account");
  // Kept: no second call for the same vertical; another vertical is asked afresh.
  await checker.discordUsers(["7", "8"], "roblox");
  assert.equal(calls.length, 3);
  await checker.discordUsers(["7", "8"], "minecraft");
  assert.deepEqual(calls.slice(3), ["batch minecraft 2"]);
  // The one-member check names the entry; forgetting a user asks again.
  assert.equal((await checker.discordUser("7", "roblox")).entry?.id, "bl_7");
  checker.forget("7");
  await checker.discordUsers(["7"], "roblox");
  assert.deepEqual(calls.slice(4), ["single roblox 7", "single roblox 7"]);
});
