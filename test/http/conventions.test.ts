// Conventions every route shares (docs/api.md, "Conventions"): the error envelope for every kind of failure,
// 400 versus 422, 404/405/413/500, X-Request-Id, the rate-limit headers and CORS.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Logger } from "../../src/logger";
import { createTestApp, type TestApp, expectEnvelope } from "../helpers";

const MIB = 1024 * 1024;
const NEXT_MIDNIGHT = String(Date.parse("2026-11-22T00:00:00.000Z") / 1000);
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

let t: TestApp;
let key: string;
let writeKey: string;
let logged: string[];

beforeEach(async () => {
  t = await createTestApp();
  // Into this test's own array: a previous test's logger flushing late must not land in it.
  const written: string[] = (logged = []);
  t.runtime.log = new Logger({ access: false }, (text) => written.push(text));
  key = (await t.account({ tier: "pro", burst: 10_000, dailyQuota: 100_000 })).key;
  writeKey = (await t.account({ tier: "pro", scope: "write", burst: 10_000, dailyQuota: 100_000 })).key;
});

afterEach(() => t.close());

type Res = { status: number; body: any; headers: Headers };


/** A raw request through the app, parsed when the answer is JSON. */
async function raw(method: string, path: string, init: { headers?: Record<string, string>; body?: string | ReadableStream<Uint8Array> } = {}): Promise<Res> {
  const res = await t.app.handle(new Request(`http://localhost${path}`, { method, headers: init.headers, body: init.body }));
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

function streamOf(text: string, chunk = 64 * 1024): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunk));
      offset += chunk;
    },
  });
}

/** A JSON body of exactly `size` bytes for the batch route (its `pad` field is unknown, so 422). */
function paddedBody(size: number): string {
  const head = '{"accounts":[{"provider":"discord","id":"1"}],"pad":"';
  const tail = '"}';
  return head + "x".repeat(size - head.length - tail.length) + tail;
}

describe("400 versus 422", () => {
  test.each([
    ["GET", "/v1/blacklist/check?id=1", undefined, "invalid_request"],
    ["GET", "/v1/blacklist/check?provider=discord", undefined, "invalid_request"],
    ["GET", "/v1/blacklist/check?provider=discord&id=", undefined, "invalid_request"],
    ["GET", "/v1/blacklist/check?provider=friendster&id=1", undefined, "invalid_request"],
    ["GET", "/v1/blacklist?cursor=not-a-cursor", undefined, "invalid_cursor"],
    ["GET", "/v1/blacklist/changes?cursor=not-a-cursor", undefined, "invalid_cursor"],
    ["POST", "/v1/blacklist/check/batch", {}, "invalid_request"],
    ["POST", "/v1/blacklist/check/batch", { accounts: [] }, "invalid_request"],
    ["POST", "/v1/blacklist/batch", {}, "invalid_request"],
    ["POST", "/v1/blacklist/batch", { items: [] }, "invalid_request"],
  ] as const)("400: %s %s %j", async (method, path, body, code) => {
    expectEnvelope(await t.json(method, path, { key, body }), 400, code);
  });

  test.each([
    ["GET", "/v1/blacklist?limit=0", undefined],
    ["GET", "/v1/blacklist?limit=101", undefined],
    ["GET", "/v1/blacklist?limit=2.5", undefined],
    ["GET", "/v1/blacklist?since=last-week", undefined],
    ["GET", "/v1/blacklist?vertical=fortnite", undefined],
    ["GET", "/v1/blacklist/check?provider=discord&id=1&vertical=fortnite", undefined],
    ["GET", "/v1/blacklist/changes?limit=1001", undefined],
    ["POST", "/v1/blacklist/check/batch", { accounts: Array.from({ length: 51 }, () => ({ provider: "discord", id: "1" })) }],
    ["POST", "/v1/blacklist/batch", { items: Array.from({ length: 51 }, () => ({ provider: "discord", id: "1" })) }],
    ["POST", "/v1/blacklist/check/batch", { accounts: [{ provider: "discord", id: "1" }], vertical: "fortnite" }],
    ["POST", "/v1/blacklist/check/batch", { accounts: [{ provider: "discord", id: "1" }], unknown_field: true }],
    ["POST", "/v1/blacklist/check/batch", { accounts: [{ provider: "discord", id: 12 }] }],
    ["POST", "/v1/blacklist/check/batch", { accounts: "discord:1" }],
  ] as const)("422: %s %s %j", async (method, path, body) => {
    expectEnvelope(await t.json(method, path, { key, body }), 422, "unprocessable");
  });

  test("unknown body fields are 422 on every body route", async () => {
    const entry = { provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "x" };
    expectEnvelope(await t.json("POST", "/v1/partner/blacklist", { key: writeKey, body: { ...entry, extra: 1 } }), 422, "unprocessable");
    const added = await t.json("POST", "/v1/partner/blacklist", { key: writeKey, body: entry });
    expectEnvelope(await t.json("POST", `/v1/partner/blacklist/${added.body.id}/overturn`, { key: writeKey, body: { reasons: "x" } }), 422, "unprocessable");
    expectEnvelope(await t.json("POST", "/v1/blacklist/batch", { key, body: { items: [{ provider: "discord", id: "1" }], extra: 1 } }), 422, "unprocessable");
  });

  test("unknown query parameters are ignored", async () => {
    const res = await t.json("GET", "/v1/blacklist/check?provider=discord&id=1&utm_source=bot&x[]=1", { key });
    expect(res.status).toBe(200);
    expect(res.body.banned).toBe(false);
  });
});

