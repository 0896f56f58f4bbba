// The console in a real browser (Debian's Chromium through playwright-core, under Node), on a live
// `trustlist serve` seeded through its API and its CLI, as each person uses it: every role's pages
// pass axe (no serious or critical violation) at desktop and phone width, fit a 390 px screen, show
// nothing of another role and fetch nothing from another host, with screenshots in test/artifacts/;
// a developer creates, rotates and revokes keys (checked against the API) and follows a free
// account's webhook from registration to a delivery at a real receiver; a moderator decides a case
// with its evidence shown inline and the keyed check answers banned; a form without its token, or
// sent from a page of another origin with a valid token, is refused; hostile data stays text; and
// the main flows work with the keyboard alone.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createServer as createHttpServer } from "node:http";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { artifacts, bun, launchChromium, noSeriousAxeViolations, root } from "./kit.mjs";

const dir = mkdtempSync(join(tmpdir(), "trustlist-console-"));
const db = join(dir, "t.db");
const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
const HOSTILE = `<img src=x onerror="window.__pwned=1">`;
const PNG_1x1 = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

let server;
let base;
let adminKey;
let browser;
let receiver;
let attacker;
const received = [];
/** A signed-in browser context per person. */
const people = {};
let caseId;
let evidenceId;

function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function cli(...args) {
  const ran = spawnSync(bun, [join(root, "src", "main.ts"), ...args, "--db", db], { encoding: "utf8" });
  assert.equal(ran.status, 0, `trustlist ${args.join(" ")}: ${ran.stderr}`);
  return ran.stdout;
}

async function api(method, path, body, key = adminKey) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A context signed in as `handle` through a sign-in link, as a person opens it. */
async function signedIn(handle) {
  const context = await browser.newContext({ viewport: WIDTHS.desktop });
  const page = await context.newPage();
  const link = await api("POST", "/v1/partner/login-links", { handle });
  await page.goto(link.url);
  await page.close();
  const cookie = (await context.cookies()).find((c) => c.name === "session");
  assert.ok(cookie, `${handle} is signed in`);
  return { context, cookie: `session=${cookie.value}` };
}

/** A request with a person's session, from this service's own origin (as its pages send them). */
function asPerson(handle, method, path, body, contentType = "application/json") {
  return fetch(base + path, { method, headers: { cookie: people[handle].cookie, origin: base, "content-type": contentType }, body });
}

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  receiver = createHttpServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      received.push({ path: req.url, headers: req.headers, body });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(bun, [join(root, "src", "main.ts"), "serve", "--port", String(port), "--base-url", base, "--db", db, "--access-log", "off", "--allow-private-webhooks"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  adminKey = await new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 15_000);
    const read = (chunk) => {
      output += chunk;
      const admin = output.match(/tl_live_[A-Za-z0-9]{32}/);
      if (/listening on http/.test(output) && admin) {
        clearTimeout(timer);
        resolve(admin[0]);
      }
    };
    server.stdout.on("data", read);
    server.stderr.on("data", read);
    server.on("exit", (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  // A page of another origin (another port: the same site, so the cookie goes with it) that posts
  // to the console with a token it was given.
  attacker = createHttpServer((req, res) => {
    const url = new URL(req.url, "http://x");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
      `<!doctype html><title>Win a prize</title><form method="post" action="${base}/console/tripwires"><input type="hidden" name="csrf" value="${url.searchParams.get("token")}"><input type="hidden" name="who" value="@plain"><button>Claim</button></form>`,
    );
  });
  await new Promise((resolve) => attacker.listen(0, "127.0.0.1", resolve));

  for (const handle of ["boss", "mod", "triager", "dev", "plain"]) await api("PUT", `/v1/partner/creators/${handle}`, { display_name: handle === "plain" ? HOSTILE : handle });
  // The operator's CLI, on the live database: roles, an account and its member.
  cli("staff", "grant", "boss", "--role", "admin");
  cli("staff", "grant", "mod", "--role", "moderator");
  cli("staff", "grant", "triager", "--role", "triage");
  cli("accounts", "create", "--name", "guild", "--tier", "free");
  cli("accounts", "add-member", "guild", "dev");
  browser = await launchChromium();
  for (const handle of ["boss", "mod", "triager", "dev", "plain"]) people[handle] = await signedIn(handle);

  // A case with a hostile description and an image; an appealable entry naming plain with an open appeal.
  const report = await (await asPerson("plain", "POST", "/v1/reports", JSON.stringify({ subject: { provider: "discord", id: "100000000000000900" }, reason_code: "scam_trade", description: `Took my items ${HOSTILE}` }))).json();
  caseId = report.case_id;
  evidenceId = (await (await asPerson("plain", "POST", `/v1/reports/${report.id}/evidence`, PNG_1x1, "image/png")).json()).id;
  await api("POST", "/v1/partner/creators/plain/connections", { provider: "discord", provider_user_id: "100000000000000901", provider_username: "plain_dc" });
  const entry = await api("POST", "/v1/partner/blacklist", { provider: "discord", provider_user_id: "100000000000000901", severity: "ban", reason_code: "scam_trade", summary: `Listed ${HOSTILE}`, appealable: true });
  assert.equal((await asPerson("plain", "POST", "/v1/me/appeals", JSON.stringify({ entry_id: entry.id, statement: `Please ${HOSTILE}` }))).status, 201);
});

