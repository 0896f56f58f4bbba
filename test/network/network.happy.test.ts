// What creators do with each other when it works, as a partner writes it and a caller reads the
// effect: vouches and the public vouches page, deals through confirm, decline and complete, reviews of
// completed deals, referrals and the leaderboard, and the community servers counted in the public
// stats (docs/api.md, docs/webhooks.md). Creators are made through `PUT /v1/partner/creators/{handle}`
// and read back through `GET /v1/users/{handle}`; nothing is written straight into the tables.
// Refusals are in network.error.test.ts, auth and hostile input in network.security.test.ts.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { expectEnvelope } from "../helpers";
import { act, completedDeal, creator, creators, deleteServer, events, eventTypes, getDeal, type Json, leaderboard, openDeal, pendingDeal, profile, putServer, reader, refer, review, score, send, SERVER_ID, setup, stats, t, T0, teardown, vouch, vouchesPage } from "./kit";

/** The event names of docs/webhooks.md: the only ones the outbox may carry. */
const SEED_EVENTS = ["blacklist.added", "blacklist.overturned", "deal.confirmed", "deal.declined", "creator.blacklisted"];

const DEAL_KEYS = ["created_at", "from", "id", "status", "to", "updated_at"];

const PUBLIC_VOUCH_KEYS = ["created_at", "from_avatar_url", "from_display_name", "from_username", "from_verification_level", "id", "message"];

beforeEach(setup);
afterEach(teardown);

describe("creators made through the partner route", () => {
  test("a new creator starts at 100 with no deals, reviews or vouches; the handle is normalised", async () => {
    const res = await send("PUT", "/v1/partner/creators/@Alice", {});
    expect(res.status).toBe(201);
    expect(res.body.handle).toBe("alice");
    const p = await profile("ALICE");
    expect(p.trust_score).toBe(100);
    expect(p.trust_band).toBe("average");
    expect(p.completed_deals).toBe(0);
    expect(p.reviews).toEqual({ count: 0, average: null });
    expect((await send("PUT", "/v1/partner/creators/alice", {})).status).toBe(200);
  });
});

// ---- vouches ------------------------------------------------------------------------------------

describe("POST /v1/partner/vouches", () => {
  test("201 with a vch_ id; the vouched creator gains exactly 2, the voucher nothing", async () => {
    await creators("alice", "bob");
    const res = await vouch("alice", "bob", { message: "Delivered a full map on time." });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["created_at", "from", "id", "message", "to"]);
    expect(res.body.id).toMatch(/^vch_[0-9a-z]{26}$/);
    expect(res.body).toMatchObject({ from: "alice", to: "bob", message: "Delivered a full map on time.", created_at: T0 });
    expect(await score("bob")).toBe(102);
    expect(await score("alice")).toBe(100);
  });

  test("handles are accepted with @ and any case, and answered lower-case", async () => {
    await creators("alice", "bob");
    const res = await vouch("@Alice", "BOB");
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ from: "alice", to: "bob", message: null });
  });

  test("W = 2 × min(vouches, 10): +2 per vouch up to ten, then no more", async () => {
    await creator("target");
    for (let i = 1; i <= 11; i++) {
      await creator(`fan${i}`);
      expect((await vouch(`fan${i}`, "target")).status).toBe(201);
      expect(await score("target")).toBe(100 + 2 * Math.min(i, 10));
    }
    const page = await vouchesPage("target");
    expect(page.body.count).toBe(11);
  });

  test("the public vouches page lists it: count, limit, offset and the voucher's public fields", async () => {
    await creator("alice", { display_name: "Alice Makes", verification_level: 2, avatar_r2_key: "avatars/a.png" });
    await creator("bob");
    const given = await vouch("alice", "bob", { message: "Great trader" });
    const res = await vouchesPage("bob");
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(Object.keys(res.body).sort()).toEqual(["count", "limit", "offset", "vouches"]);
    expect(res.body).toMatchObject({ count: 1, limit: 20, offset: 0 });
    expect(res.body.vouches).toHaveLength(1);
    const v = res.body.vouches[0];
    expect(Object.keys(v).sort()).toEqual(PUBLIC_VOUCH_KEYS);
    expect(v).toEqual({
      id: given.body.id,
      from_username: "alice",
      from_display_name: "Alice Makes",
      from_verification_level: 2,
      from_avatar_url: expect.any(String),
      message: "Great trader",
      created_at: T0,
    });
    expect(v.from_avatar_url.startsWith("/")).toBe(true);
    // The voucher received nothing.
    expect((await vouchesPage("alice")).body).toEqual({ count: 0, limit: 20, offset: 0, vouches: [] });
  });

  test("the page is newest first; limit and offset page through it while count stays the total", async () => {
    await creators("bob", "v1", "v2", "v3");
    for (const from of ["v1", "v2", "v3"]) {
      expect((await vouch(from, "bob")).status).toBe(201);
      t.clock.advance(1_000);
    }
    const all = await vouchesPage("bob");
    expect(all.body.vouches.map((v: Json) => v.from_username)).toEqual(["v3", "v2", "v1"]);
    const second = await vouchesPage("bob", "?limit=2&offset=2");
    expect(second.body).toMatchObject({ count: 3, limit: 2, offset: 2 });
    expect(second.body.vouches.map((v: Json) => v.from_username)).toEqual(["v1"]);
    expectEnvelope(await vouchesPage("bob", "?limit=0"), 422, "unprocessable");
    expectEnvelope(await vouchesPage("bob", "?limit=101"), 422, "unprocessable");
    expectEnvelope(await vouchesPage("nobody"), 404, "not_found");
  });

  test("an empty message is stored as null; control characters are dropped", async () => {
    await creators("alice", "bob", "carol");
    expect((await vouch("alice", "bob", { message: "   " })).body.message).toBeNull();
    expect((await vouch("carol", "bob", { message: "line\u0000one\u0007 " })).body.message).toBe("lineone");
  });
});

