// The blacklist routes against callers they must turn away or not inform: no key, a bad key, a
// read key on the write path, a suspended account, a used-up quota, private fields in the public
// views, and hostile text in every read and write (never a 500, never a leak, the table intact).
// Seed data goes through the real partner route, never straight into the tables.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { expectEnvelope } from "../helpers";
import { add, check, expectPublicEntry, get, type Json, post, reader, setup, t, T0, teardown, writer } from "./kit";

beforeEach(setup);
afterEach(teardown);

describe("POST /v1/partner/blacklist", () => {
  test("auth: no key is 401, a read-scoped key is 403 forbidden, an admin key may write", async () => {
    const body = { provider: "discord", provider_user_id: "7", severity: "ban", reason_code: "x" };
    expectEnvelope(await t.json("POST", "/v1/partner/blacklist", { body }), 401, "unauthorized");
    expectEnvelope(await t.json("POST", "/v1/partner/blacklist", { key: reader.key, body }), 403, "forbidden");
    expect((await check("discord", "7")).body.banned).toBe(false);
    const admin = await t.account({ tier: "enterprise", scope: "admin" });
    const res = await t.json("POST", "/v1/partner/blacklist", { key: admin.key, body });
    expect(res.status).toBe(201);
    expect((await check("discord", "7")).body.banned).toBe(true);
  });
});

