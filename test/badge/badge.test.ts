// The badge's memory stays bounded whatever is requested: its cache is keyed by the normalised
// handle, and text that cannot be a handle gets the neutral badge without reaching the cache or
// the database (docs/embeds.md: the badge is always a 200 SVG).
import { afterEach, expect, test } from "bun:test";
import { BADGE_CACHE_LIMIT, BadgeService } from "../../src/modules/badge/service";
import { createTestApp, type TestApp } from "../helpers";

let t: TestApp;
afterEach(() => t?.close());

async function cacheEntries(adminKey: string): Promise<number> {
  const metrics = await (await t.call("GET", "/metrics", { key: adminKey })).text();
  return Number(metrics.match(/^trustlist_badge_cache_entries (\d+)$/m)![1]);
}

const badge = (handle: string) => t.call("GET", `/badge/${encodeURIComponent(handle)}`);

async function expectNotVerified(res: Response) {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
  const svg = await res.text();
  expect(svg).toStartWith("<svg");
  expect(svg).toContain(">Not Verified<");
  return svg;
}

test("400 distinct 16 KB handles leave the cache empty and all get the one neutral badge", async () => {
  t = await createTestApp();
  const admin = await t.account({ scope: "admin" });
  const first = await expectNotVerified(await badge(`${"a".repeat(16 * 1024)}0`));
  for (let i = 1; i < 400; i++) expect(await expectNotVerified(await badge(`${"a".repeat(16 * 1024)}${i}`))).toBe(first);
  for (const junk of ["<script>alert(1)</script>", "a", "@", "x".repeat(33), "bad handle", "émile"]) {
    expect(await expectNotVerified(await badge(junk))).toBe(first);
  }
  expect(first).not.toContain("aaaa");
  expect(await cacheEntries(admin.key)).toBe(0);
});

test("an impossible handle is answered without the database", async () => {
  t = await createTestApp();
  await t.runtime.store.close();
  await expectNotVerified(await badge("not a handle!"));
});

test("Alice, @alice and alice.svg share one entry; an unknown handle's badge names it normalised", async () => {
  t = await createTestApp();
  const admin = await t.account({ scope: "admin" });
  await t.services.creators.upsert("alice", { display_name: "Alice Makes" });
  const svgs = [];
  for (const handle of ["Alice", "@alice", "alice.svg", " ALICE.SVG "]) {
    const res = await badge(handle);
    expect(res.status).toBe(200);
    svgs.push(await res.text());
  }
  expect(new Set(svgs).size).toBe(1);
  expect(svgs[0]).toContain(">Alice Makes<");
  expect(await cacheEntries(admin.key)).toBe(1);

  const unknown = await expectNotVerified(await badge("@NoBody.svg"));
  expect(unknown).toContain(">@nobody<");
  expect(await expectNotVerified(await badge("nobody"))).toBe(unknown);
  expect(await cacheEntries(admin.key)).toBe(2);
});

test("the cache holds at most its limit, keeping the most recently used", async () => {
  t = await createTestApp();
  const limit = 10;
  const badges = new BadgeService(t.services.creators, limit);
  const popular = await badges.svgFor("popular", "dark");
  for (let i = 0; i < 100; i++) {
    await badges.svgFor(`visitor_${i}`, i % 2 ? "dark" : "light");
    await badges.svgFor("popular", "dark");
    expect(badges.cacheSize).toBeLessThanOrEqual(limit);
  }
  expect(await badges.svgFor("popular", "dark")).toBe(popular);
  expect(BADGE_CACHE_LIMIT).toBeLessThanOrEqual(10_000);
});

test("a cached badge follows the creator's band and name", async () => {
  t = await createTestApp();
  await t.services.creators.upsert("shifty", { display_name: "Shifty" });
  expect(await (await badge("shifty")).text()).toContain(">Shifty<");
  await t.services.creators.upsert("shifty", { display_name: "Renamed" });
  expect(await (await badge("shifty")).text()).toContain(">Renamed<");
});

test("a path whose percent-escape is malformed still gets the neutral badge (always a 200 SVG), in either format", async () => {
  t = await createTestApp();
  await expectNotVerified(await t.call("GET", "/badge/%E0%A4"));
  await expectNotVerified(await t.call("GET", "/badge/%E0%A4.svg?theme=light"));
  const json = await t.call("GET", "/badge/%zz.json");
  expect(json.status).toBe(200);
  expect(await json.json()).toMatchObject({ schemaVersion: 1, message: "Not Verified" });
});