// ---- deals --------------------------------------------------------------------------------------

describe("deals", () => {
  test("POST /v1/partner/deals → 201 pending deal_…; GET answers the same deal", async () => {
    await creators("alice", "bob");
    const res = await openDeal("@Alice", "BOB");
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(DEAL_KEYS);
    expect(res.body.id).toMatch(/^deal_[0-9a-z]{26}$/);
    expect(res.body).toMatchObject({ from: "alice", to: "bob", status: "pending", created_at: T0, updated_at: T0 });
    const read = await getDeal(res.body.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    // Opening a deal moves no score and emits nothing.
    expect(await score("alice")).toBe(100);
    expect(await score("bob")).toBe(100);
    expect(await events()).toEqual([]);
  });

  test("confirm → 200 confirmed, updated_at moves, and one deal.confirmed event names the deal and both handles", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    t.clock.advance(60_000);
    const res = await act(id, "confirm");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, from: "alice", to: "bob", status: "confirmed", created_at: T0, updated_at: "2026-11-21T10:01:00.000Z" });
    expect((await getDeal(id)).body.status).toBe("confirmed");
    const evs = await events();
    expect(evs.map((e) => e.type)).toEqual(["deal.confirmed"]);
    expect(evs[0]!.payload).toMatchObject({ deal_id: id, from: "alice", to: "bob" });
    expect(JSON.stringify(evs[0]!.payload)).toContain(id);
  });

  test("decline → 200 declined and one deal.declined event", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    const res = await act(id, "decline");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("declined");
    const evs = await events();
    expect(evs.map((e) => e.type)).toEqual(["deal.declined"]);
    expect(evs[0]!.payload).toMatchObject({ deal_id: id, from: "alice", to: "bob" });
  });

  test("completion raises BOTH parties' completed_deals by 1 and score by 3 (D = 3 × min(deals, 10))", async () => {
    await creators("alice", "bob", "carol");
    const id = await pendingDeal("alice", "bob");
    await act(id, "confirm");
    expect(await score("alice")).toBe(100);
    const res = await act(id, "complete");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("completed");
    for (const handle of ["alice", "bob"]) {
      const p = await profile(handle);
      expect(p.completed_deals).toBe(1);
      expect(p.trust_score).toBe(103);
    }
    expect((await profile("carol")).trust_score).toBe(100);
    // A second completed deal counts again, for both, whichever side opened it.
    await completedDeal("bob", "alice");
    expect(await profile("alice")).toMatchObject({ completed_deals: 2, trust_score: 106 });
    expect(await profile("bob")).toMatchObject({ completed_deals: 2, trust_score: 106 });
    // Only seed event names are ever written.
    for (const type of await eventTypes()) expect(SEED_EVENTS).toContain(type);
  });

  test("the trust basis and the public counter follow completions", async () => {
    await creators("alice", "bob");
    await completedDeal("alice", "bob");
    const trust = await t.json("GET", "/v1/users/alice/trust", { key: reader.key });
    expect(trust.body.basis.completed_deals).toBe(1);
    await t.services.public.refreshStats();
    expect((await stats()).deals_completed).toBe(1);
  });
});

// ---- reviews ------------------------------------------------------------------------------------