after(async () => {
  for (const { context } of Object.values(people)) await context.close();
  await browser?.close();
  receiver?.close();
  attacker?.close();
  if (server) {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Opens `path` as `handle` in a new page of their context, recording hosts, dialogs and errors. */
async function open(handle, path, options = {}) {
  const page = await people[handle].context.newPage();
  if (options.viewport) await page.setViewportSize(options.viewport);
  const seen = { hosts: new Set(), dialogs: [], errors: [] };
  page.on("request", (request) => seen.hosts.add(new URL(request.url()).host));
  page.on("dialog", async (dialog) => {
    seen.dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  page.on("pageerror", (error) => seen.errors.push(String(error)));
  page.on("console", (message) => {
    // A refused form's page logs its own status; anything else is a fault (a CSP refusal too).
    if (message.type() === "error" && !/\b(403|404|409|422)\b/.test(message.text())) seen.errors.push(message.text());
  });
  const response = await page.goto(base + path, { waitUntil: "load" });
  return { page, seen, response };
}

function assertHarmless(seen, what) {
  assert.deepEqual([...seen.hosts], [new URL(base).host], `${what}: every request goes to the server itself`);
  assert.deepEqual(seen.dialogs, [], `${what}: no dialog`);
  assert.deepEqual(seen.errors, [], `${what}: no script error or CSP refusal`);
}

/** Presses Tab until the focused element matches `selector` (at most 80 times). */
async function tabTo(page, selector) {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  assert.fail(`Tab never reached ${selector}`);
}

const ROLE_PAGES = {
  plain: ["/console", "/console/appeals", "/console/tripwires"],
  dev: ["/console", "/console/accounts", "/console/accounts/guild"],
  triager: ["/console", "/console/cases", "/console/cases/CASE", "/console/entries?provider=discord&id=100000000000000901", "/console/staff/appeals"],
  mod: ["/console/cases/CASE", "/console/audit", "/console/staff/appeals"],
  boss: ["/console", "/console/admin/staff", "/console/admin/accounts", "/console/admin/sources"],
};
const NOT_LINKED = {
  plain: ["/console/accounts", "/console/cases", "/console/audit", "/console/admin/staff"],
  dev: ["/console/cases", "/console/audit", "/console/admin/accounts"],
  triager: ["/console/audit", "/console/admin/staff", "/console/accounts"],
  mod: ["/console/admin/staff", "/console/admin/accounts", "/console/admin/sources"],
  boss: [],
};

async function accountId() {
  return (await api("GET", "/v1/admin/accounts")).data.find((a) => a.name === "guild").id;
}

test("each role's pages: axe finds no serious violation, they fit 390 px, link no other role's sections, fetch nothing from elsewhere; screenshots", async () => {
  const guild = await accountId();
  for (const [handle, paths] of Object.entries(ROLE_PAGES)) {
    for (const raw of paths) {
      const path = raw.replace("CASE", caseId).replace("/accounts/guild", `/accounts/${guild}`);
      // Loaded once and seen at each width (axe's script is evaluated anew for each document, about
      // 0.3 s; two loads a page made this most of the browser tests' time).
      const { page, seen, response } = await open(handle, path, { viewport: WIDTHS.desktop });
      assert.equal(response.status(), 200, path);
      for (const [width, viewport] of Object.entries(WIDTHS)) {
        const what = `${handle} ${path} ${width}`;
        await page.setViewportSize(viewport);
        const links = await page.locator("a[href^='/console']").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
        for (const hidden of NOT_LINKED[handle]) assert.ok(!links.includes(hidden), `${what}: no link to ${hidden}`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.equal(overflow, 0, `${what}: no sideways scrolling`);
        assert.equal(await page.evaluate(() => window.__pwned), undefined, `${what}: hostile data stayed text`);
        await noSeriousAxeViolations(page, what);
        assertHarmless(seen, what);
        const name = raw.replace(/^\/console\/?/, "").replace(/\?.*$/, "").replace(/[^a-z0-9]+/gi, "-").replace(/-$/, "").toLowerCase() || "overview";
        await page.screenshot({ path: join(artifacts, `console-${handle}-${name.slice(0, 40)}-${width}.png`), fullPage: true });
      }
      await page.close();
    }
  }
});

test("a page above a person's role is a 403 page, and so is an account they are no member of", async () => {
  const guild = await accountId();
  for (const [handle, path] of [["plain", "/console/cases"], ["dev", "/console/audit"], ["triager", "/console/admin/staff"], ["mod", `/console/accounts/${guild}`]]) {
    const { page, response } = await open(handle, path);
    assert.equal(response.status(), 403, `${handle} ${path}`);
    assert.equal(await page.locator("h1").innerText(), "Not allowed");
    await noSeriousAxeViolations(page, `${handle} ${path} refused`);
    await page.close();
  }
});

test("hostile names, reports, statements and summaries are shown as text", async () => {
  for (const [handle, path] of [["plain", "/console"], ["mod", `/console/cases/${caseId}`], ["mod", "/console/staff/appeals"]]) {
    const { page, seen } = await open(handle, path);
    assert.ok((await page.locator("main, header").allInnerTexts()).join(" ").includes(HOSTILE), `${path} shows the text`);
    assert.equal(await page.locator("main img[src='x']").count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assertHarmless(seen, path);
    await page.close();
  }
});

test("keys created, rotated and revoked in the console answer the API accordingly; the cap of the free plan holds", async () => {
  const guild = await accountId();
  const { page, seen } = await open("dev", `/console/accounts/${guild}`);
  // What a screen reader meets: the sections as headings, the chart as one labelled image, the form's controls by name.
  const tree = await page.locator("main").ariaSnapshot();
  for (const part of ['heading "Plan and quota"', 'heading "API keys"', 'heading "Usage"', 'img "Calls per day, last 30 days"', 'heading "Webhooks"', 'textbox "Name"', 'combobox "Scope"', 'button "Create key"', 'textbox "HTTPS URL"', 'checkbox "blacklist.added"']) {
    assert.ok(tree.includes(part), `the accessibility tree has ${part}:\n${tree}`);
  }
  await page.fill("#key-name", "bot-key");
  await page.selectOption("#key-scope", "read");
  await Promise.all([page.waitForNavigation(), page.click("text=Create key")]);
  const key = await page.inputValue("#secret-value");
  assert.match(key, /^tl_live_[A-Za-z0-9]{32}$/);
  const usage = (k) => fetch(`${base}/v1/account/usage`, { headers: { authorization: `Bearer ${k}` } }).then((r) => r.status);
  assert.equal(await usage(key), 200);
  await page.screenshot({ path: join(artifacts, "console-dev-key-created-desktop.png"), fullPage: true });

  await page.goto(`${base}/console/accounts/${guild}`);
  await Promise.all([page.waitForNavigation(), page.click("button[type=submit]:text('Rotate')")]);
  const rotated = await page.inputValue("#secret-value");
  assert.notEqual(rotated, key);
  assert.equal(await usage(key), 401);
  assert.equal(await usage(rotated), 200);

  // A second key fills the free plan's two: the create form is gone.
  await page.goto(`${base}/console/accounts/${guild}`);
  await page.fill("#key-name", "second");
  await Promise.all([page.waitForNavigation(), page.click("text=Create key")]);
  await page.goto(`${base}/console/accounts/${guild}`);
  assert.equal(await page.locator("#key-name").count(), 0);
  assert.match(await page.locator("main").innerText(), /as many keys as its plan allows/);

  await Promise.all([page.waitForNavigation(), page.locator("form[aria-label^='Revoke key']").first().locator("button").click()]);
  assert.match(await page.locator(".banner").innerText(), /revoked/);
  assert.equal(await usage(rotated), 401);
  assertHarmless(seen, "keys");
  await page.close();
});

test("a free account's webhook: registered in the console, a test delivered to a real receiver, seen in the console with its attempt", async () => {
  const guild = await accountId();
  const { page, seen } = await open("dev", `/console/accounts/${guild}`);
  const url = `http://127.0.0.1:${receiver.address().port}/hooks/console`;
  await page.fill("#wh-url", url);
  await Promise.all([page.waitForNavigation(), page.click("button:text-is('Register')")]);
  assert.match(await page.inputValue("#secret-value"), /^whsec_/);
  await page.goto(`${base}/console/accounts/${guild}`);
  await Promise.all([page.waitForNavigation(), page.click(`a:text("${url}")`)]);
  await Promise.all([page.waitForNavigation(), page.click("text=Send a test delivery")]);
  // The worker sends it within its poll; the page shows it once delivered (bounded wait).
  const deadline = Date.now() + 15_000;
  while (!(await page.locator("main").innerText()).includes("delivered · 1 attempt")) {
    assert.ok(Date.now() < deadline, "the delivery shows as delivered within 15 s");
    await new Promise((r) => setTimeout(r, 250));
    await page.reload();
  }
  const delivery = received.find((r) => r.path === "/hooks/console");
  assert.ok(delivery, "the receiver got it");
  assert.equal(JSON.parse(delivery.body).type, "webhook.test");
  assert.ok(delivery.headers["webhook-signature"]?.startsWith("v1,"));
  assert.match(await page.locator("main table").first().innerText(), /200/);
  await noSeriousAxeViolations(page, "webhook page");
  for (const [width, viewport] of Object.entries(WIDTHS)) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: join(artifacts, `console-dev-webhook-${width}.png`), fullPage: true });
  }
  assertHarmless(seen, "webhook");
  await page.close();
});

test("a moderator decides a case in the console, its image shown inline, and the keyed check answers banned", async () => {
  const { page, seen } = await open("mod", `/console/cases/${caseId}`);
  const image = page.locator(`img[src="/v1/moderation/evidence/${evidenceId}"]`);
  await image.scrollIntoViewIfNeeded();
  assert.ok(await image.evaluate((img) => img.complete && img.naturalWidth === 1), "the evidence image loads from the staff-only route");
  await page.fill("#d-summary", "Took items in a trade and never paid.");
  await page.check(`input[name=public_evidence][value="${evidenceId}"]`);
  await Promise.all([page.waitForNavigation(), page.click("text=Decide: add the entry")]);
  assert.match(await page.locator(".banner").innerText(), /case closed/);
  const check = await (await fetch(`${base}/v1/blacklist/check?provider=discord&id=100000000000000900`, { headers: { authorization: `Bearer ${adminKey}` } })).json();
  assert.equal(check.banned, true);
  await noSeriousAxeViolations(page, "decided case");
  await page.screenshot({ path: join(artifacts, "console-mod-case-decided-desktop.png"), fullPage: true });
  assertHarmless(seen, "decide");
  await page.close();
});

test("a form without its token, or sent from another origin's page with a valid token, is refused and changes nothing", async () => {
  const count = async () => (await (await asPerson("boss", "GET", "/v1/me/tripwires")).json()).tripwires.length;
  const before = await count();
  const { page } = await open("boss", "/console/tripwires");
  const token = await page.locator("input[name=csrf]").first().inputValue();
  await page.fill("#who", "@plain");
  await page.evaluate(() => document.querySelectorAll("form[action='/console/tripwires'] input[name=csrf]").forEach((i) => i.remove()));
  const [refused] = await Promise.all([page.waitForNavigation(), page.click("button:text('Arm')")]);
  assert.equal(refused.status(), 403);
  assert.match(await page.locator(".banner").innerText(), /no CSRF token/);

  await page.goto(`http://127.0.0.1:${attacker.address().port}/?token=${encodeURIComponent(token)}`);
  const [foreign] = await Promise.all([page.waitForNavigation(), page.click("text=Claim")]);
  assert.equal(foreign.status(), 403);
  assert.match(await page.locator(".banner").innerText(), /must come from/);
  assert.equal(await count(), before);
  await page.close();
});

test("with the keyboard alone: reach a section, arm and delete a tripwire, create and revoke a key", async () => {
  const { page, seen } = await open("dev", "/console");
  await tabTo(page, "a[href='/console/tripwires']");
  await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
  await tabTo(page, "#who");
  await page.keyboard.type("@boss");
  await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
  assert.match(page.url(), /done=tripwire-armed/);
  // The notice of what happened takes the focus, so a screen reader says it.
  assert.equal(await page.evaluate(() => document.activeElement?.className), "banner ok");
  await tabTo(page, "form[aria-label^='Delete the tripwire'] button");
  await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
  assert.match(page.url(), /done=tripwire-deleted/);

  // Whatever keys earlier tests left, the account starts with none live.
  const guild = await accountId();
  for (const k of (await api("GET", `/v1/admin/keys?account=${guild}`)).data) if (!k.revoked_at) await api("DELETE", `/v1/admin/keys/${k.id}`);
  await page.goto(`${base}/console`);
  await tabTo(page, "a[href^='/console/accounts/']");
  await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
  await tabTo(page, "#key-name");
  await page.keyboard.type("keyboard");
  await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
  const key = await page.inputValue("#secret-value");
  assert.match(key, /^tl_live_/);
  await tabTo(page, "a[href^='/console/accounts/']");
  await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
  await tabTo(page, "form[aria-label^='Revoke key'] button");
  await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
  assert.equal((await fetch(`${base}/v1/account/usage`, { headers: { authorization: `Bearer ${key}` } })).status, 401);
  assertHarmless(seen, "keyboard");
  await page.close();
});

test("without JavaScript every form still works: POST, then a redirect to the page with its notice", async () => {
  const context = await browser.newContext({ viewport: WIDTHS.phone, javaScriptEnabled: false });
  await context.addCookies([{ name: "session", value: people.plain.cookie.split("=")[1], url: base }]);
  const page = await context.newPage();
  await page.goto(`${base}/console/tripwires`);
  await page.fill("#who", "@dev");
  await Promise.all([page.waitForNavigation(), page.click("button:text('Arm')")]);
  assert.match(page.url(), /\/console\/tripwires\?done=tripwire-armed$/);
  assert.match(await page.locator("main").innerText(), /@dev/);
  await page.screenshot({ path: join(artifacts, "console-plain-tripwires-nojs-phone.png"), fullPage: true });
  await context.close();
});
