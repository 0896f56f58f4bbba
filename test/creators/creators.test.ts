// Creators through the API: the partner write path for profiles and linked accounts, the keyed
// profile, trust and connections reads, and how blacklist entries move a creator's Trust Score.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { expectEnvelope, createTestApp, type TestApp } from "../helpers";

const DAY = 86_400_000;
let t: TestApp;
let writer: string;
let reader: string;

beforeEach(async () => {
  t = await createTestApp();
  writer = (await t.account({ scope: "write", burst: 10_000 })).key;
  reader = (await t.account({ burst: 10_000, dailyQuota: 100_000 })).key;
});
afterEach(() => t.close());

const put = (handle: string, body: unknown) => t.json("PUT", `/v1/partner/creators/${handle}`, { key: writer, body });
const link = (handle: string, body: unknown) => t.json("POST", `/v1/partner/creators/${handle}/connections`, { key: writer, body });
const profile = (handle: string) => t.json("GET", `/v1/users/${handle}`, { key: reader });
const trust = (handle: string) => t.json("GET", `/v1/users/${handle}/trust`, { key: reader });
const ban = (body: Record<string, unknown>) =>
  t.json("POST", "/v1/partner/blacklist", { key: writer, body: { severity: "ban", reason_code: "scam_trade", ...body } });
const events = async (type: string) =>
  (await t.rows<{ payload: string }>("SELECT payload FROM outbox_events WHERE type = ? ORDER BY id", type)).map((r) => JSON.parse(r.payload));

/** A creator joined `ageDays` ago with the given level and linked accounts. */
async function creator(handle: string, options: { level?: number; ageDays?: number; accounts?: Array<Record<string, unknown>> } = {}) {
  const joined = new Date(t.clock.now() - (options.ageDays ?? 0) * DAY).toISOString();
  expect((await put(handle, { display_name: handle.toUpperCase(), verification_level: options.level ?? 0, joined_at: joined })).status).toBe(201);
  for (const account of options.accounts ?? []) expect((await link(handle, account)).status).toBe(201);
}

describe("partner writes of creators", () => {
  test("PUT creates (201) then updates (200); fields left out keep their value", async () => {
    const created = await put("@Shadow.Builds", { display_name: "Shadow", verification_level: 2, karma: 40 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      handle: "shadow.builds",
      display_name: "Shadow",
      verification_level: 2,
      verification_label: "Standard",
      karma: 40,
      trust_score: 116,
      trust_band: "average",
      reviews: { count: 0, average: null },
      completed_deals: 0,
      linked_accounts: 0,
      blacklisted: false,
      profile_url: "http://127.0.0.1:8080/u/shadow.builds",
    });
    const updated = await put("shadow.builds", { verification_level: 4 });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ display_name: "Shadow", karma: 40, verification_label: "Expert", trust_score: 130 });
  });

  test("bad handles, values and fields are refused and nothing is written", async () => {
    expectEnvelope(await put("a", {}), 422, "unprocessable");
    expectEnvelope(await put("has space", {}), 422, "unprocessable");
    expectEnvelope(await put("fine", { verification_level: 5 }), 422, "unprocessable");
    expectEnvelope(await put("fine", { joined_at: "yesterday" }), 422, "unprocessable");
    expectEnvelope(await put("fine", { role: "admin" }), 422, "unprocessable");
    expectEnvelope(await put("fine", { joined_at: new Date(t.clock.now() + 30 * DAY).toISOString() }), 422, "unprocessable");
    expectEnvelope(await profile("fine"), 404, "not_found");
  });

  test("markup in a display name is stored as text and returned as given", async () => {
    await put("inert", { display_name: '<img src=x onerror="alert(1)">' });
    expect((await profile("inert")).body.display_name).toBe('<img src=x onerror="alert(1)">');
  });

  test("the partner path needs a write key; read keys get 403 and no key 401", async () => {
    expectEnvelope(await t.json("PUT", "/v1/partner/creators/nokey", { body: {} }), 401, "unauthorized");
    expectEnvelope(await t.json("PUT", "/v1/partner/creators/nokey", { key: reader, body: {} }), 403, "forbidden");
    expectEnvelope(await t.json("POST", "/v1/partner/creators/nokey/connections", { key: reader, body: {} }), 403, "forbidden");
  });
});