describe("parse errors", () => {
  test.each([
    ["truncated JSON", "{\"accounts\": [", "application/json"],
    ["trailing garbage", "{\"accounts\": []} x", "application/json"],
    ["single quotes", "{'accounts': []}", "application/json"],
  ])("%s is 400 invalid_request in the envelope", async (_name, body, type) => {
    const res = await t.json("POST", "/v1/blacklist/check/batch", { key, body, headers: { "content-type": type } });
    expectEnvelope(res, 400, "invalid_request");
    expect(res.headers.get("x-ratelimit-remaining")).not.toBeNull();
  });

  test("bad JSON on the partner route stores nothing", async () => {
    expectEnvelope(await t.json("POST", "/v1/partner/blacklist", { key: writeKey, body: "{\"provider\": \"discord\"," }), 400, "invalid_request");
    expect((await t.json("GET", "/v1/blacklist", { key })).body.data).toEqual([]);
  });

  test("the key is checked before the body is parsed", async () => {
    expectEnvelope(await t.json("POST", "/v1/blacklist/check/batch", { body: "{bad" }), 401, "unauthorized");
    expectEnvelope(await t.json("POST", "/v1/blacklist/check/batch", { key: "tl_live_" + "x".repeat(32), body: "{bad" }), 401, "unauthorized");
    // A read key on a write route is refused for its scope, not for its JSON.
    expectEnvelope(await t.json("POST", "/v1/partner/blacklist", { key, body: "{bad" }), 403, "forbidden");
  });

  test("bad JSON with a valid key counts against the account's quota", async () => {
    const quota = await t.account({ tier: "pro", dailyQuota: 10, burst: 10_000 });
    const bad = await t.json("POST", "/v1/blacklist/check/batch", { key: quota.key, body: "{bad" });
    expectEnvelope(bad, 400, "invalid_request");
    expect(bad.headers.get("x-ratelimit-limit")).toBe("10");
    expect(bad.headers.get("x-ratelimit-remaining")).toBe("9");
    const usage = await t.json("GET", "/v1/account/usage", { key: quota.key });
    expect(usage.body.rate_limit.used).toBe(2);
  });

  test("a value of the wrong shape names its field, not an array position", async () => {
    const res = await t.json("POST", "/v1/blacklist/check/batch", { key, body: { accounts: "x" } });
    expect(res.status).toBe(422);
    expect(res.body.error.message).not.toContain("accounts.0");
    expect(res.body.error.message).toContain("'accounts'");
  });

  test("a missing body where one is required is 400", async () => {
    expectEnvelope(await t.json("POST", "/v1/blacklist/check/batch", { key }), 400, "invalid_request");
  });
});

