// What the browser test files share: Debian's Chromium through playwright-core, and axe-core's
// check for serious or critical accessibility violations.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The pinned Bun the Makefile installs, which runs the server and the renderer. */
export const bun = join(root, ".tools", "node_modules", ".bin", "bun");
/** Screenshots, kept for a person to look at (gitignored). */
export const artifacts = join(root, "test", "artifacts");
const AXE_SOURCE = readFileSync(join(root, "node_modules", "axe-core", "axe.min.js"), "utf8");

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

/** Runs axe on the page; fails on any serious or critical violation. */
export async function noSeriousAxeViolations(page, what) {
  // Evaluated by the test, not added as a script tag, so a page's Content-Security-Policy cannot
  // refuse it; once per document (about 0.3 s of the 2-core test machine each time).
  if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")})`);
  });
  assert.deepEqual(violations, [], `${what}: axe found serious or critical violations`);
}
