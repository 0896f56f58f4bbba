// The session cookie against other pages of the same site: a write made with the cookie must come
// from this service's own origin (a sibling subdomain's page once armed a tripwire for a signed-in
// creator), signing out cannot be forced from elsewhere, and a second session cookie planted beside
// the person's own (cookie tossing) is refused rather than guessed at. Keyed routes are not
// cookie-authenticated and need no Origin.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, expectEnvelope, partnerWriter, signIn, type TestApp } from "../helpers";

const SIBLING = "https://evil.trust.example.org";

describe("cookie-authenticated writes on an http deployment without a base URL", () => {
  let t: TestApp;
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    t = await createTestApp();
    const write = await partnerWriter(t);
    for (const handle of ["alicemakes", "bobbuilds", "shadowbuilds"]) await write("PUT", `/v1/partner/creators/${handle}`, {});
    alice = await signIn(t, "alicemakes");
    bob = await signIn(t, "bobbuilds");
  });
  afterAll(() => t.close());

  const wires = async (cookie: string) => (await t.json("GET", "/v1/me/tripwires", { headers: { cookie } })).body.tripwires;
  const arm = (headers: Record<string, string>) => t.json("POST", "/v1/me/tripwires", { body: { who: "@shadowbuilds" }, headers });

  test("the request's own origin is same-origin: arming, preferences and disarming work", async () => {
    expect(t.origin).toBe("http://localhost");
    const armed = await arm({ cookie: alice });
    expect(armed.status).toBe(201);
    expect((await t.json("PUT", "/v1/me/tripwires/preferences", { body: { email: "a@example.org" }, headers: { cookie: alice } })).status).toBe(200);
    expect((await t.json("DELETE", `/v1/me/tripwires/${armed.body.id}`, { headers: { cookie: alice } })).status).toBe(200);
  });

  test("a foreign, a sibling, a 'null' or a missing Origin is 403 on every cookie write, and changes nothing", async () => {
    const armed = await arm({ cookie: bob });
    expect(armed.status).toBe(201);
    for (const origin of [SIBLING, "http://localhost:8080", "https://localhost", "null", "not a url", ""]) {
      const writes = [
        await arm({ cookie: alice, origin }),
        await t.json("PUT", "/v1/me/tripwires/preferences", { body: { email: "evil@example.org" }, headers: { cookie: bob, origin } }),
        await t.json("DELETE", `/v1/me/tripwires/${armed.body.id}`, { headers: { cookie: bob, origin } }),
        await t.json("POST", "/v1/courses/scam-safety/submit", { body: { answers: [] }, headers: { cookie: alice, origin } }),
      ];
      for (const res of writes) {
        expectEnvelope(res, 403, "forbidden");
        expect(res.body.error.message).toMatch(origin === "" ? /no Origin header/ : /must come from http:\/\/localhost/);
      }
    }
    expect(await wires(alice)).toEqual([]);
    expect((await wires(bob)).map((w: any) => w.id)).toEqual([armed.body.id]);
    expect((await t.json("GET", "/v1/me/tripwires", { headers: { cookie: bob } })).body.preferences.email).toBeNull();
  });

  test("Sec-Fetch-Site alone does not stand in for Origin; reads need no Origin", async () => {
    expectEnvelope(await arm({ cookie: alice, origin: "", "sec-fetch-site": "same-origin" }), 403, "forbidden");
    expect((await t.json("GET", "/v1/me", { headers: { cookie: alice, origin: SIBLING } })).status).toBe(200);
  });

  test("the session is checked first: without one a foreign write is 401, and a bad body from a foreign origin is 403", async () => {
    expectEnvelope(await arm({ origin: SIBLING }), 401, "unauthorized");
    expectEnvelope(await t.json("POST", "/v1/me/tripwires", { body: "{bad", headers: { cookie: alice, origin: SIBLING } }), 403, "forbidden");
  });

  test("the API description names the cookie 'session' on http", async () => {
    expect((await t.json("GET", "/openapi.json")).body.components.securitySchemes.session).toMatchObject({ in: "cookie", name: "session" });
  });

  test("keyed routes take no cookie and need no Origin", async () => {
    const { key } = await t.account({ scope: "write" });
    const res = await t.json("PUT", "/v1/partner/creators/nooriginneeded", { key, body: {}, headers: { origin: "" } });
    expect(res.status).toBeLessThan(300);
    expect((await t.json("PUT", "/v1/partner/creators/foreignorigin", { key, body: {}, headers: { origin: SIBLING } })).status).toBeLessThan(300);
  });

  test("a second session cookie (cookie tossing) is 401 on reads and writes, whichever comes first", async () => {
    const carol = await signIn(t, "shadowbuilds");
    for (const cookie of [`${carol}; ${alice}`, `${alice}; ${carol}`, `${alice}; other=1; ${alice}`]) {
      const me = await t.json("GET", "/v1/me", { headers: { cookie } });
      expectEnvelope(me, 401, "unauthorized");
      expect(me.body.error.message).toContain("more than one 'session' cookie");
      expectEnvelope(await arm({ cookie }), 401, "unauthorized");
      expectEnvelope(await t.json("GET", "/v1/courses", { headers: { cookie } }), 401, "unauthorized");
    }
    expect(await wires(alice)).toEqual([]);
    expect(await wires(carol)).toEqual([]);
    // Another cookie whose name merely contains "session" is not a second session.
    expect((await t.json("GET", "/v1/me", { headers: { cookie: `${alice}; xsession=1; session_old=2` } })).status).toBe(200);
  });

  test("signing out from another origin is 403 with no Set-Cookie and the session stays open; from this origin it ends", async () => {
    const dave = await signIn(t, "bobbuilds");
    for (const origin of [SIBLING, ""]) {
      const res = await t.json("POST", "/auth/logout", { headers: { cookie: dave, origin } });
      expectEnvelope(res, 403, "forbidden");
      expect(res.headers.get("set-cookie")).toBeNull();
      expect((await t.json("GET", "/v1/me", { headers: { cookie: dave } })).status).toBe(200);
    }
    const out = await t.json("POST", "/auth/logout", { headers: { cookie: dave } });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ signed_out: true });
    expect(out.headers.get("set-cookie")).toMatch(/^session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax$/);
    expectEnvelope(await t.json("GET", "/v1/me", { headers: { cookie: dave } }), 401, "unauthorized");
  });
});