describe("unknown routes and methods", () => {
  test.each([
    ["GET", "/v1/nope"],
    ["GET", "/v1/blacklist/entries"],
    ["GET", "/nope"],
    ["POST", "/v2/blacklist"],
    ["GET", "/v1/blacklist/check/batch/extra"],
  ])("%s %s is 404 not_found, with or without a key", async (method, path) => {
    expectEnvelope(await t.json(method, path, { key }), 404, "not_found");
    expectEnvelope(await t.json(method, path), 404, "not_found");
  });

  test.each([
    ["DELETE", "/v1/blacklist", "GET"],
    ["POST", "/v1/blacklist", "GET"],
    ["GET", "/v1/partner/blacklist", "POST"],
    ["PUT", "/v1/blacklist/entries/bl_123", "GET"],
    ["GET", "/v1/blacklist/check/batch", "POST"],
    ["GET", "/v1/partner/blacklist/bl_123/overturn", "POST"],
    ["PATCH", "/v1/account/usage", "GET"],
  ])("%s %s is 405 with Allow: %s", async (method, path, allow) => {
    const res = await t.json(method, path, { key });
    expectEnvelope(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe(allow);
  });

  test("405 lists every method a path has", async () => {
    const res = await t.json("PUT", "/v1/admin/keys/key_123", { key });
    expectEnvelope(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe("DELETE");
  });
});

describe("413 for bodies over 1 MiB", () => {
  test("a declared length over 1 MiB is refused before anything else, with or without a key", async () => {
    const body = paddedBody(MIB + 1);
    const variants: Record<string, string>[] = [
      { "content-type": "application/json", "content-length": String(body.length), authorization: `Bearer ${key}` },
      { "content-type": "application/json", "content-length": String(body.length) },
    ];
    for (const headers of variants) {
      expectEnvelope(await raw("POST", "/v1/blacklist/check/batch", { headers, body }), 413, "payload_too_large");
    }
  });

  test("a streamed body without a declared length is measured too", async () => {
    const res = await raw("POST", "/v1/blacklist/check/batch", {
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: streamOf(paddedBody(MIB + 1)),
    });
    expectEnvelope(res, 413, "payload_too_large");
    const small = await raw("POST", "/v1/blacklist/check/batch", {
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: streamOf(JSON.stringify({ accounts: [{ provider: "discord", id: "1" }] })),
    });
    expect(small.status).toBe(200);
    expect(small.body.results).toEqual([{ provider: "discord", id: "1", banned: false }]);
  });

  test("exactly 1 MiB is accepted (and judged on its content)", async () => {
    const body = paddedBody(MIB);
    expect(body.length).toBe(MIB);
    const res = await raw("POST", "/v1/blacklist/check/batch", {
      headers: { "content-type": "application/json", "content-length": String(body.length), authorization: `Bearer ${key}` },
      body,
    });
    expectEnvelope(res, 422, "unprocessable");
  });

  test("an oversized partner write stores nothing", async () => {
    const body = JSON.stringify({ provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "x", summary: "y".repeat(MIB) });
    const res = await raw("POST", "/v1/partner/blacklist", {
      headers: { "content-type": "application/json", "content-length": String(body.length), authorization: `Bearer ${writeKey}` },
      body,
    });
    expectEnvelope(res, 413, "payload_too_large");
    expect((await t.json("GET", "/v1/blacklist/check?provider=discord&id=1", { key })).body.banned).toBe(false);
  });

  test("over a real socket, with a declared length and chunked", async () => {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => t.app.handle(request) });
    try {
      const url = `http://127.0.0.1:${server.port}/v1/blacklist/check/batch`;
      const headers = { "content-type": "application/json", authorization: `Bearer ${key}` };
      for (const body of [paddedBody(MIB + 10), streamOf(paddedBody(MIB + 10))]) {
        const res = await fetch(url, { method: "POST", headers, body });
        expectEnvelope({ status: res.status, body: await res.json(), headers: res.headers }, 413, "payload_too_large");
      }
    } finally {
      server.stop(true);
    }
  });
});

describe("500", () => {
  test("an unexpected failure is 500 internal with no stack trace; the log keeps the detail under the same request id", async () => {
    const restore = await t.failWrites("blacklist_entries", "INSERT");
    const res = await t.call("POST", "/v1/partner/blacklist", {
      key: writeKey,
      body: { provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "x" },
    });
    const text = await res.text();
    const parsed = { status: res.status, body: JSON.parse(text), headers: res.headers };
    expectEnvelope(parsed, 500, "internal");
    await restore();
    for (const leak of ["injected fault", "test_fault", ".ts", "    at ", "stack", "SQLite", "RAISE", "Error:"]) expect(text).not.toContain(leak);
    t.runtime.log.flush();
    const log = logged.join("");
    expect(log).toContain(parsed.body.error.request_id);
    expect(log).toContain("injected fault");
  });

  test("a read that fails is 500 in the envelope too", async () => {
    await t.rows("ALTER TABLE blacklist_changes RENAME TO blacklist_changes_away");
    const res = await t.json("GET", "/v1/blacklist/changes", { key, headers: { "x-request-id": "trace-500" } });
    expectEnvelope(res, 500, "internal");
    expect(res.body.error.request_id).toBe("trace-500");
    expect(JSON.stringify(res.body)).not.toContain("blacklist_changes");
    expect(res.headers.get("x-ratelimit-remaining")).not.toBeNull();
  });
});

