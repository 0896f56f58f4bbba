// GET /v1/blacklist/check as `serve` answers it: Bun's router hands the common case (an admitted
// key, a well-formed query) to the check's fast path (src/modules/blacklist/check-fast-path.ts)
// and every other request to the app. Over HTTP, every answer must be the one the app gives
// through `app.handle`, with the same charges, usage rows, metrics and access lines. PostgreSQL
// has no fast path (its key lookups await); the same tests hold there.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Logger } from "../../src/logger";
import { createTestApp, expectEnvelope, type TestApp } from "../helpers";

const CHECK = "/v1/blacklist/check";

let t: TestApp;
let lines: string[];
let reader: { key: string; accountId: string; keyId: string };

beforeEach(async () => {
  t = await createTestApp({ http: true });
  // Each test's logger writes into its own array: a previous test's logger flushing late (its
  // timer) must not land in this one's.
  const written: string[] = (lines = []);
  t.runtime.log = new Logger({ access: true }, (text) => written.push(...text.trimEnd().split("\n")));
  reader = await t.account({ tier: "pro", burst: 10_000, dailyQuota: 100_000 });
  const writer = await t.account({ tier: "pro", scope: "write", burst: 10_000, dailyQuota: 100_000 });
  const add = async (body: Record<string, unknown>) => {
    const res = await t.json("POST", "/v1/partner/blacklist", { key: writer.key, body: { reason_code: "scam_trade", ...body } });
    expect(res.status).toBe(201);
  };
  await add({ provider: "discord", provider_user_id: "100000000000000001", severity: "ban", summary: "Took payment, never delivered." });
  await add({ provider: "roblox", provider_user_id: "4242", severity: "warn", high_risk: true });
  await add({ provider: "discord", provider_user_id: "100000000000000002", severity: "ban", vertical: "minecraft" });
  t.runtime.log.flush();
  lines.length = 0;
});

afterEach(() => t.close());

/** The same request through the app alone, never through Bun's router. */
const viaApp = (path: string, headers: Record<string, string> = {}) => t.app.handle(new Request(`http://localhost${path}`, { headers }));
const viaHttp = (path: string, headers: Record<string, string> = {}) => t.call("GET", path, { headers });
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** Status, body and headers of an answer, without what differs between two answers by design. */
async function comparable(res: Response) {
  const text = await res.text();
  const body = text ? JSON.parse(text) : null;
  if (body?.error) delete body.error.request_id;
  return {
    status: res.status,
    body,
    contentType: res.headers.get("content-type"),
    limit: res.headers.get("x-ratelimit-limit"),
    reset: res.headers.get("x-ratelimit-reset"),
    retryAfter: res.headers.get("retry-after"),
    requestId: /^req_[a-z0-9]+$/.test(res.headers.get("x-request-id") ?? ""),
  };
}

