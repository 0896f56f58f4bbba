// /appeal on the fake gateway: the member who runs it appeals the entry its own check names, in a
// server or in a direct message, and reads where the appeal stands. First against a stand-in for
// the SDK that answers as the server does (each refusal: not appealable, not active or already
// open, the 30-day cooldown, an unknown entry, a read-only key), then end to end against a real
// server: filed, refused while open, decided by staff, and the bot's ban lifted by the overturn.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConflictError, createTrustlist, ForbiddenError, NotFoundError, RateLimitedError } from "../../../sdk/dist/index.js";
import { createBot } from "../src/bot.js";
import { BotState } from "../src/state.js";
import { FakeClient } from "./fake-discord.js";
import { liveServer } from "./live-server.js";

const member = { id: "7001", tag: "listed" };
const log = { log: () => {}, warn: () => {}, error: (/** @type {string} */ m) => console.error(m) };
const listed = { provider: "discord", id: "7001", banned: true, checked_at: "2026-11-21T10:00:00.000Z", severity: "ban", reason_code: "scam", entry: { id: "bl_7001", severity: "ban", scope: "global", reason_code: "scam", summary: null } };

/** A bot whose trustlist is `tl` (only the calls /appeal makes). @param {Record<string, Function>} tl */
function withTl(tl) {
  const client = new FakeClient();
  const state = new BotState();
  const bot = createBot({ client, tl: /** @type {any} */ (tl), state, log, options: { follow: false } });
  bot.start();
  const appeal = async (/** @type {string} */ subcommand, /** @type {Record<string, string>} */ options = {}, guild = null) =>
    (await client.command({ command: "appeal", subcommand, options, user: member, guild })).done;
  return { client, state, appeal };
}

const refusal = (/** @type {any} */ Class, /** @type {number} */ status, /** @type {string} */ code, /** @type {number | null} */ retryAfter = null) => new Class({ status, code, message: "refused", retryAfter });

test("the member's own entry is appealed with their statement; the answer is private and names the appeal", async () => {
  /** @type {unknown[]} */
  const filed = [];
  const { client, state, appeal } = withTl({
    checkAccount: async (/** @type {any} */ query) => (query.id === "7001" ? listed : { banned: false }),
    createAppeal: async (/** @type {any} */ body) => (filed.push(body), { id: "apl_1", status: "open" }),
    getAppeal: async (/** @type {string} */ id) => ({ id, entry_id: "bl_7001", status: "decided", outcome: "removed", note: "Delivery confirmed.", created_at: "2026-11-21T10:00:00.000Z", decided_at: "2026-11-22T10:00:00.000Z" }),
  });
  assert.equal(await appeal("status"), "You have not appealed through this bot.");
  const interaction = await client.command({ command: "appeal", subcommand: "submit", options: { statement: "I delivered." }, user: member });
  assert.equal(await interaction.done, "Your appeal apl_1 of entry bl_7001 is filed and open. trustlist's staff decide it; `/appeal status` shows where it stands.");
  assert.deepEqual(interaction.answers[0], { kind: "defer", flags: 64 });
  assert.deepEqual(filed, [{ entry_id: "bl_7001", provider: "discord", provider_user_id: "7001", statement: "I delivered." }]);
  assert.equal(state.appealOf("7001"), "apl_1");
  assert.equal(await appeal("status"), "Your appeal apl_1 of entry bl_7001 was decided on 2026-11-22T10:00:00.000Z: removed. Note: Delivery confirmed.");
});

test("a member who is not listed has nothing to appeal, and no appeal is filed", async () => {
  let filed = 0;
  const { appeal } = withTl({ checkAccount: async () => ({ banned: false, checked_at: "x" }), createAppeal: async () => void filed++ });
  assert.equal(await appeal("submit", { statement: "why" }), "Your Discord account is not listed on the trustlist: there is nothing to appeal.");
  assert.equal(filed, 0);
});

test("in a server, the server's vertical decides which entry is the member's", async () => {
  /** @type {unknown[]} */
  const queries = [];
  const { client, state } = withTl({ checkAccount: async (/** @type {any} */ q) => (queries.push(q.vertical), { banned: false }), createAppeal: async () => ({}) });
  const guild = client.addGuild("G");
  state.update("G", { vertical: "minecraft" });
  await (await client.command({ command: "appeal", subcommand: "submit", options: { statement: "x" }, user: member, guild })).done;
  await (await client.command({ command: "appeal", subcommand: "submit", options: { statement: "x" }, user: member })).done;
  assert.deepEqual(queries, ["minecraft", "all"]);
});

