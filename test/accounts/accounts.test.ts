// Accounts and keys as an operator and an integrator see them: the usage route, the admin routes,
// scopes, the shared daily quota, burst buckets and plan entitlements.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { ManualClock } from "../../src/clock";
import { createTestApp, tempDir, type TestApp, expectEnvelope } from "../helpers";

const T0 = "2026-11-21T10:00:00.000Z";
const NEXT_MIDNIGHT = Date.parse("2026-11-22T00:00:00.000Z") / 1000;
const KEY_VIEW_KEYS = ["account_id", "burst", "created_at", "id", "name", "prefix", "rate_tier", "revoked_at", "scope"];
const ACCOUNT_KEYS = ["created_at", "daily_quota", "daily_quota_override", "federation", "id", "name", "status", "tier"];

let t: TestApp;
let admin: { key: string; accountId: string; keyId: string };

beforeEach(async () => {
  t = await createTestApp();
  admin = await t.account({ tier: "enterprise", scope: "admin", burst: 10_000, dailyQuota: 1_000_000, name: "operator" });
});

afterEach(() => t.close());

type Json = Record<string, any>;


const as = (key: string | null) => ({
  get: (path: string) => t.json("GET", path, { key }),
  post: (path: string, body?: unknown) => t.json("POST", path, { key, body }),
  patch: (path: string, body?: unknown) => t.json("PATCH", path, { key, body }),
  delete: (path: string) => t.json("DELETE", path, { key }),
});

const usage = async (key: string) => {
  const res = await t.json("GET", "/v1/account/usage", { key });
  expect(res.status).toBe(200);
  return res.body;
};

const CHECK = "/v1/blacklist/check?provider=discord&id=80351110224678912";

