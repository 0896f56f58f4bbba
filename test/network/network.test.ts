// What creators do with each other, as a partner writes it and a caller reads the effect: vouches,
// deals and their state machine, reviews of completed deals, referrals and the leaderboard, and
// the community servers counted in the public stats (docs/api.md, docs/webhooks.md).
// Creators are made through `PUT /v1/partner/creators/{handle}` and read back through
// `GET /v1/users/{handle}`; nothing is written straight into the tables.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Logger } from "../../src/logger";
import { createTestApp, expectEnvelope, type TestApp } from "../helpers";

const T0 = "2026-11-21T10:00:00.000Z";
/** The event names of docs/webhooks.md: the only ones the outbox may carry. */
const SEED_EVENTS = ["blacklist.added", "blacklist.overturned", "deal.confirmed", "deal.declined", "creator.blacklisted"];
const DEAL_KEYS = ["created_at", "from", "id", "status", "to", "updated_at"];
const PUBLIC_VOUCH_KEYS = ["created_at", "from_avatar_url", "from_display_name", "from_username", "from_verification_level", "id", "message"];
const SERVER_ID = "1042345678901234567";
const BIG = "x".repeat(10 * 1024);

type Json = Record<string, any>;
type Key = { key: string; accountId: string; keyId: string };

let t: TestApp;
let reader: Key;
let writer: Key;

beforeEach(async () => {
  t = await createTestApp();
  // The 500s provoked by the atomicity tests are logged; keep them out of the test output.
  t.runtime.log = new Logger({ access: false }, () => {});
  reader = await t.account({ tier: "pro", burst: 10_000, dailyQuota: 100_000 });
  writer = await t.account({ tier: "pro", scope: "write", burst: 10_000, dailyQuota: 100_000 });
});

afterEach(() => t.close());

// ---- helpers ------------------------------------------------------------------------------------

const send = (method: string, path: string, body?: unknown, key: string | null = writer.key) => t.json(method, path, { key, body });

