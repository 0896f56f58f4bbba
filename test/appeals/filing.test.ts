// Filing appeals, through real HTTP on the test database: a bot for the platform account it talks
// to, a signed-in creator for an entry naming them or one of their linked accounts (private links
// included), and every refusal: an unknown entry or one naming someone else (one 404 for both), not
// appealable, no longer active, already open, the 30-day cooldown after a decision, the wrong key
// scope, no session, another origin. Then what each appellant may read back: their own appeals'
// status and public note, never the statement, who filed or staff notes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock";
import { createTestApp, expectEnvelope, partnerWriter, signIn, type TestApp } from "../helpers";

const DAY = 86_400_000;
const HANA_PRIVATE = "311111111111111111";
const OSCAR_PUBLIC = "322222222222222222";
const STRANGER = "333333333333333333";
const MC_UUID = "0F3A8C2E-1B2D-4E5F-8A9B-0C1D2E3F4A5B";

let t: TestApp;
let write: Awaited<ReturnType<typeof partnerWriter>>;
let bot: { accountId: string; key: string; keyId: string };
let adminKey: string;
const cookies: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp({ clock: new ManualClock() });
  write = await partnerWriter(t);
  bot = await t.account({ scope: "write", burst: 10_000 });
  adminKey = (await t.account({ scope: "admin", burst: 10_000 })).key;
  await write("PUT", "/v1/partner/creators/hana", {});
  await write("POST", "/v1/partner/creators/hana/connections", { provider: "discord", provider_user_id: HANA_PRIVATE, public: false });
  await write("PUT", "/v1/partner/creators/oscar", {});
  await write("POST", "/v1/partner/creators/oscar/connections", { provider: "discord", provider_user_id: OSCAR_PUBLIC });
  cookies.hana = await signIn(t, "hana");
  cookies.oscar = await signIn(t, "oscar");
});

afterAll(() => t.close());

const ban = (body: Record<string, unknown>) =>
  write("POST", "/v1/partner/blacklist", { provider: "discord", severity: "ban", reason_code: "scam_trade", summary: "Took payment.", evidence: "PRIVATE NOTE", ...body });

const fileAsBot = (body: Record<string, unknown>, key = bot.key) =>
  t.json("POST", "/v1/partner/appeals", { key, body: { provider: "discord", statement: "I delivered the map.", ...body } });

