// Sign-in (docs/api.md, "Sign-in, courses and tripwires") as a browser and a bot meet it: a partner's bot asks for a one-time
// link, the creator opens it once, the cookie opens `/v1/me`, sign-out ends it. A key never opens
// a session route and a session never opens a keyed one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cli, cliJson } from "../cli-helpers";
import { createTestApp, expectEnvelope, partnerWriter, type TestApp } from "../helpers";

let t: TestApp;
let write: Awaited<ReturnType<typeof partnerWriter>>;
let partnerKey: string;

beforeAll(async () => {
  t = await createTestApp();
  write = await partnerWriter(t);
  partnerKey = (await t.account({ scope: "write", burst: 10_000 })).key;
  for (const handle of ["alicemakes", "shadowbuilds", "pixelpete", "quietquinn"]) {
    await write("PUT", `/v1/partner/creators/${handle}`, { display_name: handle === "alicemakes" ? "Alice Makes" : null });
  }
});
afterAll(() => t.close());

/** A fresh link for `handle`, through the partner route. */
async function linkFor(handle: string): Promise<string> {
  const res = await t.json("POST", "/v1/partner/login-links", { key: partnerKey, body: { handle } });
  expect(res.status).toBe(201);
  return res.body.url;
}

function magicPath(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

/** Signs `handle` in and answers the cookie header a browser would send back. */
async function signIn(handle: string, app: TestApp = t): Promise<string> {
  const res = await app.call("GET", magicPath(await linkFor(handle)));
  expect(res.status).toBe(302);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

describe("login links", () => {
  test("a link signs in once: the cookie is HttpOnly, SameSite=Lax, site-wide, not Secure on http", async () => {
    const url = await linkFor("@AliceMakes");
    expect(url).toStartWith("http://");
    expect(url).toContain("/auth/magic?token=");
    const first = await t.call("GET", magicPath(url));
    expect(first.status).toBe(302);
    expect(first.headers.get("location")).toBe("/");
    expect(first.headers.get("x-request-id")).not.toBeNull();
    expect(first.headers.get("cache-control")).toBe("no-store");
    const cookie = first.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/");
    expect(cookie).toContain(`Max-Age=${30 * 86400}`);
    expect(cookie).not.toContain("Secure");

    const again = await t.json("GET", magicPath(url));
    expectEnvelope(again, 401, "unauthorized");
    expect(again.headers.get("set-cookie")).toBeNull();
  });

  test("a link expires after 15 minutes", async () => {
    const url = await linkFor("alicemakes");
    t.clock.advance(15 * 60_000);
    expectEnvelope(await t.json("GET", magicPath(url)), 401, "unauthorized");
  });

  test("a link still works just before 15 minutes", async () => {
    const url = await linkFor("alicemakes");
    t.clock.advance(15 * 60_000 - 1);
    expect((await t.call("GET", magicPath(url))).status).toBe(302);
  });

  test("unknown, missing and malformed tokens are 401", async () => {
    expectEnvelope(await t.json("GET", "/auth/magic"), 401, "unauthorized");
    expectEnvelope(await t.json("GET", "/auth/magic?token=nope"), 401, "unauthorized");
    expectEnvelope(await t.json("GET", `/auth/magic?token=${"A".repeat(43)}`), 401, "unauthorized");
  });

  test("a link previewer (Discord unfurling a DM) does not use the link up", async () => {
    const url = await linkFor("alicemakes");
    const preview = await t.call("GET", magicPath(url), { headers: { "user-agent": "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)" } });
    expect(preview.status).toBe(200);
    expect(preview.headers.get("set-cookie")).toBeNull();
    expect((await t.call("GET", magicPath(url))).status).toBe(302);
  });

  test("the Secure flag is set when the base URL is https", async () => {
    const secure = await createTestApp({ config: { baseUrl: "https://trust.example.org" } });
    try {
      const writer = await partnerWriter(secure);
      await writer("PUT", "/v1/partner/creators/alicemakes", {});
      const { key } = await secure.account({ scope: "write" });
      const link = await secure.json("POST", "/v1/partner/login-links", { key, body: { handle: "alicemakes" } });
      expect(link.body.url).toStartWith("https://trust.example.org/auth/magic?token=");
      const res = await secure.call("GET", magicPath(link.body.url));
      expect(res.headers.get("set-cookie")).toContain("; Secure");
    } finally {
      await secure.close();
    }
  });

  test("the partner route: 404 for an unknown creator, 403 for a read key, 401 without a key or with only a session, 422 for a bad handle", async () => {
    expectEnvelope(await t.json("POST", "/v1/partner/login-links", { key: partnerKey, body: { handle: "nobody_here" } }), 404, "not_found");
    const { key: readKey } = await t.account({ scope: "read" });
    expectEnvelope(await t.json("POST", "/v1/partner/login-links", { key: readKey, body: { handle: "alicemakes" } }), 403, "forbidden");
    expectEnvelope(await t.json("POST", "/v1/partner/login-links", { body: { handle: "alicemakes" } }), 401, "unauthorized");
    const cookie = await signIn("alicemakes");
    expectEnvelope(await t.json("POST", "/v1/partner/login-links", { body: { handle: "alicemakes" }, headers: { cookie } }), 401, "unauthorized");
    expectEnvelope(await t.json("POST", "/v1/partner/login-links", { key: partnerKey, body: { handle: "no spaces!" } }), 422, "unprocessable");
    expectEnvelope(await t.json("POST", "/v1/partner/login-links", { key: partnerKey, body: { handle: "alicemakes", extra: 1 } }), 422, "unprocessable");
  });
});

describe("sessions", () => {
  test("GET /v1/me answers the signed-in creator; without a session it is 401", async () => {
    const cookie = await signIn("alicemakes");
    const me = await t.json("GET", "/v1/me", { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ handle: "alicemakes", display_name: "Alice Makes" });
    expect(me.headers.get("x-ratelimit-remaining")).not.toBeNull();
    expectEnvelope(await t.json("GET", "/v1/me"), 401, "unauthorized");
    expectEnvelope(await t.json("GET", "/v1/me", { headers: { cookie: "session=forged" } }), 401, "unauthorized");
  });

  test("an API key does not open /v1/me, even a write or admin one", async () => {
    const { key } = await t.account({ scope: "admin" });
    const res = await t.json("GET", "/v1/me", { key });
    expectEnvelope(res, 401, "unauthorized");
    expect(res.body.error.message).toContain("not an API key");
  });

  test("a session does not open keyed routes", async () => {
    const cookie = await signIn("alicemakes");
    expectEnvelope(await t.json("GET", "/v1/users/alicemakes", { headers: { cookie } }), 401, "unauthorized");
    expectEnvelope(await t.json("PUT", "/v1/partner/creators/alicemakes", { body: {}, headers: { cookie } }), 401, "unauthorized");
  });

  test("sign-out ends the session on the server and clears the cookie", async () => {
    const cookie = await signIn("alicemakes");
    const out = await t.json("POST", "/auth/logout", { headers: { cookie } });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ signed_out: true });
    expect(out.headers.get("set-cookie")).toMatch(/^session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax/);
    expectEnvelope(await t.json("GET", "/v1/me", { headers: { cookie } }), 401, "unauthorized");
    // Signing out twice, or without a session, is not an error.
    expect((await t.json("POST", "/auth/logout", { headers: { cookie } })).body).toEqual({ signed_out: false });
    expect((await t.json("POST", "/auth/logout")).body).toEqual({ signed_out: false });
  });

  test("a session expires after 30 days", async () => {
    const cookie = await signIn("alicemakes");
    t.clock.advance(30 * 86_400_000 - 1);
    expect((await t.json("GET", "/v1/me", { headers: { cookie } })).status).toBe(200);
    t.clock.advance(1);
    expectEnvelope(await t.json("GET", "/v1/me", { headers: { cookie } }), 401, "unauthorized");
  });

  test("signing out one session leaves the creator's others open", async () => {
    const a = await signIn("alicemakes");
    const b = await signIn("alicemakes");
    await t.call("POST", "/auth/logout", { headers: { cookie: a } });
    expect((await t.json("GET", "/v1/me", { headers: { cookie: b } })).status).toBe(200);
  });

  test("the database holds hashes only: neither the link token nor the cookie value is stored", async () => {
    const url = await linkFor("alicemakes");
    const token = new URL(url).searchParams.get("token")!;
    const cookie = (await t.call("GET", magicPath(url))).headers.get("set-cookie")!.split(";")[0]!.slice("session=".length);
    const dump = JSON.stringify([await t.rows("SELECT * FROM login_links"), await t.rows("SELECT * FROM sessions")]);
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(cookie);
  });

  test("the prune job removes expired sessions and links", async () => {
    await signIn("alicemakes");
    t.clock.advance(31 * 86_400_000);
    expect(await t.services.sessions.pruneExpired()).toBeGreaterThan(0);
    expect(await t.rows("SELECT * FROM sessions")).toEqual([]);
  });
});