describe("GET /v1/account/usage", () => {
  test("UsageStats field by field, including the current call", async () => {
    const k = await t.account({ tier: "free" });
    const res = await t.json("GET", "/v1/account/usage", { key: k.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      key_id: k.keyId,
      rate_limit_tier: "free",
      api_tier: "free",
      total_requests: 1,
      requests_this_month: 1,
      rate_limit: { limit: 100, used: 1, remaining: 99, reset: NEXT_MIDNIGHT, window_seconds: 86_400 },
      by_endpoint: [{ endpoint: "GET /v1/account/usage", count: 1 }],
    });
    expect(res.headers.get("x-ratelimit-remaining")).toBe("99");
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
  });

  test("by_endpoint lists route patterns, descending by count, and counts 4xx answers", async () => {
    const k = await t.account({ tier: "pro", rateTier: "verified", burst: 1_000 });
    const { get, post } = as(k.key);
    for (let i = 0; i < 3; i++) expect((await get(CHECK)).status).toBe(200);
    expect((await get("/v1/blacklist/check?provider=discord")).status).toBe(400);
    expect((await get("/v1/blacklist")).status).toBe(200);
    expect((await get("/v1/blacklist?limit=0")).status).toBe(422);
    expect((await get("/v1/blacklist/entries/bl_aaaa")).status).toBe(404);
    expect((await get("/v1/blacklist/entries/bl_bbbb")).status).toBe(404);
    expect((await post("/v1/blacklist/check/batch", { accounts: [{ provider: "discord", id: "1" }] })).status).toBe(200);
    const stats = await usage(k.key);
    expect(stats.rate_limit_tier).toBe("verified");
    expect(stats.api_tier).toBe("pro");
    expect(stats.by_endpoint).toEqual([
      { endpoint: "GET /v1/blacklist/check", count: 4 },
      { endpoint: "GET /v1/blacklist", count: 2 },
      { endpoint: "GET /v1/blacklist/entries/:id", count: 2 },
      { endpoint: "GET /v1/account/usage", count: 1 },
      { endpoint: "POST /v1/blacklist/check/batch", count: 1 },
    ]);
    expect(stats.total_requests).toBe(10);
    expect(stats.requests_this_month).toBe(10);
    expect(stats.rate_limit).toEqual({ limit: 1_000, used: 10, remaining: 990, reset: NEXT_MIDNIGHT, window_seconds: 86_400 });
  });

  test("rate_limit is the account's shared window; totals and by_endpoint are the calling key's", async () => {
    const a = await t.account({ tier: "free", burst: 1_000 });
    const second = await t.services.accounts.createKey({ account: a.accountId, burst: 1_000 });
    for (let i = 0; i < 4; i++) await t.json("GET", CHECK, { key: a.key });
    const stats = await usage(second.key);
    expect(stats.key_id).toBe(second.id);
    expect(stats.total_requests).toBe(1);
    expect(stats.by_endpoint).toEqual([{ endpoint: "GET /v1/account/usage", count: 1 }]);
    expect(stats.rate_limit).toMatchObject({ limit: 100, used: 5, remaining: 95 });
  });

  test("a metering flush neither loses nor double-counts calls", async () => {
    const k = await t.account({ tier: "free", burst: 1_000 });
    for (let i = 0; i < 3; i++) await t.json("GET", CHECK, { key: k.key });
    await t.runtime.meter.flush();
    await t.json("GET", CHECK, { key: k.key });
    const stats = await usage(k.key);
    expect(stats.total_requests).toBe(5);
    expect(stats.by_endpoint).toEqual([
      { endpoint: "GET /v1/blacklist/check", count: 4 },
      { endpoint: "GET /v1/account/usage", count: 1 },
    ]);
    await t.runtime.meter.flush();
    expect((await usage(k.key)).total_requests).toBe(6);
  });

  test("requests_this_month and the daily window restart with the month; total_requests keeps history", async () => {
    const k = await t.account({ tier: "free", burst: 1_000 });
    for (let i = 0; i < 3; i++) await t.json("GET", CHECK, { key: k.key });
    await t.runtime.meter.flush();
    await t.json("GET", CHECK, { key: k.key });
    t.clock.set("2026-12-01T00:00:01.000Z");
    const stats = await usage(k.key);
    expect(stats.total_requests).toBe(5);
    expect(stats.requests_this_month).toBe(1);
    expect(stats.rate_limit).toEqual({
      limit: 100,
      used: 1,
      remaining: 99,
      reset: Date.parse("2026-12-02T00:00:00.000Z") / 1000,
      window_seconds: 86_400,
    });
  });

  test("an operator quota override is the limit", async () => {
    const k = await t.account({ tier: "free", dailyQuota: 7 });
    expect((await usage(k.key)).rate_limit).toMatchObject({ limit: 7, used: 1, remaining: 6 });
  });

  test("refused calls (401, 429) are not metered", async () => {
    const k = await t.account({ tier: "free", dailyQuota: 3 });
    await t.json("GET", CHECK, { key: "tl_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" });
    await t.json("GET", CHECK, { key: k.key });
    await t.json("GET", CHECK, { key: k.key });
    const stats = await usage(k.key);
    expect(stats.rate_limit).toMatchObject({ used: 3, remaining: 0 });
    expectEnvelope(await t.json("GET", CHECK, { key: k.key }), 429, "quota_exceeded");
    expectEnvelope(await t.json("GET", "/v1/account/usage", { key: k.key }), 429, "quota_exceeded");
    await t.runtime.meter.flush();
    const [persisted] = await t.rows<{ n: number }>("SELECT CAST(sum(count) AS INTEGER) AS n FROM usage_endpoints WHERE key_id = ?", k.keyId);
    expect(persisted.n).toBe(3);
  });

  test("no key is 401", async () => {
    expectEnvelope(await t.json("GET", "/v1/account/usage"), 401, "unauthorized");
  });
});