const fileAsCreator = (handle: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.json("POST", "/v1/me/appeals", { headers: { cookie: cookies[handle]!, ...headers }, body: { statement: "That account is mine and I paid.", ...body } });

const appealCount = async () => (await t.rows<{ n: number }>("SELECT CAST(count(*) AS INTEGER) AS n FROM appeals"))[0]!.n;

describe("a bot files for the account it talks to", () => {
  test("201 with the appeal's shape; the id is normalised as the blacklist does; appeal.filed names the key", async () => {
    const entry = await ban({ provider: "minecraft", provider_user_id: MC_UUID });
    const res = await fileAsBot({ entry_id: entry.id, provider: "minecraft", provider_user_id: MC_UUID.toLowerCase().replaceAll("-", "") });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^apl_/), entry_id: entry.id, status: "open", created_at: new Date(t.clock.now()).toISOString() });
    const audit = await t.services.audit.list({ action: "appeal.filed", entry: entry.id });
    expect(audit.data).toHaveLength(1);
    expect(audit.data[0]).toMatchObject({ actor: { kind: "key", id: bot.keyId }, entry_id: entry.id, appeal_id: res.body.id, subject: `minecraft:${MC_UUID.toLowerCase().replaceAll("-", "")}` });
    expect(audit.data[0]!.details).toEqual({ filed_by: { kind: "key", id: bot.accountId }, statement: "I delivered the map." });
  });

  test("any key of the filing account reads it (a read key too); another account's key gets 404", async () => {
    const entry = await ban({ provider_user_id: "410000000000000001" });
    const filed = await fileAsBot({ entry_id: entry.id, provider_user_id: "410000000000000001" });
    expect(filed.status).toBe(201);
    const readKey = await t.services.accounts.createKey({ account: bot.accountId, scope: "read", rate_tier: "free" });
    const read = await t.json("GET", `/v1/partner/appeals/${filed.body.id}`, { key: readKey.key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(filed.body);
    const other = await t.account({ scope: "write" });
    expectEnvelope(await t.json("GET", `/v1/partner/appeals/${filed.body.id}`, { key: other.key }), 404, "not_found");
    expectEnvelope(await t.json("GET", "/v1/partner/appeals/apl_nope", { key: bot.key }), 404, "not_found");
    expectEnvelope(await t.json("GET", `/v1/partner/appeals/${filed.body.id}`), 401, "unauthorized");
  });

  test("an entry naming another account and an unknown entry get the same 404; nothing is stored", async () => {
    const entry = await ban({ provider_user_id: STRANGER });
    const before = await appealCount();
    const wrongAccount = await fileAsBot({ entry_id: entry.id, provider_user_id: "410000000000000099" });
    const wrongProvider = await fileAsBot({ entry_id: entry.id, provider: "roblox", provider_user_id: STRANGER });
    const unknown = await fileAsBot({ entry_id: "bl_01kdvdna009aqnt2ae7ejrkvaj", provider_user_id: STRANGER });
    for (const res of [wrongAccount, wrongProvider, unknown]) expectEnvelope(res, 404, "not_found");
    // The message names only the entry id the caller sent, whatever the reason.
    expect(wrongAccount.body.error.message.replace(entry.id, "ID")).toBe(unknown.body.error.message.replace("bl_01kdvdna009aqnt2ae7ejrkvaj", "ID"));
    expect(await appealCount()).toBe(before);
  });

  test("a read key gets 403, no key 401; bad bodies are 422 and store nothing", async () => {
    const entry = await ban({ provider_user_id: "410000000000000002" });
    const body = { entry_id: entry.id, provider_user_id: "410000000000000002" };
    const reader = await t.account({ scope: "read" });
    expectEnvelope(await fileAsBot(body, reader.key), 403, "forbidden");
    expectEnvelope(await t.json("POST", "/v1/partner/appeals", { body: { ...body, provider: "discord", statement: "x" } }), 401, "unauthorized");
    const before = await appealCount();
    for (const bad of [
      { ...body, statement: "" },
      { ...body, statement: "   \n  " },
      { ...body, statement: "x".repeat(4001) },
      { ...body, extra: true },
      { ...body, provider: "myspace" },
    ]) {
      const res = await t.json("POST", "/v1/partner/appeals", { key: bot.key, body: { provider: "discord", statement: "ok", ...bad } });
      expect(res.status, JSON.stringify(bad).slice(0, 80)).toBe(422);
      expect(res.body.error.code).toBeString();
    }
    // A missing id is the project's 400, as on every route that names an account.
    expectEnvelope(await t.json("POST", "/v1/partner/appeals", { key: bot.key, body: { entry_id: entry.id, provider: "discord", statement: "no account" } }), 400, "invalid_request");
    expect(await appealCount()).toBe(before);
    expect((await fileAsBot({ ...body, statement: "x".repeat(4000) })).status).toBe(201);
  });
});

