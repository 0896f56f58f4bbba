// GET /badge/{handle} as `serve` answers it: Bun's router hands a handle without percent-escapes
// and a query the route's schema takes to the badge's fast path (src/modules/badge/fast-path.ts),
// and every other request to the app. Over HTTP, every answer must be the one the app gives
// through `app.handle`: the same image or JSON, headers, metrics and access lines. The fast path
// serves both databases; these tests run on each.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { Logger } from "../../src/logger";
import { createTestApp, type TestApp } from "../helpers";

let t: TestApp;
let lines: string[];

beforeEach(async () => {
  t = await createTestApp({ http: true });
  const written: string[] = (lines = []);
  t.runtime.log = new Logger({ access: true }, (text) => written.push(...text.trimEnd().split("\n")));
  await t.services.creators.upsert("alice", { display_name: "Alice Makes" });
  await t.services.creators.upsert("bob", {});
});

afterEach(() => t.close());

/** The same request through the app alone, never through Bun's router. */
const viaApp = (path: string, headers: Record<string, string> = {}) => t.app.handle(new Request(`http://localhost${path}`, { headers }));
const viaHttp = (path: string, headers: Record<string, string> = {}) => t.call("GET", path, { headers });

const SHARED_HEADERS = [
  "content-type",
  "cache-control",
  "access-control-allow-origin",
  "access-control-expose-headers",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
];

/** Status, body and headers of an answer, without what differs between two answers by design. */
async function comparable(res: Response) {
  const headers = Object.fromEntries(SHARED_HEADERS.map((name) => [name, res.headers.get(name)]));
  return { status: res.status, body: await res.text(), headers, requestId: /^req_[a-z0-9]+$/.test(res.headers.get("x-request-id") ?? "") };
}

test("every kind of badge, and every odd request for one, is answered exactly as the app does", async () => {
  const paths = [
    "/badge/alice",
    "/badge/alice?theme=light",
    "/badge/alice?theme=dark",
    "/badge/alice?theme=neon", // any other theme: the default badge
    "/badge/alice?theme=light&theme=dark", // repeated: the schema's call, so the app's
    "/badge/alice?utm=page",
    "/badge/@Alice.svg",
    "/badge/ALICE.SVG?theme=light",
    "/badge/alice.json",
    "/badge/bob",
    "/badge/bob.json",
    "/badge/nobody",
    "/badge/nobody.json",
    "/badge/not%20a%20handle", // escaped: decoded by the app
    "/badge/%40alice", // an escaped @, still alice
    "/badge/%E0%A4", // a malformed escape: the neutral badge
    "/badge/%zz.json",
    `/badge/${"a".repeat(4000)}`,
    "/badge/<b>",
  ];
  for (const path of paths) {
    const overHttp = await comparable(await viaHttp(path));
    expect(overHttp.status, path).toBe(200);
    expect(overHttp, path).toEqual(await comparable(await viaApp(path)));
  }
  const svg = await (await viaHttp("/badge/alice?theme=light")).text();
  expect(svg).toStartWith("<svg");
  expect(svg).toContain(">Alice Makes<");
  expect(await (await viaHttp("/badge/alice.json")).json()).toMatchObject({ schemaVersion: 1, label: "Alice Makes", cacheSeconds: 3600 });
});

test("the rate-limit headers show the caller's public bucket without charging it", async () => {
  // Three calls of a keyless public route charge this address's bucket; the badge only shows it.
  for (let i = 0; i < 3; i++) expect((await viaHttp("/v1/stats/public")).status).toBe(200);
  const shown = await viaHttp("/badge/alice");
  const capacity = Number(shown.headers.get("x-ratelimit-limit"));
  expect(capacity).toBeGreaterThan(3);
  const remaining = Number(shown.headers.get("x-ratelimit-remaining"));
  expect(remaining).toBeLessThanOrEqual(capacity - 3);
  for (let i = 0; i < 5; i++) expect(Number((await viaHttp("/badge/alice")).headers.get("x-ratelimit-remaining"))).toBe(remaining);
});

test("a badge follows its creator's name at once", async () => {
  expect(await (await viaHttp("/badge/alice")).text()).toContain(">Alice Makes<");
  await t.services.creators.upsert("alice", { display_name: "Alice Renamed" });
  expect(await (await viaHttp("/badge/alice")).text()).toContain(">Alice Renamed<");
});

test("each answer counts once in /metrics and writes one access line without the query", async () => {
  const admin = await t.account({ tier: "enterprise", scope: "admin", burst: 10_000 });
  const answers: Response[] = [];
  for (const path of ["/badge/alice?theme=light", "/badge/nobody", "/badge/alice.json", "/badge/not%20a%20handle"]) answers.push(await viaHttp(path));
  const metrics = await (await viaHttp("/metrics", { authorization: `Bearer ${admin.key}` })).text();
  expect(metrics).toMatch(/trustlist_http_requests_total\{method="GET",route="\/badge\/:handle",status="200"\} 4\b/);

  t.runtime.log.flush();
  const access = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === "request" && line.route === "/badge/:handle");
  expect(access.map((line) => [line.status, line.path, line.request_id])).toEqual([
    [200, "/badge/alice", answers[0].headers.get("x-request-id")],
    [200, "/badge/nobody", answers[1].headers.get("x-request-id")],
    [200, "/badge/alice.json", answers[2].headers.get("x-request-id")],
    [200, "/badge/not%20a%20handle", answers[3].headers.get("x-request-id")],
  ]);
});

test("a caller's X-Request-Id is echoed; a malformed one is replaced", async () => {
  expect((await viaHttp("/badge/alice", { "x-request-id": "page-7:badge.42" })).headers.get("x-request-id")).toBe("page-7:badge.42");
  const replaced = await viaHttp("/badge/alice", { "x-request-id": "<script>" });
  expect(replaced.status).toBe(200);
  expect(replaced.headers.get("x-request-id")).toMatch(/^req_[a-z0-9]+$/);
});

test("HEAD and a CORS preflight are the app's: no body, the same headers", async () => {
  const head = await t.call("HEAD", "/badge/alice");
  expect(head.status).toBe(200);
  expect(head.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
  expect(await head.text()).toBe("");
  const preflight = await t.call("OPTIONS", "/badge/alice", { headers: { origin: "https://example.com", "access-control-request-method": "GET" } });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
});

test("a database that fails answers the envelope's 500 with the request id, as the app does", async () => {
  // A real failure of the creator's read: its table is gone.
  await t.rows("ALTER TABLE creators RENAME TO creators_away");
  const overHttp = await viaHttp("/badge/carol", { "x-request-id": "closed-1" });
  const inApp = await viaApp("/badge/dave", { "x-request-id": "closed-2" });
  expect(overHttp.status).toBe(500);
  expect(inApp.status).toBe(500);
  expect(overHttp.headers.get("content-type")).toStartWith("application/json");
  const body = (await overHttp.json()) as { error: { code: string; request_id: string } };
  expect(body.error).toMatchObject({ code: "internal", request_id: "closed-1" });
  expect(((await inApp.json()) as { error: { code: string } }).error.code).toBe("internal");
});
