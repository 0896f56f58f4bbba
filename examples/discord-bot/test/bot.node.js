// The bot against a real trustlist server and a fake Discord gateway client: two servers with
// their own settings (set by slash commands, Manage Server only), the vertical rule with one call
// per member and with batch calls, each action a server can choose, a sweep of current members
// within the quota, an overturned entry lifting the bot's own ban and quarantine (and no one
// else's), and joins checked again after an outage and after a spent quota, with mod-log messages
// that name no address. Retry timers are a list the test fires; waits on the server are polls with
// a stated bound.
import assert from "node:assert/strict";
import { after, afterEach, before, test } from "node:test";
import { createTrustlist } from "../../../sdk/dist/index.js";
import { createBot } from "../src/bot.js";
import { MANAGE_GUILD } from "../src/commands.js";
import { BotState } from "../src/state.js";
import { FakeClient } from "./fake-discord.js";
import { cli, liveServer } from "./live-server.js";

/** @type {Awaited<ReturnType<typeof liveServer>>} */
let live;
/** @type {import("@trustlist/sdk").Trustlist} */
let admin;
const manager = { id: "900", tag: "owner" };
const log = { log: () => {}, warn: () => {}, error: (/** @type {string} */ m) => console.error(m) };

before(async () => {
  live = await liveServer();
  admin = createTrustlist({ baseUrl: live.base, apiKey: live.adminKey });
  await admin.addEntry({ provider: "discord", provider_user_id: "1001", severity: "ban", scope: "vertical", vertical: "roblox", reason_code: "scam", summary: "Sold a stolen account" });
  await admin.addEntry({ provider: "discord", provider_user_id: "1002", severity: "ban", reason_code: "raid" });
  await admin.addEntry({ provider: "discord", provider_user_id: "1003", severity: "restrict", reason_code: "chargeback" });
  await admin.addEntry({ provider: "discord", provider_user_id: "1004", severity: "warn", reason_code: "spam" });
});
after(() => live.close());
/** Every bot a test made, stopped after it even when it failed (its follower polls until then). */
const running = /** @type {Array<{ stop: () => Promise<void> }>} */ ([]);
afterEach(async () => {
  for (const bot of running.splice(0)) await bot.stop();
});