describe("linked accounts", () => {
  test("a link is 201, the same link again 200; another creator's account is 409", async () => {
    await creator("alice");
    await creator("bob");
    const account = { provider: "discord", provider_user_id: "80351110224678912", provider_username: "alice", verified_at: "2026-01-01T00:00:00Z" };
    const first = await link("alice", account);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      provider: "discord",
      provider_user_id: "80351110224678912",
      provider_username: "alice",
      provider_url: null,
      verified_at: "2026-01-01T00:00:00.000Z",
      public: true,
    });
    expect((await link("alice", { ...account, provider_username: "alice2" })).status).toBe(200);
    expectEnvelope(await link("bob", account), 409, "conflict");
    expect((await profile("bob")).body.linked_accounts).toBe(0);
  });

  test("unlinking removes the account from the profile, search and score; a banned account's ban goes with it", async () => {
    await creator("alice", { accounts: [{ provider: "roblox", provider_user_id: "1234567", provider_username: "AliceRBX", verified_at: "2026-01-01T00:00:00Z" }] });
    await ban({ provider: "roblox", provider_user_id: "1234567" });
    expect((await profile("alice")).body).toMatchObject({ blacklisted: true, linked_accounts: 1 });
    expectEnvelope(await t.json("DELETE", "/v1/partner/creators/alice/connections/roblox/1234567", { key: reader }), 403, "forbidden");
    expectEnvelope(await t.json("DELETE", "/v1/partner/creators/alice/connections/roblox/999", { key: writer }), 404, "not_found");
    const removed = await t.json("DELETE", "/v1/partner/creators/alice/connections/roblox/1234567", { key: writer });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ provider: "roblox", provider_user_id: "1234567", provider_username: "AliceRBX" });
    expect((await profile("alice")).body).toMatchObject({ blacklisted: false, linked_accounts: 0, trust_score: 100 });
    expect((await t.json("GET", "/v1/public/blacklist/check?q=alicerbxx")).body.suggestions).not.toContain("alicerbx");
    expectEnvelope(await t.json("DELETE", "/v1/partner/creators/alice/connections/roblox/1234567", { key: writer }), 404, "not_found");
  });

  test("malformed accounts are 422; an unknown creator is 404", async () => {
    await creator("alice");
    expectEnvelope(await link("alice", { provider: "discord", provider_user_id: "not-digits" }), 422, "unprocessable");
    expectEnvelope(await link("alice", { provider: "myspace", provider_user_id: "1" }), 422, "unprocessable");
    expectEnvelope(await link("alice", { provider: "github", provider_user_id: "a", provider_url: "javascript:alert(1)" }), 422, "unprocessable");
    expectEnvelope(await link("nobody", { provider: "github", provider_user_id: "a" }), 404, "not_found");
  });

  test("only public links are listed, counted and add to the score; verified ones add 5 each, up to 5", async () => {
    await creator("alice");
    await link("alice", { provider: "github", provider_user_id: "alice", provider_username: "alice-gh", provider_url: "https://github.com/alice-gh" });
    await link("alice", { provider: "twitch", provider_user_id: "555", provider_username: "secret", public: false, verified_at: "2026-01-01T00:00:00Z" });
    for (let i = 0; i < 6; i++) {
      await link("alice", { provider: "roblox", provider_user_id: String(1000 + i), provider_username: `alice_rbx${i}`, verified_at: "2026-02-01T00:00:00Z" });
    }
    const listed = await t.json("GET", "/v1/users/alice/connections", { key: reader });
    expect(listed.status).toBe(200);
    expect(listed.body.connections).toHaveLength(7);
    expect(listed.body.connections[0]).toEqual({
      provider: "github",
      provider_username: "alice-gh",
      provider_url: "https://github.com/alice-gh",
      verified_at: null,
    });
    expect(JSON.stringify(listed.body)).not.toContain("secret");
    const read = await profile("alice");
    expect(read.body.linked_accounts).toBe(7);
    expect(read.body.trust_score).toBe(100 + 25);
  });
});

