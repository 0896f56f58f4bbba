// The blacklist routes refusing bad input, and losing nothing when they refuse or fail: 4xx answers
// for malformed bodies, ids, limits and cursors, 404 for entries that do not count, 409 for a second
// overturn, and writes that are one transaction with their outbox event (a failed write stores
// nothing). Seed data goes through the real partner route, never straight into the tables.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { expectEnvelope } from "../helpers";
import { add, check, get, type Json, outboxTypes, post, reader, setup, t, teardown, writer } from "./kit";

/** Replaces the character at `index` with a different one from the same alphabet. */
function flip(text: string, index: number): string {
  const c = text[index]!;
  const replacement = c === "A" ? "B" : "A";
  return text.slice(0, index) + replacement + text.slice(index + 1);
}

beforeEach(setup);
afterEach(teardown);

describe("POST /v1/partner/blacklist", () => {
  test("the entry, its change row and its outbox event are one transaction: a failing outbox write stores nothing", async () => {
    const restore = await t.failWrites("outbox_events", "INSERT");
    const res = await t.json("POST", "/v1/partner/blacklist", {
      key: writer.key,
      body: { provider: "discord", provider_user_id: "42", severity: "ban", reason_code: "scam_trade" },
    });
    expectEnvelope(res, 500, "internal");
    await restore();
    expect((await check("discord", "42")).body.banned).toBe(false);
    expect((await get("/v1/blacklist")).body.data).toEqual([]);
    expect((await get("/v1/blacklist/changes")).body.data).toEqual([]);
    expect(await outboxTypes()).toEqual([]);
  });

  test.each([
    ["unknown body field", { provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "x", colour: "red" }, 422, "unprocessable"],
    ["unknown provider", { provider: "myspace", provider_user_id: "1", severity: "ban", reason_code: "x" }, 422, "unprocessable"],
    ["unknown severity", { provider: "discord", provider_user_id: "1", severity: "nuke", reason_code: "x" }, 422, "unprocessable"],
    ["unknown vertical", { provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "x", vertical: "fortnite" }, 422, "unprocessable"],
    ["non-digit discord id", { provider: "discord", provider_user_id: "abc", severity: "ban", reason_code: "x" }, 422, "unprocessable"],
    ["global scope on one vertical", { provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "x", scope: "global", vertical: "roblox" }, 422, "unprocessable"],
    ["vertical scope without a vertical", { provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "x", scope: "vertical" }, 422, "unprocessable"],
    ["expires_at in the past", { provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "x", expires_at: "2026-11-20T00:00:00.000Z", issued_at: "2026-11-01T00:00:00.000Z" }, 422, "unprocessable"],
    ["expires_at before issued_at", { provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "x", issued_at: "2026-11-10T00:00:00.000Z", expires_at: "2026-11-09T00:00:00.000Z" }, 422, "unprocessable"],
    ["issued_at in the future", { provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "x", issued_at: "2027-01-01T00:00:00.000Z" }, 422, "unprocessable"],
    ["a date that is not a date", { provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "x", expires_at: "next tuesday" }, 422, "unprocessable"],
    ["SQL in reason_code", { provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "1' OR '1'='1" }, 422, "unprocessable"],
    ["a malformed creator handle", { provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "x", creator: "not a handle!" }, 422, "unprocessable"],
    ["a control character in the id", { provider: "github", provider_user_id: "ab\u0000c", severity: "ban", reason_code: "x" }, 422, "unprocessable"],
    ["a wrong-typed field", { provider: "discord", provider_user_id: 1, severity: "ban", reason_code: "x" }, 422, "unprocessable"],
    ["missing provider_user_id", { provider: "discord", severity: "ban", reason_code: "x" }, 400, "invalid_request"],
    ["missing provider", { provider_user_id: "1", severity: "ban", reason_code: "x" }, 400, "invalid_request"],
  ] as const)("%s is refused and stores nothing", async (_name, body, status, code) => {
    const res = await t.json("POST", "/v1/partner/blacklist", { key: writer.key, body });
    expectEnvelope(res, status, code);
    expect((await get("/v1/blacklist")).body.data).toEqual([]);
    expect(await outboxTypes()).toEqual([]);
  });
});

