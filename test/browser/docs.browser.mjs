// /docs in a real browser (Debian's Chromium through playwright-core, under Node): the reference
// renders every route group and loads nothing from any host but the server itself.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const bun = join(root, ".tools", "node_modules", ".bin", "bun");
const dir = mkdtempSync(join(tmpdir(), "trustlist-browser-"));
let server;
let base;
let browser;

before(async () => {
  server = spawn(bun, [join(root, "src", "main.ts"), "serve", "--port", "0", "--db", join(dir, "t.db"), "--access-log", "off"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  base = await new Promise((resolve, reject) => {
    let stderr = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 15_000);
    server.stderr.on("data", (chunk) => {
      stderr += chunk;
      const match = stderr.match(/listening on (http:\/\/\S+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    server.on("exit", (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
});

after(async () => {
  await browser?.close();
  server?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

test("/docs renders the reference from the binary alone", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const hosts = new Set();
  const failed = [];
  page.on("request", (request) => hosts.add(new URL(request.url()).host));
  page.on("requestfailed", (request) => failed.push(request.url()));
  await page.goto(`${base}/docs`, { waitUntil: "networkidle" });
  await page.getByText("Check one account").first().waitFor({ timeout: 15_000 });
  for (const group of ["Blacklist", "Partner", "Account", "Admin", "Ops"]) {
    assert.ok(await page.getByText(group, { exact: true }).first().isVisible(), `sidebar group ${group}`);
  }
  assert.equal(await page.title(), "trustlist");
  assert.deepEqual([...hosts], [new URL(base).host], "every request goes to the server itself");
  assert.deepEqual(failed, []);
  await page.close();
});