describe("an https deployment with a base URL", () => {
  const BASE = "https://trust.example.org";
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp({ config: { baseUrl: BASE, baseUrlConfigured: true } });
    const write = await partnerWriter(t);
    await write("PUT", "/v1/partner/creators/alicemakes", {});
    cookie = await signIn(t, "alicemakes");
  });
  afterAll(() => t.close());

  test("the cookie is __Host-session: Secure, Path=/, no Domain", async () => {
    const { key } = await t.account({ scope: "write" });
    const link = await t.json("POST", "/v1/partner/login-links", { key, body: { handle: "alicemakes" } });
    const url = new URL(link.body.url);
    const set = (await t.call("GET", url.pathname + url.search)).headers.get("set-cookie")!;
    expect(set).toMatch(/^__Host-session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure$/);
    expect(set.toLowerCase()).not.toContain("domain=");
    expect(cookie).toStartWith("__Host-session=");
  });

  test("only the base URL's origin may write; a sibling subdomain and the request's own address may not", async () => {
    expect(t.origin).toBe(BASE);
    expect((await t.json("POST", "/v1/me/tripwires", { body: { who: "@someone" }, headers: { cookie } })).status).toBe(201);
    for (const origin of [SIBLING, "http://trust.example.org", "http://localhost"]) {
      expectEnvelope(await t.json("POST", "/v1/me/tripwires", { body: { who: "@other" }, headers: { cookie, origin } }), 403, "forbidden");
    }
    expect((await t.json("GET", "/v1/me/tripwires", { headers: { cookie } })).body.tripwires.map((w: any) => w.who)).toEqual(["@someone"]);
  });

  test("a plain 'session' cookie planted by a sibling is not a session here; a second __Host-session is 401", async () => {
    const value = cookie.slice("__Host-session=".length);
    expectEnvelope(await t.json("GET", "/v1/me", { headers: { cookie: `session=${value}` } }), 401, "unauthorized");
    expect((await t.json("GET", "/v1/me", { headers: { cookie: `session=planted; ${cookie}` } })).status).toBe(200);
    expectEnvelope(await t.json("GET", "/v1/me", { headers: { cookie: `${cookie}; __Host-session=planted` } }), 401, "unauthorized");
  });

  test("the API description names the cookie as this deployment sets it", async () => {
    expect((await t.json("GET", "/openapi.json")).body.components.securitySchemes.session).toMatchObject({ in: "cookie", name: "__Host-session" });
  });

  test("signing out clears __Host-session", async () => {
    const out = await t.json("POST", "/auth/logout", { headers: { cookie } });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toBe("__Host-session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure");
  });
});

describe("session routes spend the caller's per-address allowance", () => {
  let t: TestApp;
  let alice: string;
  beforeAll(async () => {
    t = await createTestApp();
    await (await partnerWriter(t))("PUT", "/v1/partner/creators/alicemakes", {});
    alice = await signIn(t, "alicemakes");
  });
  afterAll(() => t.close());

  test("reads and writes under /v1/me share one bucket per address: past its burst they are 429 with Retry-After, and a refused write changes nothing", async () => {
    // The test clock stands still, so the bucket never refills: its burst is all there is.
    const { PUBLIC_IP_RULE } = await import("../../src/http/limits");
    let answered = 0;
    let refused: Awaited<ReturnType<TestApp["json"]>> | null = null;
    for (let i = 0; i <= PUBLIC_IP_RULE.capacity && !refused; i++) {
      const res = i % 2 === 0 ? await t.json("GET", "/v1/me/tripwires", { headers: { cookie: alice } }) : await t.json("GET", "/v1/me", { headers: { cookie: alice } });
      if (res.status === 429) refused = res;
      else {
        expect(res.status).toBe(200);
        answered++;
      }
    }
    expect(refused).not.toBeNull();
    expectEnvelope(refused!, 429, "rate_limited");
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThan(0);
    // Signing in took one token of the same bucket.
    expect(answered).toBe(PUBLIC_IP_RULE.capacity - 1);
    expectEnvelope(await t.json("POST", "/v1/me/tripwires", { body: { who: "@someone" }, headers: { cookie: alice } }), 429, "rate_limited");
    // Without a session the bucket still refuses first: a flood of unsigned calls costs nothing more.
    expectEnvelope(await t.json("GET", "/v1/me/tripwires"), 429, "rate_limited");
    t.clock.advance(60_000);
    expect((await t.json("GET", "/v1/me/tripwires", { headers: { cookie: alice } })).body.tripwires).toEqual([]);
  });
});
