// The console's safety, on every page and form: signed out is a sign-in page (401); every answer is
// private, never framed, under a CSP without inline script; each role sees its own sections and no
// other's, and a page or form above its role is 403 and changes nothing; every form is refused
// (403, nothing changed) without its token, with another session's token, from a foreign origin
// or without an Origin; hostile data is shown as text.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signIn } from "../helpers";
import { formActions, from, HOSTILE, noticeOf, page, post, snapshot, tokenOf, type World, world } from "./setup";

let w: World;
let caseId: string;
let entryId: string;
let webhookId: string;
let keyId: string;

beforeAll(async () => {
  w = await world({ config: { allowPrivateWebhooks: true } });
  // Something on every page, so every form is rendered: a case with a hostile report, an
  // appealable entry naming plain's account with an open appeal, a key, a webhook, a tripwire.
  await w.members.add("guild", "boss", "owner", { kind: "cli", id: "root" });
  await w.write("POST", "/v1/partner/creators/plain/connections", { provider: "discord", provider_user_id: "100000000000000077", provider_username: "plain_dc" });
  const entry = await w.write("POST", "/v1/partner/blacklist", {
    provider: "discord",
    provider_user_id: "100000000000000077",
    severity: "ban",
    reason_code: "scam_trade",
    summary: `Summary ${HOSTILE}`,
    appealable: true,
  });
  entryId = entry.id;
  const appeal = await w.t.json("POST", "/v1/me/appeals", { headers: { cookie: w.cookies.plain! }, body: { entry_id: entryId, statement: `Statement ${HOSTILE}` } });
  expect(appeal.status).toBe(201);
  const report = await w.t.json("POST", "/v1/reports", {
    headers: { cookie: w.cookies.plain! },
    body: { subject: { provider: "discord", id: "100000000000000099" }, reason_code: "scam_trade", description: `Description ${HOSTILE}` },
  });
  expect(report.status).toBe(201);
  caseId = report.body.case_id;
  keyId = (await w.t.services.accounts.createKey({ account: "guild", scope: "read", name: HOSTILE })).id;
  webhookId = (await w.t.services.webhooks.create(w.guild.id, { url: "http://127.0.0.1:9/hook", events: ["blacklist.added"] })).id;
  await w.t.services.tripwires.create((await w.t.services.sessions.viewer(w.cookies.boss!.split("=")[1]!))!, { who: "@plain" });
});

afterAll(() => w.t.close());

const PAGES = [
  "/console",
  "/console/appeals",
  "/console/tripwires",
  "/console/accounts",
  "/console/cases",
  "/console/entries",
  "/console/staff/appeals",
  "/console/audit",
  "/console/admin/staff",
  "/console/admin/accounts",
];

