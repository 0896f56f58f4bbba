// The blacklist routes doing what they are for: the partner write path (add, overturn) with its
// change row and outbox event, and the keyed reads (list with paging and filters, single and batch
// checks, one entry, the change feed) answering what was written. Seed data goes through the real
// partner route or the blacklist service, never straight into the tables. Refusals are in
// blacklist.error.test.ts, auth, plan, privacy and hostile input in blacklist.security.test.ts.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { expectEnvelope } from "../helpers";
import { add, check, expectPublicEntry, get, type Json, outboxTypes, post, PRIVATE_FIELDS, PUBLIC_ENTRY_KEYS, setup, t, T0, teardown, writer } from "./kit";

const HIT_SUMMARY_KEYS = ["id", "reason_code", "scope", "severity", "summary", "vertical"];

const CLEAN_CHECK_KEYS = ["banned", "checked_at", "id", "provider"];

/** Walks the list with `limit` and returns every page. */
async function walk(query = "", limit = 2, between?: (page: number) => Promise<void>) {
  const pages: Json[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const res = await get(`/v1/blacklist?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(res.status).toBe(200);
    pages.push(res.body);
    if (!res.body.has_more) {
      expect(res.body.next_cursor).toBeNull();
      return pages;
    }
    expect(typeof res.body.next_cursor).toBe("string");
    cursor = res.body.next_cursor;
    if (between) await between(i);
  }
  throw new Error("walk did not end");
}

beforeEach(setup);
afterEach(teardown);

describe("POST /v1/partner/blacklist", () => {
  test("201 answers the public-safe entry plus the subject the writer already knows, field by field", async () => {
    const res = await t.json("POST", "/v1/partner/blacklist", {
      key: writer.key,
      body: {
        provider: "discord",
        provider_user_id: " 80351110224678912 ",
        username: "  ScamBot  ",
        severity: "ban",
        reason_code: "scam_trade",
        summary: "Took payment for a map and never delivered.",
        evidence: "ticket #4411, screenshots in the mod channel",
        high_risk: true,
        creator: "@Some.Creator",
      },
    });
    expect(res.status).toBe(201);
    const body = res.body;
    expect(Object.keys(body).sort()).toEqual([...PUBLIC_ENTRY_KEYS, "provider", "provider_user_id", "username"].sort());
    expect(body.id).toMatch(/^bl_[0-9a-z]{26}$/);
    expect(body.severity).toBe("ban");
    expect(body.scope).toBe("global");
    expect(body.vertical).toBe("all");
    expect(body.reason_code).toBe("scam_trade");
    expect(body.summary).toBe("Took payment for a map and never delivered.");
    expect(body.issued_at).toBe(T0);
    expect(body.expires_at).toBeNull();
    expect(body.appealable).toBe(true);
    expect(body.provider).toBe("discord");
    expect(body.provider_user_id).toBe("80351110224678912");
    expect(body.username).toBe("ScamBot");
    for (const field of ["evidence", "reporter", "status", "watchlist", "high_risk", "creator", "creator_handle"]) {
      expect(body).not.toHaveProperty(field);
    }
    expect(JSON.stringify(body)).not.toContain("ticket #4411");
  });

  test("optional fields: vertical implies scope vertical, issued_at backdates, expires_at and appealable are kept", async () => {
    const body = await add({
      provider: "roblox",
      provider_user_id: "1234567",
      vertical: "roblox",
      severity: "restrict",
      issued_at: "2026-11-01T08:30:00Z",
      expires_at: "2027-01-01T00:00:00.000Z",
      appealable: false,
      summary: null,
    });
    expect(body.scope).toBe("vertical");
    expect(body.vertical).toBe("roblox");
    expect(body.severity).toBe("restrict");
    expect(body.issued_at).toBe("2026-11-01T08:30:00.000Z");
    expect(body.expires_at).toBe("2027-01-01T00:00:00.000Z");
    expect(body.appealable).toBe(false);
    expect(body.summary).toBeNull();
    expect(body.username).toBeNull();
  });

  test("provider ids are normalised: Minecraft UUIDs lose dashes and case, Epic ids their case", async () => {
    const mc = await add({ provider: "minecraft", provider_user_id: "069A79F4-44E9-4726-A5BE-FCA90E38AAF5" });
    expect(mc.provider_user_id).toBe("069a79f444e94726a5befca90e38aaf5");
    const epic = await add({ provider: "epic", provider_user_id: "AbCdEf123" });
    expect(epic.provider_user_id).toBe("abcdef123");
    expect((await check("minecraft", "069a79f4-44e9-4726-a5be-fca90e38aaf5")).body.banned).toBe(true);
    expect((await check("minecraft", "069A79F444E94726A5BEFCA90E38AAF5")).body.banned).toBe(true);
    expect((await check("epic", "ABCDEF123")).body.banned).toBe(true);
  });

  test("adding writes one blacklist.added outbox event whose payload is the public-safe entry", async () => {
    expect(await outboxTypes()).toEqual([]);
    const entry = await add({ evidence: "private notes", username: "someone" });
    expect(await outboxTypes()).toEqual(["blacklist.added"]);
    const [row] = await t.rows<{ payload: string }>("SELECT payload FROM outbox_events");
    const payload = JSON.parse(row.payload);
    expect(payload.id).toBe(entry.id);
    expectPublicEntry(payload);
    expect(row.payload).not.toContain("private notes");
  });

  test("a watchlist row writes no outbox event and no change-feed row", async () => {
    await add({ watchlist: true });
    expect(await outboxTypes()).toEqual([]);
    const feed = await get("/v1/blacklist/changes");
    expect(feed.body.data).toEqual([]);
  });
});

describe("POST /v1/partner/blacklist/:id/overturn", () => {
  test("200 with id, status and overturned_at; the entry stops counting everywhere", async () => {
    const entry = await add({ provider_user_id: "555" });
    t.clock.advance(60_000);
    const res = await t.json("POST", `/v1/partner/blacklist/${entry.id}/overturn`, { key: writer.key, body: { reason: "Appeal upheld" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: entry.id, status: "overturned", overturned_at: "2026-11-21T10:01:00.000Z" });

    const after = await check("discord", "555");
    expect(Object.keys(after.body).sort()).toEqual(CLEAN_CHECK_KEYS);
    expect(after.body.banned).toBe(false);
    expectEnvelope(await get(`/v1/blacklist/entries/${entry.id}`), 404, "not_found");
    expect((await get("/v1/blacklist")).body.data).toEqual([]);
    const batch = await post("/v1/blacklist/check/batch", { accounts: [{ provider: "discord", id: "555" }] });
    expect(batch.body.results[0]).toEqual({ provider: "discord", id: "555", banned: false });
  });

  test("works without a body", async () => {
    const entry = await add();
    const res = await t.json("POST", `/v1/partner/blacklist/${entry.id}/overturn`, { key: writer.key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("overturned");
  });

  test("emits an overturned change row (without an entry) and a blacklist.overturned event; a second overturn is 409", async () => {
    const entry = await add();
    t.clock.advance(5_000);
    await t.json("POST", `/v1/partner/blacklist/${entry.id}/overturn`, { key: writer.key, body: {} });
    const feed = await get("/v1/blacklist/changes");
    expect(feed.body.data.map((c: Json) => c.type)).toEqual(["added", "overturned"]);
    const overturned = feed.body.data[1];
    expect(overturned).toEqual({ seq: overturned.seq, type: "overturned", entry_id: entry.id, at: "2026-11-21T10:00:05.000Z" });
    expect(overturned.seq).toBeGreaterThan(feed.body.data[0].seq);
    expect(await outboxTypes()).toEqual(["blacklist.added", "blacklist.overturned"]);
    const payload = JSON.parse(
      (await t.rows<{ payload: string }>("SELECT payload FROM outbox_events WHERE type = 'blacklist.overturned'"))[0]!.payload,
    );
    expect(payload.id).toBe(entry.id);
    expectPublicEntry(payload);

    const again = await t.json("POST", `/v1/partner/blacklist/${entry.id}/overturn`, { key: writer.key, body: {} });
    expectEnvelope(again, 409, "conflict");
    expect((await get("/v1/blacklist/changes")).body.data).toHaveLength(2);
    expect(await outboxTypes()).toEqual(["blacklist.added", "blacklist.overturned"]);
  });

  test("overturning a watchlist row emits neither a change row nor an event", async () => {
    const entry = await add({ watchlist: true });
    const res = await t.json("POST", `/v1/partner/blacklist/${entry.id}/overturn`, { key: writer.key, body: {} });
    expect(res.status).toBe(200);
    expect((await get("/v1/blacklist/changes")).body.data).toEqual([]);
    expect(await outboxTypes()).toEqual([]);
  });
});

describe("GET /v1/blacklist", () => {
  test("an empty list is one empty last page", async () => {
    const res = await get("/v1/blacklist");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], next_cursor: null, has_more: false });
  });

  test("ordered by issued_at, then id", async () => {
    const late = await add({ provider_user_id: "1", issued_at: "2026-11-20T12:00:00.000Z" });
    const early = await add({ provider_user_id: "2", issued_at: "2026-11-18T12:00:00.000Z" });
    const middleA = await add({ provider_user_id: "3", issued_at: "2026-11-19T12:00:00.000Z" });
    const middleB = await add({ provider_user_id: "4", issued_at: "2026-11-19T12:00:00.000Z" });
    const [firstMiddle, secondMiddle] = [middleA.id, middleB.id].sort();
    const res = await get("/v1/blacklist");
    expect(res.body.data.map((e: Json) => e.id)).toEqual([early.id, firstMiddle, secondMiddle, late.id]);
  });

  test("default page size is 50; limit 1-100", async () => {
    for (let i = 0; i < 51; i++) {
      await t.services.blacklist.add({ provider: "discord", provider_user_id: String(1000 + i), severity: "ban", reason_code: "spam" }, { kind: "cli", id: "test" });
      t.clock.advance(1);
    }
    const first = await get("/v1/blacklist");
    expect(first.body.data).toHaveLength(50);
    expect(first.body.has_more).toBe(true);
    const second = await get(`/v1/blacklist?cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.data).toHaveLength(1);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect((await get("/v1/blacklist?limit=100")).body.data).toHaveLength(51);
    expect((await get("/v1/blacklist?limit=1")).body.data).toHaveLength(1);
    expectEnvelope(await get("/v1/blacklist?limit=0"), 422, "unprocessable");
    expectEnvelope(await get("/v1/blacklist?limit=101"), 422, "unprocessable");
    expectEnvelope(await get("/v1/blacklist?limit=ten"), 422, "unprocessable");
  });

  test("a page of exactly `limit` rows at the end says has_more false", async () => {
    await add({ provider_user_id: "1" });
    await add({ provider_user_id: "2" });
    const res = await get("/v1/blacklist?limit=2");
    expect(res.body.data).toHaveLength(2);
    expect(res.body).toMatchObject({ has_more: false, next_cursor: null });
  });

  test("a walk with limit=2 sees each active entry exactly once while entries are added and overturned during it", async () => {
    const initial: string[] = [];
    for (let i = 0; i < 7; i++) {
      initial.push((await add({ provider_user_id: String(200 + i) })).id);
      t.clock.advance(1_000);
    }
    // Entries sharing one issued_at are ordered by id; include a few to test the tie-break.
    for (let i = 0; i < 3; i++) initial.push((await add({ provider_user_id: String(300 + i) })).id);
    t.clock.advance(1_000);
    const addedDuring: string[] = [];
    const removed = initial[8]!;
    const pages = await walk("", 2, async (page) => {
      t.clock.advance(1_000);
      addedDuring.push((await add({ provider_user_id: String(400 + page) })).id);
      if (page === 1) await t.json("POST", `/v1/partner/blacklist/${removed}/overturn`, { key: writer.key, body: {} });
    });
    const seen = pages.flatMap((p) => p.data.map((e: Json) => e.id));
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of initial) if (id !== removed) expect(seen.filter((s) => s === id)).toHaveLength(1);
    expect(seen).not.toContain(removed);
    // Entries added behind the walker's position were issued later, so the walk reaches them too.
    for (const id of addedDuring) expect(seen).toContain(id);
    for (const page of pages) {
      expect(page.data.length).toBeLessThanOrEqual(2);
      for (const e of page.data) expectPublicEntry(e);
    }
    // Order across pages is (issued_at, id) ascending.
    const order = pages.flatMap((p) => p.data.map((e: Json) => `${e.issued_at} ${e.id}`));
    expect(order).toEqual([...order].sort());
  });

  test("since keeps entries issued strictly after it", async () => {
    const a = await add({ provider_user_id: "1", issued_at: "2026-11-21T09:00:00.000Z" });
    const b = await add({ provider_user_id: "2", issued_at: "2026-11-21T09:30:00.000Z" });
    const c = await add({ provider_user_id: "3", issued_at: "2026-11-21T09:45:00.000Z" });
    const ids = async (q: string) => (await get(`/v1/blacklist?${q}`)).body.data.map((e: Json) => e.id);
    expect(await ids("since=2026-11-21T09:30:00.000Z")).toEqual([c.id]);
    expect(await ids("since=2026-11-21T09:30:00Z")).toEqual([c.id]);
    expect(await ids("since=2026-11-21T09:29:59.999Z")).toEqual([b.id, c.id]);
    expect(await ids("since=2026-11-21T08:00:00.000Z")).toEqual([a.id, b.id, c.id]);
    expect(await ids("since=2026-11-21T09:45:00.000Z")).toEqual([]);
    // since combines with paging
    const first = await get("/v1/blacklist?since=2026-11-21T08:00:00.000Z&limit=1");
    expect(first.body.data.map((e: Json) => e.id)).toEqual([a.id]);
    const second = await get(`/v1/blacklist?since=2026-11-21T08:00:00.000Z&limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.data.map((e: Json) => e.id)).toEqual([b.id]);
    expectEnvelope(await get("/v1/blacklist?since=yesterday"), 422, "unprocessable");
    expectEnvelope(await get("/v1/blacklist?since=2026-13-40T00:00:00Z"), 422, "unprocessable");
  });

  test("vertical: global entries match every vertical, a vertical entry only its own and all", async () => {
    const global = await add({ provider_user_id: "1" });
    t.clock.advance(1);
    const roblox = await add({ provider_user_id: "2", vertical: "roblox" });
    t.clock.advance(1);
    const uefn = await add({ provider_user_id: "3", vertical: "uefn" });
    const ids = async (q: string) => (await get(`/v1/blacklist${q}`)).body.data.map((e: Json) => e.id);
    expect(await ids("")).toEqual([global.id, roblox.id, uefn.id]);
    expect(await ids("?vertical=all")).toEqual([global.id, roblox.id, uefn.id]);
    expect(await ids("?vertical=roblox")).toEqual([global.id, roblox.id]);
    expect(await ids("?vertical=uefn")).toEqual([global.id, uefn.id]);
    expect(await ids("?vertical=minecraft")).toEqual([global.id]);
    expectEnvelope(await get("/v1/blacklist?vertical=fortnite"), 422, "unprocessable");
    expectEnvelope(await get("/v1/blacklist?vertical=ROBLOX"), 422, "unprocessable");
  });

  test("watchlist, overturned and expired rows are never listed; high-risk rows are", async () => {
    const confirmed = await add({ provider_user_id: "1" });
    const highRisk = await add({ provider_user_id: "2", high_risk: true });
    await add({ provider_user_id: "3", watchlist: true });
    const overturned = await add({ provider_user_id: "4" });
    await t.json("POST", `/v1/partner/blacklist/${overturned.id}/overturn`, { key: writer.key, body: {} });
    const expiring = await add({ provider_user_id: "5", expires_at: "2026-11-21T11:00:00.000Z" });
    const ids = async () => (await get("/v1/blacklist")).body.data.map((e: Json) => e.id).sort();
    expect(await ids()).toEqual([confirmed.id, highRisk.id, expiring.id].sort());
    // Past expires_at the entry disappears at once, before any cron job marks it expired.
    t.clock.set("2026-11-21T11:00:00.000Z");
    expect(await ids()).toEqual([confirmed.id, highRisk.id].sort());
    await t.services.blacklist.expireDue();
    expect(await ids()).toEqual([confirmed.id, highRisk.id].sort());
  });
});

describe("GET /v1/blacklist/check", () => {
  test("a clean account answers only provider, id, banned and checked_at", async () => {
    const res = await check("discord", "80351110224678912");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ provider: "discord", id: "80351110224678912", banned: false, checked_at: T0 });
  });

  test("a ban hit answers every hit field, and the entry summary leaks nothing private", async () => {
    const entry = await add({
      provider_user_id: "80351110224678912",
      username: "scammer",
      summary: "Sold stolen accounts",
      evidence: "private",
      creator: "creatorx",
      appealable: false,
    });
    t.clock.advance(2_500);
    const res = await check("discord", "80351110224678912");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      provider: "discord",
      id: "80351110224678912",
      banned: true,
      checked_at: "2026-11-21T10:00:02.500Z",
      high_risk: false,
      watchlist: false,
      severity: "ban",
      scope: "global",
      reason_code: "scam_trade",
      summary: "Sold stolen accounts",
      appealable: false,
      entry: {
        id: entry.id,
        severity: "ban",
        scope: "global",
        vertical: "all",
        reason_code: "scam_trade",
        summary: "Sold stolen accounts",
      },
    });
    for (const key of Object.keys(res.body.entry)) expect(HIT_SUMMARY_KEYS).toContain(key);
    for (const field of PRIVATE_FIELDS) expect(res.body.entry).not.toHaveProperty(field);
    for (const field of ["username", "evidence", "reporter", "status", "creator", "provider_user_id"]) expect(res.body).not.toHaveProperty(field);
  });

  test("warn and restrict hits answer banned false with the severity present", async () => {
    await add({ provider_user_id: "11", severity: "warn", reason_code: "spam", summary: "Spam links" });
    const warn = await check("discord", "11");
    expect(warn.body).toMatchObject({ banned: false, severity: "warn", scope: "global", reason_code: "spam", summary: "Spam links", appealable: true });
    expect(warn.body.entry).toMatchObject({ severity: "warn", reason_code: "spam" });

    await add({ provider_user_id: "12", severity: "restrict", reason_code: "harassment" });
    const restrict = await check("discord", "12");
    expect(restrict.body).toMatchObject({ banned: false, severity: "restrict", reason_code: "harassment" });
  });

  test("the most severe active hit wins, then the newest", async () => {
    await add({ provider_user_id: "20", severity: "warn", reason_code: "warned" });
    t.clock.advance(1_000);
    await add({ provider_user_id: "20", severity: "restrict", reason_code: "restricted" });
    expect((await check("discord", "20")).body).toMatchObject({ banned: false, severity: "restrict", reason_code: "restricted" });
    t.clock.advance(1_000);
    const olderBan = await add({ provider_user_id: "20", severity: "ban", reason_code: "first_ban" });
    t.clock.advance(1_000);
    await add({ provider_user_id: "20", severity: "warn", reason_code: "newer_warn" });
    expect((await check("discord", "20")).body).toMatchObject({ banned: true, severity: "ban", reason_code: "first_ban" });
    t.clock.advance(1_000);
    const newerBan = await add({ provider_user_id: "20", severity: "ban", reason_code: "second_ban" });
    const res = await check("discord", "20");
    expect(res.body).toMatchObject({ banned: true, reason_code: "second_ban" });
    expect(res.body.entry.id).toBe(newerBan.id);
    await t.json("POST", `/v1/partner/blacklist/${newerBan.id}/overturn`, { key: writer.key, body: {} });
    expect((await check("discord", "20")).body.entry.id).toBe(olderBan.id);
  });

  test("a watchlist row never makes banned true; it surfaces only as the watchlist flag", async () => {
    await add({ provider_user_id: "30", severity: "ban", watchlist: true });
    const only = await check("discord", "30");
    expect(only.body.banned).toBe(false);
    expect(only.body.watchlist).toBe(true);
    expect(only.body).not.toHaveProperty("severity");
    expect(only.body).not.toHaveProperty("entry");
    expect(only.body).not.toHaveProperty("reason_code");

    await add({ provider_user_id: "30", severity: "warn", reason_code: "spam" });
    const mixed = await check("discord", "30");
    expect(mixed.body).toMatchObject({ banned: false, watchlist: true, severity: "warn", reason_code: "spam" });
  });

  test("high_risk is true whenever a matching active row carries it", async () => {
    await add({ provider_user_id: "40", high_risk: true });
    expect((await check("discord", "40")).body).toMatchObject({ banned: true, high_risk: true });
    await add({ provider_user_id: "41", high_risk: true, watchlist: true });
    expect((await check("discord", "41")).body).toMatchObject({ banned: false, high_risk: true, watchlist: true });
  });

  test("vertical: a global entry matches every vertical; a roblox entry matches roblox and all, not uefn", async () => {
    await add({ provider: "roblox", provider_user_id: "500" });
    for (const v of [undefined, "all", "roblox", "uefn", "minecraft"]) {
      expect((await check("roblox", "500", v)).body.banned).toBe(true);
    }
    await add({ provider: "roblox", provider_user_id: "501", vertical: "roblox" });
    expect((await check("roblox", "501")).body.banned).toBe(true);
    expect((await check("roblox", "501", "all")).body.banned).toBe(true);
    expect((await check("roblox", "501", "roblox")).body).toMatchObject({ banned: true, scope: "vertical", entry: { vertical: "roblox" } });
    const uefn = await check("roblox", "501", "uefn");
    expect(uefn.body).toEqual({ provider: "roblox", id: "501", banned: false, checked_at: T0 });
    expect((await check("roblox", "501", "minecraft")).body.banned).toBe(false);
    expectEnvelope(await check("roblox", "501", "fortnite"), 422, "unprocessable");
  });

  test("an expired entry never reports banned, from the instant expires_at passes", async () => {
    await add({ provider_user_id: "60", expires_at: "2026-11-21T12:00:00.000Z" });
    expect((await check("discord", "60")).body.banned).toBe(true);
    t.clock.set("2026-11-21T11:59:59.999Z");
    expect((await check("discord", "60")).body.banned).toBe(true);
    t.clock.set("2026-11-21T12:00:00.000Z");
    const res = await check("discord", "60");
    expect(res.body).toEqual({ provider: "discord", id: "60", banned: false, checked_at: "2026-11-21T12:00:00.000Z" });
    await t.services.blacklist.expireDue();
    expect((await check("discord", "60")).body.banned).toBe(false);
  });

  test("matches only the same provider, and trims the id", async () => {
    await add({ provider_user_id: "70" });
    expect((await check("github", "70")).body.banned).toBe(false);
    const trimmed = await check("discord", "  70 ");
    expect(trimmed.body).toMatchObject({ id: "70", banned: true });
  });
});

describe.each([
  ["/v1/blacklist/check/batch", "accounts"],
  ["/v1/blacklist/batch", "items"],
] as const)("POST %s", (path, field) => {
  const batch = (rows: unknown, extra: Json = {}) => post(path, { [field]: rows, ...extra });

  test("one row per input, in input order, each checked on its own", async () => {
    await add({ provider_user_id: "1001", severity: "ban", reason_code: "scam_trade", summary: "private-ish summary" });
    await add({ provider_user_id: "1002", severity: "warn", reason_code: "spam" });
    await add({ provider_user_id: "1003", severity: "ban", watchlist: true });
    await add({ provider: "roblox", provider_user_id: "1004", severity: "restrict", high_risk: true, reason_code: "grief" });
    await add({ provider_user_id: "1005", expires_at: "2026-11-21T10:30:00.000Z" });
    t.clock.set("2026-11-21T10:30:00.000Z");
    const res = await batch([
      { provider: "discord", id: "1001" },
      { provider: "discord", id: "2000" },
      { id: "1001" },
      { provider: "discord" },
      { provider: "myspace", id: "1001" },
      { provider: "discord", id: "not-digits" },
      { provider: "discord", id: "1002" },
      { provider: "discord", id: "1003" },
      { provider: null, id: null },
      { provider: "roblox", id: "1004" },
      { provider: "discord", id: "1005" },
      { provider: "discord", id: " 1001 " },
    ]);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["checked_at", "results"]);
    expect(res.body.checked_at).toBe("2026-11-21T10:30:00.000Z");
    expect(res.body.results).toEqual([
      { provider: "discord", id: "1001", banned: true, severity: "ban", scope: "global", reason_code: "scam_trade" },
      { provider: "discord", id: "2000", banned: false },
      { provider: null, id: "1001", banned: false, error: "invalid_account" },
      { provider: "discord", id: null, banned: false, error: "invalid_account" },
      { provider: "myspace", id: "1001", banned: false, error: "invalid_account" },
      { provider: "discord", id: "not-digits", banned: false, error: "invalid_account" },
      { provider: "discord", id: "1002", banned: false, severity: "warn", scope: "global", reason_code: "spam" },
      { provider: "discord", id: "1003", banned: false, watchlist: true },
      { provider: null, id: null, banned: false, error: "invalid_account" },
      { provider: "roblox", id: "1004", banned: false, high_risk: true, severity: "restrict", scope: "global", reason_code: "grief" },
      { provider: "discord", id: "1005", banned: false },
      { provider: "discord", id: "1001", banned: true, severity: "ban", scope: "global", reason_code: "scam_trade" },
    ]);
    expect(JSON.stringify(res.body)).not.toContain("private-ish summary");
  });

  test("vertical applies to every row", async () => {
    await add({ provider: "roblox", provider_user_id: "900", vertical: "roblox" });
    await add({ provider: "roblox", provider_user_id: "901" });
    const rows = [
      { provider: "roblox", id: "900" },
      { provider: "roblox", id: "901" },
    ];
    expect((await batch(rows, { vertical: "uefn" })).body.results.map((r: Json) => r.banned)).toEqual([false, true]);
    expect((await batch(rows, { vertical: "roblox" })).body.results.map((r: Json) => r.banned)).toEqual([true, true]);
    expect((await batch(rows, { vertical: "all" })).body.results.map((r: Json) => r.banned)).toEqual([true, true]);
    expect((await batch(rows)).body.results.map((r: Json) => r.banned)).toEqual([true, true]);
    expectEnvelope(await batch(rows, { vertical: "fortnite" }), 422, "unprocessable");
  });
});

describe("GET /v1/blacklist/entries/:id", () => {
  test("200 is the public-safe entry, identical to its list item", async () => {
    const entry = await add({ username: "hidden", evidence: "hidden", high_risk: true, vertical: "minecraft", provider: "minecraft", provider_user_id: "steve" });
    const res = await get(`/v1/blacklist/entries/${entry.id}`);
    expect(res.status).toBe(200);
    expectPublicEntry(res.body);
    expect(res.body).toEqual({
      id: entry.id,
      severity: "ban",
      scope: "vertical",
      vertical: "minecraft",
      reason_code: "scam_trade",
      summary: null,
      issued_at: T0,
      expires_at: null,
      appealable: true,
    });
    expect((await get("/v1/blacklist")).body.data[0]).toEqual(res.body);
  });
});

describe("GET /v1/blacklist/changes", () => {
  test("an empty feed still hands out a cursor to poll with later", async () => {
    const empty = await get("/v1/blacklist/changes");
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual([]);
    expect(empty.body.has_more).toBe(false);
    expect(typeof empty.body.next_cursor).toBe("string");
    const entry = await add();
    const later = await get(`/v1/blacklist/changes?cursor=${encodeURIComponent(empty.body.next_cursor)}`);
    expect(later.body.data.map((c: Json) => c.entry_id)).toEqual([entry.id]);
  });

  test("added, overturned and expired changes in seq order; added rows carry the public-safe entry", async () => {
    const a = await add({ provider_user_id: "1", username: "secret_user", evidence: "secret_evidence" });
    t.clock.advance(1_000);
    const b = await add({ provider_user_id: "2", expires_at: "2026-11-21T10:30:00.000Z" });
    t.clock.advance(1_000);
    await add({ provider_user_id: "3", watchlist: true });
    await t.json("POST", `/v1/partner/blacklist/${a.id}/overturn`, { key: writer.key, body: {} });
    t.clock.set("2026-11-21T11:00:00.000Z");
    expect(await t.services.blacklist.expireDue()).toBe(1);

    const res = await get("/v1/blacklist/changes");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["data", "has_more", "next_cursor"]);
    const data = res.body.data;
    expect(data.map((c: Json) => [c.type, c.entry_id])).toEqual([
      ["added", a.id],
      ["added", b.id],
      ["overturned", a.id],
      ["expired", b.id],
    ]);
    for (let i = 1; i < data.length; i++) expect(data[i].seq).toBeGreaterThan(data[i - 1].seq);
    for (const c of data) expect(Number.isInteger(c.seq)).toBe(true);
    expect(Object.keys(data[0]).sort()).toEqual(["at", "entry", "entry_id", "seq", "type"]);
    expect(data[0].at).toBe(T0);
    expectPublicEntry(data[0].entry);
    expect(data[0].entry.id).toBe(a.id);
    expect(data[1].entry.expires_at).toBe("2026-11-21T10:30:00.000Z");
    expect(Object.keys(data[2]).sort()).toEqual(["at", "entry_id", "seq", "type"]);
    expect(data[2].at).toBe("2026-11-21T10:00:02.000Z");
    expect(data[3]).toEqual({ seq: data[3].seq, type: "expired", entry_id: b.id, at: "2026-11-21T10:30:00.000Z" });
    expect(JSON.stringify(res.body)).not.toContain("secret_");
  });

  test("pages with limit and resumes from next_cursor without gaps or repeats", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await add({ provider_user_id: String(i + 1) })).id);
    const seen: string[] = [];
    let cursor = "";
    for (let i = 0; i < 3; i++) {
      const res = await get(`/v1/blacklist/changes?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      seen.push(...res.body.data.map((c: Json) => c.entry_id));
      expect(res.body.has_more).toBe(i < 2);
      cursor = res.body.next_cursor;
    }
    expect(seen).toEqual(ids);
    const tail = await get(`/v1/blacklist/changes?cursor=${encodeURIComponent(cursor)}`);
    expect(tail.body).toMatchObject({ data: [], has_more: false });
    expect(tail.body.next_cursor).toBe(cursor);
  });
});