describe("refusals", () => {
  test("not appealable: 409 not_appealable", async () => {
    const entry = await ban({ provider_user_id: "420000000000000001", appealable: false });
    expectEnvelope(await fileAsBot({ entry_id: entry.id, provider_user_id: "420000000000000001" }), 409, "not_appealable");
  });

  test("overturned, lapsed and watchlist entries: 409 conflict", async () => {
    const overturned = await ban({ provider_user_id: "420000000000000002" });
    await write("POST", `/v1/partner/blacklist/${overturned.id}/overturn`, {});
    expectEnvelope(await fileAsBot({ entry_id: overturned.id, provider_user_id: "420000000000000002" }), 409, "conflict");

    const watch = await ban({ provider_user_id: "420000000000000003", watchlist: true });
    expectEnvelope(await fileAsBot({ entry_id: watch.id, provider_user_id: "420000000000000003" }), 409, "conflict");

    const lapsing = await ban({ provider_user_id: "420000000000000004", expires_at: new Date(t.clock.now() + 60_000).toISOString() });
    t.clock.advance(60_001);
    expectEnvelope(await fileAsBot({ entry_id: lapsing.id, provider_user_id: "420000000000000004" }), 409, "conflict");
  });

  test("an appeal already open on the entry: 409 conflict, whoever files the second", async () => {
    const entry = await ban({ provider_user_id: HANA_PRIVATE });
    expect((await fileAsBot({ entry_id: entry.id, provider_user_id: HANA_PRIVATE })).status).toBe(201);
    expectEnvelope(await fileAsBot({ entry_id: entry.id, provider_user_id: HANA_PRIVATE }), 409, "conflict");
    expectEnvelope(await fileAsCreator("hana", { entry_id: entry.id }), 409, "conflict");
  });

  test("filings that race on one entry: exactly one is 201, the others 409 conflict", async () => {
    const entry = await ban({ provider_user_id: "420000000000000006" });
    const answers = await Promise.all(Array.from({ length: 5 }, () => fileAsBot({ entry_id: entry.id, provider_user_id: "420000000000000006" })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const rows = await t.rows<{ n: number }>("SELECT CAST(count(*) AS INTEGER) AS n FROM appeals WHERE entry_id = ?", entry.id);
    expect(rows[0]!.n).toBe(1);
  });

  test("within 30 days of a decided appeal: 429 rate_limited with the seconds left in Retry-After; after them, 201", async () => {
    const entry = await ban({ provider_user_id: "420000000000000005" });
    const body = { entry_id: entry.id, provider_user_id: "420000000000000005" };
    const first = await fileAsBot(body);
    t.clock.advance(DAY);
    const decided = await t.json("POST", `/v1/moderation/appeals/${first.body.id}/decide`, { key: adminKey, body: { outcome: "upheld", note: "The evidence stands." } });
    expect(decided.status).toBe(200);
    const decidedAt = t.clock.now();

    const refused = await fileAsBot(body);
    expectEnvelope(refused, 429, "rate_limited");
    expect(refused.headers.get("retry-after")).toBe(String(30 * 86_400));

    t.clock.advance(10 * DAY + 500);
    const later = await fileAsBot(body);
    expectEnvelope(later, 429, "rate_limited");
    expect(later.headers.get("retry-after")).toBe(String(Math.ceil((decidedAt + 30 * DAY - t.clock.now()) / 1000)));
    expect(Number(later.headers.get("retry-after"))).toBe(20 * 86_400);

    t.clock.set(decidedAt + 30 * DAY);
    expect((await fileAsBot(body)).status).toBe(201);
  });
});

describe("a signed-in creator files for an entry naming them", () => {
  // The cooldown test moved the clock past the sessions' 30 days.
  beforeAll(async () => {
    cookies.hana = await signIn(t, "hana");
    cookies.oscar = await signIn(t, "oscar");
  });

  test("an entry on a privately linked account, and one naming the handle: 201 each, appeal.filed names the creator", async () => {
    const onPrivate = await ban({ provider_user_id: "430000000000000001" });
    await write("POST", "/v1/partner/creators/hana/connections", { provider: "discord", provider_user_id: "430000000000000001", public: false });
    const byHandle = await ban({ provider: "roblox", provider_user_id: "5550001", creator: "hana" });
    for (const entry of [onPrivate, byHandle]) {
      const res = await fileAsCreator("hana", { entry_id: entry.id });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ entry_id: entry.id, status: "open" });
      const audit = await t.services.audit.list({ action: "appeal.filed", entry: entry.id });
      expect(audit.data[0]).toMatchObject({ actor: { kind: "creator", id: "hana" }, appeal_id: res.body.id });
    }
  });

  test("an entry naming someone else, or nobody: 404; the public link of another creator does not help", async () => {
    const oscars = await ban({ provider_user_id: OSCAR_PUBLIC });
    const nobodys = await ban({ provider_user_id: "430000000000000002" });
    const before = await appealCount();
    expectEnvelope(await fileAsCreator("hana", { entry_id: oscars.id }), 404, "not_found");
    expectEnvelope(await fileAsCreator("hana", { entry_id: nobodys.id }), 404, "not_found");
    expectEnvelope(await fileAsCreator("hana", { entry_id: "bl_01kdvdna009aqnt2ae7ejrkvaj" }), 404, "not_found");
    expect(await appealCount()).toBe(before);
    expect((await fileAsCreator("oscar", { entry_id: oscars.id })).status).toBe(201);
  });

  test("no session 401; another origin or none 403, and nothing is stored; an API key does not open the route", async () => {
    const entry = await ban({ provider: "roblox", provider_user_id: "5550002", creator: "hana" });
    const before = await appealCount();
    expectEnvelope(await t.json("POST", "/v1/me/appeals", { body: { entry_id: entry.id, statement: "x" } }), 401, "unauthorized");
    expectEnvelope(await fileAsCreator("hana", { entry_id: entry.id }, { origin: "https://evil.example" }), 403, "forbidden");
    expectEnvelope(await fileAsCreator("hana", { entry_id: entry.id }, { origin: "" }), 403, "forbidden");
    expectEnvelope(await t.json("POST", "/v1/me/appeals", { key: bot.key, body: { entry_id: entry.id, statement: "x" } }), 401, "unauthorized");
    expect(await appealCount()).toBe(before);
  });

  test("GET /v1/me/entries: the entries naming the creator, through any link, in their public view, with the open appeal", async () => {
    await write("PUT", "/v1/partner/creators/quinn", {});
    await write("POST", "/v1/partner/creators/quinn/connections", { provider: "discord", provider_user_id: "440000000000000001", public: false });
    cookies.quinn = await signIn(t, "quinn");
    t.clock.advance(1000);
    const onPrivate = await ban({ provider_user_id: "440000000000000001", username: "quinn_alt" });
    t.clock.advance(1000);
    const byHandle = await ban({ provider: "roblox", provider_user_id: "7770001", creator: "quinn", severity: "warn", appealable: false });
    await ban({ provider_user_id: "440000000000000001", watchlist: true });
    const overturned = await ban({ provider: "roblox", provider_user_id: "7770002", creator: "quinn" });
    await write("POST", `/v1/partner/blacklist/${overturned.id}/overturn`, {});
    await ban({ provider: "roblox", provider_user_id: "7770003", creator: "oscar" });
    const filed = await fileAsCreator("quinn", { entry_id: onPrivate.id });

    const res = await t.json("GET", "/v1/me/entries", { headers: { cookie: cookies.quinn! } });
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: any) => [d.entry.id, d.entry.appealable, d.open_appeal])).toEqual([
      [byHandle.id, false, null],
      [onPrivate.id, true, filed.body.id],
    ]);
    expect(Object.keys(res.body.data[0].entry).sort()).toEqual(["appealable", "expires_at", "id", "issued_at", "reason_code", "scope", "severity", "summary", "vertical"]);
    for (const secret of ["440000000000000001", "quinn_alt", "PRIVATE NOTE", "7770001"]) expect(JSON.stringify(res.body)).not.toContain(secret);
    expect((await t.json("GET", "/v1/me/entries", { headers: { cookie: cookies.oscar! } })).body.data.some((d: any) => d.entry.id === onPrivate.id)).toBe(false);
    expectEnvelope(await t.json("GET", "/v1/me/entries"), 401, "unauthorized");
    expectEnvelope(await t.json("GET", "/v1/me/entries", { key: bot.key }), 401, "unauthorized");
  });

  test("GET /v1/me/appeals: the creator's own, newest first, paged; never the statement or who filed; decisions show outcome and note", async () => {
    await write("PUT", "/v1/partner/creators/pia", {});
    cookies.pia = await signIn(t, "pia");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      const entry = await ban({ provider: "roblox", provider_user_id: `666000${i}`, creator: "pia" });
      ids.push((await fileAsCreator("pia", { entry_id: entry.id })).body.id);
    }
    // Someone else's appeal never shows.
    const otherEntry = await ban({ provider: "roblox", provider_user_id: "6669999", creator: "oscar" });
    await fileAsCreator("oscar", { entry_id: otherEntry.id });
    await t.json("POST", `/v1/moderation/appeals/${ids[0]}/decide`, { key: adminKey, body: { outcome: "removed", note: "The trade was completed." } });

    const first = await t.json("GET", "/v1/me/appeals?limit=2", { headers: { cookie: cookies.pia! } });
    expect(first.status).toBe(200);
    expect(first.body.data.map((a: any) => a.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.has_more).toBe(true);
    const second = await t.json("GET", `/v1/me/appeals?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { headers: { cookie: cookies.pia! } });
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.body.data).toEqual([
      { id: ids[0], entry_id: expect.any(String), status: "decided", outcome: "removed", note: "The trade was completed.", created_at: expect.any(String), decided_at: expect.any(String) },
    ]);
    const raw = JSON.stringify([first.body, second.body]);
    for (const secret of ["statement", "That account is mine", "PRIVATE NOTE", "filed_by", "decided_by", "reporter"]) expect(raw).not.toContain(secret);

    expectEnvelope(await t.json("GET", "/v1/me/appeals?cursor=forged.cursor", { headers: { cookie: cookies.pia! } }), 400, "invalid_cursor");
    // Oscar's cursor position is not pia's list.
    const oscars = await t.json("GET", "/v1/me/appeals?limit=1", { headers: { cookie: cookies.oscar! } });
    if (oscars.body.next_cursor) expectEnvelope(await t.json("GET", `/v1/me/appeals?cursor=${encodeURIComponent(oscars.body.next_cursor)}`, { headers: { cookie: cookies.pia! } }), 400, "invalid_cursor");
    expectEnvelope(await t.json("GET", "/v1/me/appeals"), 401, "unauthorized");
  });
});