describe("X-Request-Id", () => {
  test("generated when absent, different per request, and sane", async () => {
    const a = await t.json("GET", "/v1/blacklist", { key });
    const b = await t.json("GET", "/v1/blacklist", { key });
    const idA = a.headers.get("x-request-id")!;
    const idB = b.headers.get("x-request-id")!;
    expect(idA).toMatch(SANE_ID);
    expect(idB).toMatch(SANE_ID);
    expect(idA).not.toBe(idB);
  });

  test.each(["client-42_abc.def:ghi", "0af7651916cd43dd8448eb211c80319c", "x".repeat(128)])("a sane incoming id is echoed: %s", async (incoming) => {
    const ok = await t.json("GET", "/v1/blacklist", { key, headers: { "x-request-id": incoming } });
    expect(ok.headers.get("x-request-id")).toBe(incoming);
    const failed = await t.json("GET", "/v1/blacklist?limit=0", { key, headers: { "x-request-id": incoming } });
    expect(failed.headers.get("x-request-id")).toBe(incoming);
    expect(failed.body.error.request_id).toBe(incoming);
  });

  test.each(["<script>alert(1)</script>", "has space", "x".repeat(129), "semi;colon", "quote\"d", "path/../x", "caf\u00e9"])(
    "a hostile incoming id is replaced: %s",
    async (incoming) => {
      const res = await t.json("GET", "/v1/nope", { headers: { "x-request-id": incoming } });
      const id = res.headers.get("x-request-id")!;
      expect(id).not.toBe(incoming);
      expect(id).toMatch(SANE_ID);
      expectEnvelope(res, 404, "not_found");
    },
  );

  test("an empty incoming id is replaced by a generated one", async () => {
    const res = await t.json("GET", "/v1/blacklist", { key, headers: { "x-request-id": "" } });
    expect(res.headers.get("x-request-id")).toMatch(SANE_ID);
  });
});

describe("rate-limit headers", () => {
  test("keyed routes describe the account's daily quota", async () => {
    const { key: freeKey } = await t.account({ tier: "free", burst: 1_000 });
    const first = await t.json("GET", "/v1/blacklist", { key: freeKey });
    expect(first.headers.get("x-ratelimit-limit")).toBe("100");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("99");
    expect(first.headers.get("x-ratelimit-reset")).toBe(NEXT_MIDNIGHT);
    const second = await t.json("GET", "/v1/blacklist/check?id=1", { key: freeKey });
    expect(second.status).toBe(400);
    expect(second.headers.get("x-ratelimit-remaining")).toBe("98");
  });

  test("keyless routes describe the caller's IP bucket", async () => {
    const res = await t.json("GET", "/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(res.headers.get("x-ratelimit-limit")).toBe("60");
    expect(Number(res.headers.get("x-ratelimit-remaining"))).toBeGreaterThanOrEqual(0);
    expect(res.headers.get("x-ratelimit-reset")).toMatch(/^\d+$/);
  });

  test("every response carries X-RateLimit-Remaining and X-Request-Id", async () => {
    const admin = await t.account({ tier: "enterprise", scope: "admin" });
    const tiny = await t.account({ tier: "free", dailyQuota: 1 });
    await t.json("GET", "/v1/blacklist", { key: tiny.key });
    const big = paddedBody(MIB + 1);
    const responses: Array<[string, Response]> = [
      ["keyed 200", await t.call("GET", "/v1/blacklist", { key })],
      ["keyed 400", await t.call("GET", "/v1/blacklist/check", { key })],
      ["keyed 401", await t.call("GET", "/v1/blacklist")],
      ["keyed 403", await t.call("POST", "/v1/partner/blacklist", { key, body: {} })],
      ["keyed 404", await t.call("GET", "/v1/blacklist/entries/bl_nope", { key })],
      ["keyed 422", await t.call("GET", "/v1/blacklist?limit=0", { key })],
      ["keyed 429", await t.call("GET", "/v1/blacklist", { key: tiny.key })],
      ["parse 400", await t.call("POST", "/v1/blacklist/check/batch", { key, body: "{" })],
      ["route 404", await t.call("GET", "/nowhere")],
      ["method 405", await t.call("DELETE", "/v1/blacklist", { key })],
      ["body 413", await t.app.handle(new Request("http://localhost/v1/blacklist/check/batch", { method: "POST", body: big, headers: { "content-length": String(big.length), "content-type": "application/json" } }))],
      ["healthz", await t.call("GET", "/healthz")],
      ["metrics", await t.call("GET", "/metrics", { key: admin.key })],
      ["openapi", await t.call("GET", "/openapi.json")],
      ["public preflight", await t.call("OPTIONS", "/v1/public/blacklist/check", { headers: { origin: "https://example.com", "access-control-request-method": "GET" } })],
      ["keyed preflight", await t.call("OPTIONS", "/v1/blacklist/check", { headers: { origin: "https://example.com", "access-control-request-method": "GET" } })],
    ];
    await t.rows("ALTER TABLE blacklist_changes RENAME TO blacklist_changes_away");
    responses.push(["500", await t.call("GET", "/v1/blacklist/changes", { key })]);
    const statuses: Record<string, number> = {};
    for (const [name, res] of responses) {
      statuses[name] = res.status;
      expect({ name, remaining: res.headers.get("x-ratelimit-remaining") }).toEqual({ name, remaining: expect.stringMatching(/^\d+$/) });
      expect({ name, id: res.headers.get("x-request-id") }).toEqual({ name, id: expect.stringMatching(SANE_ID) });
    }
    expect(statuses).toEqual({
      "keyed 200": 200,
      "keyed 400": 400,
      "keyed 401": 401,
      "keyed 403": 403,
      "keyed 404": 404,
      "keyed 422": 422,
      "keyed 429": 429,
      "parse 400": 400,
      "route 404": 404,
      "method 405": 405,
      "body 413": 413,
      healthz: 200,
      metrics: 200,
      openapi: 200,
      "public preflight": 204,
      "keyed preflight": 405,
      "500": 500,
    });
  });

  test("error envelopes' request_id equals the header on every kind of error", async () => {
    const cases: Res[] = [
      await t.json("GET", "/v1/blacklist"),
      await t.json("GET", "/v1/blacklist?cursor=zzz", { key }),
      await t.json("GET", "/v1/blacklist?limit=0", { key }),
      await t.json("GET", "/v1/blacklist/entries/bl_nope", { key }),
      await t.json("GET", "/v2", { key }),
      await t.json("DELETE", "/v1/blacklist", { key }),
      await t.json("POST", "/v1/blacklist/check/batch", { key, body: "{" }),
      await t.json("POST", "/v1/partner/blacklist", { key, body: {} }),
    ];
    for (const res of cases) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.body.error.request_id).toBe(res.headers.get("x-request-id")!);
    }
  });
});