describe("admin: accounts", () => {
  const { post, get, patch } = { post: (p: string, b?: unknown) => as(admin.key).post(p, b), get: (p: string) => as(admin.key).get(p), patch: (p: string, b?: unknown) => as(admin.key).patch(p, b) };

  test("POST /v1/admin/accounts: 201 Account field by field, plan quotas by tier", async () => {
    const quotas = { free: 100, pro: 1_000, max: 5_000, enterprise: 100_000 } as const;
    for (const [tier, quota] of Object.entries(quotas)) {
      t.clock.advance(1_000);
      const res = await post("/v1/admin/accounts", { name: `guild-${tier}`, tier });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(ACCOUNT_KEYS);
      expect(res.body.id).toMatch(/^acct_[0-9a-z]+$/);
      expect(res.body).toEqual({
        id: res.body.id,
        name: `guild-${tier}`,
        tier,
        daily_quota: quota,
        daily_quota_override: null,
        status: "active",
        federation: false,
        created_at: new Date(t.clock.now()).toISOString(),
      });
    }
    const custom = await post("/v1/admin/accounts", { name: "bench", tier: "free", daily_quota: 5_000_000 });
    expect(custom.body).toMatchObject({ daily_quota: 5_000_000, daily_quota_override: 5_000_000 });
  });

  test("create errors: duplicate name 409, bad values 422, missing name 400", async () => {
    expect((await post("/v1/admin/accounts", { name: "acme", tier: "pro" })).status).toBe(201);
    expectEnvelope(await post("/v1/admin/accounts", { name: "acme", tier: "free" }), 409, "conflict");
    expectEnvelope(await post("/v1/admin/accounts", { name: "x", tier: "platinum" }), 422, "unprocessable");
    expectEnvelope(await post("/v1/admin/accounts", { name: "!!bad name", tier: "free" }), 422, "unprocessable");
    expectEnvelope(await post("/v1/admin/accounts", { name: "x", tier: "free", daily_quota: -1 }), 422, "unprocessable");
    // A number in a string is the wrong type in a JSON body, not a number.
    expectEnvelope(await post("/v1/admin/accounts", { name: "x", tier: "free", daily_quota: "500" }), 422, "unprocessable");
    expectEnvelope(await post("/v1/admin/accounts", { name: "x", tier: "free", owner: "me" }), 422, "unprocessable");
    expectEnvelope(await post("/v1/admin/accounts", { tier: "free" }), 400, "invalid_request");
  });

  test("GET /v1/admin/accounts lists every account in creation order", async () => {
    t.clock.advance(1_000);
    const a = (await post("/v1/admin/accounts", { name: "alpha", tier: "free" })).body;
    t.clock.advance(1_000);
    const b = (await post("/v1/admin/accounts", { name: "beta", tier: "max" })).body;
    const res = await get("/v1/admin/accounts");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["data"]);
    expect(res.body.data.map((x: Json) => x.name)).toEqual(["operator", "alpha", "beta"]);
    expect(res.body.data[1]).toEqual(a);
    expect(res.body.data[2]).toEqual(b);
  });

  test("PATCH changes tier, quota and status; null restores the plan's quota", async () => {
    const acct = (await post("/v1/admin/accounts", { name: "gamma", tier: "free" })).body;
    const upgraded = await patch(`/v1/admin/accounts/${acct.id}`, { tier: "pro" });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body).toEqual({ ...acct, tier: "pro", daily_quota: 1_000 });
    const quota = await patch(`/v1/admin/accounts/${acct.id}`, { daily_quota: 42 });
    expect(quota.body).toMatchObject({ daily_quota: 42, daily_quota_override: 42 });
    const restored = await patch(`/v1/admin/accounts/${acct.id}`, { daily_quota: null, status: "suspended" });
    expect(restored.body).toMatchObject({ daily_quota: 1_000, daily_quota_override: null, status: "suspended" });
    expect((await get("/v1/admin/accounts")).body.data.find((x: Json) => x.id === acct.id)).toEqual(restored.body);
    expectEnvelope(await patch("/v1/admin/accounts/acct_nope", { tier: "pro" }), 404, "not_found");
    expectEnvelope(await patch(`/v1/admin/accounts/${acct.id}`, { status: "banned" }), 422, "unprocessable");
    expectEnvelope(await patch(`/v1/admin/accounts/${acct.id}`, { name: "renamed" }), 422, "unprocessable");
  });

  test("a quota change applies to the account's keys at once", async () => {
    const k = await t.account({ tier: "free" });
    expect((await t.json("GET", CHECK, { key: k.key })).headers.get("x-ratelimit-limit")).toBe("100");
    await patch(`/v1/admin/accounts/${k.accountId}`, { daily_quota: 2 });
    const res = await t.json("GET", CHECK, { key: k.key });
    expect(res.headers.get("x-ratelimit-limit")).toBe("2");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    expectEnvelope(await t.json("GET", CHECK, { key: k.key }), 429, "quota_exceeded");
  });

  test("a suspended account's keys get 402 subscription_required on every keyed route until resumed", async () => {
    const reader = await t.account({ tier: "pro" });
    const writer = await t.services.accounts.createKey({ account: reader.accountId, scope: "write" });
    expect((await t.json("GET", CHECK, { key: reader.key })).status).toBe(200);
    const suspended = await patch(`/v1/admin/accounts/${reader.accountId}`, { status: "suspended" });
    expect(suspended.body.status).toBe("suspended");
    const calls: Array<[string, string, string, unknown?]> = [
      ["GET", "/v1/blacklist", reader.key],
      ["GET", CHECK, reader.key],
      ["GET", "/v1/blacklist/entries/bl_x", reader.key],
      ["GET", "/v1/blacklist/changes", reader.key],
      ["POST", "/v1/blacklist/check/batch", reader.key, { accounts: [{ provider: "discord", id: "1" }] }],
      ["POST", "/v1/blacklist/batch", reader.key, { items: [{ provider: "discord", id: "1" }] }],
      ["GET", "/v1/account/usage", reader.key],
      ["POST", "/v1/partner/blacklist", writer.key, { provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "x" }],
    ];
    for (const [method, path, key, body] of calls) {
      const res = await t.json(method, path, { key, body });
      expectEnvelope(res, 402, "subscription_required");
      expect(res.headers.get("x-ratelimit-remaining")).not.toBeNull();
    }
    expect((await t.json("GET", CHECK, { key: reader.key })).status).toBe(402);
    await patch(`/v1/admin/accounts/${reader.accountId}`, { status: "active" });
    expect((await t.json("GET", CHECK, { key: reader.key })).status).toBe(200);
  });
});