/** Creates (or updates) a creator through the partner route; a fresh creator scores exactly 100. */
async function creator(handle: string, fields: Json = {}): Promise<Json> {
  const res = await send("PUT", `/v1/partner/creators/${handle}`, fields);
  if (res.status !== 201 && res.status !== 200) throw new Error(`creator ${handle}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function creators(...handles: string[]) {
  for (const handle of handles) await creator(handle);
}

/** The keyed profile (CreatorProfile). */
async function profile(handle: string): Promise<Json> {
  const res = await t.json("GET", `/v1/users/${handle}`, { key: reader.key });
  expect(res.status).toBe(200);
  return res.body;
}

const score = async (handle: string) => (await profile(handle)).trust_score as number;

const vouch = (from: string, to: string, extra: Json = {}) => send("POST", "/v1/partner/vouches", { from, to, ...extra });
const openDeal = (from: string, to: string) => send("POST", "/v1/partner/deals", { from, to });
const act = (id: string, action: "confirm" | "decline" | "complete", key: string | null = writer.key) =>
  send("POST", `/v1/partner/deals/${id}/${action}`, undefined, key);
const getDeal = (id: string, key: string | null = writer.key) => send("GET", `/v1/partner/deals/${id}`, undefined, key);
const review = (from: string, to: string, rating: unknown) => send("POST", "/v1/partner/reviews", { from, to, rating });
const refer = (referrer: string, referred: string) => send("POST", "/v1/partner/referrals", { referrer, referred });
const putServer = (id: string, body?: unknown, platform = "discord") => send("PUT", `/v1/partner/servers/${platform}/${id}`, body);
const deleteServer = (id: string, platform = "discord") => send("DELETE", `/v1/partner/servers/${platform}/${id}`);

const vouchesPage = (handle: string, query = "") => t.json("GET", `/v1/public/users/${handle}/vouches${query}`);
const leaderboard = (query = "") => t.json("GET", `/referrals/leaderboard${query}`);
const stats = async () => {
  const res = await t.json("GET", "/v1/stats/public");
  expect(res.status).toBe(200);
  return res.body as Json;
};

/** Opens a deal and answers its id (201 asserted). */
async function pendingDeal(from: string, to: string): Promise<string> {
  const res = await openDeal(from, to);
  expect(res.status).toBe(201);
  return res.body.id;
}

/** A deal taken through confirm and complete. */
async function completedDeal(from: string, to: string): Promise<string> {
  const id = await pendingDeal(from, to);
  expect((await act(id, "confirm")).status).toBe(200);
  expect((await act(id, "complete")).status).toBe(200);
  return id;
}

/** Outbox rows in write order, payloads parsed. */
async function events(): Promise<Array<{ type: string; payload: Json }>> {
  const rows = await t.rows<{ type: string; payload: string }>("SELECT type, payload FROM outbox_events ORDER BY id");
  return rows.map((r) => ({ type: r.type, payload: JSON.parse(r.payload) }));
}

const eventTypes = async () => (await events()).map((e) => e.type);

/** What a caller can see of some creators: profile, trust basis and vouches received. */
async function visible(...handles: string[]) {
  const out: Json = {};
  for (const handle of handles) {
    const trust = await t.json("GET", `/v1/users/${handle}/trust`, { key: reader.key });
    out[handle] = { profile: await profile(handle), basis: trust.body.basis, vouches: (await vouchesPage(handle)).body };
  }
  return out;
}

/** Asserts that `attempt` changes nothing any caller can see, nor the outbox. */
async function expectNoChange(handles: string[], attempt: () => Promise<unknown>) {
  const before = await visible(...handles);
  const outboxBefore = await events();
  await attempt();
  expect(await visible(...handles)).toEqual(before);
  expect(await events()).toEqual(outboxBefore);
}

/** Makes every write to `table` fail in the database, for the duration of `body`. */
async function failingWrites<T>(table: string, op: "INSERT" | "UPDATE", when: string, body: () => Promise<T>): Promise<T> {
  const restore = await t.failWrites(table, op, when);
  try {
    return await body();
  } finally {
    await restore();
  }
}

// ---- creators as the base of everything else ----------------------------------------------------

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

  test("a self-vouch is 422 unprocessable and changes nothing, whatever the spelling", async () => {
    await creators("alice");
    await expectNoChange(["alice"], async () => {
      expectEnvelope(await vouch("alice", "alice"), 422, "unprocessable");
      expectEnvelope(await vouch("@ALICE", "alice"), 422, "unprocessable");
    });
    expect(await score("alice")).toBe(100);
  });

  test("a second vouch for the same creator is 409 conflict; the count and score stay", async () => {
    await creators("alice", "bob");
    expect((await vouch("alice", "bob")).status).toBe(201);
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await vouch("alice", "bob", { message: "again" }), 409, "conflict");
      expectEnvelope(await vouch("@ALICE", "Bob"), 409, "conflict");
    });
    expect((await vouchesPage("bob")).body.count).toBe(1);
    expect(await score("bob")).toBe(102);
    // The other direction is a different vouch.
    expect((await vouch("bob", "alice")).status).toBe(201);
    expect(await score("alice")).toBe(102);
  });

  test("an unknown creator on either side is 404 not_found", async () => {
    await creators("alice");
    await expectNoChange(["alice"], async () => {
      expectEnvelope(await vouch("alice", "ghost"), 404, "not_found");
      expectEnvelope(await vouch("ghost", "alice"), 404, "not_found");
    });
  });

  test("an unknown body field is 422; a missing `to` or `from` is 400 invalid_request (house rule for missing values)", async () => {
    await creators("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await send("POST", "/v1/partner/vouches", { from: "alice", to: "bob", weight: 10 }), 422, "unprocessable");
      expectEnvelope(await send("POST", "/v1/partner/vouches", { from: "alice" }), 400, "invalid_request");
      expectEnvelope(await send("POST", "/v1/partner/vouches", { to: "bob" }), 400, "invalid_request");
      expectEnvelope(await send("POST", "/v1/partner/vouches", {}), 400, "invalid_request");
    });
  });

  test("message maxLength is 500: 500 characters are kept, 501 are 422", async () => {
    await creators("alice", "bob", "carol");
    expectEnvelope(await vouch("alice", "bob", { message: "m".repeat(501) }), 422, "unprocessable");
    const ok = await vouch("alice", "bob", { message: "m".repeat(500) });
    expect(ok.status).toBe(201);
    expect(ok.body.message).toHaveLength(500);
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

  test("confirming a declined deal is 409; the deal stays declined and no event is written", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    await act(id, "decline");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await act(id, "confirm"), 409, "conflict");
      expectEnvelope(await act(id, "complete"), 409, "conflict");
      expectEnvelope(await act(id, "decline"), 409, "conflict");
    });
    expect((await getDeal(id)).body.status).toBe("declined");
    expect(await eventTypes()).toEqual(["deal.declined"]);
  });

  test("completing a pending deal is 409 and moves no score", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await act(id, "complete"), 409, "conflict");
    });
    expect((await getDeal(id)).body.status).toBe("pending");
  });

  test("repeated transitions are 409: confirm twice, decline a confirmed deal, complete twice", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    expect((await act(id, "confirm")).status).toBe(200);
    expectEnvelope(await act(id, "confirm"), 409, "conflict");
    expectEnvelope(await act(id, "decline"), 409, "conflict");
    expect((await act(id, "complete")).status).toBe(200);
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await act(id, "complete"), 409, "conflict");
      expectEnvelope(await act(id, "confirm"), 409, "conflict");
      expectEnvelope(await act(id, "decline"), 409, "conflict");
    });
    expect((await getDeal(id)).body.status).toBe("completed");
    expect(await eventTypes()).toEqual(["deal.confirmed"]);
  });

  test("an unknown deal id is 404 for GET and for every transition; an over-long one is 422", async () => {
    const unknown = "deal_01jd5x8q3m7k2c9v4n6p8r0s1t";
    expectEnvelope(await getDeal(unknown), 404, "not_found");
    for (const action of ["confirm", "decline", "complete"] as const) expectEnvelope(await act(unknown, action), 404, "not_found");
    expectEnvelope(await getDeal(`deal_${"a".repeat(100)}`), 422, "unprocessable");
    expectEnvelope(await act(`deal_${"a".repeat(100)}`, "confirm"), 422, "unprocessable");
    expect(await events()).toEqual([]);
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

  test("a self-deal is 422; unknown parties are 404; missing and unknown fields are 400 and 422", async () => {
    await creators("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await openDeal("alice", "@ALICE"), 422, "unprocessable");
      expectEnvelope(await openDeal("alice", "ghost"), 404, "not_found");
      expectEnvelope(await openDeal("ghost", "alice"), 404, "not_found");
      expectEnvelope(await send("POST", "/v1/partner/deals", { from: "alice" }), 400, "invalid_request");
      expectEnvelope(await send("POST", "/v1/partner/deals", { from: "alice", to: "bob", status: "completed" }), 422, "unprocessable");
    });
    expect(await t.rows("SELECT CAST(count(*) AS INTEGER) AS n FROM deals")).toEqual([{ n: 0 }]);
  });
});

// ---- reviews ------------------------------------------------------------------------------------

describe("POST /v1/partner/reviews", () => {
  test("without a completed deal between the two: 409 and nothing changes", async () => {
    await creators("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await review("alice", "bob", 5), 409, "conflict");
    });
    // A pending or merely confirmed deal is not enough.
    const id = await pendingDeal("alice", "bob");
    expectEnvelope(await review("alice", "bob", 5), 409, "conflict");
    await act(id, "confirm");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await review("alice", "bob", 5), 409, "conflict");
    });
    expect((await profile("bob")).reviews).toEqual({ count: 0, average: null });
  });

  test("a declined deal is not enough either", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    await act(id, "decline");
    expectEnvelope(await review("alice", "bob", 5), 409, "conflict");
  });

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

  test("a second review of the same deal by the same reviewer is 409; the other party may review too", async () => {
    await creators("alice", "bob");
    await completedDeal("alice", "bob");
    expect((await review("alice", "bob", 5)).status).toBe(201);
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await review("alice", "bob", 1), 409, "conflict");
    });
    expect((await profile("bob")).reviews).toEqual({ count: 1, average: 5 });
    // bob reviews alice with 1 star: R = round(20 × (1 − 3)/2 × 1/10) = −2.
    const back = await review("bob", "alice", 1);
    expect(back.status).toBe(201);
    expect(await profile("alice")).toMatchObject({ reviews: { count: 1, average: 1 }, trust_score: 101 });
    expectEnvelope(await review("bob", "alice", 5), 409, "conflict");
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

  test("a creator outside the deal cannot review either party", async () => {
    await creators("alice", "bob", "carol");
    await completedDeal("alice", "bob");
    await expectNoChange(["alice", "bob", "carol"], async () => {
      expectEnvelope(await review("carol", "bob", 5), 409, "conflict");
      expectEnvelope(await review("bob", "carol", 5), 409, "conflict");
    });
  });

  test.each([
    ["0", 0],
    ["6", 6],
    ["4.5", 4.5],
    ['"5" (a JSON string, the wrong type per docs/api.md, "Conventions")', "5"],
    ["null", null],
    ["-1", -1],
  ])("rating %s is 422 and changes nothing", async (_label, rating) => {
    await creators("alice", "bob");
    await completedDeal("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await review("alice", "bob", rating), 422, "unprocessable");
    });
  });

  test("self-review is 422, unknown creators 404, missing rating 400, unknown field 422", async () => {
    await creators("alice", "bob");
    await completedDeal("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await review("alice", "alice", 5), 422, "unprocessable");
      expectEnvelope(await review("alice", "ghost", 5), 404, "not_found");
      expectEnvelope(await send("POST", "/v1/partner/reviews", { from: "alice", to: "bob" }), 400, "invalid_request");
      expectEnvelope(await send("POST", "/v1/partner/reviews", { from: "alice", to: "bob", rating: 5, deal_id: "x" }), 422, "unprocessable");
    });
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

  test("an unknown period is 422", async () => {
    expectEnvelope(await leaderboard("?period=week"), 422, "unprocessable");
    expectEnvelope(await leaderboard("?period="), 422, "unprocessable");
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

  test("bad platform, server id, name or body field is 422 and registers nothing", async () => {
    expectEnvelope(await putServer(SERVER_ID, {}, "myspace"), 422, "unprocessable");
    expectEnvelope(await putServer("has spaces%20x"), 422, "unprocessable");
    expectEnvelope(await putServer("<script>"), 422, "unprocessable");
    expectEnvelope(await putServer("9".repeat(65)), 422, "unprocessable");
    expectEnvelope(await putServer(SERVER_ID, { name: "n".repeat(101) }), 422, "unprocessable");
    expectEnvelope(await putServer(SERVER_ID, { name: 42 }), 422, "unprocessable");
    expectEnvelope(await putServer(SERVER_ID, { name: "Hub", owner: "me" }), 422, "unprocessable");
    expectEnvelope(await deleteServer(SERVER_ID, "myspace"), 422, "unprocessable");
    expect((await stats()).servers_protected).toBe(0);
  });
});

// ---- security -----------------------------------------------------------------------------------

describe("security of the partner routes", () => {
  const DEAL = "deal_01jd5x8q3m7k2c9v4n6p8r0s1t";
  const ROUTES: Array<[string, string, unknown]> = [
    ["PUT", "/v1/partner/creators/alice", {}],
    ["POST", "/v1/partner/vouches", { from: "alice", to: "bob" }],
    ["POST", "/v1/partner/deals", { from: "alice", to: "bob" }],
    ["GET", `/v1/partner/deals/${DEAL}`, undefined],
    ["POST", `/v1/partner/deals/${DEAL}/confirm`, undefined],
    ["POST", `/v1/partner/deals/${DEAL}/decline`, undefined],
    ["POST", `/v1/partner/deals/${DEAL}/complete`, undefined],
    ["POST", "/v1/partner/reviews", { from: "alice", to: "bob", rating: 5 }],
    ["POST", "/v1/partner/referrals", { referrer: "alice", referred: "bob" }],
    ["PUT", `/v1/partner/servers/discord/${SERVER_ID}`, { name: "Hub" }],
    ["DELETE", `/v1/partner/servers/discord/${SERVER_ID}`, undefined],
  ];

  test.each(ROUTES)("%s %s: no key 401, a bad key 401, a read key 403", async (method, path, body) => {
    expectEnvelope(await t.json(method, path, { body }), 401, "unauthorized");
    expectEnvelope(await t.json(method, path, { body, key: "tl_live_" + "A".repeat(32) }), 401, "unauthorized");
    expectEnvelope(await t.json(method, path, { body, key: reader.key }), 403, "forbidden");
    // Auth comes before validation: a malformed body without a key is still 401.
    if (body !== undefined) {
      expectEnvelope(await t.json(method, path, { body: { nonsense: true } }), 401, "unauthorized");
      expectEnvelope(await t.json(method, path, { body: { nonsense: true }, key: reader.key }), 403, "forbidden");
    }
  });

  test("refused callers change nothing", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expect((await send("POST", "/v1/partner/vouches", { from: "bob", to: "alice" }, reader.key)).status).toBe(403);
      expect((await send("POST", "/v1/partner/vouches", { from: "bob", to: "alice" }, null)).status).toBe(401);
      expect((await send("POST", `/v1/partner/deals/${id}/confirm`, undefined, reader.key)).status).toBe(403);
      expect((await send("POST", `/v1/partner/deals/${id}/confirm`, undefined, null)).status).toBe(401);
    });
    expect((await getDeal(id)).body.status).toBe("pending");
  });

  test("an admin-scoped key may use the partner path", async () => {
    const admin = await t.account({ tier: "pro", scope: "admin", burst: 10_000, dailyQuota: 100_000 });
    await creators("alice", "bob");
    const res = await t.json("POST", "/v1/partner/vouches", { key: admin.key, body: { from: "alice", to: "bob" } });
    expect(res.status).toBe(201);
  });

  test("markup in a message is stored and served back as inert text in JSON", async () => {
    await creator("alice", { display_name: "<img src=x onerror=alert(1)>" });
    await creator("bob");
    const message = `<script>alert("x")</script><b onclick='steal()'>hi</b> & "quotes" ' OR 1=1; DROP TABLE vouches;--`;
    const res = await vouch("alice", "bob", { message });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe(message);
    const page = await vouchesPage("bob");
    expect(page.headers.get("content-type")).toContain("application/json");
    expect(page.body.vouches[0].message).toBe(message);
    expect(page.body.vouches[0].from_display_name).toBe("<img src=x onerror=alert(1)>");
    // The table survived the "injection" and still counts.
    expect(page.body.count).toBe(1);
    expect(await score("bob")).toBe(102);
  });

  test("markup in a server name or a deal id stays inert; null clears a server name", async () => {
    const res = await putServer(SERVER_ID, { name: "<script>alert(1)</script>" });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe("<script>alert(1)</script>");
    expect(res.headers.get("content-type")).toContain("application/json");
    expect((await putServer(SERVER_ID, { name: null })).body.name).toBeNull();
    const deal = await getDeal(encodeURIComponent("<img src=x onerror=alert(1)>"));
    expectEnvelope(deal, 404, "not_found");
  });

  test("a body over 1 MiB is 413 and stores nothing", async () => {
    await creators("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await vouch("alice", "bob", { message: "x".repeat(1_100_000) }), 413, "payload_too_large");
    });
  });

  test("10 KB strings are refused by maxLength with 422 and store nothing", async () => {
    await creators("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await vouch("alice", "bob", { message: BIG }), 422, "unprocessable");
      expectEnvelope(await vouch(BIG, "bob"), 422, "unprocessable");
      expectEnvelope(await vouch("alice", BIG), 422, "unprocessable");
      expectEnvelope(await openDeal("alice", BIG), 422, "unprocessable");
      expectEnvelope(await review(BIG, "bob", 5), 422, "unprocessable");
      expectEnvelope(await refer("alice", BIG), 422, "unprocessable");
      expectEnvelope(await putServer(SERVER_ID, { name: BIG }), 422, "unprocessable");
      expectEnvelope(await getDeal(`deal_${BIG}`), 422, "unprocessable");
    });
    // The message is not echoed back in full.
    const res = await vouch("alice", "bob", { message: BIG });
    expect(JSON.stringify(res.body).length).toBeLessThan(2_000);
  });

  test("wrong types are 422 and store nothing", async () => {
    await creators("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await vouch("alice", 123 as unknown as string), 422, "unprocessable");
      expectEnvelope(await vouch(["alice"] as unknown as string, "bob"), 422, "unprocessable");
      expectEnvelope(await vouch("alice", "bob", { message: { html: "<b>" } }), 422, "unprocessable");
      expectEnvelope(await vouch("alice", "bob", { message: 7 }), 422, "unprocessable");
      expectEnvelope(await openDeal({ handle: "alice" } as unknown as string, "bob"), 422, "unprocessable");
      expectEnvelope(await refer(true as unknown as string, "bob"), 422, "unprocessable");
      expectEnvelope(await send("POST", "/v1/partner/vouches", ["alice", "bob"]), 422, "unprocessable");
    });
  });

  test("strings that are not handles are 422, not a lookup", async () => {
    await creators("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      for (const bad of ["<b>bob</b>", "bob' OR '1'='1", "b", "", " ", "bob\u0000", "../bob"]) {
        const res = await vouch("alice", bad);
        expect([400, 422]).toContain(res.status);
        expect(res.body.error.code).not.toBe("internal");
      }
    });
  });

  test("bad JSON, a JSON array and prototype keys are refused without a 500", async () => {
    await creators("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await send("POST", "/v1/partner/vouches", "{not json"), 400, "invalid_request");
      const proto = await send("POST", "/v1/partner/vouches", '{"from":"alice","to":"bob","__proto__":{"admin":true}}');
      expectEnvelope(proto, 422, "unprocessable");
      const ctor = await send("POST", "/v1/partner/deals", '{"from":"alice","to":"bob","constructor":{"prototype":{"x":1}}}');
      expectEnvelope(ctor, 422, "unprocessable");
    });
    expect(({} as Json).admin).toBeUndefined();
  });
});

