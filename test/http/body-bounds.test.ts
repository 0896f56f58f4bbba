// Request bodies are read by one bounded parser on every route that takes one: deeply nested JSON
// is refused before it is parsed or validated (it once held the one request thread for 17 s, and
// 100,000 levels answered 500), a body must say it is JSON, and its size is bounded whether or not
// it declares a length. Sent over real loopback HTTP, as an attacker's client sends it, with
// /healthz asked at the same time to show the server stays free for everyone else.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_BODY_DEPTH, rawBodyLimit } from "../../src/http/body";
import { isKeyedPath, isSessionPath } from "../../src/http/conventions";
import { createTestApp, expectEnvelope, partnerWriter, signIn, type TestApp } from "../helpers";

/** The attack bodies: 20,000 nested arrays (40 KB), and 100,000 nested objects (600 KB). */
const DEEP_ARRAYS = "[".repeat(20_000) + "]".repeat(20_000);
const DEEP_OBJECTS = '{"a":'.repeat(100_000) + "1" + "}".repeat(100_000);

/** Generous bounds for an answer that is refused before any parsing: a loaded CI machine stays far below them. */
const REFUSAL_BOUND_MS = 1_000;
const HEALTHZ_BOUND_MS = 1_000;

let t: TestApp;
let cookie: string;
let readKey: string;
let adminKey: string;

beforeAll(async () => {
  t = await createTestApp({ http: true });
  const write = await partnerWriter(t);
  await write("PUT", "/v1/partner/creators/alicemakes", {});
  cookie = await signIn(t, "alicemakes");
  ({ key: readKey } = await t.account({ tier: "free", scope: "read", burst: 10_000 }));
  ({ key: adminKey } = await t.account({ tier: "enterprise", scope: "admin", burst: 10_000 }));
});
afterAll(() => t.close());

/** Sends `body` as the attacker did and /healthz at the same moment; answers both with their times. */
async function underAttack(method: string, path: string, body: string, headers: Record<string, string>) {
  const timed = async (request: Promise<Response>) => {
    const started = performance.now();
    const res = await request;
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers, ms: performance.now() - started };
  };
  const attack = timed(t.call(method, path, { body, headers: { "content-type": "application/json", ...headers } }));
  const health = timed(t.call("GET", "/healthz"));
  return { attack: await attack, health: await health };
}