/** Waits until `check` holds, polling every 20 ms, for at most `ms` (the follower polls every 50 ms). */
async function until(/** @type {() => boolean} */ check, /** @type {() => unknown} */ seen = () => "", ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out; saw ${JSON.stringify(seen())}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A bot on a fake gateway, its trustlist calls counted (with the batch calls' vertical), its retry
 * timers held for the test to fire.
 * @param {{ key?: string, batch?: boolean, follow?: boolean, sweepReserve?: number }} [options]
 */
function makeBot(options = {}) {
  const client = new FakeClient();
  const state = new BotState();
  /** @type {string[]} */
  const requests = [];
  /** @type {Array<{ run: () => void, ms: number }>} */
  const timers = [];
  const tl = createTrustlist({
    baseUrl: live.base,
    apiKey: options.key ?? live.key(),
    // Fail fast: these tests are about what the bot does once the SDK gives up.
    attempts: 2,
    backoffMs: 10,
    fetch: async (request) => {
      const body = request.method === "POST" ? await request.clone().text() : "";
      const vertical = body ? JSON.parse(body).vertical : new URL(request.url).searchParams.get("vertical");
      requests.push(`${request.method} ${new URL(request.url).pathname}${vertical ? ` ${vertical}` : ""}`);
      return fetch(request);
    },
  });
  const bot = createBot({
    client,
    tl,
    state,
    log,
    options: { joinBatch: options.batch ?? false, follow: options.follow ?? false, followPollMs: 50, cacheTtlMs: 0, sweepReserve: options.sweepReserve ?? 0 },
    wait: async () => {},
    schedule: (run, ms) => {
      const timer = { run, ms };
      timers.push(timer);
      return { cancel: () => void timers.splice(timers.indexOf(timer), 1) };
    },
    random: () => 0,
  });
  bot.start();
  running.push(bot);
  /** A server set up by its owner with /trustlist, with a mod-log channel. */
  const server = async (/** @type {string} */ id, /** @type {Record<string, unknown>[]} */ ...settings) => {
    const guild = client.addGuild(id);
    const channel = guild.addChannel(`c${id}`);
    await client.command({ command: "trustlist", subcommand: "channel", options: { channel }, guild, user: manager, permissions: [MANAGE_GUILD] });
    for (const { subcommand, ...opts } of settings) await client.command({ command: "trustlist", subcommand: String(subcommand), options: opts, guild, user: manager, permissions: [MANAGE_GUILD] });
    return { guild, channel };
  };
  return { client, state, bot, requests, timers, server };
}

for (const batch of [false, true]) {
  test(`two servers with their own settings: the vertical rule and the mod-log per server (${batch ? "batch calls" : "one call per member"})`, async () => {
    const { bot, requests, server } = makeBot({ batch });
    const a = await server("A", { subcommand: "vertical", vertical: "roblox" });
    const b = await server("B", { subcommand: "vertical", vertical: "minecraft" });
    for (const { guild } of [a, b]) for (const id of ["1001", "1002", "1005", "1006"]) guild.join(id);
    await bot.joins.drained();

    // 1001 is banned only for Roblox: banned in A, left alone in B. 1002's ban is global.
    assert.deepEqual([...a.guild.bans.keys()].sort(), ["1001", "1002"]);
    assert.deepEqual([...b.guild.bans.keys()], ["1002"]);
    assert.ok(a.channel.sent.some((m) => m.includes("(1001)") && m.includes("The bot banned the member.")));
    assert.ok(b.channel.sent.every((m) => !m.includes("1001")), "A's alerts stay out of B's channel");
    assert.equal(b.channel.sent.filter((m) => m.includes("(1002)")).length, 1);
    if (batch) {
      const batches = requests.filter((r) => r.startsWith("POST /v1/blacklist/check/batch"));
      assert.ok(batches.length >= 2, requests.join("\n"));
      // Every batch names its server's vertical.
      assert.ok(batches.every((r) => r.endsWith(" roblox") || r.endsWith(" minecraft")), batches.join("\n"));
    } else {
      assert.ok(!requests.some((r) => r.includes("/batch")));
      assert.ok(requests.filter((r) => r.startsWith("GET /v1/blacklist/check")).every((r) => r.endsWith(" roblox") || r.endsWith(" minecraft")));
    }

    // /trustcheck counts each server's vertical too.
    const inA = await a.guild.client.command({ command: "trustcheck", options: { user: { id: "1001", tag: "x" } }, guild: a.guild, user: manager });
    const inB = await b.guild.client.command({ command: "trustcheck", options: { user: { id: "1001", tag: "x" } }, guild: b.guild, user: manager });
    assert.match(await inA.done, /Banned/);
    assert.match(await inB.done, /No active report/);
    await bot.stop();
  });
}

test("settings change only by members with Manage Server, only to actions the answer allows, one server at a time", async () => {
  const { client, state, bot } = makeBot();
  const guild = client.addGuild("S");
  const other = client.addGuild("T");
  const run = (/** @type {string} */ subcommand, /** @type {Record<string, unknown>} */ options, permissions = [MANAGE_GUILD], g = guild) =>
    client.command({ command: "trustlist", subcommand, options, guild: g, user: manager, permissions }).then((i) => i.done);

  assert.match(await run("vertical", { vertical: "uefn" }, []), /Only members with Manage Server/);
  assert.equal(state.settings("S").vertical, "all");
  assert.match(await run("vertical", { vertical: "uefn" }), /Vertical: uefn/);
  assert.match(await run("action", { answer: "watchlist", action: "ban" }), /an unconfirmed report is never acted on/);
  assert.match(await run("action", { answer: "restricted", action: "ban" }), /only a confirmed ban can ban/);
  assert.match(await run("action", { answer: "restricted", action: "quarantine" }), /restricted → quarantine/);
  assert.match(await run("quarantine-role", { role: { id: "S", managed: false } }), /cannot be given/);
  assert.match(await run("quarantine-role", { role: { id: "r1", managed: false } }), /Quarantine role: <@&r1>/);
  assert.match(await run("timeout", { minutes: 90 }), /timeout: 90 min/);
  const shown = await run("settings", {});
  assert.match(shown, /Mod-log: not set/);
  assert.match(shown, /banned → ban, restricted → quarantine, warned → alert, watchlist → alert/);
  assert.deepEqual(state.settings("T"), state.settings("nowhere"));
  assert.match(await run("settings", {}, [MANAGE_GUILD], other), /Vertical: all/);
  await bot.stop();
});

test("each action a server chooses is done and reported; a refusal by Discord is reported, not hidden", async () => {
  const { bot, server } = makeBot();
  const { guild, channel } = await server(
    "P",
    { subcommand: "action", answer: "banned", action: "kick" },
    { subcommand: "action", answer: "restricted", action: "quarantine" },
    { subcommand: "quarantine-role", role: { id: "r-q" } },
    { subcommand: "action", answer: "warned", action: "timeout" },
    { subcommand: "timeout", minutes: 10 },
  );
  const restricted = guild.join("1003");
  const warned = guild.join("1004");
  guild.join("1002");
  await bot.joins.drained();
  assert.deepEqual(guild.audit.map((a) => a[0]), ["role+", "timeout", "kick"]);
  assert.ok(restricted.roles.cache.has("r-q"));
  assert.equal(warned.timedOutFor, 600_000);
  assert.ok(channel.sent.some((m) => m.includes("The bot gave the member the quarantine role.")));
  assert.ok(channel.sent.some((m) => m.includes("The bot timed the member out.")));
  assert.ok(channel.sent.some((m) => m.includes("The bot kicked the member.")));

  const { guild: low, channel: lowLog } = await server("Q");
  low.refuse = "Missing Permissions";
  low.join("1002");
  await bot.joins.drained();
  assert.equal(low.bans.size, 0);
  assert.ok(lowLog.sent.some((m) => m.includes("But the ban failed: Missing Permissions (could not ban). Check the bot's role")));
  await bot.stop();
});

test("a sweep checks current members within the quota and acts as on a join", async () => {
  const key = live.key("pro");
  const { bot, server, client } = makeBot({ key, batch: true });
  const { guild, channel } = await server("W");
  for (const id of ["1002", "1003", "2001", "2002", "2003"]) guild.add(id);
  guild.add("2999", "helper-bot", true);
  const summary = await (await client.command({ command: "trustlist", subcommand: "sweep", guild, user: manager, permissions: [MANAGE_GUILD] })).done;
  assert.match(summary, /^Swept 5 of 5 members \(vertical all\): banned 1, restricted 1, warned 0, watchlist 0, clean 3\./);
  assert.ok(guild.bans.has("1002"));
  assert.ok(channel.sent.includes(summary));
  await bot.stop();

  // A key with 3 calls left today and a reserve of 1 for joins: two calls, one member each.
  const tight = cli(live.db, "keys", "create", "--account", live.account("sweep-tight", "--tier", "pro", "--daily-quota", "4")).key;
  const small = makeBot({ key: tight, sweepReserve: 1 });
  const { guild: big } = await small.server("X");
  for (const id of ["2101", "2102", "2103", "2104", "2105"]) big.add(id);
  const partial = await (await small.client.command({ command: "trustlist", subcommand: "sweep", guild: big, user: manager, permissions: [MANAGE_GUILD] })).done;
  assert.match(partial, /^Swept 2 of 5 members/);
  assert.match(partial, /The other 3 need more of the daily quota than is left; run the sweep again after it resets in/);
  assert.equal(small.requests.filter((r) => r.startsWith("GET /v1/blacklist/check")).length, 2);
  await small.bot.stop();
});

test("an overturned entry lifts the bot's own ban and quarantine, in the server where it acted, and says so", async () => {
  const banned = await admin.addEntry({ provider: "discord", provider_user_id: "3001", severity: "ban", reason_code: "scam" });
  const restricted = await admin.addEntry({ provider: "discord", provider_user_id: "3002", severity: "restrict", reason_code: "chargeback" });
  const someoneElses = await admin.addEntry({ provider: "discord", provider_user_id: "3003", severity: "warn", reason_code: "spam" });
  const { bot, server, state } = makeBot({ follow: true });
  const { guild, channel } = await server("L", { subcommand: "action", answer: "restricted", action: "quarantine" }, { subcommand: "quarantine-role", role: { id: "r-q" } });
  guild.join("3001");
  const quarantined = guild.join("3002");
  await bot.joins.drained();
  assert.ok(guild.bans.has("3001") && quarantined.roles.cache.has("r-q"));
  // A moderator's own ban, for a reason the bot did not act on.
  guild.bans.set("3003", "by hand");

  await admin.overturnEntry(banned.id);
  await admin.overturnEntry(restricted.id);
  await admin.overturnEntry(someoneElses.id);
  await until(() => !guild.bans.has("3001") && !quarantined.roles.cache.has("r-q"), () => [channel.sent, [...guild.bans.keys()], state.feed]);
  assert.ok(guild.bans.has("3003"), "a ban the bot did not make stays");
  assert.ok(channel.sent.some((m) => m === `Entry ${banned.id} was overturned on trustlist: the bot lifted its ban of <@3001> (3001).`));
  assert.ok(channel.sent.some((m) => m === `Entry ${restricted.id} was overturned on trustlist: the bot lifted its quarantine role of <@3002> (3002).`));
  assert.deepEqual(state.actionsFor(banned.id), []);
  assert.ok(state.feed.cursor, "the feed position is kept for a restart");
  await bot.stop();
});

test("a join during an outage is reported without an address, waits, and is checked when trustlist is back", async () => {
  const { bot, server, timers } = makeBot();
  const { guild, channel } = await server("O");
  await live.stop();
  try {
    guild.join("1002");
    guild.join("1005");
    await bot.joins.drained();
  } finally {
    await live.start();
  }
  assert.equal(guild.bans.size, 0);
  const failures = channel.sent.filter((m) => m.includes("not checked"));
  // One message for the outage, not one per join.
  assert.equal(failures.length, 1);
  assert.match(failures[0] ?? "", /^user1002 \(1002\): not checked: trustlist did not answer \(it may be down or restarting\)\. No action taken; the bot checks again in 15 s\./);
  assert.doesNotMatch(channel.sent.join("\n"), /http|127\.0\.0\.1|localhost|:\d{4,5}/);
  assert.deepEqual(timers.map((t) => t.ms), [15_000, 15_000]);

  for (const timer of [...timers]) timer.run();
  await bot.joins.drained();
  assert.ok(guild.bans.has("1002"));
  assert.ok(channel.sent.includes("trustlist answers again: the members who waited are being checked."));
  await bot.stop();
});

test("a join after the day's quota is spent waits for the reset, then is checked", async () => {
  const accountId = live.account("tiny", "--tier", "pro", "--daily-quota", "1");
  const key = cli(live.db, "keys", "create", "--account", accountId).key;
  const { bot, server, timers } = makeBot({ key });
  const { guild, channel } = await server("U");
  guild.join("1005");
  await bot.joins.drained();
  guild.join("1002");
  await bot.joins.drained();
  assert.equal(guild.bans.size, 0);
  const failure = channel.sent.find((m) => m.includes("not checked")) ?? "";
  assert.match(failure, /^user1002 \(1002\): not checked: the trustlist key's daily quota is spent \(request \S+\)\. No action taken; the bot checks again in \d+ (h|min|s)\./);
  // Retried at the reset the server named: midnight UTC, within a day.
  assert.equal(timers.length, 1);
  const untilMidnight = 86_400_000 - (Date.now() % 86_400_000);
  assert.ok(Math.abs((timers[0]?.ms ?? 0) - untilMidnight) < 5_000, `${timers[0]?.ms} vs ${untilMidnight}`);

  cli(live.db, "accounts", "update", accountId, "--daily-quota", "100");
  timers[0]?.run();
  await bot.joins.drained();
  assert.ok(guild.bans.has("1002"));
  await bot.stop();
});