describe("POST /v1/partner/blacklist/:id/overturn", () => {
  test("the overturn and its event are one transaction: a failing outbox write leaves the entry active", async () => {
    const entry = await add({ provider_user_id: "777" });
    const restore = await t.failWrites("outbox_events", "INSERT");
    expectEnvelope(await t.json("POST", `/v1/partner/blacklist/${entry.id}/overturn`, { key: writer.key, body: {} }), 500, "internal");
    await restore();
    expect((await check("discord", "777")).body.banned).toBe(true);
    expect((await get("/v1/blacklist/changes")).body.data.map((c: Json) => c.type)).toEqual(["added"]);
    const retry = await t.json("POST", `/v1/partner/blacklist/${entry.id}/overturn`, { key: writer.key, body: {} });
    expect(retry.status).toBe(200);
  });

  test("errors: unknown id 404, read key 403, unknown body field 422, no key 401; none of them overturns", async () => {
    const entry = await add({ provider_user_id: "888" });
    expectEnvelope(await t.json("POST", "/v1/partner/blacklist/bl_doesnotexist/overturn", { key: writer.key, body: {} }), 404, "not_found");
    expectEnvelope(await t.json("POST", `/v1/partner/blacklist/${entry.id}/overturn`, { key: reader.key, body: {} }), 403, "forbidden");
    expectEnvelope(await t.json("POST", `/v1/partner/blacklist/${entry.id}/overturn`, { key: writer.key, body: { because: "x" } }), 422, "unprocessable");
    expectEnvelope(await t.json("POST", `/v1/partner/blacklist/${entry.id}/overturn`, { body: {} }), 401, "unauthorized");
    expect((await check("discord", "888")).body.banned).toBe(true);
  });
});

describe("GET /v1/blacklist", () => {
  test("a tampered, foreign or malformed cursor is 400 invalid_cursor", async () => {
    for (let i = 0; i < 3; i++) await add({ provider_user_id: String(10 + i) });
    const page = await get("/v1/blacklist?limit=1");
    const cursor: string = page.body.next_cursor;
    const dot = cursor.indexOf(".");
    expect(dot).toBeGreaterThan(0);
    const bodyPart = cursor.slice(0, dot);
    const signature = cursor.slice(dot + 1);

    const ok = await get(`/v1/blacklist?limit=1&cursor=${encodeURIComponent(cursor)}`);
    expect(ok.status).toBe(200);

    const forged = Buffer.from(JSON.stringify({ k: "list", t: 0, i: "" })).toString("base64url");
    const changesCursor = (await get("/v1/blacklist/changes")).body.next_cursor;
    const bad = [
      `${bodyPart}.${flip(signature, signature.length - 1)}`,
      `${bodyPart}.${flip(signature, 0)}`,
      `${flip(bodyPart, Math.floor(bodyPart.length / 2))}.${signature}`,
      `${forged}.${signature}`,
      `${forged}.`,
      changesCursor,
      "abc",
      "a.b",
      ".",
      "",
      "x".repeat(600),
      `${cursor}x`,
    ];
    for (const c of bad) {
      const res = await get(`/v1/blacklist?cursor=${encodeURIComponent(c)}`);
      expectEnvelope(res, 400, "invalid_cursor");
    }
  });
});

describe("GET /v1/blacklist/check", () => {
  test.each([
    ["missing provider", "/v1/blacklist/check?id=1", 400, "invalid_request"],
    ["missing id", "/v1/blacklist/check?provider=discord", 400, "invalid_request"],
    ["empty id", "/v1/blacklist/check?provider=discord&id=", 400, "invalid_request"],
    ["blank id", "/v1/blacklist/check?provider=discord&id=%20%20", 400, "invalid_request"],
    ["unknown provider", "/v1/blacklist/check?provider=myspace&id=1", 400, "invalid_request"],
    ["provider in the wrong case", "/v1/blacklist/check?provider=Discord&id=1", 400, "invalid_request"],
    ["non-digit discord id", "/v1/blacklist/check?provider=discord&id=abc", 400, "invalid_request"],
    ["non-digit roblox id", "/v1/blacklist/check?provider=roblox&id=12a", 400, "invalid_request"],
    ["unknown vertical", "/v1/blacklist/check?provider=discord&id=1&vertical=fortnite", 422, "unprocessable"],
    ["an over-long id", `/v1/blacklist/check?provider=github&id=${"9".repeat(500)}`, 422, "unprocessable"],
  ] as const)("%s answers the envelope error", async (_name, path, status, code) => {
    expectEnvelope(await get(path), status, code);
  });
});

