// The audit log as staff and the operator read it: one event per change from every path that
// changes an entry (the partner API, the CLI, the expiry job) or a staff role, in the transaction
// of the change; filters and pages of GET /v1/admin/audit and `trustlist audit`; who may read it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cli, cliJson } from "../cli-helpers";
import { createTestApp, expectEnvelope, partnerWriter, signIn, type TestApp } from "../helpers";

let t: TestApp;
let adminKey: string;
let writer: { key: string; keyId: string };
const cookies: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp();
  adminKey = (await t.account({ scope: "admin" })).key;
  writer = await t.account({ scope: "write", burst: 10_000 });
  const write = await partnerWriter(t);
  for (const handle of ["boss", "mod", "triager", "plain"]) {
    await write("PUT", `/v1/partner/creators/${handle}`, { display_name: handle });
    cookies[handle] = await signIn(t, handle);
  }
  for (const [handle, role] of [["boss", "admin"], ["mod", "moderator"], ["triager", "triage"]]) {
    expect((await t.json("PUT", `/v1/admin/staff/${handle}`, { key: adminKey, body: { role } })).status).toBe(200);
  }
});

afterAll(() => t.close());

const audit = (query: string, options: { key?: string; headers?: Record<string, string> } = { key: adminKey }) => t.json("GET", `/v1/admin/audit${query}`, options);

describe("every path that changes an entry writes one event", () => {
  test("the partner API's add and overturn name the key; the details say what was decided", async () => {
    const added = await t.json("POST", "/v1/partner/blacklist", {
      key: writer.key,
      body: { provider: "discord", provider_user_id: "80351110224678912", severity: "ban", reason_code: "scam_trade", summary: "Took payment", evidence: "ticket 42" },
    });
    expect(added.status).toBe(201);
    const id = added.body.id;
    expect((await t.json("POST", `/v1/partner/blacklist/${id}/overturn`, { key: writer.key, body: { reason: "paid back" } })).status).toBe(200);
    const page = await audit(`?entry=${id}`);
    expect(page.status).toBe(200);
    expect(page.body.data.map((e: any) => e.action)).toEqual(["entry.overturned", "entry.added"]);
    for (const event of page.body.data) {
      expect(event.actor).toEqual({ kind: "key", id: writer.keyId });
      expect(event.subject).toBe("discord:80351110224678912");
      expect(event.id).toStartWith("aud_");
    }
    expect(page.body.data[1].details).toMatchObject({ severity: "ban", reason_code: "scam_trade", summary: "Took payment", provider_user_id: "80351110224678912" });
    expect(page.body.data[0].details).toEqual({ reason: "paid back" });
  });

  test("a failed write records nothing: an overturn of an overturned entry is 409 and adds no event", async () => {
    const before = (await audit("?action=entry.overturned")).body.data.length;
    const added = await t.json("POST", "/v1/partner/blacklist", { key: writer.key, body: { provider: "roblox", provider_user_id: "55", severity: "warn", reason_code: "spam" } });
    await t.json("POST", `/v1/partner/blacklist/${added.body.id}/overturn`, { key: writer.key });
    expectEnvelope(await t.json("POST", `/v1/partner/blacklist/${added.body.id}/overturn`, { key: writer.key }), 409, "conflict");
    expect((await audit("?action=entry.overturned")).body.data.length).toBe(before + 1);
  });

  test("the CLI's add and overturn name the operator as cli:<user>; `trustlist audit` reads them back", async () => {
    const added = cliJson(t.dbPath, "blacklist", "add", "--provider", "roblox", "--id", "424242", "--severity", "restrict", "--reason-code", "spam");
    cliJson(t.dbPath, "blacklist", "overturn", added.id, "--reason", "mistaken");
    const events = cliJson(t.dbPath, "audit", "--entry", added.id).data;
    expect(events.map((e: any) => e.action)).toEqual(["entry.overturned", "entry.added"]);
    expect(events[0].actor.kind).toBe("cli");
    expect(events[0].actor.id.length).toBeGreaterThan(0);
    const human = cli(t.dbPath, "audit", "--subject", "roblox:424242");
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("entry.added");
    expect(human.stdout).toContain(added.id);
    const bad = cli(t.dbPath, "audit", "--actor", "nobody");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("actor must be kind:id");
  });

  test("the expiry job records each entry it expires as job:expiry", async () => {
    const expiresAt = new Date(t.clock.now() + 60_000).toISOString();
    const added = await t.json("POST", "/v1/partner/blacklist", {
      key: writer.key,
      body: { provider: "discord", provider_user_id: "80351110224678999", severity: "ban", reason_code: "scam", expires_at: expiresAt },
    });
    t.clock.advance(120_000);
    expect(await t.services.blacklist.expireDue()).toBe(1);
    const page = await audit(`?entry=${added.body.id}`);
    expect(page.body.data[0]).toMatchObject({ action: "entry.expired", actor: { kind: "job", id: "expiry" }, details: { expires_at: expiresAt } });
  });
});

describe("reading the log", () => {
  test("filters combine, pages walk newest first without repeats, and a bad cursor or actor is 400", async () => {
    const byKey = await audit(`?actor=key:${writer.keyId}&action=entry.added&limit=1`);
    expect(byKey.body.data).toHaveLength(1);
    expect(byKey.body.has_more).toBe(true);
    const next = await audit(`?actor=key:${writer.keyId}&action=entry.added&limit=1&cursor=${encodeURIComponent(byKey.body.next_cursor)}`);
    expect(next.body.data[0].id).not.toBe(byKey.body.data[0].id);
    expect(next.body.data[0].at <= byKey.body.data[0].at).toBe(true);
    const everything: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await audit(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      everything.push(...page.body.data.map((e: any) => e.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(new Set(everything).size).toBe(everything.length);
    expect(everything.length).toBeGreaterThanOrEqual(9);
    expectEnvelope(await audit("?cursor=forged.cursor"), 400, "invalid_cursor");
    expectEnvelope(await audit("?actor=robot"), 400, "invalid_request");
    expect((await audit("?limit=0")).status).toBe(422);
  });

  test("moderators, admins and admin keys read it; triage, other creators and other keys may not", async () => {
    for (const handle of ["mod", "boss"]) expect((await audit("", { headers: { cookie: cookies[handle]! } })).status).toBe(200);
    for (const handle of ["triager", "plain"]) expectEnvelope(await audit("", { headers: { cookie: cookies[handle]! } }), 403, "forbidden");
    expectEnvelope(await audit("", { key: writer.key }), 403, "forbidden");
    expectEnvelope(await t.json("GET", "/v1/admin/audit"), 401, "unauthorized");
  });
});
