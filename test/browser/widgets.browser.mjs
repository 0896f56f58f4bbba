// The two embeds in a real browser (Debian's Chromium through playwright-core, under Node), the way
// a fan site uses them: a live `trustlist serve` seeded through its own API, and host pages served
// from another origin that embed /widget/trust.js and /widget.js. Each card shows the right state,
// hostile text stays text, host CSS cannot break the card, axe finds no serious accessibility
// problem, and a screenshot of every state at desktop and phone width lands in test/artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { artifacts, bun, launchChromium, noSeriousAxeViolations, root } from "./kit.mjs";

const dir = mkdtempSync(join(tmpdir(), "trustlist-widgets-"));
const WIDTHS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };
const HOSTILE = "<img src=x onerror=window.__pwned=1>";

let server;
let base;
let hostServer;
let host;
let browser;
/** Host pages by path, filled by each test. */
const pages = new Map();

/** Starts `trustlist serve` on the test database; the first start also prints the admin key. */
async function startServer(firstStart) {
  const child = spawn(bun, [join(root, "src", "main.ts"), "serve", "--port", "0", "--db", join(dir, "t.db"), "--access-log", "off"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const started = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 15_000);
    const read = (chunk) => {
      output += chunk;
      const listening = output.match(/listening on (http:\/\/\S+)/);
      const key = output.match(/tl_live_[A-Za-z0-9]{32}/);
      if (listening && (key || !firstStart)) {
        clearTimeout(timer);
        resolve({ url: listening[1], key: key?.[0] });
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("exit", (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  return { child, ...(await started) };
}

/** Seeds the data set through the partner API with the admin key the first start printed. */
async function seed(key) {
  const write = async (method, path, body) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${await res.text()}`);
  };
  const entry = (body) => write("POST", "/v1/partner/blacklist", { reason_code: "scam_trade", ...body });
  await write("PUT", "/v1/partner/creators/clean_creator", { display_name: "Clean Creator", verification_level: 3 });
  await write("POST", "/v1/partner/creators/clean_creator/connections", {
    provider: "roblox", provider_user_id: "5550001", provider_username: "CleanBuilds", verified_at: "2026-01-01T00:00:00.000Z",
  });
  await write("PUT", "/v1/partner/creators/banned_creator", { display_name: "Banned Creator", verification_level: 1 });
  await write("POST", "/v1/partner/creators/banned_creator/connections", { provider: "discord", provider_user_id: "80351110224678912", provider_username: "bannedone" });
  await entry({ provider: "discord", provider_user_id: "80351110224678912", severity: "ban", summary: "Took payment for a map and never delivered." });
  await write("PUT", "/v1/partner/creators/watched_creator", { display_name: "Watched Creator" });
  await write("POST", "/v1/partner/creators/watched_creator/connections", { provider: "roblox", provider_user_id: "5550003", provider_username: "WatchedRBX" });
  await entry({ provider: "roblox", provider_user_id: "5550003", severity: "warn", watchlist: true, summary: "External report, not checked." });
  await write("PUT", "/v1/partner/creators/xss_creator", { display_name: HOSTILE });
  // Accounts known only to the blacklist.
  await entry({ provider: "roblox", provider_user_id: "7770001", username: HOSTILE, severity: "ban", summary: `Scammed buyers ${HOSTILE}` });
  await entry({ provider: "roblox", provider_user_id: "7770002", username: "RestrictedRBX", severity: "restrict", summary: "Chargebacks on two trades." });
  await entry({ provider: "roblox", provider_user_id: "7770003", username: "WarnedRBX", severity: "warn", high_risk: true });
  await entry({ provider: "epic", provider_user_id: "epicwatch", username: "RumouredEpic", severity: "warn", watchlist: true });
  await entry({ provider: "roblox", provider_user_id: "7770004", username: "FinalRBX", severity: "ban", appealable: false, summary: "A final decision." });
}

function stopServer(child) {
  return new Promise((resolve) => {
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });
}

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  const started = await startServer(true);
  base = started.url;
  await seed(started.key);
  // Search suggestions come from name counts read at start (and hourly): start again to have them.
  await stopServer(started.child);
  const restarted = await startServer(false);
  server = restarted.child;
  base = restarted.url;
  hostServer = createServer((req, res) => {
    const html = pages.get(req.url);
    res.writeHead(html ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(html ?? "not found");
  });
  await new Promise((resolve) => hostServer.listen(0, "127.0.0.1", resolve));
  // "localhost" rather than 127.0.0.1: another host and port, so every call is cross-origin.
  host = `http://localhost:${hostServer.address().port}`;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  hostServer?.close();
  if (server) await stopServer(server);
  rmSync(dir, { recursive: true, force: true });
});

const escapeAttr = (text) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** A host page on the other origin; `body` holds the embeds. */
function hostPage(path, body, css = "") {
  pages.set(
    path,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
      `<title>Fan site</title><link rel="icon" href="data:,"><style>body{font-family:serif;margin:16px;background:#f4f1ea}${css}</style></head>` +
      `<body><main><h1>Fan site</h1>${body}</main></body></html>`,
  );
  return host + path;
}

const trustTag = (handle, theme) =>
  `<div class="slot" data-slot="${escapeAttr(handle)}-${theme ?? "default"}"><script src="${base}/widget/trust.js" data-handle="${escapeAttr(handle)}"${theme ? ` data-theme="${theme}"` : ""} async></script></div>`;
const checkTag = (slot, attrs = "") => `<div class="slot" data-slot="${slot}"><script src="${base}/widget.js"${attrs} async></script></div>`;

/** Opens a page that records dialogs, console warnings, failed requests and the hosts it reached. */
async function open(url, viewport = WIDTHS.desktop) {
  const page = await browser.newPage({ viewport });
  const seen = { dialogs: [], warnings: [], errors: [], hosts: new Set(), paths: [] };
  page.on("dialog", async (dialog) => {
    seen.dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  page.on("console", (message) => {
    if (message.type() === "warning") seen.warnings.push(message.text());
    // A refused request (the 429 case) is logged by the browser itself; loads are checked by path.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) seen.errors.push(message.text());
  });
  page.on("pageerror", (error) => seen.errors.push(String(error)));
  page.on("request", (request) => {
    const u = new URL(request.url());
    seen.hosts.add(u.host);
    seen.paths.push(u.pathname);
  });
  await page.goto(url, { waitUntil: "load" });
  return { page, seen };
}

/** Waits until every card on the page has finished loading. */
async function settled(page, count) {
  await page.waitForFunction(
    (n) => {
      const cards = [...document.querySelectorAll("trustlist-card")];
      return cards.length === n && cards.every((c) => c.shadowRoot && !c.shadowRoot.querySelector("[aria-busy]"));
    },
    count,
    { timeout: 10_000 },
  );
}

/** The visible text of the card in one slot. */
const cardText = (page, slot) =>
  page.evaluate((s) => document.querySelector(`[data-slot="${s}"] trustlist-card`).shadowRoot.querySelector(".card").innerText, slot);

async function screenshotSlots(page, prefix, slots, width) {
  for (const slot of slots) {
    await page.locator(`[data-slot="${slot}"] trustlist-card`).screenshot({ path: join(artifacts, `${prefix}-${slot}-${width}.png`) });
  }
}

function assertHarmless(seen, what) {
  assert.deepEqual(seen.dialogs, [], `${what}: no dialog`);
  assert.deepEqual(seen.errors, [], `${what}: no script error`);
  assert.ok(!seen.paths.includes("/x"), `${what}: no image was loaded from hostile markup`);
  assert.deepEqual([...seen.hosts].sort(), [new URL(base).host, new URL(host).host].sort(), `${what}: only the two servers are reached`);
}

const TRUST_CASES = [
  ["clean_creator", "dark"],
  ["banned_creator", "dark"],
  ["watched_creator", "light"],
  ["nobody_here", "light"],
  ["xss_creator", undefined],
  [HOSTILE, "dark"],
];

test("trust.js: several cards on one page, each beside its own tag, in the right state", async () => {
  const url = hostPage("/trust", TRUST_CASES.map(([handle, theme]) => trustTag(handle, theme)).join("<p>Between the cards.</p>"));
  for (const [width, viewport] of Object.entries(WIDTHS)) {
    const { page, seen } = await open(url, viewport);
    await settled(page, TRUST_CASES.length);
    // Each card sits right after the script tag that asked for it.
    const order = await page.evaluate(() =>
      [...document.querySelectorAll("trustlist-card")].map((card) => card.previousElementSibling.getAttribute("data-handle")),
    );
    assert.deepEqual(order, TRUST_CASES.map(([handle]) => handle));

    const clean = await cardText(page, "clean_creator-dark");
    assert.match(clean, /Clean Creator/);
    assert.match(clean, /@clean_creator/);
    assert.match(clean, /Average/);
    assert.match(clean, /Verification: Enhanced/);
    assert.match(clean, /Not blacklisted/);
    const link = await page.evaluate(() => {
      const a = document.querySelector('[data-slot="clean_creator-dark"] trustlist-card').shadowRoot.querySelector("a");
      return { href: a.href, target: a.target, rel: a.rel };
    });
    assert.deepEqual(link, { href: `${base}/u/clean_creator`, target: "_blank", rel: "noopener" });
    const tierColor = await page.evaluate(() =>
      getComputedStyle(document.querySelector('[data-slot="clean_creator-dark"] trustlist-card').shadowRoot.querySelector(".dot")).backgroundColor,
    );
    assert.equal(tierColor, "rgb(223, 179, 23)", "the average band's colour, #dfb317");

    const banned = await cardText(page, "banned_creator-dark");
    assert.match(banned, /Banned/);
    assert.match(banned, /Blacklisted: banned on trustlist/);
    assert.match(banned, /Verification: Basic/);

    // A watchlist report is not a ban: the card is not blacklisted, and the band carries the penalty.
    const watched = await cardText(page, "watched_creator-light");
    assert.match(watched, /Not blacklisted/);
    assert.match(watched, /Bad/);

    const unknown = await cardText(page, "nobody_here-light");
    assert.match(unknown, /@nobody_here/);
    assert.match(unknown, /Not verified: no trustlist profile with this handle/);

    // Hostile display name and handle: shown as the text they are.
    assert.match(await cardText(page, "xss_creator-default"), new RegExp(HOSTILE.replace(/[()=.]/g, "\\$&")));
    const hostileHandle = await cardText(page, `${HOSTILE}-dark`);
    assert.ok(hostileHandle.includes(`@${HOSTILE}`), hostileHandle);
    assert.match(hostileHandle, /Not verified/);
    const images = await page.evaluate(() => [...document.querySelectorAll("trustlist-card")].map((c) => c.shadowRoot.querySelectorAll("img").length));
    assert.deepEqual(images, images.map(() => 0));
    assert.equal(await page.evaluate(() => window.__pwned), undefined, "no hostile handler ran");
    assertHarmless(seen, `trust.js ${width}`);

    await noSeriousAxeViolations(page, `trust.js ${width}`);
    await screenshotSlots(page, "trust", ["clean_creator-dark", "banned_creator-dark", "watched_creator-light", "nobody_here-light", "xss_creator-default"], width);
    await page.screenshot({ path: join(artifacts, `trust-page-${width}.png`), fullPage: true });
    await page.close();
  }
});

test("trust.js: the host page's CSS cannot hide or restyle the card", async () => {
  const body = trustTag("clean_creator", "light");
  const plain = hostPage("/plain", body);
  const hostile = hostPage(
    "/hostile-css",
    body,
    "body *{display:none!important;color:red!important;font:40px/3 serif!important;background:lime!important;border:5px solid red!important;padding:30px!important}" +
      "body>main,body>main>div{display:block!important}",
  );
  const boxes = [];
  for (const url of [plain, hostile]) {
    const { page, seen } = await open(url);
    await settled(page, 1);
    const card = page.locator("trustlist-card .card");
    assert.ok(await card.isVisible(), "card visible");
    boxes.push(await card.boundingBox());
    const style = await page.evaluate(() => {
      const inner = document.querySelector("trustlist-card").shadowRoot.querySelector(".name");
      const s = getComputedStyle(inner);
      return { color: s.color, fontSize: s.fontSize };
    });
    assert.deepEqual(style, { color: "rgb(31, 35, 40)", fontSize: "16px" });
    if (url === hostile) await page.screenshot({ path: join(artifacts, "trust-hostile-css-desktop.png") });
    assertHarmless(seen, url);
    await page.close();
  }
  assert.equal(boxes[1].width, boxes[0].width, "same width under hostile CSS");
  assert.equal(boxes[1].height, boxes[0].height, "same height under hostile CSS");
});

/** Types `q` into the check card in `slot` and waits for its answer. */
async function check(page, slot, q) {
  const card = page.locator(`[data-slot="${slot}"] trustlist-card`);
  await card.locator("input").fill(q);
  await card.locator("input").press("Enter");
  await page.waitForFunction(
    (s) => {
      const root = document.querySelector(`[data-slot="${s}"] trustlist-card`).shadowRoot;
      const out = root.querySelector(".out");
      return !out.hasAttribute("aria-busy") && out.querySelector(".verdict");
    },
    slot,
    { timeout: 10_000 },
  );
  return cardText(page, slot);
}

const CHECK_CASES = [
  // [slot, query, platform attribute, expected text]
  ["clean", "clean_creator", "", [/No record/, /No blacklist entry/, /Roblox: CleanBuilds/]],
  ["banned", "7770001", ' data-platform="roblox"', [/Banned/, /Confirmed ban/, new RegExp(`Scammed buyers ${HOSTILE.replace(/[()=.]/g, "\\$&")}`), /Reason: scam_trade/]],
  ["restricted", "RestrictedRBX", "", [/Restricted/, /Chargebacks on two trades/]],
  ["warned", "7770003", "", [/Warned/, /High risk/]],
  ["watchlist", "RumouredEpic", ' data-platform="uefn"', [/Watchlist/, /Unconfirmed report, not a ban/, /Epic: RumouredEpic/]],
  ["unknown", "clean_creatr", "", [/Not found/, /Nothing matches “clean_creatr”/, /Did you mean/, /clean_creator/]],
  ["narrowed", "RestrictedRBX", ' data-platform="minecraft"', [/Not found/, /No Minecraft account or trustlist profile matches/, /Found on another platform: Roblox/]],
  ["final", "FinalRBX", "", [/Banned/, /A final decision/]],
];

/** What the check card tells a listed person whose entry may be appealed. */
const APPEAL = /This listing can be appealed\. If it names you, use \/appeal with this community's Discord bot, or sign in and appeal it from your account \(POST \/v1\/me\/appeals\)\./;

test("widget.js: banned, restricted, warned, watchlist, clean and unknown answers, each distinct", async () => {
  const url = hostPage("/check", CHECK_CASES.map(([slot, , attrs]) => checkTag(slot, attrs)).join("") + checkTag("empty") + checkTag("bogus", ' data-platform="xbox" data-theme="light"'));
  for (const [width, viewport] of Object.entries(WIDTHS)) {
    const { page, seen } = await open(url, viewport);
    await settled(page, CHECK_CASES.length + 2);
    // The platform hint names the platform; an unknown one is ignored with a warning.
    assert.match(await cardText(page, "banned"), /Check a Roblox account\s+Roblox username or id/);
    assert.match(await cardText(page, "bogus"), /Check an account\s+Username, handle or id/);
    assert.ok(seen.warnings.some((w) => w.includes('unknown data-platform "xbox"')), `warned: ${seen.warnings}`);

    for (const [slot, q, , expected] of CHECK_CASES) {
      const text = await check(page, slot, q);
      for (const pattern of expected) assert.match(text, pattern, `${slot}: ${text}`);
      // Only confirmed entries that may be appealed say how; a watchlist report or a final entry does not.
      if (["banned", "restricted", "warned"].includes(slot)) assert.match(text, APPEAL, `${slot}: ${text}`);
      else assert.doesNotMatch(text, /appeal/i, `${slot}: ${text}`);
    }
    // Each state has its own look.
    const looks = await page.evaluate((slots) =>
      slots.map((s) => {
        const verdict = document.querySelector(`[data-slot="${s}"] trustlist-card`).shadowRoot.querySelector(".verdict");
        return `${verdict.className} ${getComputedStyle(verdict).backgroundColor}`;
      }),
    ["clean", "banned", "restricted", "watchlist", "unknown"]);
    assert.equal(new Set(looks).size, looks.length, `distinct looks: ${looks}`);

    // Submitting nothing says so, without a request.
    const before = seen.paths.filter((p) => p.endsWith("/blacklist/check")).length;
    await page.locator('[data-slot="empty"] trustlist-card button[type="submit"]').click();
    assert.match(await cardText(page, "empty"), /Nothing to check/);
    assert.equal(await page.locator('[data-slot="empty"] trustlist-card input').getAttribute("aria-invalid"), "true");
    assert.equal(seen.paths.filter((p) => p.endsWith("/blacklist/check")).length, before);

    await screenshotSlots(page, "check", [...CHECK_CASES.map(([slot]) => slot), "empty", "bogus"], width);

    // A suggestion is a button that runs the check.
    await page.locator('[data-slot="unknown"] trustlist-card .suggest button', { hasText: "clean_creator" }).click();
    await page.waitForFunction(() => /No record/.test(document.querySelector('[data-slot="unknown"] trustlist-card').shadowRoot.querySelector(".out").innerText));

    assert.equal(await page.evaluate(() => window.__pwned), undefined, "no hostile handler ran");
    assertHarmless(seen, `widget.js ${width}`);
    await noSeriousAxeViolations(page, `widget.js ${width}`);
    await page.close();
  }
});

test("widget.js: keyboard only, with a label, a live region and a visible focus ring", async () => {
  const url = hostPage("/keyboard", checkTag("kb", ' data-theme="light"'));
  const { page, seen } = await open(url);
  await settled(page, 1);
  const a11y = await page.evaluate(() => {
    const root = document.querySelector("trustlist-card").shadowRoot;
    const input = root.querySelector("input");
    return {
      label: root.querySelector(`label[for="${input.id}"]`)?.textContent,
      live: root.querySelector(".out").getAttribute("aria-live"),
      role: root.querySelector(".out").getAttribute("role"),
      button: root.querySelector("button").type,
      described: root.getElementById(input.getAttribute("aria-describedby"))?.textContent,
    };
  });
  assert.deepEqual(a11y, {
    label: "Username, handle or id",
    live: "polite",
    role: "status",
    button: "submit",
    described: "Searches the trustlist blacklist and creator profiles.",
  });
  await page.keyboard.press("Tab");
  const focus = await page.evaluate(() => {
    const root = document.querySelector("trustlist-card").shadowRoot;
    const s = getComputedStyle(root.activeElement);
    return { tag: root.activeElement?.tagName, outline: s.outlineStyle, width: s.outlineWidth };
  });
  assert.deepEqual(focus, { tag: "INPUT", outline: "solid", width: "3px" });
  await page.keyboard.type("banned_creator");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => /Banned/.test(document.querySelector("trustlist-card").shadowRoot.querySelector(".out").innerText));
  assertHarmless(seen, "keyboard");
  await page.close();
});

/**
 * Runs `action` while this process keeps the server's keyless bucket for 127.0.0.1 empty (the
 * browser shares that address, so its requests are refused too), spending what refills meanwhile.
 */
async function whileBucketSpent(action) {
  let running = true;
  let refused = 0;
  const drain = (async () => {
    const deadline = Date.now() + 20_000;
    while ((running || refused === 0) && Date.now() < deadline) {
      if ((await fetch(`${base}/v1/stats/public`)).status === 429) refused++;
    }
  })();
  while (refused === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  try {
    return await action();
  } finally {
    running = false;
    await drain;
  }
}

// Last: it spends the server's per-IP bucket for keyless routes.
test("widget.js and trust.js: a 429 says when to try again", async () => {
  const url = hostPage("/limited", checkTag("limited", ' data-theme="light"'));
  const { page, seen } = await open(url);
  await settled(page, 1);
  // The bucket refills 10 tokens a second while it is drained, so the card's check could win a
  // token on a busy machine; it is re-sent to the server until the server itself refuses it, and
  // the card gets that real 429 (as the trust card's request below).
  await page.route("**/v1/public/blacklist/check**", async (route) => {
    let response = await route.fetch();
    for (let tries = 0; response.status() !== 429 && tries < 200; tries++) response = await route.fetch();
    await route.fulfill({ response });
  });
  const text = await whileBucketSpent(() => check(page, "limited", "clean_creator"));
  assert.match(text, /Too many checks/);
  assert.match(text, /Try again in \d+ seconds?\./);
  await page.locator("trustlist-card").screenshot({ path: join(artifacts, "check-rate-limited-desktop.png") });
  await page.setViewportSize(WIDTHS.phone);
  await page.locator("trustlist-card").screenshot({ path: join(artifacts, "check-rate-limited-phone.png") });
  assertHarmless(seen, "429");
  await page.close();

  // The bucket refills 10 tokens a second while it is drained, so the card's one trust request could
  // win a token; it is re-sent to the server until the server itself refuses it, and the card gets
  // that real 429.
  const trust = await whileBucketSpent(async () => {
    const page = await browser.newPage({ viewport: WIDTHS.desktop });
    await page.route("**/v1/public/trust/**", async (route) => {
      let response = await route.fetch();
      for (let tries = 0; response.status() !== 429 && tries < 200; tries++) response = await route.fetch();
      await route.fulfill({ response });
    });
    await page.goto(hostPage("/limited-trust", trustTag("clean_creator", "light")), { waitUntil: "load" });
    await settled(page, 1);
    return { page };
  });
  assert.match(await cardText(trust.page, "clean_creator-light"), /Trust data unavailable\. Try again in \d+ s\./);
  await trust.page.screenshot({ path: join(artifacts, "trust-rate-limited-desktop.png") });
  await trust.page.close();
});
