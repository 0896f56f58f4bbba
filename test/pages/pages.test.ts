// The public pages through app.handle: / checks accounts and lists the directory, /u/{handle} shows
// a creator's profile with the same Trust Score the keyed API gives, and both are HTML with a strict
// Content-Security-Policy and their own 404.
import { beforeEach, describe, expect, test } from "bun:test";
import { publicKit } from "../public-kit";

const kit = publicKit();
const { write, creator, link, entry } = kit;

/** A keyless page request from its own address: status, headers and the HTML. */
async function page(path: string) {
  const res = await kit.t.call("GET", path, { headers: { "x-forwarded-for": `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function expectHtmlPage(res: { status: number; headers: Headers; text: string }, status: number) {
  expect(res.status, res.text.slice(0, 300)).toBe(status);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  const csp = res.headers.get("content-security-policy")!;
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain("unsafe-inline");
  expect(res.headers.get("x-request-id")).toBeTruthy();
  expect(res.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
  expect(res.text).toStartWith("<!doctype html>");
  // Every file the page loads is this server's own: no script, style, image or icon from elsewhere.
  for (const [, attr, url] of res.text.matchAll(/<(?:script|link|img)\b[^>]*\b(src|href)="([^"]*)"/g)) {
    expect(url, `${attr}=${url}`).toStartWith("/");
  }
  expect(res.text).not.toMatch(/<script>|<style|\sstyle="|\son[a-z]+=/i);
}

beforeEach(async () => {
  await creator("shadowbuilds", { display_name: "Shadow Builds", verification_level: 2, joined_at: "2025-06-01T00:00:00.000Z" });
  await link("shadowbuilds", { provider: "roblox", provider_user_id: "1234567", provider_username: "ShadowRBX", provider_url: "https://www.roblox.com/users/1234567/profile", verified_at: "2026-01-01T00:00:00.000Z" });
  await creator("alicemakes", { display_name: "Alice Makes" });
  await write("POST", "/v1/partner/vouches", { from: "alicemakes", to: "shadowbuilds", message: "Delivered a full map on time." });
  await creator("banned_one");
  await link("banned_one", { provider: "discord", provider_user_id: "80351110224678912", provider_username: "bannedone" });
  await entry({ provider: "discord", provider_user_id: "80351110224678912", summary: "Took payment for a map and never delivered." });
  await entry({ provider: "roblox", provider_user_id: "7770002", username: "RestrictedRBX", severity: "restrict", summary: "Chargebacks on two trades." });
  await entry({ provider: "epic", provider_user_id: "epicwatch", username: "RumouredEpic", severity: "warn", watchlist: true });
});

describe("/u/{handle}", () => {
  test("shows the profile, the keyed API's Trust Score and basis, linked accounts, vouches and embed snippets", async () => {
    const { key } = await kit.t.account();
    const trust = await kit.t.json("GET", "/v1/users/shadowbuilds/trust", { key });
    const profile = await kit.t.json("GET", "/v1/users/shadowbuilds", { key });
    expect(trust.status).toBe(200);

    // profile_url is this page.
    const base = kit.t.runtime.config.baseUrl;
    expect(profile.body.profile_url).toBe(`${base}/u/shadowbuilds`);
    const res = await page(new URL(profile.body.profile_url).pathname);
    expectHtmlPage(res, 200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=60");
    const text = res.text;
    expect(text).toContain("<h1 id=\"profile-title\">Shadow Builds</h1>");
    expect(text).toContain("@shadowbuilds");
    expect(text).toContain(profile.body.verification_label);
    expect(text).toContain("Joined <time datetime=\"2025-06-01T00:00:00.000Z\">1 Jun 2025</time>");
    expect(text).toContain(`<span class="value" id="trust-score">${trust.body.trust_score}</span>`);
    expect(text).toContain(`band-${trust.body.band}`);
    expect(text).toContain(`<dt>Account age</dt><dd>${trust.body.basis.account_age_days} days</dd>`);
    expect(text).toContain(`<dt>Public linked accounts</dt><dd>${trust.body.basis.linked_accounts}</dd>`);
    expect(text).toContain('<a href="https://www.roblox.com/users/1234567/profile" rel="nofollow noopener noreferrer ugc">ShadowRBX</a>');
    expect(text).toContain('<a href="/u/alicemakes">@alicemakes</a>');
    expect(text).toContain("Delivered a full map on time.");
    expect(text).toContain(`[![trustlist trust badge for @shadowbuilds](${base}/badge/shadowbuilds.svg)](${base}/u/shadowbuilds)`);
    expect(text).toContain(`&lt;script src=&quot;${base}/widget/trust.js&quot; data-handle=&quot;shadowbuilds&quot; async&gt;&lt;/script&gt;`);
    expect(text).toContain('<img src="/badge/shadowbuilds.svg"');
  });

  test("a blacklisted creator's page says so and shows the score the API gives (0, banned)", async () => {
    const res = await page("/u/banned_one");
    expectHtmlPage(res, 200);
    expect(res.text).toContain("Blacklisted: a confirmed ban names this creator");
    expect(res.text).toContain('<span class="value" id="trust-score">0</span>');
    expect(res.text).toContain("band-banned");
  });

  test("an unknown handle is a 404 page that offers the search", async () => {
    const res = await page("/u/nobody_here");
    expectHtmlPage(res, 404);
    expect(res.text).toContain("No creator @nobody_here");
    expect(res.text).toContain('<form id="check-form"');
    expect(res.text).toContain('value="nobody_here"');
  });

  test("another spelling of a handle leads to its one address", async () => {
    const res = await kit.t.call("GET", "/u/@ShadowBuilds");
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("/u/shadowbuilds");
  });
});

describe("/", () => {
  test("lists the directory with links to profiles, and pages through it", async () => {
    for (let i = 0; i < 30; i++) await creator(`filler_${String(i).padStart(2, "0")}`);
    const first = await page("/");
    expectHtmlPage(first, 200);
    expect(first.headers.get("cache-control")).toBe("public, max-age=60");
    expect(first.text).toContain("33 creators");
    expect(first.text).toContain("Page 1 of 2");
    expect(first.text).toContain('href="/?page=2#directory"');
    const second = await page("/?page=2");
    expect(second.text).toContain("Page 2 of 2");
    expect(second.text.match(/class="creator"/g)).toHaveLength(33 - 24);
    const byTrust = await page("/?sort=trust");
    expect(byTrust.text.match(/class="creator">\s*<a href="([^"]+)"/)![1]).toBe("/u/shadowbuilds");

    const filtered = await page("/?filter=shadow&sort=trust&platform=roblox");
    expect(filtered.text).toContain("1 creator");
    expect(filtered.text).toContain('<option value="trust" selected>');
    // Values the directory does not know fall back to its defaults instead of failing.
    expectHtmlPage(await page("/?sort=sideways&platform=myspace&page=-4"), 200);
    expect((await page("/?page=999")).text).toContain("Page 2 of 2");
  });

  test("a search answers banned, restricted, watchlisted, clean and unknown accounts, and is never cached", async () => {
    const banned = await page("/?q=80351110224678912");
    expectHtmlPage(banned, 200);
    expect(banned.headers.get("cache-control")).toBe("no-store");
    expect(banned.text).toContain('<span class="state bad">Banned</span>');
    expect(banned.text).toContain("Took payment for a map and never delivered.");

    const restricted = await page("/?q=RestrictedRBX");
    expect(restricted.text).toContain('<span class="state warn">Restricted</span>');
    expect(restricted.text).toContain("Chargebacks on two trades.");

    const watched = await page("/?q=RumouredEpic");
    expect(watched.text).toContain('<span class="state watch">Watchlist</span>');
    expect(watched.text).toContain("Unconfirmed report, not a ban.");
    // (The directory below names banned creators; the answer itself says no ban.)
    expect(watched.text.slice(0, watched.text.indexOf('id="directory"'))).not.toContain("Banned");

    const clean = await page("/?q=shadowbuilds");
    expect(clean.text).toContain('<span class="state ok">No record</span>');
    expect(clean.text).toContain('Creator profile: <a href="/u/shadowbuilds">@shadowbuilds</a>');

    const unknown = await page("/?q=shadowbuildz");
    expect(unknown.text).toContain("No record of “shadowbuildz”");
    expect(unknown.text).toContain('<a href="/?q=shadowbuilds">shadowbuilds</a>');
  });

  test("a refused search says why, with status 400, in the page", async () => {
    const res = await page(`/?q=${"x".repeat(65)}`);
    expectHtmlPage(res, 400);
    expect(res.text).toContain("q is longer than 64 characters.");
    expect(res.text).toContain("Creator directory");
  });
});

describe("assets and the API document", () => {
  test("the stylesheet, script and icon are served from content-hashed names, cached for good", async () => {
    const home = (await page("/")).text;
    const paths = [...home.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(paths).toHaveLength(3);
    for (const path of paths) {
      const res = await kit.t.call("GET", path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("content-type")).toMatch(/^(text\/css|text\/javascript|image\/svg\+xml)/);
      const again = await kit.t.call("GET", path, { headers: { "if-none-match": res.headers.get("etag")! } });
      expect(again.status).toBe(304);
    }
    const css = await (await kit.t.call("GET", paths.find((p) => p.endsWith(".css"))!)).text();
    expect(css).toContain(".band-excellent{--band:#007ec6}");
    expect(css).toContain("prefers-color-scheme: dark");
    expect(css).not.toMatch(/@import|url\(|@font-face/);
    const missing = await kit.t.json("GET", "/assets/site.000000000000.css");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
  });

  test("pages are not API routes: /openapi.json leaves them out", async () => {
    const spec = (await kit.t.json("GET", "/openapi.json")).body;
    expect(Object.keys(spec.paths)).not.toContain("/");
    expect(Object.keys(spec.paths).filter((p) => p.startsWith("/u/") || p.startsWith("/assets/"))).toEqual([]);
  });
});
