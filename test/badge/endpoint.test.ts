// GET /badge/{handle}.json: the badge in shields.io's endpoint format, through app.handle.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { createTestApp, partnerWriter, type TestApp } from "../helpers";

let t: TestApp;
let write: Awaited<ReturnType<typeof partnerWriter>>;
beforeEach(async () => {
  t = await createTestApp();
  write = await partnerWriter(t);
});
afterEach(() => t.close());

/** Only keys of shields' endpoint schema: shields rejects a document with any other. */
const SHIELDS_KEYS = ["schemaVersion", "label", "message", "color", "labelColor", "isError", "namedLogo", "logoSvg", "logoColor", "logoWidth", "style", "cacheSeconds"];

test("a creator's badge: label, band, band colour, an hour of caching, any origin", async () => {
  await write("PUT", "/v1/partner/creators/shadow", { display_name: "Shadow Builds" });
  const res = await t.json("GET", "/badge/@Shadow.json");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  expect(res.body).toEqual({ schemaVersion: 1, label: "Shadow Builds", message: "Average", color: "#dfb317", cacheSeconds: 3600 });
  for (const key of Object.keys(res.body)) expect(SHIELDS_KEYS).toContain(key);
  // The SVG route draws the same words.
  const svg = await (await t.call("GET", "/badge/shadow.svg")).text();
  expect(svg).toContain(">Shadow Builds<");
  expect(svg).toContain(">Average<");

  await write("POST", "/v1/partner/creators/shadow/connections", { provider: "discord", provider_user_id: "80351110224678912" });
  await write("POST", "/v1/partner/blacklist", { provider: "discord", provider_user_id: "80351110224678912", severity: "ban", reason_code: "scam_trade" });
  expect((await t.json("GET", "/badge/shadow.json")).body).toMatchObject({ label: "Shadow Builds", message: "Banned", color: "#e05d44" });
});

test("an unknown handle is a 200 neutral Not Verified badge", async () => {
  const res = await t.json("GET", "/badge/nobody_here.JSON");
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ schemaVersion: 1, label: "@nobody_here", message: "Not Verified", color: "#9f9f9f", cacheSeconds: 3600 });
});

test("text that cannot be a handle gets the neutral badge and is never echoed", async () => {
  const hostile = `<img src=x onerror=alert(1)>"\u0000\u001b${"x".repeat(300)}`;
  const res = await t.call("GET", `/badge/${encodeURIComponent(hostile)}.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
  const body = (await res.json()) as { label: string; message: string };
  expect(body.message).toBe("Not Verified");
  // Like the SVG route: the badge of an impossible handle names trustlist, not the text sent.
  expect(body.label).toBe("trustlist");
  expect(JSON.stringify(body)).not.toContain("onerror");
  // A display name holding markup is text too.
  await write("PUT", "/v1/partner/creators/marked", { display_name: "<script>alert(2)</script>" });
  expect((await t.json("GET", "/badge/marked.json")).body.label).toBe("<script>alert(2)</script>");
});