describe("GET /v1/blacklist/check over HTTP", () => {
  test("answers every kind of check, and every malformed one, exactly as the app does", async () => {
    const paths = [
      `${CHECK}?provider=discord&id=100000000000000001`, // ban
      `${CHECK}?provider=roblox&id=4242`, // warn, high risk
      `${CHECK}?provider=discord&id=100000000000000003`, // nobody listed
      `${CHECK}?provider=discord&id=100000000000000002&vertical=minecraft`,
      `${CHECK}?provider=discord&id=100000000000000002&vertical=roblox`,
      `${CHECK}?provider=discord&id=%20100000000000000001%20`, // padded id
      `${CHECK}?provider=discord&id=100000000000000001&utm=bot`, // an extra parameter
      `${CHECK}?provider=discord&id=abc`, // not a Discord id: 400
      `${CHECK}?provider=myspace&id=1`,
      `${CHECK}?provider=discord`,
      `${CHECK}?id=1`,
      CHECK,
      `${CHECK}?provider=discord&id=${"9".repeat(129)}`,
      `${CHECK}?provider=discord&provider=roblox&id=1`,
      `${CHECK}?provider=discord&id=1%002`,
      `${CHECK}?provider=discord&id=1&vertical=fortnite`,
      `${CHECK}?provider=roblox&id=4242&vertical=all`,
    ];
    let remaining: number | null = null;
    for (const path of paths) {
      const overHttp = await viaHttp(path, bearer(reader.key));
      const inApp = await viaApp(path, bearer(reader.key));
      // Each answer charged one call, whichever path gave it.
      const before = Number(overHttp.headers.get("x-ratelimit-remaining"));
      expect(Number(inApp.headers.get("x-ratelimit-remaining")), path).toBe(before - 1);
      if (remaining !== null) expect(before, path).toBe(remaining - 1);
      remaining = Number(inApp.headers.get("x-ratelimit-remaining"));
      expect(await comparable(overHttp), path).toEqual(await comparable(inApp));
    }
  });

  test("a hit answers the seed's fields; refusals answer the app's envelopes", async () => {
    const hit = await t.json("GET", `${CHECK}?provider=discord&id=100000000000000001`, { key: reader.key });
    expect(hit.status).toBe(200);
    expect(hit.headers.get("content-type")).toBe("application/json;charset=utf-8");
    expect(hit.body).toMatchObject({ provider: "discord", id: "100000000000000001", banned: true, severity: "ban", entry: { severity: "ban", summary: "Took payment, never delivered." } });
    expectEnvelope(await t.json("GET", `${CHECK}?provider=discord&id=1`), 401, "unauthorized");
    expectEnvelope(await t.json("GET", `${CHECK}?provider=discord&id=1`, { key: "tl_live_" + "x".repeat(32) }), 401, "unauthorized");
    expectEnvelope(await t.json("GET", `${CHECK}?provider=discord&id=abc`, { key: reader.key }), 400, "invalid_request");
  });

  test("a revoked key, a suspended account, a spent quota and an empty bucket are refused at once", async () => {
    const path = `${CHECK}?provider=discord&id=100000000000000001`;
    const revoked = await t.account({ tier: "pro", burst: 10_000 });
    expect((await viaHttp(path, bearer(revoked.key))).status).toBe(200);
    await t.services.accounts.revokeKey(revoked.keyId);
    expectEnvelope(await t.json("GET", path, { key: revoked.key }), 401, "unauthorized");

    const suspended = await t.account({ tier: "pro", burst: 10_000 });
    expect((await viaHttp(path, bearer(suspended.key))).status).toBe(200);
    await t.services.accounts.updateAccount(suspended.accountId, { status: "suspended" });
    expectEnvelope(await t.json("GET", path, { key: suspended.key }), 402, "subscription_required");

    const quota = await t.account({ tier: "pro", burst: 10_000, dailyQuota: 2 });
    expect((await viaHttp(path, bearer(quota.key))).status).toBe(200);
    expect((await viaHttp(path, bearer(quota.key))).status).toBe(200);
    const spent = await t.json("GET", path, { key: quota.key });
    expectEnvelope(spent, 429, "quota_exceeded");
    expect(spent.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(spent.headers.get("retry-after"))).toBeGreaterThan(0);

    // A burst of 1 a second holds 4; the test clock stands still, so the bucket never refills.
    const bucket = await t.account({ tier: "pro", burst: 1 });
    for (let i = 0; i < 4; i++) expect((await viaHttp(path, bearer(bucket.key))).status).toBe(200);
    const empty = await t.json("GET", path, { key: bucket.key });
    expectEnvelope(empty, 429, "rate_limited");
    expect(Number(empty.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("every call is metered once, whichever path answered it", async () => {
    const caller = await t.account({ tier: "pro", burst: 10_000, dailyQuota: 100 });
    for (const path of [`${CHECK}?provider=discord&id=1`, `${CHECK}?provider=roblox&id=4242`, `${CHECK}?provider=discord&id=abc`, `${CHECK}?id=1`]) {
      await viaHttp(path, bearer(caller.key));
    }
    await viaHttp(`${CHECK}?provider=discord&id=1`); // no key: not the account's call
    await t.runtime.meter.flush();
    const usage = await t.rows("SELECT endpoint, count FROM usage_endpoints WHERE key_id = ?", caller.keyId);
    expect(usage).toEqual([{ endpoint: `GET ${CHECK}`, count: 4 }]);
    const daily = await t.rows("SELECT count FROM usage_daily WHERE account_id = ?", caller.accountId);
    expect(daily).toEqual([{ count: 4 }]);
  });

  test("each answer counts once in /metrics and writes one access line without the query", async () => {
    const admin = await t.account({ tier: "enterprise", scope: "admin", burst: 10_000 });
    const answers: Response[] = [];
    for (let i = 0; i < 3; i++) answers.push(await viaHttp(`${CHECK}?provider=discord&id=10${i}`, bearer(reader.key)));
    answers.push(await viaHttp(`${CHECK}?provider=discord&id=1`));
    const metrics = await (await viaHttp("/metrics", bearer(admin.key))).text();
    const count = (status: number) =>
      Number(metrics.match(new RegExp(`trustlist_http_requests_total\\{method="GET",route="${CHECK}",status="${status}"\\} (\\d+)`))?.[1] ?? 0);
    expect(count(200)).toBe(3);
    expect(count(401)).toBe(1);

    t.runtime.log.flush();
    const access = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === "request" && line.route === CHECK);
    expect(access.map((line) => [line.status, line.path, line.request_id, line.key_id])).toEqual(
      answers.map((res) => [res.status, CHECK, res.headers.get("x-request-id"), res.status === 200 ? reader.keyId : undefined]),
    );
    for (const line of access) expect(line.duration_ms).toBeGreaterThanOrEqual(0);
  });

  test("a caller's X-Request-Id is echoed; a malformed one is replaced", async () => {
    const path = `${CHECK}?provider=discord&id=1`;
    const echoed = await viaHttp(path, { ...bearer(reader.key), "x-request-id": "bot-7:check.42" });
    expect(echoed.headers.get("x-request-id")).toBe("bot-7:check.42");
    const replaced = await viaHttp(path, { ...bearer(reader.key), "x-request-id": "<script>" });
    expect(replaced.status).toBe(200);
    expect(replaced.headers.get("x-request-id")).toMatch(/^req_[a-z0-9]+$/);
  });

  test("HEAD is answered by the app, charged like GET, with no body", async () => {
    const path = `${CHECK}?provider=discord&id=100000000000000001`;
    const get = await viaHttp(path, bearer(reader.key));
    const head = await t.call("HEAD", path, { key: reader.key });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect(Number(head.headers.get("x-ratelimit-remaining"))).toBe(Number(get.headers.get("x-ratelimit-remaining")) - 1);
  });
});