describe("admin: keys", () => {
  const api = () => as(admin.key);

  test("POST /v1/admin/accounts/:id/keys: 201 with the secret once; the key works", async () => {
    const acct = (await api().post("/v1/admin/accounts", { name: "delta", tier: "pro" })).body;
    t.clock.advance(500);
    const res = await api().post(`/v1/admin/accounts/${acct.id}/keys`, { name: "discord-bot", scope: "write", rate_tier: "verified", burst: 50 });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...KEY_VIEW_KEYS, "key"].sort());
    expect(res.body.key).toMatch(/^tl_live_[A-Za-z0-9]{32}$/);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^key_[0-9a-z]+$/),
      account_id: acct.id,
      name: "discord-bot",
      prefix: res.body.key.slice(0, 12),
      scope: "write",
      rate_tier: "verified",
      burst: 50,
      created_at: "2026-11-21T10:00:00.500Z",
      revoked_at: null,
      key: res.body.key,
    });
    const defaults = await api().post(`/v1/admin/accounts/${acct.id}/keys`, {});
    expect(defaults.body).toMatchObject({ name: null, scope: "read", rate_tier: "free", burst: null });
    const works = await t.json("GET", "/v1/account/usage", { key: res.body.key });
    expect(works.status).toBe(200);
    expect(works.body).toMatchObject({ key_id: res.body.id, rate_limit_tier: "verified", api_tier: "pro" });
  });

  test("create errors: unknown account 404, bad scope or burst 422", async () => {
    const acct = (await api().post("/v1/admin/accounts", { name: "epsilon", tier: "pro" })).body;
    expectEnvelope(await api().post("/v1/admin/accounts/acct_nope/keys", {}), 404, "not_found");
    expectEnvelope(await api().post(`/v1/admin/accounts/${acct.id}/keys`, { scope: "root" }), 422, "unprocessable");
    expectEnvelope(await api().post(`/v1/admin/accounts/${acct.id}/keys`, { burst: 0 }), 422, "unprocessable");
    expectEnvelope(await api().post(`/v1/admin/accounts/${acct.id}/keys`, { secret: "mine" }), 422, "unprocessable");
  });

  test("key caps: free 2, pro 5; a further key is 409; revoked keys do not count; an upgrade raises the cap", async () => {
    const free = await t.account({ tier: "free" });
    expect((await api().post(`/v1/admin/accounts/${free.accountId}/keys`, {})).status).toBe(201);
    expectEnvelope(await api().post(`/v1/admin/accounts/${free.accountId}/keys`, {}), 409, "conflict");
    await api().delete(`/v1/admin/keys/${free.keyId}`);
    expect((await api().post(`/v1/admin/accounts/${free.accountId}/keys`, {})).status).toBe(201);
    expectEnvelope(await api().post(`/v1/admin/accounts/${free.accountId}/keys`, {}), 409, "conflict");
    await api().patch(`/v1/admin/accounts/${free.accountId}`, { tier: "pro" });
    expect((await api().post(`/v1/admin/accounts/${free.accountId}/keys`, {})).status).toBe(201);

    const pro = await t.account({ tier: "pro" });
    for (let i = 0; i < 4; i++) expect((await api().post(`/v1/admin/accounts/${pro.accountId}/keys`, {})).status).toBe(201);
    const sixth = await api().post(`/v1/admin/accounts/${pro.accountId}/keys`, {});
    expectEnvelope(sixth, 409, "conflict");
    const live = (await api().get(`/v1/admin/keys?account=${pro.accountId}`)).body.data.filter((k: Json) => k.revoked_at === null);
    expect(live).toHaveLength(5);
  });

  test("GET /v1/admin/keys lists keys by account id or name and never includes a secret", async () => {
    const acct = (await api().post("/v1/admin/accounts", { name: "zeta", tier: "pro" })).body;
    const issued: Json[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(10);
      issued.push((await api().post(`/v1/admin/accounts/${acct.id}/keys`, { name: `k${i}` })).body);
    }
    const byId = await api().get(`/v1/admin/keys?account=${acct.id}`);
    expect(byId.status).toBe(200);
    expect(Object.keys(byId.body)).toEqual(["data"]);
    expect(byId.body.data.map((k: Json) => k.id)).toEqual(issued.map((k) => k.id));
    for (const k of byId.body.data) expect(Object.keys(k).sort()).toEqual(KEY_VIEW_KEYS);
    const { key: _secret, ...view } = issued[0]!;
    expect(byId.body.data[0]).toEqual(view);
    const byName = await api().get("/v1/admin/keys?account=zeta");
    expect(byName.body).toEqual(byId.body);
    const all = await api().get("/v1/admin/keys");
    expect(all.body.data.map((k: Json) => k.id)).toEqual(expect.arrayContaining([admin.keyId, ...issued.map((k) => k.id)]));
    const text = JSON.stringify(all.body) + JSON.stringify(byId.body);
    for (const k of [...issued.map((i) => i.key), admin.key]) expect(text).not.toContain(k);
    expect(text).not.toContain("hash");
    expectEnvelope(await api().get("/v1/admin/keys?account=acct_nope"), 404, "not_found");
  });

  test("DELETE /v1/admin/keys/:id revokes: the key (even a cached one) gets 401 at once", async () => {
    const k = await t.account({ tier: "pro" });
    expect((await t.json("GET", CHECK, { key: k.key })).status).toBe(200);
    t.clock.advance(3_000);
    const res = await api().delete(`/v1/admin/keys/${k.keyId}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(KEY_VIEW_KEYS);
    expect(res.body).toMatchObject({ id: k.keyId, account_id: k.accountId, revoked_at: "2026-11-21T10:00:03.000Z" });
    expectEnvelope(await t.json("GET", CHECK, { key: k.key }), 401, "unauthorized");
    expectEnvelope(await t.json("GET", "/v1/account/usage", { key: k.key }), 401, "unauthorized");
    t.clock.advance(1_000);
    const again = await api().delete(`/v1/admin/keys/${k.keyId}`);
    expect(again.status).toBe(200);
    expect(again.body.revoked_at).toBe("2026-11-21T10:00:03.000Z");
    expectEnvelope(await api().delete("/v1/admin/keys/key_nope"), 404, "not_found");
    const listed = (await api().get(`/v1/admin/keys?account=${k.accountId}`)).body.data;
    expect(listed.find((x: Json) => x.id === k.keyId).revoked_at).toBe("2026-11-21T10:00:03.000Z");
  });

  test("POST /v1/admin/keys/:id/rotate: same id, new secret; the rotated-out secret gets 401; history stays", async () => {
    const k = await t.account({ tier: "pro" });
    for (let i = 0; i < 2; i++) expect((await t.json("GET", CHECK, { key: k.key })).status).toBe(200);
    const res = await api().post(`/v1/admin/keys/${k.keyId}/rotate`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([...KEY_VIEW_KEYS, "key"].sort());
    expect(res.body.id).toBe(k.keyId);
    expect(res.body.key).toMatch(/^tl_live_[A-Za-z0-9]{32}$/);
    expect(res.body.key).not.toBe(k.key);
    expect(res.body.prefix).toBe(res.body.key.slice(0, 12));
    expect(res.body.revoked_at).toBeNull();
    expectEnvelope(await t.json("GET", CHECK, { key: k.key }), 401, "unauthorized");
    const stats = await usage(res.body.key);
    expect(stats.key_id).toBe(k.keyId);
    expect(stats.total_requests).toBe(3);
    await api().delete(`/v1/admin/keys/${k.keyId}`);
    expectEnvelope(await api().post(`/v1/admin/keys/${k.keyId}/rotate`), 409, "conflict");
    expectEnvelope(await api().post("/v1/admin/keys/key_nope/rotate"), 404, "not_found");
    expectEnvelope(await t.json("GET", CHECK, { key: res.body.key }), 401, "unauthorized");
  });
});

describe("scopes", () => {
  test("a read key on the partner path is 403 forbidden", async () => {
    const r = await t.account({ tier: "enterprise", scope: "read" });
    expectEnvelope(
      await t.json("POST", "/v1/partner/blacklist", { key: r.key, body: { provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "x" } }),
      403,
      "forbidden",
    );
    expectEnvelope(await t.json("POST", "/v1/partner/blacklist/bl_x/overturn", { key: r.key, body: {} }), 403, "forbidden");
  });

  test("read and write keys on /v1/admin are 403 forbidden; no key is 401", async () => {
    const r = await t.account({ tier: "enterprise", scope: "read" });
    const w = await t.account({ tier: "enterprise", scope: "write" });
    const calls: Array<[string, string, unknown?]> = [
      ["GET", "/v1/admin/accounts"],
      ["POST", "/v1/admin/accounts", { name: "sneaky", tier: "enterprise" }],
      ["PATCH", `/v1/admin/accounts/${w.accountId}`, { daily_quota: 1_000_000 }],
      ["POST", `/v1/admin/accounts/${w.accountId}/keys`, { scope: "admin" }],
      ["GET", "/v1/admin/keys"],
      ["DELETE", `/v1/admin/keys/${admin.keyId}`],
      ["POST", `/v1/admin/keys/${admin.keyId}/rotate`],
    ];
    for (const [method, path, body] of calls) {
      expectEnvelope(await t.json(method, path, { key: w.key, body }), 403, "forbidden");
      expectEnvelope(await t.json(method, path, { key: r.key, body }), 403, "forbidden");
      expectEnvelope(await t.json(method, path, { body }), 401, "unauthorized");
    }
    // Nothing changed: no account was made, the admin key still works, the write account's quota is unchanged.
    const accounts = (await as(admin.key).get("/v1/admin/accounts")).body.data;
    expect(accounts.map((a: Json) => a.name)).not.toContain("sneaky");
    expect(accounts.find((a: Json) => a.id === w.accountId).daily_quota).toBe(100_000);
  });

  test("/metrics needs an admin key", async () => {
    const r = await t.account({ tier: "enterprise", scope: "read" });
    const w = await t.account({ tier: "enterprise", scope: "write" });
    expectEnvelope(await t.json("GET", "/metrics"), 401, "unauthorized");
    expectEnvelope(await t.json("GET", "/metrics", { key: r.key }), 403, "forbidden");
    expectEnvelope(await t.json("GET", "/metrics", { key: w.key }), 403, "forbidden");
    const res = await t.call("GET", "/metrics", { key: admin.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toContain("# TYPE trustlist_http_requests_total counter");
    expect(text).toContain("trustlist_blacklist_active_entries 0");
  });

  test("write and admin keys may read", async () => {
    const w = await t.account({ tier: "pro", scope: "write" });
    expect((await t.json("GET", CHECK, { key: w.key })).status).toBe(200);
    expect((await t.json("GET", CHECK, { key: admin.key })).status).toBe(200);
  });
});

describe("daily quota", () => {
  test("two keys of one free account share exactly 100 calls when 150 are fired concurrently", async () => {
    const a = await t.account({ tier: "free", burst: 10_000 });
    const b = await t.services.accounts.createKey({ account: a.accountId, burst: 10_000 });
    const responses = await Promise.all(
      Array.from({ length: 150 }, (_, i) => t.call("GET", `/v1/blacklist/check?provider=discord&id=${i + 1}`, { key: i % 2 ? b.key : a.key })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50);
    for (const res of responses.filter((r) => r.status === 429)) {
      const body = await res.json();
      expectEnvelope({ status: res.status, body, headers: res.headers }, 429, "quota_exceeded");
      expect(res.headers.get("retry-after")).toBe("50400");
      expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(res.headers.get("x-ratelimit-limit")).toBe("100");
    }
    const remaining = responses.filter((r) => r.status === 200).map((r) => Number(r.headers.get("x-ratelimit-remaining")));
    expect(new Set(remaining).size).toBe(100);
    expect(Math.min(...remaining)).toBe(0);
    expect(Math.max(...remaining)).toBe(99);

    await t.runtime.meter.flush();
    const [stored] = await t.rows<{ count: number }>("SELECT count FROM usage_daily WHERE account_id = ?", a.accountId);
    expect(Number(stored!.count)).toBe(100);

    // Just before midnight UTC it is still exhausted; Retry-After counts down to it.
    t.clock.set("2026-11-21T23:59:59.000Z");
    const late = await t.json("GET", CHECK, { key: b.key });
    expectEnvelope(late, 429, "quota_exceeded");
    expect(late.headers.get("retry-after")).toBe("1");
    // Crossing midnight resets the shared counter.
    t.clock.set("2026-11-22T00:00:00.000Z");
    const fresh = await t.json("GET", CHECK, { key: a.key });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("x-ratelimit-remaining")).toBe("99");
    expect(fresh.headers.get("x-ratelimit-reset")).toBe(String(Date.parse("2026-11-23T00:00:00.000Z") / 1000));
    const fromB = await t.json("GET", "/v1/account/usage", { key: b.key });
    expect(fromB.body.rate_limit).toMatchObject({ used: 2, remaining: 98 });
  });

  test("every keyed request that passes auth counts, 4xx included", async () => {
    const k = await t.account({ tier: "free", dailyQuota: 4, burst: 1_000 });
    expect((await t.json("GET", "/v1/blacklist/check?provider=discord", { key: k.key })).status).toBe(400);
    expect((await t.json("GET", "/v1/blacklist?limit=0", { key: k.key })).status).toBe(422);
    expect((await t.json("GET", "/v1/blacklist/entries/bl_none", { key: k.key })).status).toBe(404);
    expect((await t.json("POST", "/v1/blacklist/check/batch", { key: k.key, body: { accounts: [{ provider: "discord", id: "1" }] } })).status).toBe(403);
    expectEnvelope(await t.json("GET", CHECK, { key: k.key }), 429, "quota_exceeded");
  });

  test("the day's count survives a restart once flushed", async () => {
    const dir = tempDir();
    const clock = new ManualClock();
    const first = await createTestApp({ dir, clock });
    try {
      const k = await first.account({ tier: "free", dailyQuota: 3, burst: 1_000 });
      for (let i = 0; i < 3; i++) expect((await first.json("GET", CHECK, { key: k.key })).status).toBe(200);
      await first.runtime.meter.flush();
      await first.close();
      const second = await createTestApp({ dir, clock });
      try {
        const res = await second.json("GET", CHECK, { key: k.key });
        expectEnvelope(res, 429, "quota_exceeded");
        clock.set("2026-11-22T00:00:01.000Z");
        expect((await second.json("GET", CHECK, { key: k.key })).status).toBe(200);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("burst buckets", () => {
  test("a free key bursts 20, then 429 rate_limited with Retry-After; refused calls are not metered", async () => {
    const k = await t.account({ tier: "free" });
    for (let i = 0; i < 20; i++) expect((await t.json("GET", CHECK, { key: k.key })).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const res = await t.json("GET", CHECK, { key: k.key });
      expectEnvelope(res, 429, "rate_limited");
      expect(res.headers.get("retry-after")).toBe("1");
      expect(res.headers.get("x-ratelimit-remaining")).toBe("80");
    }
    // 5 tokens per second: 200 ms buys exactly one more call.
    t.clock.advance(200);
    expect((await t.json("GET", CHECK, { key: k.key })).status).toBe(200);
    expectEnvelope(await t.json("GET", CHECK, { key: k.key }), 429, "rate_limited");
    t.clock.advance(1_000);
    const stats = await usage(k.key);
    expect(stats.rate_limit.used).toBe(22);
    expect(stats.by_endpoint).toEqual([
      { endpoint: "GET /v1/blacklist/check", count: 21 },
      { endpoint: "GET /v1/account/usage", count: 1 },
    ]);
  });

  test("buckets are per key, not per account", async () => {
    const a = await t.account({ tier: "pro" });
    const b = await t.services.accounts.createKey({ account: a.accountId });
    for (let i = 0; i < 20; i++) await t.json("GET", CHECK, { key: a.key });
    expectEnvelope(await t.json("GET", CHECK, { key: a.key }), 429, "rate_limited");
    expect((await t.json("GET", CHECK, { key: b.key })).status).toBe(200);
  });

  test("rate tiers: verified bursts 80; a --burst override R holds 4 x R", async () => {
    const verified = await t.account({ tier: "pro", rateTier: "verified" });
    for (let i = 0; i < 80; i++) expect((await t.json("GET", CHECK, { key: verified.key })).status).toBe(200);
    expectEnvelope(await t.json("GET", CHECK, { key: verified.key }), 429, "rate_limited");

    const custom = await t.account({ tier: "pro", burst: 2 });
    for (let i = 0; i < 8; i++) expect((await t.json("GET", CHECK, { key: custom.key })).status).toBe(200);
    const refused = await t.json("GET", CHECK, { key: custom.key });
    expectEnvelope(refused, 429, "rate_limited");
    expect(refused.headers.get("retry-after")).toBe("1");
    t.clock.advance(500);
    expect((await t.json("GET", CHECK, { key: custom.key })).status).toBe(200);
    expectEnvelope(await t.json("GET", CHECK, { key: custom.key }), 429, "rate_limited");
  });

  test("the daily quota is checked before the burst bucket", async () => {
    const k = await t.account({ tier: "free", dailyQuota: 20 });
    for (let i = 0; i < 20; i++) expect((await t.json("GET", CHECK, { key: k.key })).status).toBe(200);
    const res = await t.json("GET", CHECK, { key: k.key });
    expectEnvelope(res, 429, "quota_exceeded");
    expect(res.headers.get("retry-after")).toBe("50400");
  });
});

describe("entitlements", () => {
  const accounts = [{ provider: "discord", id: "1" }];
  const checkBatch = (key: string) => t.json("POST", "/v1/blacklist/check/batch", { key, body: { accounts } });
  const itemsBatch = (key: string) => t.json("POST", "/v1/blacklist/batch", { key, body: { items: accounts } });

  test("a free key: /check/batch is 403 not_entitled, /batch is 402 plan_upgrade_required", async () => {
    for (const rateTier of ["free", "verified"] as const) {
      const k = await t.account({ tier: "free", rateTier });
      expectEnvelope(await checkBatch(k.key), 403, "not_entitled");
      expectEnvelope(await itemsBatch(k.key), 402, "plan_upgrade_required");
    }
  });

  test.each(["pro", "max", "enterprise"] as const)("a %s key may use both batch routes", async (tier) => {
    const k = await t.account({ tier });
    for (const res of [await checkBatch(k.key), await itemsBatch(k.key)]) {
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([{ provider: "discord", id: "1", banned: false }]);
    }
  });

  test("a partner rate-tier key of a free account may use /check/batch but not /batch", async () => {
    const k = await t.account({ tier: "free", rateTier: "partner" });
    const ok = await checkBatch(k.key);
    expect(ok.status).toBe(200);
    expect(ok.body.results).toHaveLength(1);
    expectEnvelope(await itemsBatch(k.key), 402, "plan_upgrade_required");
  });

  test("an upgrade through the admin route takes effect on the next call", async () => {
    const k = await t.account({ tier: "free" });
    expectEnvelope(await itemsBatch(k.key), 402, "plan_upgrade_required");
    await as(admin.key).patch(`/v1/admin/accounts/${k.accountId}`, { tier: "pro" });
    expect((await itemsBatch(k.key)).status).toBe(200);
    expect((await checkBatch(k.key)).status).toBe(200);
    await as(admin.key).patch(`/v1/admin/accounts/${k.accountId}`, { tier: "free" });
    expectEnvelope(await checkBatch(k.key), 403, "not_entitled");
  });
});

test("timestamps use ISO 8601 UTC with milliseconds", async () => {
  const res = await as(admin.key).post("/v1/admin/accounts", { name: "clocked", tier: "free" });
  expect(res.body.created_at).toBe(T0);
});
