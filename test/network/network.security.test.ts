// The partner routes of the creator network against callers they must turn away and input meant
// to harm: no key, a bad key or a read key on every route (before any validation, and changing
// nothing), the admin key that may write, markup stored and served back as inert text, oversized
// bodies and strings, strings that are not handles, bad JSON and prototype keys.
// Creators are made through the partner route; nothing is written straight into the tables.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { expectEnvelope } from "../helpers";
import { creator, creators, expectNoChange, getDeal, type Json, openDeal, pendingDeal, putServer, reader, refer, review, score, send, SERVER_ID, setup, t, teardown, vouch, vouchesPage } from "./kit";

const BIG = "x".repeat(10 * 1024);

beforeEach(setup);
afterEach(teardown);

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