describe("CORS", () => {
  const ORIGIN = { origin: "https://evil.example" };
  const PREFLIGHT = { ...ORIGIN, "access-control-request-method": "GET", "access-control-request-headers": "authorization" };

  test.each(["/v1/blacklist", "/v1/blacklist/check?provider=discord&id=1", "/v1/account/usage", "/v1/blacklist/entries/bl_nope"])(
    "keyed GET %s carries no Access-Control-Allow-Origin",
    async (path) => {
      for (const k of [key, null]) {
        const res = await t.call("GET", path, { key: k, headers: ORIGIN });
        expect(res.headers.get("access-control-allow-origin")).toBeNull();
      }
    },
  );

  test.each(["/v1/blacklist", "/v1/blacklist/check", "/v1/blacklist/check/batch", "/v1/partner/blacklist", "/v1/admin/accounts", "/v1/account/usage", "/metrics"])(
    "a keyed route answers no preflight: OPTIONS %s",
    async (path) => {
      const res = await t.call("OPTIONS", path, { headers: PREFLIGHT });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
      expect(res.headers.get("access-control-allow-methods")).toBeNull();
      expect(res.headers.get("access-control-allow-headers")).toBeNull();
    },
  );

  test("keyless non-public routes carry no CORS headers either", async () => {
    for (const path of ["/healthz", "/v1/publicity", "/nope"]) {
      const res = await t.call("GET", path, { headers: ORIGIN });
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  test.each([
    "/v1/public/blacklist/check",
    "/v1/public/trust/someone",
    "/v1/stats/public",
    "/badge/someone.svg",
    "/referrals/leaderboard",
    "/widget.js",
    "/widget/trust.js",
    "/v1/courses",
    "/v1/courses/scam-safety",
  ])("public path %s allows any origin without credentials and answers preflights", async (path) => {
    const preflight = await t.call("OPTIONS", path, { headers: PREFLIGHT });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("GET");
    expect(preflight.headers.get("access-control-allow-credentials")).toBeNull();
    expect(preflight.headers.get("x-request-id")).toMatch(SANE_ID);
    const get = await t.call("GET", path, { headers: ORIGIN });
    expect(get.headers.get("access-control-allow-origin")).toBe("*");
    expect(get.headers.get("access-control-allow-credentials")).toBeNull();
    expect(get.headers.get("access-control-expose-headers")).toContain("X-Request-Id");
  });
});
