// The embed scripts as a browser fetches them from another origin: JavaScript that parses, small,
// cacheable with a strong ETag that answers 304, readable cross-origin. What they draw is tested in
// a real browser (test/browser/widgets.browser.mjs).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildScript, matchesEtag } from "../../src/modules/widgets";
import { createTestApp, type TestApp } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe.each(["/widget/trust.js", "/widget.js"])("%s", (path) => {
  test("is JavaScript under 15 KB, cached for an hour, readable from any origin", async () => {
    const res = await t.call("GET", path, { headers: { origin: "https://fan-site.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const body = await res.text();
    expect(Buffer.byteLength(body)).toBeLessThan(15 * 1024);
    // Parses, runs in strict mode, and declares nothing global: one function expression.
    expect(() => new Function(body)).not.toThrow();
    expect(body).toStartWith('(function(){"use strict";');
    expect(body.trimEnd()).toEndWith("})();");
    // Content goes in as text only.
    expect(body).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  });

  test("answers a matching If-None-Match with 304 and no body; a stale one with the script", async () => {
    const first = await t.call("GET", path);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);
    const again = await t.call("GET", path, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("cache-control")).toBe("public, max-age=3600");
    expect((await t.call("GET", path, { headers: { "if-none-match": `"stale", W/${etag}` } })).status).toBe(304);
    const stale = await t.call("GET", path, { headers: { "if-none-match": '"stale"' } });
    expect(stale.status).toBe(200);
    expect(await stale.text()).toBe(await first.text());
  });

  test("a cross-origin preflight is answered", async () => {
    const res = await t.call("OPTIONS", path, { headers: { origin: "https://fan-site.example", "access-control-request-method": "GET" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});

test("the two scripts differ, and each ETag is a hash of its content", async () => {
  const trust = await t.call("GET", "/widget/trust.js");
  const check = await t.call("GET", "/widget.js");
  expect(trust.headers.get("etag")).not.toBe(check.headers.get("etag"));
  expect(buildScript("var a = 1;").etag).toBe(buildScript("var a = 1;").etag);
  expect(buildScript("var a = 1;").etag).not.toBe(buildScript("var a = 2;").etag);
  // Comments and indentation are stripped; the strict-mode directive survives.
  expect(buildScript("// note\nfunction f() {\n  return 1;\n}").body).toBe('(function(){"use strict";function f(){return 1}})();\n');
});

test("If-None-Match matching: list, weak form, wildcard", () => {
  expect(matchesEtag(null, '"a"')).toBe(false);
  expect(matchesEtag('"a"', '"a"')).toBe(true);
  expect(matchesEtag('W/"a"', '"a"')).toBe(true);
  expect(matchesEtag('"b", "a"', '"a"')).toBe(true);
  expect(matchesEtag("*", '"a"')).toBe(true);
  expect(matchesEtag('"b"', '"a"')).toBe(false);
});