// ---- atomicity ----------------------------------------------------------------------------------

describe("every write is one transaction with its score change and its events", () => {
  test("a vouch whose score recomputation fails stores no vouch and moves no score", async () => {
    await creators("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      const res = await failingWrites("trust_snapshots", "INSERT", "true", () => vouch("alice", "bob"));
      expectEnvelope(res, 500, "internal");
    });
    // Once the fault is gone the same vouch goes through: nothing was half-written.
    expect((await vouch("alice", "bob")).status).toBe(201);
    expect(await score("bob")).toBe(102);
  });

  test("a confirm whose event cannot be written leaves the deal pending", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    const res = await failingWrites("outbox_events", "INSERT", "true", () => act(id, "confirm"));
    expectEnvelope(res, 500, "internal");
    expect((await getDeal(id)).body).toMatchObject({ status: "pending", updated_at: T0 });
    expect(await events()).toEqual([]);
    expect((await act(id, "confirm")).status).toBe(200);
    expect(await eventTypes()).toEqual(["deal.confirmed"]);
  });

  test("a completion that fails on the second party rolls back the first party's score and the status", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    await act(id, "confirm");
    const bobId = (await t.rows<{ id: string }>("SELECT id FROM creators WHERE handle = 'bob'"))[0]!.id;
    await expectNoChange(["alice", "bob"], async () => {
      const res = await failingWrites("creators", "UPDATE", `NEW.id = '${bobId}'`, () => act(id, "complete"));
      expectEnvelope(res, 500, "internal");
    });
    expect((await getDeal(id)).body.status).toBe("confirmed");
    expect(await profile("alice")).toMatchObject({ completed_deals: 0, trust_score: 100 });
    expect((await act(id, "complete")).status).toBe(200);
    expect(await profile("alice")).toMatchObject({ completed_deals: 1, trust_score: 103 });
    expect(await profile("bob")).toMatchObject({ completed_deals: 1, trust_score: 103 });
  });

  test("a review whose recomputation fails is not stored and can be written afterwards", async () => {
    await creators("alice", "bob");
    await completedDeal("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      const res = await failingWrites("trust_snapshots", "INSERT", "true", () => review("alice", "bob", 5));
      expectEnvelope(res, 500, "internal");
    });
    expect((await review("alice", "bob", 5)).status).toBe(201);
    expect(await profile("bob")).toMatchObject({ reviews: { count: 1, average: 5 }, trust_score: 105 });
  });

  test("refused writes (409, 422, 404) leave no outbox row", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    await act(id, "decline");
    const before = await events();
    await act(id, "confirm");
    await act("deal_01jd5x8q3m7k2c9v4n6p8r0s1t", "confirm");
    await openDeal("alice", "alice");
    await vouch("alice", "alice");
    expect(await events()).toEqual(before);
  });
});