describe("the keyless trust tier", () => {
  test("shows trust_score to a signed-in caller only", async () => {
    const anonymous = await t.json("GET", "/v1/public/trust/shadowbuilds");
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.found).toBe(true);
    expect(anonymous.body.trust_score).toBeUndefined();
    const cookie = await signIn("alicemakes");
    const signedIn = await t.json("GET", "/v1/public/trust/shadowbuilds", { headers: { cookie } });
    expect(signedIn.body.trust_score).toBe(100);
    const stale = await t.json("GET", "/v1/public/trust/shadowbuilds", { headers: { cookie: "session=forged" } });
    expect(stale.body.trust_score).toBeUndefined();
  });
});

describe("vouches given", () => {
  test("lists whom the signed-in creator vouched for, newest first, by offset or by cursor", async () => {
    await write("POST", "/v1/partner/vouches", { from: "pixelpete", to: "alicemakes" });
    t.clock.advance(1000);
    await write("POST", "/v1/partner/vouches", { from: "pixelpete", to: "shadowbuilds", message: "great builder" });
    t.clock.advance(1000);
    await write("POST", "/v1/partner/vouches", { from: "pixelpete", to: "quietquinn" });
    await write("POST", "/v1/partner/vouches", { from: "alicemakes", to: "shadowbuilds" });
    const cookie = await signIn("pixelpete");

    const all = await t.json("GET", "/v1/me/vouches/given", { headers: { cookie } });
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(3);
    expect(all.body.vouches.map((v: any) => v.handle)).toEqual(["quietquinn", "shadowbuilds", "alicemakes"]);
    expect(Object.keys(all.body.vouches[0]).sort()).toEqual(["avatarUrl", "displayName", "handle", "trustScore", "vouchedAt"]);
    expect(all.body.vouches[1].trustScore).toBeGreaterThan(100);
    expect(all.body.next_cursor).toBeNull();

    const first = await t.json("GET", "/v1/me/vouches/given?limit=2", { headers: { cookie } });
    expect(first.body.vouches.map((v: any) => v.handle)).toEqual(["quietquinn", "shadowbuilds"]);
    expect(first.body.next_cursor).toBeString();
    const second = await t.json("GET", `/v1/me/vouches/given?limit=2&cursor=${first.body.next_cursor}`, { headers: { cookie } });
    expect(second.body).toMatchObject({ count: 3, limit: 2, offset: 2, next_cursor: null });
    expect(second.body.vouches.map((v: any) => v.handle)).toEqual(["alicemakes"]);

    const byOffset = await t.json("GET", "/v1/me/vouches/given?limit=1&offset=1", { headers: { cookie } });
    expect(byOffset.body.vouches.map((v: any) => v.handle)).toEqual(["shadowbuilds"]);

    // Another creator's session cannot page with this creator's cursor.
    const other = await signIn("alicemakes");
    expectEnvelope(await t.json("GET", `/v1/me/vouches/given?cursor=${first.body.next_cursor}`, { headers: { cookie: other } }), 400, "invalid_cursor");
    const mine = await t.json("GET", "/v1/me/vouches/given", { headers: { cookie: other } });
    expect(mine.body.vouches.map((v: any) => v.handle)).toEqual(["shadowbuilds"]);
  });

  test("errors: 401 without a session, 422 for a bad limit, 400 for a forged cursor", async () => {
    const cookie = await signIn("pixelpete");
    expectEnvelope(await t.json("GET", "/v1/me/vouches/given"), 401, "unauthorized");
    expectEnvelope(await t.json("GET", "/v1/me/vouches/given?limit=0", { headers: { cookie } }), 422, "unprocessable");
    expectEnvelope(await t.json("GET", "/v1/me/vouches/given?cursor=abc.def", { headers: { cookie } }), 400, "invalid_cursor");
  });
});

describe("the command line", () => {
  test("login-link prints a link for a creator (with --base-url), --json an object; an unknown handle fails", async () => {
    const app = await createTestApp();
    const db = app.dbPath;
    try {
      const writer = await partnerWriter(app);
      await writer("PUT", "/v1/partner/creators/alicemakes", {});
      const link = cliJson(db, "login-link", "@alicemakes", "--base-url", "https://trust.example.org");
      expect(link.handle).toBe("alicemakes");
      expect(link.url).toStartWith("https://trust.example.org/auth/magic?token=");
      expect(Date.parse(link.expires_at)).toBeGreaterThan(Date.now());
      const human = cli(db, "login-link", "alicemakes");
      expect(human.code).toBe(0);
      expect(human.stdout).toContain("/auth/magic?token=");
      const missing = cli(db, "login-link", "nobody_here");
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("nobody_here");
      expect(cli(db, "login-link", "--help").stdout).toContain("TRUSTLIST_BASE_URL");
    } finally {
      await app.close();
    }
  });
});