describe("keyed reads", () => {
  test("unknown handles are 404; no key is 401; the handle is read without case or @", async () => {
    await creator("alice");
    expectEnvelope(await profile("nobody"), 404, "not_found");
    expectEnvelope(await trust("nobody"), 404, "not_found");
    expectEnvelope(await t.json("GET", "/v1/users/nobody/connections", { key: reader }), 404, "not_found");
    expectEnvelope(await t.json("GET", "/v1/users/alice"), 401, "unauthorized");
    expect((await profile("@ALICE")).body.handle).toBe("alice");
  });

  test("a profile's numbers agree with its trust breakdown and the basis explains the score", async () => {
    await creator("maker", {
      level: 3,
      ageDays: 95,
      accounts: [
        { provider: "discord", provider_user_id: "1", verified_at: "2026-01-01T00:00:00Z" },
        { provider: "roblox", provider_user_id: "2" },
      ],
    });
    const p = (await profile("maker")).body;
    const b = await trust("maker");
    expect(b.status).toBe(200);
    expect(b.body.trust_score).toBe(p.trust_score);
    expect(b.body.band).toBe(p.trust_band);
    expect(b.body.blacklisted).toBe(p.blacklisted);
    expect(b.body.basis).toEqual({
      verification_level: 3,
      verification_label: "Enhanced",
      account_age_days: 95,
      linked_accounts: p.linked_accounts,
      completed_deals: p.completed_deals,
      reviews: p.reviews,
    });
    // 100 + V(3)=24 + A(95 days)=3 + L(one verified public link)=5
    expect(p.trust_score).toBe(132);
    expect(Object.keys(b.body).sort()).toEqual(["band", "basis", "blacklisted", "computed_at", "handle", "trend", "trust_score"]);
    expect(JSON.stringify(b.body)).not.toMatch(/penalt|warn|restrict|high_risk|watchlist/);
  });
});

describe("blacklist entries move the Trust Score", () => {
  const discord = { provider: "discord", provider_user_id: "80351110224678912", provider_username: "shadow" };

  test("a ban on a creator's Discord account blacklists it everywhere; the overturn restores it", async () => {
    await creator("shadow", { level: 2, accounts: [discord] });
    const before = (await profile("shadow")).body;
    expect(before).toMatchObject({ blacklisted: false, trust_score: 116, trust_band: "average" });

    const entry = await ban({ provider: "discord", provider_user_id: discord.provider_user_id });
    expect(entry.status).toBe(201);
    expect((await profile("shadow")).body).toMatchObject({ blacklisted: true, trust_score: 0, trust_band: "banned" });
    expect((await trust("shadow")).body).toMatchObject({ blacklisted: true, trust_score: 0, band: "banned" });
    const tier = await t.json("GET", "/v1/public/trust/shadow");
    expect(tier.body).toMatchObject({ found: true, band: "banned", tier: "Banned", blacklisted: true });
    expect(tier.body.trust_score).toBeUndefined();
    expect((await events("creator.blacklisted"))).toEqual([{ creator_id: expect.stringMatching(/^crt_/), handle: "shadow", entry_id: entry.body.id }]);

    expect((await t.json("POST", `/v1/partner/blacklist/${entry.body.id}/overturn`, { key: writer })).status).toBe(200);
    expect((await profile("shadow")).body).toMatchObject({ blacklisted: false, trust_score: 116, trust_band: "average" });
    expect((await t.json("GET", "/v1/public/trust/shadow")).body).toMatchObject({ band: "average", tier: "Average", blacklisted: false });
  });

  test("an entry naming the creator by handle blacklists it too; a private link counts", async () => {
    await creator("direct");
    await ban({ provider: "github", provider_user_id: "someone", creator: "@Direct" });
    expect((await profile("direct")).body.blacklisted).toBe(true);

    await creator("hidden", { accounts: [{ provider: "twitch", provider_user_id: "777", public: false }, { provider: "github", provider_user_id: "hidden-gh" }] });
    await ban({ provider: "twitch", provider_user_id: "777" });
    expect((await profile("hidden")).body).toMatchObject({ blacklisted: true, trust_band: "banned" });
    // Search by handle shows the ban on the profile itself, without revealing the private account.
    const found = (await t.json("GET", "/v1/public/blacklist/check?q=hidden")).body;
    expect(found.platforms).toEqual([
      expect.objectContaining({ platform: "github", id: "hidden-gh", banned: false }),
      expect.objectContaining({ platform: "trustlist", username: "hidden", id: null, banned: true, severity: "ban", source: "creator" }),
    ]);
    expect(JSON.stringify(found)).not.toContain("777");
  });

  test("linking an already banned account blacklists the creator and emits creator.blacklisted", async () => {
    await ban({ provider: "roblox", provider_user_id: "424242" });
    await creator("late");
    await link("late", { provider: "roblox", provider_user_id: "424242" });
    expect((await profile("late")).body.blacklisted).toBe(true);
    expect((await events("creator.blacklisted")).map((e) => e.handle)).toEqual(["late"]);
  });

  test("warn and restrict subtract 25 and 75; a watchlist or high-risk flag 25 once; none of them is a ban", async () => {
    await creator("flagged", { level: 4, accounts: [discord] });
    expect((await profile("flagged")).body.trust_score).toBe(130);
    await ban({ provider: "discord", provider_user_id: discord.provider_user_id, severity: "warn" });
    expect((await profile("flagged")).body.trust_score).toBe(105);
    await ban({ provider: "discord", provider_user_id: discord.provider_user_id, severity: "restrict" });
    expect((await profile("flagged")).body.trust_score).toBe(30);
    await ban({ provider: "discord", provider_user_id: discord.provider_user_id, watchlist: true });
    await ban({ provider: "discord", provider_user_id: discord.provider_user_id, severity: "warn", high_risk: true });
    const read = (await profile("flagged")).body;
    // 130 - 25 - 75 - 25 (second warn) - 25 (flag, once) = -20, clamped to 0; no ban, so not blacklisted.
    expect(read).toMatchObject({ trust_score: 0, trust_band: "terrible", blacklisted: false });
    expect((await events("creator.blacklisted"))).toEqual([]);
  });

  test("an entry that expires stops counting once the expiry job has run", async () => {
    await creator("temp", { accounts: [discord] });
    await ban({ provider: "discord", provider_user_id: discord.provider_user_id, expires_at: new Date(t.clock.now() + DAY).toISOString() });
    expect((await profile("temp")).body.blacklisted).toBe(true);
    t.clock.advance(DAY + 1000);
    expect(await t.services.blacklist.expireDue()).toBe(1);
    expect((await profile("temp")).body).toMatchObject({ blacklisted: false, trust_score: 100 });
  });
});