describe("POST /v1/partner/reviews", () => {
  test("with a completed deal: 201, reviews {count, average} change and one 5-star review adds 2", async () => {
    await creators("alice", "bob");
    const dealId = await completedDeal("alice", "bob");
    expect(await score("bob")).toBe(103);
    const res = await review("alice", "bob", 5);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["created_at", "deal_id", "from", "id", "rating", "to"]);
    expect(res.body).toMatchObject({ deal_id: dealId, from: "alice", to: "bob", rating: 5, created_at: T0 });
    expect(res.body.id).toMatch(/^rev_[0-9a-z]{26}$/);
    const bob = await profile("bob");
    expect(bob.reviews).toEqual({ count: 1, average: 5 });
    expect(bob.trust_score).toBe(105);
    // The reviewer's own reviews and score do not move.
    expect(await profile("alice")).toMatchObject({ reviews: { count: 0, average: null }, trust_score: 103 });
    const trust = await t.json("GET", "/v1/users/bob/trust", { key: reader.key });
    expect(trust.body.basis.reviews).toEqual({ count: 1, average: 5 });
  });

  test("R follows the average and the count: two deals reviewed 5 and 4 give +3", async () => {
    await creators("alice", "bob");
    await completedDeal("alice", "bob");
    await completedDeal("bob", "alice");
    const first = await review("alice", "bob", 5);
    const second = await review("alice", "bob", 4);
    expect([first.status, second.status]).toEqual([201, 201]);
    // Each review is attached to its own completed deal.
    expect(first.body.deal_id).not.toBe(second.body.deal_id);
    expectEnvelope(await review("alice", "bob", 4), 409, "conflict");
    // 100 + D(2 deals = 6) + round(20 × 1.5/2 × 2/10 = 3).
    expect(await profile("bob")).toMatchObject({ reviews: { count: 2, average: 4.5 }, trust_score: 109 });
  });

  test("reviews of 3 stars change the count but not the score", async () => {
    await creators("alice", "bob");
    await completedDeal("alice", "bob");
    expect((await review("alice", "bob", 3)).status).toBe(201);
    expect(await profile("bob")).toMatchObject({ reviews: { count: 1, average: 3 }, trust_score: 103 });
  });
});

// ---- referrals ----------------------------------------------------------------------------------

describe("referrals and the leaderboard", () => {
  test("POST /v1/partner/referrals → 201; self is 422; a creator referred twice is 409; unknown is 404", async () => {
    await creators("alice", "bob", "carol");
    const res = await refer("@Alice", "BOB");
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ referrer: "alice", referred: "bob", created_at: T0 });
    expectEnvelope(await refer("alice", "alice"), 422, "unprocessable");
    expectEnvelope(await refer("carol", "bob"), 409, "conflict");
    expectEnvelope(await refer("alice", "bob"), 409, "conflict");
    expectEnvelope(await refer("alice", "ghost"), 404, "not_found");
    expectEnvelope(await send("POST", "/v1/partner/referrals", { referrer: "alice" }), 400, "invalid_request");
    expectEnvelope(await send("POST", "/v1/partner/referrals", { referrer: "alice", referred: "carol", bonus: 5 }), 422, "unprocessable");
    const board = await leaderboard();
    expect(board.body.leaders).toEqual([{ rank: 1, handle: "alice", count: 1, badge: null }]);
    // Referrals do not move the Trust Score.
    expect(await score("alice")).toBe(100);
  });

  test("the leaderboard shows rank, handle, count; badge null below 5, bronze Recruiter at 5; never earnings", async () => {
    await creators("alice", "bob");
    for (let i = 1; i <= 5; i++) await creator(`new${i}`);
    for (let i = 1; i <= 4; i++) expect((await refer("alice", `new${i}`)).status).toBe(201);
    expect((await refer("bob", "new5")).status).toBe(201);
    let res = await leaderboard();
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.body.period).toBe("all");
    expect(res.body.leaders).toEqual([
      { rank: 1, handle: "alice", count: 4, badge: null },
      { rank: 2, handle: "bob", count: 1, badge: null },
    ]);
    await creator("new6");
    expect((await refer("alice", "new6")).status).toBe(201);
    res = await leaderboard("?period=all");
    expect(res.body.leaders[0]).toEqual({ rank: 1, handle: "alice", count: 5, badge: { tier: "bronze", name: "Recruiter" } });
    for (const leader of res.body.leaders) expect(Object.keys(leader).sort()).toEqual(["badge", "count", "handle", "rank"]);
    expect(Object.keys(res.body).sort()).toEqual(["leaders", "period"]);
    expect(JSON.stringify(res.body).toLowerCase()).not.toMatch(/earn|payout|reward|commission|amount/);
  });

  test("equal counts share a rank", async () => {
    await creators("alice", "bob", "carol", "r1", "r2", "r3", "r4", "r5");
    await refer("alice", "r1");
    await refer("alice", "r2");
    await refer("bob", "r3");
    await refer("carol", "r4");
    await refer("carol", "r5");
    const res = await leaderboard();
    expect(res.body.leaders.map((l: Json) => [l.rank, l.handle, l.count])).toEqual([
      [1, "alice", 2],
      [1, "carol", 2],
      [3, "bob", 1],
    ]);
  });

  test("?period=month counts only referrals of the current UTC month", async () => {
    await creators("alice", "bob", "r1", "r2", "r3", "r4");
    t.clock.set("2026-11-30T23:59:59.999Z");
    expect((await refer("alice", "r1")).status).toBe(201);
    expect((await refer("alice", "r2")).status).toBe(201);
    let month = await leaderboard("?period=month");
    expect(month.body).toEqual({ period: "month", leaders: [{ rank: 1, handle: "alice", count: 2, badge: null }] });
    // One millisecond later it is December: November's referrals drop out of the month.
    t.clock.set("2026-12-01T00:00:00.000Z");
    month = await leaderboard("?period=month");
    expect(month.body).toEqual({ period: "month", leaders: [] });
    t.clock.set("2026-12-15T12:00:00.000Z");
    expect((await refer("bob", "r3")).status).toBe(201);
    month = await leaderboard("?period=month");
    expect(month.body.leaders).toEqual([{ rank: 1, handle: "bob", count: 1, badge: null }]);
    const all = await leaderboard("?period=all");
    expect(all.body.leaders).toEqual([
      { rank: 1, handle: "alice", count: 2, badge: null },
      { rank: 2, handle: "bob", count: 1, badge: null },
    ]);
    // The default period is all.
    expect((await leaderboard()).body).toEqual(all.body);
  });

  test("the leaderboard holds the top 25 only", async () => {
    for (let i = 0; i < 26; i++) {
      await creators(`ref${String(i).padStart(2, "0")}`, `new${String(i).padStart(2, "0")}`);
      expect((await refer(`ref${String(i).padStart(2, "0")}`, `new${String(i).padStart(2, "0")}`)).status).toBe(201);
    }
    const res = await leaderboard();
    expect(res.body.leaders).toHaveLength(25);
    expect(res.body.leaders.every((l: Json) => l.rank === 1 && l.count === 1)).toBe(true);
  });
});