test("each refusal is said in the member's words", async () => {
  const cases = [
    [refusal(ConflictError, 409, "not_appealable"), "Entry bl_7001 cannot be appealed."],
    [refusal(ConflictError, 409, "conflict"), "Entry bl_7001 is not active any more, or an appeal of it is already open (`/appeal status`)."],
    [refusal(RateLimitedError, 429, "rate_limited", 20 * 86_400), "You appealed recently. You can appeal again in 480 h."],
    [refusal(NotFoundError, 404, "not_found"), "trustlist no longer holds entry bl_7001: there is nothing to appeal."],
    [refusal(ForbiddenError, 403, "forbidden"), "This bot's trustlist key cannot file appeals (it needs a write-scoped key). Tell the server's moderators."],
  ];
  for (const [error, words] of cases) {
    const { appeal, state } = withTl({ checkAccount: async () => listed, createAppeal: async () => Promise.reject(error) });
    assert.equal(await appeal("submit", { statement: "x" }), words);
    assert.equal(state.appealOf("7001"), null);
  }
  const { appeal } = withTl({ checkAccount: async () => Promise.reject(Object.assign(new Error("GET http://10.1.2.3/v1/blacklist/check failed"), { status: 0, code: "network_error" })) });
  const down = await appeal("submit", { statement: "x" });
  assert.equal(down, "The bot could not look you up: trustlist did not answer (it may be down or restarting). Try again later.");
});

test("end to end: filed against the real server, refused while open, decided by staff, and the bot's ban lifted", async () => {
  const live = await liveServer();
  try {
    const admin = createTrustlist({ baseUrl: live.base, apiKey: live.adminKey });
    const entry = await admin.addEntry({ provider: "discord", provider_user_id: "7001", severity: "ban", reason_code: "scam", summary: "Took payment" });
    const client = new FakeClient();
    const state = new BotState();
    const tl = createTrustlist({ baseUrl: live.base, apiKey: live.key("pro", "--scope", "write") });
    const bot = createBot({ client, tl, state, log, options: { follow: true, followPollMs: 50, cacheTtlMs: 0 }, wait: async () => {} });
    bot.start();
    const guild = client.addGuild("E");
    guild.join("7001", "listed");
    await bot.joins.drained();
    assert.ok(guild.bans.has("7001"));

    // Banned from the server, the member appeals in a direct message.
    const appeal = async (/** @type {string} */ subcommand, /** @type {Record<string, string>} */ options = {}) =>
      (await client.command({ command: "appeal", subcommand, options, user: member })).done;
    const filed = await appeal("submit", { statement: "I delivered the map; the buyer confirmed in DMs." });
    const id = filed.match(/apl_\w+/)?.[0];
    assert.equal(filed, `Your appeal ${id} of entry ${entry.id} is filed and open. trustlist's staff decide it; \`/appeal status\` shows where it stands.`);
    assert.match(await appeal("status"), new RegExp(`^Your appeal ${id} of entry ${entry.id} is open \\(filed `));
    assert.equal(await appeal("submit", { statement: "again" }), `Entry ${entry.id} is not active any more, or an appeal of it is already open (\`/appeal status\`).`);

    const decided = await fetch(`${live.base}/v1/moderation/appeals/${id}/decide`, {
      method: "POST",
      headers: { authorization: `Bearer ${live.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ outcome: "removed", note: "The buyer confirmed delivery." }),
    });
    assert.equal(decided.status, 200);
    const deadline = Date.now() + 10_000;
    while (guild.bans.has("7001") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(!guild.bans.has("7001"), "the overturn lifted the bot's ban");
    assert.match(await appeal("status"), new RegExp(`^Your appeal ${id} of entry ${entry.id} was decided on \\S+: removed\\. Note: The buyer confirmed delivery\\.$`));
    assert.match(await appeal("submit", { statement: "once more" }), /not listed on the trustlist|not active any more/);
    await bot.stop();
  } finally {
    await live.close();
  }
});