describe("snapshots and the 30-day trend", () => {
  test("a new creator's trend is flat from its own first snapshot", async () => {
    await creator("fresh");
    expect((await trust("fresh")).body.trend).toEqual({ direction: "flat", delta: 0, from: 100, window_days: 30 });
  });

  test("the trend compares with the latest snapshot on or before 30 days ago, else the oldest", async () => {
    await creator("grower", { level: 1 });
    const vouchers = ["v1", "v2", "v3"];
    for (const v of vouchers) await creator(v);
    // Day 0: 108. Day 10: a vouch (+2) → 110.
    t.clock.advance(10 * DAY);
    await t.json("POST", "/v1/partner/vouches", { key: writer, body: { from: "v1", to: "grower" } });
    expect((await trust("grower")).body.trend).toEqual({ direction: "up", delta: 2, from: 108, window_days: 30 });
    // Day 45: the daily job recomputes (age 45 days → +1) and snapshots everyone.
    t.clock.advance(35 * DAY);
    expect(await t.services.creators.refreshAll()).toBe(4);
    const [snapshots] = await t.rows<{ n: number }>("SELECT CAST(count(*) AS INTEGER) AS n FROM trust_snapshots WHERE day = ?", new Date(t.clock.now()).toISOString().slice(0, 10));
    expect(snapshots.n).toBe(4);
    // From 30 days ago (day 15) the latest snapshot is day 10's 110; now 111.
    expect((await trust("grower")).body.trend).toEqual({ direction: "up", delta: 1, from: 110, window_days: 30 });
    // A restrict (-75) drops it below where it was: 111 - 75 = 36.
    await link("grower", { provider: "epic", provider_user_id: "EpicOne" });
    await ban({ provider: "epic", provider_user_id: "epicone", severity: "restrict" });
    expect((await trust("grower")).body.trend).toEqual({ direction: "down", delta: -74, from: 110, window_days: 30 });
  });
});