describe("every answer", () => {
  test("signed out, every page is the sign-in page (401) and a form changes nothing", async () => {
    const before = await snapshot(w);
    for (const path of [...PAGES, `/console/accounts/${w.guild.id}`, `/console/cases/${caseId}`]) {
      const res = await page(w, null, path);
      expect(res.status, path).toBe(401);
      expect(res.text).toContain("Sign in to the console");
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    }
    expect((await post(w, null, "/console/tripwires", { who: "@plain" })).status).toBe(401);
    expect(await snapshot(w)).toEqual(before);
  });

  test("is private, never framed, under a CSP of this origin's own files with no inline script", async () => {
    for (const path of PAGES) {
      const res = await page(w, "boss", path);
      expect(res.status, path).toBe(200);
      const csp = res.headers.get("content-security-policy")!;
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("default-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("cache-control")).toBe("no-store");
      // No inline script or style: every <script> has a src, no style attribute or element.
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(res.text).not.toMatch(/\sstyle=|<style/);
      expect(res.text).not.toMatch(/<[a-zA-Z][^<>]*\son[a-z]+\s*=/);
    }
  });

  test("every page and form is charged to the caller's address: past the bucket, a 429 page with Retry-After", async () => {
    const me = { "x-forwarded-for": "10.200.0.1", cookie: w.cookies.boss! };
    let last: Response | null = null;
    for (let i = 0; i < 61; i++) last = await w.t.call("GET", "/console", { headers: me });
    expect(last!.status).toBe(429);
    expect(last!.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(last!.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await last!.text()).toContain("Too many requests");
  });

  test("an address under /console that holds no page is the console's 404 page", async () => {
    const res = await page(w, "plain", "/console/no/such/page");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(noticeOf(res.text)).toBe("No console page at this address.");
    expect((await page(w, "plain", `/console/accounts/${w.guild.id}/webhooks`)).status).toBe(404);
  });

  test("the stylesheet and script are served with an ETag and answer 304 to it", async () => {
    const html = (await page(w, "boss", "/console")).text;
    for (const path of [html.match(/href="(\/console\/assets\/console\.[0-9a-f]+\.css)"/)![1]!, html.match(/src="(\/console\/assets\/console\.[0-9a-f]+\.js)"/)![1]!]) {
      const res = await w.t.call("GET", path);
      expect(res.status).toBe(200);
      const etag = res.headers.get("etag")!;
      expect((await w.t.call("GET", path, { headers: { "if-none-match": etag } })).status).toBe(304);
    }
    expect((await w.t.call("GET", "/console/assets/nope.js")).status).toBe(404);
  });
});

describe("roles", () => {
  const links = (html: string) => new Set([...html.matchAll(/href="(\/console[^"?#]*)"/g)].map((m) => m[1]!));

  test("each person sees the sections of their role, and no link to any other", async () => {
    const expected: Record<string, { shown: string[]; hidden: string[] }> = {
      plain: { shown: ["/console/appeals", "/console/tripwires"], hidden: ["/console/accounts", "/console/cases", "/console/audit", "/console/admin/staff"] },
      dev: { shown: ["/console/accounts", `/console/accounts/${w.guild.id}`], hidden: ["/console/cases", "/console/entries", "/console/audit", "/console/admin/accounts"] },
      triager: { shown: ["/console/cases", "/console/entries", "/console/staff/appeals"], hidden: ["/console/audit", "/console/admin/staff", "/console/accounts"] },
      mod: { shown: ["/console/cases", "/console/audit"], hidden: ["/console/admin/staff", "/console/admin/accounts"] },
      boss: { shown: ["/console/audit", "/console/admin/staff", "/console/admin/accounts"], hidden: [] },
    };
    for (const [handle, { shown, hidden }] of Object.entries(expected)) {
      const found = links((await page(w, handle, "/console")).text);
      for (const href of shown) expect(found.has(href), `${handle} sees ${href}`).toBe(true);
      for (const href of hidden) expect(found.has(href), `${handle} does not see ${href}`).toBe(false);
    }
  });

  test("a page above a person's role is 403, as a page", async () => {
    const refused: Record<string, string[]> = {
      plain: ["/console/cases", "/console/entries", "/console/staff/appeals", "/console/audit", "/console/admin/staff", `/console/accounts/${w.guild.id}`, `/console/cases/${caseId}`],
      dev: ["/console/cases", "/console/audit", "/console/admin/accounts"],
      triager: ["/console/audit", "/console/admin/staff", "/console/admin/accounts", `/console/accounts/${w.guild.id}`],
      mod: ["/console/admin/staff", "/console/admin/accounts"],
    };
    for (const [handle, paths] of Object.entries(refused)) {
      for (const path of paths) {
        const res = await page(w, handle, path);
        expect(res.status, `${handle} ${path}`).toBe(403);
        expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(noticeOf(res.text)).toBeTruthy();
      }
    }
  });

  test("a triager's case page has no decide, dismiss, watchlist or mute form, and posting them is 403 with nothing changed", async () => {
    const html = (await page(w, "triager", `/console/cases/${caseId}`)).text;
    const actions = formActions(html);
    expect(actions).toContain(`/console/cases/${caseId}/comment`);
    expect(actions).toContain(`/console/cases/${caseId}/assign`);
    for (const verb of ["decide", "dismiss", "watchlist"]) expect(actions).not.toContain(`/console/cases/${caseId}/${verb}`);
    expect(actions.some((a) => a.includes("/mute"))).toBe(false);
    const before = await snapshot(w);
    const attempts: [string, Record<string, string>][] = [
      [`/console/cases/${caseId}/decide`, { severity: "ban", reason_code: "scam_trade", summary: "x", appealable: "true" }],
      [`/console/cases/${caseId}/dismiss`, { reason: "x" }],
      [`/console/cases/${caseId}/watchlist`, { summary: "x" }],
      [`/console/entries/${entryId}/overturn`, { reason: "x" }],
      ["/console/admin/staff", { handle: "plain", role: "admin" }],
      [`/console/admin/accounts/${w.guild.id}/members`, { handle: "triager", role: "owner" }],
      [`/console/accounts/${w.guild.id}/keys`, { scope: "read" }],
    ];
    for (const [path, fields] of attempts) expect((await post(w, "triager", path, fields)).status, path).toBe(403);
    expect(await snapshot(w)).toEqual(before);
  });

  test("a developer may not create an admin key, and a non-member may not touch the account", async () => {
    const before = await snapshot(w);
    expect((await post(w, "dev", `/console/accounts/${w.guild.id}/keys`, { scope: "admin" })).status).toBe(403);
    expect((await post(w, "plain", `/console/accounts/${w.guild.id}/keys/${keyId}/revoke`)).status).toBe(403);
    expect((await post(w, "mod", `/console/accounts/${w.guild.id}/webhooks/${webhookId}/delete`)).status).toBe(403);
    expect(await snapshot(w)).toEqual(before);
  });
});

describe("forms", () => {
  test("every form on every page is refused without its token, with another session's, from another origin or without Origin; nothing changes", async () => {
    const pages = [...PAGES, `/console/accounts/${w.guild.id}`, `/console/cases/${caseId}`, `/console/entries?provider=discord&id=100000000000000077`];
    pages.push(`/console/accounts/${w.guild.id}/webhooks/${webhookId}`);
    const actions = new Set<string>();
    for (const path of pages) for (const action of formActions((await page(w, "boss", path)).text)) actions.add(action);
    // Every kind of form is among them.
    for (const expected of ["/console/sign-out", "/console/appeals", "/console/tripwires", `/console/accounts/${w.guild.id}/keys`, `/console/accounts/${w.guild.id}/webhooks`, `/console/cases/${caseId}/decide`, `/console/cases/${caseId}/comment`, "/console/admin/staff"]) {
      expect(actions.has(expected), expected).toBe(true);
    }
    expect([...actions].some((a) => a.endsWith("/revoke") && a.includes("/keys/"))).toBe(true);
    expect([...actions].some((a) => a.endsWith("/overturn"))).toBe(true);
    expect([...actions].some((a) => a.includes("/staff/appeals/") && a.endsWith("/decide"))).toBe(true);
    const own = tokenOf((await page(w, "boss", "/console")).text);
    const others = tokenOf((await page(w, "mod", "/console")).text);
    expect(others).not.toBe(own);
    const fields = { who: "@plain", name: "k", scope: "read", url: "https://example.org/h", events: "blacklist.added", body: "hi", reason: "r", summary: "s", severity: "ban", reason_code: "scam_trade", appealable: "true", handle: "plain", role: "admin", entry_id: entryId, statement: "s", outcome: "removed", note: "n" };
    const before = await snapshot(w);
    for (const action of actions) {
      for (const [label, options] of [
        ["no token", { token: null }],
        ["another session's token", { token: others }],
        ["a foreign origin", { origin: "https://evil.example" }],
        ["no Origin", { origin: "" }],
        ["a sibling origin", { origin: "http://evil.localhost" }],
      ] as const) {
        const res = await post(w, "boss", action, fields, options);
        expect(res.status, `${action} with ${label}`).toBe(403);
        expect(res.text).not.toContain("tl_live_");
      }
    }
    expect(await snapshot(w)).toEqual(before);
    // And with its token from this origin, a form does what it says.
    const armed = await post(w, "boss", "/console/tripwires", { who: "@dev" });
    expect(armed.status).toBe(303);
    expect(armed.headers.get("location")).toBe("/console/tripwires?done=tripwire-armed");
  });

  test("a body that is not a form is refused as the API refuses it, and changes nothing", async () => {
    const before = await snapshot(w);
    const token = tokenOf((await page(w, "boss", "/console")).text);
    const send = (type: string, body: string) => w.t.call("POST", "/console/tripwires", { headers: { ...from(), cookie: w.cookies.boss!, "content-type": type }, body });
    expect((await send("text/plain", `csrf=${token}&who=@plain`)).status).toBe(415);
    expect((await send("multipart/form-data; boundary=x", `--x\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n${token}\r\n--x--`)).status).toBe(415);
    expect((await send("application/json", JSON.stringify({ csrf: token, who: "@plain" }))).status).toBe(403);
    expect(await snapshot(w)).toEqual(before);
  });

  test("the token belongs to the session: another sign-in gets another, and signing out ends the session", async () => {
    const first = tokenOf((await page(w, "plain", "/console")).text);
    expect(tokenOf((await page(w, "plain", "/console")).text)).toBe(first);
    w.cookies.leaver = await signIn(w.t, "plain");
    const second = tokenOf((await page(w, "leaver", "/console")).text);
    expect(second).not.toBe(first);
    // The other session's token does not sign this one out.
    expect((await post(w, "leaver", "/console/sign-out", {}, { token: first })).status).toBe(403);
    const out = await post(w, "leaver", "/console/sign-out");
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/");
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await page(w, "leaver", "/console")).status).toBe(401);
    expect((await page(w, "plain", "/console")).status).toBe(200);
  });
});

describe("data", () => {
  test("hostile names, statements, descriptions and summaries are shown as text", async () => {
    const escaped = "&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;";
    const shows = async (handle: string, path: string) => {
      const res = await page(w, handle, path);
      expect(res.status, path).toBe(200);
      expect(res.text, path).toContain(escaped);
      expect(res.text, path).not.toContain(HOSTILE);
    };
    await shows("evil", "/console");
    await shows("boss", `/console/cases/${caseId}`);
    await shows("boss", "/console/staff/appeals");
    await shows("boss", `/console/accounts/${w.guild.id}`);
    await shows("boss", "/console/entries?provider=discord&id=100000000000000077");
  });

  test("a refused form says why on a page with its status, and keeps what was there", async () => {
    const before = await snapshot(w);
    const res = await post(w, "plain", "/console/appeals", { entry_id: "bl_nope", statement: "hello" });
    expect(res.status).toBe(404);
    expect(noticeOf(res.text)).toContain("bl_nope");
    const empty = await post(w, "plain", "/console/tripwires", { who: "" });
    expect(empty.status).toBe(422);
    expect(noticeOf(empty.text)).toContain("who");
    expect(await snapshot(w)).toEqual(before);
  });
});