// ---- servers ------------------------------------------------------------------------------------

describe("servers and servers_protected", () => {
  test("PUT → 201 when new, 200 on repeat (created_at kept, name updated only when given)", async () => {
    const first = await putServer(SERVER_ID, { name: "Builders Hub" });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ platform: "discord", server_id: SERVER_ID, name: "Builders Hub", created_at: T0 });
    t.clock.advance(60_000);
    const again = await putServer(SERVER_ID, { name: "Builders Hub" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const renamed = await putServer(SERVER_ID, { name: "Builders Hub 2" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "Builders Hub 2", created_at: T0 });
    const kept = await putServer(SERVER_ID, {});
    expect(kept.status).toBe(200);
    expect(kept.body.name).toBe("Builders Hub 2");
  });

  test("PUT without a body registers a nameless server", async () => {
    const res = await putServer("555");
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ platform: "discord", server_id: "555", name: null });
  });

  test("servers_protected reflects registrations after refreshStats; cached false on a cold cache, then true", async () => {
    expect((await putServer(SERVER_ID)).status).toBe(201);
    const cold = await stats();
    expect(Object.keys(cold).sort()).toEqual(["cached", "creators_verified", "deals_completed", "entries_listed", "servers_protected"]);
    expect(cold).toMatchObject({ cached: false, servers_protected: 1 });
    expect((await putServer("2", undefined, "roblox")).status).toBe(201);
    // Served from the cache until the next refresh.
    expect(await stats()).toMatchObject({ cached: true, servers_protected: 1 });
    await t.services.public.refreshStats();
    expect(await stats()).toMatchObject({ cached: true, servers_protected: 2 });
    // The same id on another platform is another server; a repeat is not.
    expect((await putServer(SERVER_ID)).status).toBe(200);
    await t.services.public.refreshStats();
    expect((await stats()).servers_protected).toBe(2);
  });

  test("DELETE → 200 with the record removed, then 404; the counter drops", async () => {
    await putServer(SERVER_ID, { name: "Hub" });
    await t.services.public.refreshStats();
    expect((await stats()).servers_protected).toBe(1);
    const res = await deleteServer(SERVER_ID);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ platform: "discord", server_id: SERVER_ID, name: "Hub", created_at: T0 });
    expectEnvelope(await deleteServer(SERVER_ID), 404, "not_found");
    await t.services.public.refreshStats();
    expect((await stats()).servers_protected).toBe(0);
    // Registering it again is new again.
    expect((await putServer(SERVER_ID)).status).toBe(201);
  });
});