describe("GET /v1/blacklist", () => {
  test("entries are public-safe views, field by field", async () => {
    const entry = await add({
      username: "secret_name",
      evidence: "secret evidence",
      high_risk: true,
      creator: "somecreator",
      summary: "Chargeback scam",
      expires_at: "2027-11-21T10:00:00.000Z",
      appealable: false,
    });
    const res = await get("/v1/blacklist");
    expect(res.body.data).toHaveLength(1);
    const item = res.body.data[0];
    expectPublicEntry(item);
    expect(item).toEqual({
      id: entry.id,
      severity: "ban",
      scope: "global",
      vertical: "all",
      reason_code: "scam_trade",
      summary: "Chargeback scam",
      issued_at: T0,
      expires_at: "2027-11-21T10:00:00.000Z",
      appealable: false,
    });
    const text = JSON.stringify(res.body);
    for (const secret of ["secret_name", "secret evidence", "somecreator", "100000000000000001"]) expect(text).not.toContain(secret);
  });

  test("unknown query parameters are ignored; no key is 401", async () => {
    await add();
    const res = await get("/v1/blacklist?colour=blue&page=9");
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expectEnvelope(await get("/v1/blacklist", null), 401, "unauthorized");
    expectEnvelope(await get("/v1/blacklist", "tl_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), 401, "unauthorized");
  });
});

describe("GET /v1/blacklist/check", () => {
  test("no key is 401", async () => {
    expectEnvelope(await get("/v1/blacklist/check?provider=discord&id=1", null), 401, "unauthorized");
  });
});

describe.each([
  ["/v1/blacklist/check/batch", "accounts"],
  ["/v1/blacklist/batch", "items"],
] as const)("POST %s", (path, field) => {
  test("no key is 401", async () => {
    expectEnvelope(await post(path, { [field]: [{ provider: "discord", id: "1" }] }, null), 401, "unauthorized");
  });
});

describe("GET /v1/blacklist/entries/:id", () => {
  test("no key is 401", async () => {
    const entry = await add();
    expectEnvelope(await get(`/v1/blacklist/entries/${entry.id}`, null), 401, "unauthorized");
  });
});

describe("GET /v1/blacklist/changes", () => {
  test("no key is 401", async () => {
    expectEnvelope(await get("/v1/blacklist/changes", null), 401, "unauthorized");
  });
});

describe("every keyed blacklist route", () => {
  const ROUTES: Array<[string, string, unknown?]> = [
    ["GET", "/v1/blacklist"],
    ["GET", "/v1/blacklist/check?provider=discord&id=1"],
    ["POST", "/v1/blacklist/check/batch", { accounts: [{ provider: "discord", id: "1" }] }],
    ["POST", "/v1/blacklist/batch", { items: [{ provider: "discord", id: "1" }] }],
    ["GET", "/v1/blacklist/entries/bl_x"],
    ["GET", "/v1/blacklist/changes"],
    ["POST", "/v1/partner/blacklist", { provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "x" }],
    ["POST", "/v1/partner/blacklist/bl_x/overturn", {}],
  ];

  test("answers 401 without a key or with a malformed, unknown or non-bearer one", async () => {
    for (const [method, path, body] of ROUTES) {
      expectEnvelope(await t.json(method, path, { body }), 401, "unauthorized");
      expectEnvelope(await t.json(method, path, { key: "not-a-key", body }), 401, "unauthorized");
      expectEnvelope(await t.json(method, path, { key: "tl_live_0000000000000000000000000000000Z", body }), 401, "unauthorized");
      expectEnvelope(await t.json(method, path, { body, headers: { authorization: `Basic ${writer.key}` } }), 401, "unauthorized");
    }
  });

  test("answers 402 subscription_required for a suspended account", async () => {
    const k = await t.account({ tier: "pro", scope: "write", burst: 10_000 });
    await t.services.accounts.updateAccount(k.accountId, { status: "suspended" });
    for (const [method, path, body] of ROUTES) expectEnvelope(await t.json(method, path, { key: k.key, body }), 402, "subscription_required");
  });

  test("answers 429 with Retry-After once the daily quota is used", async () => {
    const k = await t.account({ tier: "pro", scope: "write", burst: 10_000, dailyQuota: 1 });
    expect((await get("/v1/blacklist", k.key)).status).toBe(200);
    for (const [method, path, body] of ROUTES) {
      const res = await t.json(method, path, { key: k.key, body });
      expectEnvelope(res, 429, "quota_exceeded");
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    }
  });
});

describe("hostile input", () => {
  const HOSTILE = [
    "1' OR '1'='1",
    "'; DROP TABLE blacklist_entries; --",
    "\" OR \"\"=\"",
    "x".repeat(10_000),
    "9".repeat(10_000),
    "😀ñ中文\u202e",
    "\u0000\u0001\u001f\u007f",
    "line\r\nbreak",
    "%00%25",
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "{\"$ne\":null}",
  ];

  function expectClean(res: { status: number; body: any; headers: Headers }) {
    expect(res.status).toBeLessThan(500);
    if (res.status >= 400) {
      expect(Object.keys(res.body)).toEqual(["error"]);
      expect(res.body.error.request_id).toBe(res.headers.get("x-request-id")!);
      expect(res.body.error.code).not.toBe("internal");
    }
  }

  test("every read answers a clean envelope error or a clean miss, never a 500", async () => {
    const victim = await add({ provider_user_id: "31337" });
    const victimGithub = await add({ provider: "github", provider_user_id: "octocat" });
    for (const value of HOSTILE) {
      const q = encodeURIComponent(value);
      for (const provider of ["discord", "github", "minecraft", "epic"]) {
        const res = await get(`/v1/blacklist/check?provider=${provider}&id=${q}`);
        expectClean(res);
        if (res.status === 200) expect(res.body.banned).toBe(false);
        else expect([400, 422]).toContain(res.status);
      }
      expectClean(await get(`/v1/blacklist/check?provider=${q}&id=1`));
      expectClean(await get(`/v1/blacklist/check?provider=discord&id=1&vertical=${q}`));
      // A control character is refused before the route reads the value (src/http/url-text.ts).
      const unreadable = /[\u0000-\u001f\u007f-\u009f]/.test(value);
      const entry = await get(`/v1/blacklist/entries/${q}`);
      expectClean(entry);
      expect(unreadable ? [400] : [404, 422]).toContain(entry.status);
      expectEnvelope(await get(`/v1/blacklist?cursor=${q}`), 400, unreadable ? "invalid_request" : "invalid_cursor");
      expectEnvelope(await get(`/v1/blacklist/changes?cursor=${q}`), 400, unreadable ? "invalid_request" : "invalid_cursor");
      expectClean(await get(`/v1/blacklist?since=${q}`));
      expectClean(await get(`/v1/blacklist?limit=${q}`));
      const rows = await post("/v1/blacklist/check/batch", { accounts: [{ provider: "github", id: value }, { provider: value, id: "1" }, { provider: "discord", id: value }] });
      expectClean(rows);
      expect(rows.status).toBe(200);
      expect(rows.body.results.map((r: Json) => r.banned)).toEqual([false, false, false]);
      expect(rows.body.results[1].error).toBe("invalid_account");
      expect(rows.body.results[2].error).toBe("invalid_account");
    }
    // The table is intact and the victims are still found.
    expect((await check("discord", "31337")).body.entry.id).toBe(victim.id);
    expect((await check("github", "octocat")).body.entry.id).toBe(victimGithub.id);
    expect((await get("/v1/blacklist")).body.data).toHaveLength(2);
  });

  test("writes refuse or store hostile text verbatim, never a 500", async () => {
    for (const value of HOSTILE) {
      for (const body of [
        { provider: "github", provider_user_id: value, severity: "ban", reason_code: "x" },
        { provider: "github", provider_user_id: "ok", username: value, severity: "ban", reason_code: "x" },
        { provider: "github", provider_user_id: "ok", summary: value, severity: "ban", reason_code: "x" },
        { provider: "github", provider_user_id: "ok", severity: value, reason_code: "x" },
        { provider: "github", provider_user_id: "ok", severity: "ban", reason_code: "x", creator: value },
      ]) {
        const res = await t.json("POST", "/v1/partner/blacklist", { key: writer.key, body });
        expectClean(res);
        expect([201, 400, 422]).toContain(res.status);
        if (res.status === 201 && body.summary === value) expect(res.body.summary).toBe(value);
      }
      expectClean(await t.json("POST", `/v1/partner/blacklist/${encodeURIComponent(value)}/overturn`, { key: writer.key, body: {} }));
    }
    // A stored unicode id is matched exactly.
    await add({ provider: "github", provider_user_id: "😀ñ中文" });
    expect((await check("github", "😀ñ中文")).body.banned).toBe(true);
    expect((await check("github", "😀ñ")).body.banned).toBe(false);
  });
});
