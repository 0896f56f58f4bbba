// The public pages in a real browser (Debian's Chromium through playwright-core, under Node), on a
// live `trustlist serve` seeded through its own API: the profile shows the score the keyed API
// returns, the search on / answers with and without JavaScript, hostile names stay text, axe finds
// no serious accessibility problem in light or dark mode, nothing is fetched from another host, and
// a screenshot of each page at desktop and phone width lands in test/artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { artifacts, bun, launchChromium, noSeriousAxeViolations, root } from "./kit.mjs";

const dir = mkdtempSync(join(tmpdir(), "trustlist-pages-"));
const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
const HOSTILE = "<img src=x onerror=window.__pwned=1>";

let server;
let base;
let key;
let browser;

/** A port free right now, so the server can be told its own address as its base URL. */
function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  const port = await freePort();
  const args = ["serve", "--port", String(port), "--base-url", `http://127.0.0.1:${port}`, "--db", join(dir, "t.db"), "--access-log", "off"];
  server = spawn(bun, [join(root, "src", "main.ts"), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  ({ base, key } = await new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 15_000);
    const read = (chunk) => {
      output += chunk;
      const listening = output.match(/listening on (http:\/\/\S+)/);
      const admin = output.match(/tl_live_[A-Za-z0-9]{32}/);
      if (listening && admin) {
        clearTimeout(timer);
        resolve({ base: listening[1], key: admin[0] });
      }
    };
    server.stdout.on("data", read);
    server.stderr.on("data", read);
    server.on("exit", (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  }));
  await seed();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  if (server) {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

async function api(method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function seed() {
  const creator = (handle, body) => api("PUT", `/v1/partner/creators/${handle}`, body);
  const link = (handle, body) => api("POST", `/v1/partner/creators/${handle}/connections`, body);
  const entry = (body) => api("POST", "/v1/partner/blacklist", { reason_code: "scam_trade", ...body });
  await creator("shadowbuilds", { display_name: "Shadow Builds", verification_level: 3, karma: 120, joined_at: "2025-03-01T00:00:00.000Z" });
  await link("shadowbuilds", { provider: "roblox", provider_user_id: "1234567", provider_username: "ShadowRBX", provider_url: "https://www.roblox.com/users/1234567/profile", verified_at: "2026-01-01T00:00:00.000Z" });
  await link("shadowbuilds", { provider: "discord", provider_user_id: "555000111", provider_username: "shadow", verified_at: "2026-01-02T00:00:00.000Z" });
  await link("shadowbuilds", { provider: "github", provider_user_id: "shadow-private-alt", provider_username: "shadow_private", public: false });
  for (const [handle, name, message] of [
    ["alicemakes", "Alice Makes", "Delivered a full map on time and fixed two bugs for free."],
    ["bob_trades", "Bob Trades", "Smooth trade."],
    ["xss_creator", HOSTILE, HOSTILE],
  ]) {
    await creator(handle, { display_name: name, verification_level: 1 });
    await api("POST", "/v1/partner/vouches", { from: handle, to: "shadowbuilds", message });
  }
  await creator("banned_creator", { display_name: "Banned Creator", verification_level: 1 });
  await link("banned_creator", { provider: "discord", provider_user_id: "80351110224678912", provider_username: "bannedone" });
  await entry({ provider: "discord", provider_user_id: "80351110224678912", severity: "ban", summary: "Took payment for a map and never delivered." });
  await entry({ provider: "roblox", provider_user_id: "7770001", username: HOSTILE, severity: "ban", summary: `Scammed buyers ${HOSTILE}` });
  await entry({ provider: "epic", provider_user_id: "epicwatch", username: "RumouredEpic", severity: "warn", watchlist: true });
  // Banned through an account linked privately, by an entry that may not be appealed.
  await creator("final_fiona", { display_name: "Final Fiona" });
  await link("final_fiona", { provider: "discord", provider_user_id: "80351110224670000", provider_username: "fiona_alt", public: false });
  await entry({ provider: "discord", provider_user_id: "80351110224670000", severity: "ban", appealable: false, evidence: "PRIVATE NOTE" });
  for (let i = 1; i <= 8; i++) await creator(`builder_${i}`, { display_name: `Builder number ${i}`, verification_level: i % 5 });
}

/** Opens a page that records the hosts it reaches, dialogs and script errors. */
async function open(path, options = {}) {
  const context = await browser.newContext({ viewport: WIDTHS.desktop, ...options });
  const page = await context.newPage();
  const seen = { hosts: new Set(), dialogs: [], errors: [] };
  page.on("request", (request) => seen.hosts.add(new URL(request.url()).host));
  page.on("dialog", async (dialog) => {
    seen.dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  page.on("pageerror", (error) => seen.errors.push(String(error)));
  page.on("console", (message) => {
    // The 404 page's own status is logged by the browser; anything else is a fault (a CSP refusal too).
    if (message.type() === "error" && !message.text().includes("404")) seen.errors.push(message.text());
  });
  const response = await page.goto(base + path, { waitUntil: "load" });
  return { page, context, seen, response };
}

function assertHarmless(seen, what) {
  assert.deepEqual([...seen.hosts], [new URL(base).host], `${what}: every request goes to the server itself`);
  assert.deepEqual(seen.dialogs, [], `${what}: no dialog`);
  assert.deepEqual(seen.errors, [], `${what}: no script error or CSP refusal`);
}

const PAGES = [
  ["home", "/"],
  ["search", "/?q=80351110224678912"],
  ["profile", "/u/shadowbuilds"],
  ["not-found", "/u/nobody_here"],
];

test("the profile page shows the Trust Score the keyed API returns, and only public linked accounts", async () => {
  const trust = await (await fetch(`${base}/v1/users/shadowbuilds/trust`, { headers: { authorization: `Bearer ${key}` } })).json();
  const profile = await (await fetch(`${base}/v1/users/shadowbuilds`, { headers: { authorization: `Bearer ${key}` } })).json();
  // profile_url is this page: BASE/u/{handle}.
  assert.equal(profile.profile_url, `${base}/u/shadowbuilds`);
  const { page, context, seen } = await open(profile.profile_url.slice(base.length));
  assert.equal(await page.locator("#trust-score").innerText(), String(trust.trust_score));
  assert.match(await page.locator("#trust-title").locator("..").innerText(), new RegExp(`${trust.basis.verification_label} \\(level ${trust.basis.verification_level}\\)`));
  assert.equal(await page.locator("h1").innerText(), "Shadow Builds");
  const links = await page.locator(".links li").allInnerTexts();
  assert.equal(links.length, 2);
  assert.ok(!(await page.content()).match(/shadow_private|shadow-private-alt/), "the private link never shows");
  // The hostile voucher's name and message are text; no image was made from them.
  assert.ok((await page.locator(".vouches").innerText()).includes(HOSTILE));
  assert.equal(await page.locator(".vouches img").count(), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  // The badge preview loads from the server itself.
  assert.ok(await page.locator(".badge-preview img").evaluate((img) => img.complete && img.naturalWidth > 0));
  assertHarmless(seen, "profile");
  await context.close();
});

test("a banned creator's page and directory card say banned; the page says how to appeal only an appealable ban", async () => {
  const APPEAL = /This listing can be appealed\. If it names you, use \/appeal with this community's Discord bot, or sign in and appeal it from your account \(POST \/v1\/me\/appeals\)\./;
  const banned = await open("/u/banned_creator");
  const bannedText = await banned.page.locator("main").innerText();
  assert.match(bannedText, /Blacklisted: a confirmed ban names this creator/);
  assert.match(bannedText, APPEAL);
  assertHarmless(banned.seen, "banned profile");
  await banned.context.close();

  const final = await open("/u/final_fiona");
  const finalText = await final.page.locator("main").innerText();
  assert.match(finalText, /Blacklisted/);
  assert.doesNotMatch(finalText, /appeal/i);
  assert.doesNotMatch(await final.page.content(), /fiona_alt|80351110224670000|PRIVATE NOTE/);
  await final.context.close();

  const clean = await open("/u/shadowbuilds");
  assert.doesNotMatch(await clean.page.locator("main").innerText(), /appeal|Blacklisted/i);
  await clean.context.close();

  // The search answer for the banned account says how to appeal; the directory's cards say who is banned.
  const { page, context, seen } = await open("/?q=80351110224678912");
  assert.match(await page.locator("#results").innerText(), APPEAL);
  const card = (handle) => page.locator(".directory li.creator", { has: page.locator(`a[href="/u/${handle}"]`) }).innerText();
  assert.match(await card("banned_creator"), /Banned\s+Trust 0/);
  assert.match(await card("final_fiona"), /Banned\s+Trust 0/);
  assert.doesNotMatch(await card("shadowbuilds"), /Banned/);
  assert.doesNotMatch(await page.content(), /fiona_alt|80351110224670000|PRIVATE NOTE/);
  await noSeriousAxeViolations(page, "search with an appealable ban");
  assertHarmless(seen, "search with an appealable ban");
  await context.close();
});

test("the copy buttons put the embed snippet on the clipboard", async () => {
  const { page, context } = await open("/u/shadowbuilds", { permissions: ["clipboard-read", "clipboard-write"] });
  const button = page.locator('button[data-copy="snippet-widget"]');
  await button.click();
  await page.getByText("Copied", { exact: true }).waitFor();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(copied, /^<script src="http:\/\/[^"]+\/widget\/trust\.js" data-handle="shadowbuilds" async><\/script>$/);
  await context.close();
});

test("the search on / answers banned, clean and unknown accounts, with JavaScript and without", async () => {
  for (const javaScriptEnabled of [true, false]) {
    const { page, context, seen } = await open("/", { javaScriptEnabled });
    const search = async (q) => {
      await page.fill("#q", q);
      await Promise.all([
        javaScriptEnabled ? page.waitForResponse((r) => r.url().includes("?q=")) : page.waitForNavigation(),
        page.click("#check-form button"),
      ]);
      await page.waitForFunction(() => !document.querySelector("#results[aria-busy]"));
      return page.locator("#results").innerText();
    };
    const banned = await search("80351110224678912");
    assert.match(banned, /Banned/);
    assert.match(banned, /Took payment for a map and never delivered\./);
    const clean = await search("shadowbuilds");
    assert.match(clean, /No record/);
    assert.match(clean, /Creator profile: @shadowbuilds/);
    const unknown = await search("shadowbuildz");
    assert.match(unknown, /No record of “shadowbuildz”/);
    assert.match(unknown, /shadowbuilds/, "suggests the close handle");
    const watch = await search("RumouredEpic");
    assert.match(watch, /Unconfirmed report, not a ban\./);
    const hostile = await search(HOSTILE);
    assert.ok(hostile.includes(HOSTILE), hostile);
    assert.equal(await page.locator("#results img").count(), 0);
    assert.equal(new URL(page.url()).searchParams.get("q"), HOSTILE, "the address holds the search");
    assertHarmless(seen, `search, JavaScript ${javaScriptEnabled ? "on" : "off"}`);
    await context.close();
  }
});

// Each page is loaded once and seen in each scheme and at each width (the browser applies the
// media queries to the document as it is): axe's script, evaluated anew for each document, took
// most of this test's time when each of the four was a load of its own.
test("each page: no serious accessibility violation in light or dark, nothing from another host, screenshots", async () => {
  for (const [name, path] of PAGES) {
    const { page, context, seen, response } = await open(path);
    assert.equal(response.status(), name === "not-found" ? 404 : 200, path);
    assert.ok(response.headers()["content-security-policy"]?.includes("default-src 'self'"));
    for (const colorScheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme });
      for (const [width, viewport] of Object.entries(WIDTHS)) {
        await page.setViewportSize(viewport);
        // Nothing is wider than the screen.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.equal(overflow, 0, `${name} ${width} ${colorScheme}: no sideways scrolling`);
        assertHarmless(seen, `${name} ${width} ${colorScheme}`);
        await noSeriousAxeViolations(page, `${name} ${width} ${colorScheme}`);
        await page.screenshot({ path: join(artifacts, `page-${name}-${width}-${colorScheme}.png`), fullPage: true });
      }
    }
    await context.close();
  }
});