describe("deeply nested bodies are refused before parsing, on every kind of route", () => {
  const cases = [
    { kind: "keyed (a free read key on the webhooks route, before its plan check)", method: "POST", path: "/v1/webhooks", headers: () => ({ authorization: `Bearer ${readKey}` }) },
    { kind: "session (arming a tripwire)", method: "POST", path: "/v1/me/tripwires", headers: () => ({ cookie }) },
    { kind: "keyless (signing out)", method: "POST", path: "/auth/logout", headers: () => ({}) },
  ];
  for (const c of cases) {
    for (const [name, body] of [
      ["20,000 nested arrays", DEEP_ARRAYS],
      ["100,000 nested objects", DEEP_OBJECTS],
    ] as const) {
      test(`${c.kind}: ${name} is 400 at once, and /healthz answers meanwhile`, async () => {
        const { attack, health } = await underAttack(c.method, c.path, body, c.headers());
        expectEnvelope(attack, 400, "invalid_request");
        expect(attack.body.error.message).toContain(`deeper than ${MAX_BODY_DEPTH} levels`);
        expect(attack.ms).toBeLessThan(REFUSAL_BOUND_MS);
        expect(health.status).toBe(200);
        expect(health.ms).toBeLessThan(HEALTHZ_BOUND_MS);
      });
    }
  }

  test("the guards still come first: without a key or a session the deep body is 401", async () => {
    expectEnvelope(await t.json("POST", "/v1/webhooks", { body: DEEP_ARRAYS }), 401, "unauthorized");
    expectEnvelope(await t.json("POST", "/v1/me/tripwires", { body: DEEP_ARRAYS }), 401, "unauthorized");
    expectEnvelope(await t.json("POST", "/v1/courses/scam-safety/submit", { body: DEEP_OBJECTS }), 401, "unauthorized");
  });

  test("every route that takes a body refuses the deep body with 400, never 500", async () => {
    // File routes (evidence uploads) take bytes, never JSON: their own tests bound them.
    const writes = t.app.routes.filter((r) => ["POST", "PUT", "PATCH", "DELETE"].includes(r.method) && rawBodyLimit(r.method, r.path) === undefined);
    // The route table must hold the body-taking routes of every kind, or this test would prove little.
    expect(writes.length).toBeGreaterThan(25);
    expect(writes.some((r) => isSessionPath(r.path))).toBe(true);
    expect(writes.some((r) => isKeyedPath(r.path))).toBe(true);
    const answered: string[] = [];
    for (const route of writes) {
      const path = route.path.replace(/:[^/]+/g, "x").replace(/\*$/, "x");
      const headers: Record<string, string> = isKeyedPath(path) ? { authorization: `Bearer ${adminKey}` } : { cookie };
      for (const body of [DEEP_ARRAYS, DEEP_OBJECTS]) {
        const res = await t.json(route.method, path, { body, headers });
        answered.push(`${route.method} ${route.path} ${res.status}`);
        expect(res.status, `${route.method} ${route.path}`).not.toBe(500);
        expectEnvelope(res, 400, "invalid_request");
      }
    }
    expect(answered.length).toBe(writes.length * 2);
  });

  test(`${MAX_BODY_DEPTH} levels pass on to validation (422); one more is 400; brackets inside strings do not count`, async () => {
    const nested = (levels: number) => `{"who":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;
    const atLimit = await t.json("POST", "/v1/me/tripwires", { body: nested(MAX_BODY_DEPTH), headers: { cookie } });
    expectEnvelope(atLimit, 422, "unprocessable");
    const over = await t.json("POST", "/v1/me/tripwires", { body: nested(MAX_BODY_DEPTH + 1), headers: { cookie } });
    expectEnvelope(over, 400, "invalid_request");
    const quoted = JSON.stringify({ who: "[".repeat(5_000), triggers: ["{\"[".repeat(100)] });
    const res = await t.json("POST", "/v1/me/tripwires", { body: quoted, headers: { cookie } });
    expectEnvelope(res, 422, "unprocessable");
    // An escaped quote does not end the string: the brackets after it are still inside it.
    const escaped = `{"who":"\\"${"[".repeat(100)}"}`;
    expectEnvelope(await t.json("POST", "/v1/me/tripwires", { body: escaped, headers: { cookie } }), 422, "unprocessable");
  });

  test("a big flat body that fails validation is named in a short message, at once", async () => {
    // 1 MiB less a little: under the size limit, every item of the wrong type.
    const triggers = new Array(200_000).fill(1);
    const body = JSON.stringify({ who: "@shadowbuilds", triggers });
    expect(body.length).toBeLessThan(1024 * 1024);
    const { attack, health } = await underAttack("POST", "/v1/me/tripwires", body, { cookie });
    expectEnvelope(attack, 422, "unprocessable");
    expect(attack.body.error.message.length).toBeLessThan(300);
    expect(attack.ms).toBeLessThan(REFUSAL_BOUND_MS);
    expect(health.ms).toBeLessThan(HEALTHZ_BOUND_MS);
    // An unknown field named by a half-megabyte key is named by its start.
    const odd = await t.json("POST", "/v1/me/tripwires", { body: JSON.stringify({ who: "@shadowbuilds", ["k".repeat(500_000)]: 1 }), headers: { cookie } });
    expectEnvelope(odd, 422, "unprocessable");
    expect(odd.body.error.message.length).toBeLessThan(300);
    // Nothing was armed by any of the refused bodies.
    expect((await t.json("GET", "/v1/me/tripwires", { headers: { cookie } })).body.tripwires).toEqual([]);
  });
});

describe("a body must say it is JSON", () => {
  const wire = JSON.stringify({ who: "@shadowbuilds" });
  test("text/plain (what another origin's page can send without asking) is 415 on keyed, session and keyless routes", async () => {
    const plain = { "content-type": "text/plain" };
    const keyed = await t.json("POST", "/v1/webhooks", { body: JSON.stringify({ url: "https://example.com/hook", events: ["blacklist.added"] }), headers: { ...plain, authorization: `Bearer ${adminKey}` } });
    expectEnvelope(keyed, 415, "unsupported_media_type");
    expectEnvelope(await t.json("POST", "/v1/me/tripwires", { body: wire, headers: { ...plain, cookie } }), 415, "unsupported_media_type");
    expectEnvelope(await t.json("POST", "/auth/logout", { body: "{}", headers: plain }), 415, "unsupported_media_type");
    expectEnvelope(await t.json("POST", "/v1/me/tripwires", { body: wire, headers: { "content-type": "application/x-www-form-urlencoded", cookie } }), 415, "unsupported_media_type");
    expect((await t.json("GET", "/v1/me/tripwires", { headers: { cookie } })).body.tripwires).toEqual([]);
  });

  test("application/json with a charset is JSON; the key still comes first (401 before 415)", async () => {
    const armed = await t.json("POST", "/v1/me/tripwires", { body: wire, headers: { "content-type": "Application/JSON; charset=utf-8", cookie } });
    expect(armed.status).toBe(201);
    expect((await t.json("DELETE", `/v1/me/tripwires/${armed.body.id}`, { headers: { cookie } })).status).toBe(200);
    expectEnvelope(await t.json("POST", "/v1/webhooks", { body: "{}", headers: { "content-type": "text/plain" } }), 401, "unauthorized");
  });

  test("a request without a body needs no content type", async () => {
    expect((await t.json("POST", "/auth/logout", { headers: { "content-type": "text/plain" } })).status).toBe(200);
  });
});

describe("size", () => {
  test("a body over 1 MiB is 413, whether it declares its length or streams without one", async () => {
    const big = JSON.stringify({ who: "x".repeat(1024 * 1024) });
    expectEnvelope(await t.json("POST", "/v1/me/tripwires", { body: big, headers: { cookie } }), 413, "payload_too_large");
    const chunks = [new TextEncoder().encode('{"who":"'), new Uint8Array(1024 * 1024).fill(0x61), new TextEncoder().encode('"}')];
    const streamed = new ReadableStream({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    for (const [path, headers] of [
      ["/v1/me/tripwires", { cookie }],
      ["/auth/logout", {}],
    ] as const) {
      const stream = path === "/auth/logout" ? new Blob([new Uint8Array(1024 * 1024 + 10).fill(0x20)]).stream() : streamed;
      const res = await fetch(`http://127.0.0.1:${t.app.server!.port}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: t.origin, ...headers },
        body: stream,
      });
      const body = await res.json();
      expectEnvelope({ status: res.status, body, headers: res.headers }, 413, "payload_too_large");
    }
  });
});