describe.each([
  ["/v1/blacklist/check/batch", "accounts"],
  ["/v1/blacklist/batch", "items"],
] as const)("POST %s", (path, field) => {
  const batch = (rows: unknown, extra: Json = {}) => post(path, { [field]: rows, ...extra });

  test("50 rows pass, 51 are 422, none or a missing array is 400", async () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ provider: "discord", id: String(i + 1) }));
    const fifty = await batch(rows(50));
    expect(fifty.status).toBe(200);
    expect(fifty.body.results).toHaveLength(50);
    expect(fifty.body.results.map((r: Json) => r.id)).toEqual(rows(50).map((r) => r.id));
    expectEnvelope(await batch(rows(51)), 422, "unprocessable");
    expectEnvelope(await batch([]), 400, "invalid_request");
    expectEnvelope(await post(path, {}), 400, "invalid_request");
    expectEnvelope(await post(path, { vertical: "all" }), 400, "invalid_request");
  });

  test("unknown fields, wrong types and bad JSON are refused with the envelope", async () => {
    expectEnvelope(await batch([{ provider: "discord", id: "1" }], { dry_run: true }), 422, "unprocessable");
    const unknownInRow = await batch([{ provider: "discord", id: "1", name: "x" }]);
    expectEnvelope(unknownInRow, 422, "unprocessable");
    expect(unknownInRow.body.error.message).toBe(`Unknown body field '${field}.0.name'.`);
    expectEnvelope(await batch([{ provider: "discord", id: 1 }]), 422, "unprocessable");
    expectEnvelope(await batch("discord:1"), 422, "unprocessable");
    expectEnvelope(await post(path, '{"' + field + '": [{"provider": "discord", "id": "1"}'), 400, "invalid_request");
  });
});

describe("GET /v1/blacklist/entries/:id", () => {
  test("404 for unknown, overturned, expired and watchlist entries", async () => {
    expectEnvelope(await get("/v1/blacklist/entries/bl_00000000000000000000000000"), 404, "not_found");
    const overturned = await add({ provider_user_id: "1" });
    await t.json("POST", `/v1/partner/blacklist/${overturned.id}/overturn`, { key: writer.key, body: {} });
    expectEnvelope(await get(`/v1/blacklist/entries/${overturned.id}`), 404, "not_found");
    const watch = await add({ provider_user_id: "2", watchlist: true });
    expectEnvelope(await get(`/v1/blacklist/entries/${watch.id}`), 404, "not_found");
    const expiring = await add({ provider_user_id: "3", expires_at: "2026-11-21T10:00:01.000Z" });
    expect((await get(`/v1/blacklist/entries/${expiring.id}`)).status).toBe(200);
    t.clock.advance(1_000);
    expectEnvelope(await get(`/v1/blacklist/entries/${expiring.id}`), 404, "not_found");
  });
});

describe("GET /v1/blacklist/changes", () => {
  test("limit 1-1000; foreign or tampered cursors are 400 invalid_cursor", async () => {
    await add();
    await add({ provider_user_id: "2" });
    expect((await get("/v1/blacklist/changes?limit=1000")).status).toBe(200);
    expectEnvelope(await get("/v1/blacklist/changes?limit=0"), 422, "unprocessable");
    expectEnvelope(await get("/v1/blacklist/changes?limit=1001"), 422, "unprocessable");
    const cursor: string = (await get("/v1/blacklist/changes?limit=1")).body.next_cursor;
    const listCursor: string = (await get("/v1/blacklist?limit=1")).body.next_cursor;
    const dot = cursor.indexOf(".");
    for (const bad of [flip(cursor, cursor.length - 1), `${flip(cursor.slice(0, dot), 3)}${cursor.slice(dot)}`, listCursor, "garbage", "x".repeat(2000)]) {
      expectEnvelope(await get(`/v1/blacklist/changes?cursor=${encodeURIComponent(bad)}`), 400, "invalid_cursor");
    }
    expectEnvelope(await get(`/v1/blacklist?cursor=${encodeURIComponent(cursor)}`), 400, "invalid_cursor");
  });
});
