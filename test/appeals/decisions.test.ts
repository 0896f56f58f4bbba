// Deciding appeals, through real HTTP on the test database, with a real webhook receiver: `removed`
// overturns the entry (the change feed says overturned, the keyed check is clean, the creator's
// ban and Trust Score lift), `downgraded` overturns it and adds an entry of lower severity that
// supersedes it (both events delivered), `upheld` changes nothing; each with its audit events.
// Then who may: triage reads the queue but does not decide, moderators, admins and an admin key
// decide, anyone else is refused; and a decision is one transaction (a failure leaves the entry).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock";
import { WebhookWorker } from "../../src/jobs/webhook-worker";
import { createTestApp, expectEnvelope, partnerWriter, signIn, type TestApp } from "../helpers";
import { Receiver } from "../webhook-receiver";

let t: TestApp;
let write: Awaited<ReturnType<typeof partnerWriter>>;
let bot: { accountId: string; key: string; keyId: string };
let adminKey: string;
let readerKey: string;
let receiver: Receiver;
let worker: WebhookWorker;
let secret: string;
const cookies: Record<string, string> = {};
let account = 500_000_000_000_000_000n;

beforeAll(async () => {
  // Real time: the verifying library refuses timestamps 5 minutes away from its clock.
  t = await createTestApp({ clock: new ManualClock(Date.now()), config: { allowPrivateWebhooks: true } });
  write = await partnerWriter(t);
  bot = await t.account({ scope: "write", burst: 10_000 });
  adminKey = (await t.account({ scope: "admin", burst: 10_000 })).key;
  readerKey = (await t.account({ scope: "read" })).key;
  receiver = new Receiver();
  worker = new WebhookWorker(t.services.webhooks, t.clock, t.runtime.metrics, t.runtime.log, { pollMs: 10 });
  const pro = await t.account({ tier: "pro", burst: 10_000 });
  const hook = await t.json("POST", "/v1/webhooks", { key: pro.key, body: { url: receiver.url("/events"), events: ["blacklist.added", "blacklist.overturned", "creator.blacklisted"] } });
  expect(hook.status).toBe(201);
  secret = hook.body.secret;
  for (const handle of ["boss", "mod", "triager", "plain"]) {
    await write("PUT", `/v1/partner/creators/${handle}`, { display_name: handle });
    cookies[handle] = await signIn(t, handle);
  }
  const cli = { kind: "cli", id: "test" } as const;
  await t.services.staff.grant("boss", "admin", cli);
  await t.services.staff.grant("mod", "moderator", cli);
  await t.services.staff.grant("triager", "triage", cli);
});

afterAll(async () => {
  await worker.stop();
  receiver.stop();
  await t.close();
});

/** A ban on a fresh Discord account, with an appeal the bot files for it. */
async function bannedAndAppealed(extra: Record<string, unknown> = {}) {
  const id = String(account++);
  t.clock.advance(1);
  const entry = await write("POST", "/v1/partner/blacklist", {
    provider: "discord",
    provider_user_id: id,
    severity: "ban",
    reason_code: "scam_trade",
    summary: "Took payment, never delivered.",
    evidence: "PRIVATE NOTE: reported by member 42",
    ...extra,
  });
  const appeal = await t.json("POST", "/v1/partner/appeals", { key: bot.key, body: { entry_id: entry.id, provider: "discord", provider_user_id: id, statement: "I delivered." } });
  expect(appeal.status).toBe(201);
  return { id, entry, appeal: appeal.body };
}

const decide = (appealId: string, body: Record<string, unknown>, auth: { key?: string; cookie?: string } = { key: adminKey }) =>
  t.json("POST", `/v1/moderation/appeals/${appealId}/decide`, { key: auth.key, headers: auth.cookie ? { cookie: auth.cookie } : {}, body });

const check = (id: string) => t.json("GET", `/v1/blacklist/check?provider=discord&id=${id}`, { key: readerKey });

async function delivered() {
  await worker.drain();
  return receiver.at("/events").map((request) => Receiver.verify(secret, request));
}

/** Delivers what is pending and forgets it: later calls of `delivered` see only what follows. */
async function forgetDelivered() {
  await worker.drain();
  receiver.received.length = 0;
}

async function changeTypes(entryId: string): Promise<string[]> {
  const feed = await t.json("GET", "/v1/blacklist/changes?limit=1000", { key: readerKey });
  return feed.body.data.filter((c: any) => c.entry_id === entryId).map((c: any) => c.type);
}

const auditOf = async (appealId: string) => {
  const all = await t.services.audit.list({ limit: 200 });
  return all.data.filter((e) => e.appeal_id === appealId).reverse();
};

describe("outcomes", () => {
  test("removed: the entry is overturned, the feed and the webhook say so, the check is clean, the creator's ban lifts", async () => {
    const id = String(account++);
    await write("PUT", "/v1/partner/creators/rowan", {});
    await write("POST", "/v1/partner/creators/rowan/connections", { provider: "discord", provider_user_id: id });
    const entry = await write("POST", "/v1/partner/blacklist", { provider: "discord", provider_user_id: id, severity: "ban", reason_code: "scam_trade" });
    expect((await t.json("GET", "/v1/users/rowan", { key: readerKey })).body.blacklisted).toBe(true);
    expect((await t.json("GET", "/v1/users/rowan/trust", { key: readerKey })).body.trust_score).toBe(0);
    const appeal = (await t.json("POST", "/v1/partner/appeals", { key: bot.key, body: { entry_id: entry.id, provider: "discord", provider_user_id: id, statement: "Mine, and paid." } })).body;
    await forgetDelivered();

    const res = await decide(appeal.id, { outcome: "removed", note: "The buyer confirmed delivery." });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: appeal.id, status: "decided", outcome: "removed", note: "The buyer confirmed delivery.", severity: null, superseded_by: null, decided_by: expect.stringMatching(/^key:key_/) });
    expect(res.body.entry).toMatchObject({ id: entry.id, status: "overturned" });

    expect(await changeTypes(entry.id)).toEqual(["added", "overturned"]);
    const clean = await check(id);
    expect(clean.body).toEqual({ provider: "discord", id, banned: false, checked_at: expect.any(String) });
    const profile = (await t.json("GET", "/v1/users/rowan", { key: readerKey })).body;
    expect(profile.blacklisted).toBe(false);
    expect((await t.json("GET", "/v1/users/rowan/trust", { key: readerKey })).body.trust_score).toBeGreaterThan(0);

    const events = await delivered();
    expect(events.map((e) => [e.type, e.data.id])).toEqual([["blacklist.overturned", entry.id]]);

    const read = await t.json("GET", `/v1/partner/appeals/${appeal.id}`, { key: bot.key });
    expect(read.body).toEqual({ ...appeal, status: "decided", outcome: "removed", note: "The buyer confirmed delivery.", decided_at: expect.any(String) });

    const audit = await auditOf(appeal.id);
    expect(audit.map((e) => e.action)).toEqual(["appeal.filed", "entry.overturned", "appeal.decided"]);
    expect(audit[2]).toMatchObject({ actor: { kind: "key" }, entry_id: entry.id, details: { outcome: "removed", note: "The buyer confirmed delivery.", severity: null, new_entry_id: null } });
  });

  test("downgraded: a new entry of the lower severity supersedes the old; both webhook events go out", async () => {
    const { id, entry, appeal } = await bannedAndAppealed({ expires_at: new Date(t.clock.now() + 90 * 86_400_000).toISOString(), high_risk: true });
    await forgetDelivered();
    const res = await decide(appeal.id, { outcome: "downgraded", severity: "restrict", note: "Delivered late, not a scam." }, { cookie: cookies.mod });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ outcome: "downgraded", severity: "restrict", decided_by: "staff:mod" });
    const newId = res.body.superseded_by as string;
    expect(newId).toMatch(/^bl_/);

    const hit = (await check(id)).body;
    expect(hit).toMatchObject({ banned: false, severity: "restrict", high_risk: true, reason_code: "scam_trade", entry: { id: newId } });
    const fresh = await t.services.blacklist.entryRow(newId);
    expect(fresh).toMatchObject({ supersedes: entry.id, severity: "restrict", status: "active", expiresAt: Date.parse(entry.expires_at), evidence: "PRIVATE NOTE: reported by member 42" });
    expect((await t.services.blacklist.entryRow(entry.id))!.status).toBe("overturned");
    expect(await changeTypes(entry.id)).toEqual(["added", "overturned"]);
    expect(await changeTypes(newId)).toEqual(["added"]);

    const events = await delivered();
    expect(events.map((e) => [e.type, e.data.id])).toEqual([
      ["blacklist.overturned", entry.id],
      ["blacklist.added", newId],
    ]);
    expect(events[1]!.data.severity).toBe("restrict");
    for (const e of events) expect(JSON.stringify(e)).not.toContain("PRIVATE NOTE");

    const read = await t.json("GET", `/v1/partner/appeals/${appeal.id}`, { key: bot.key });
    expect(read.body).toMatchObject({ outcome: "downgraded", superseded_by: newId, note: "Delivered late, not a scam." });

    const audit = await auditOf(appeal.id);
    expect(audit.map((e) => [e.action, e.entry_id])).toEqual([
      ["appeal.filed", entry.id],
      ["entry.overturned", entry.id],
      ["entry.added", newId],
      ["appeal.decided", entry.id],
    ]);
    expect(audit.every((e) => e.actor.kind === (e.action === "appeal.filed" ? "key" : "staff"))).toBe(true);
    expect(audit[2]!.details).toMatchObject({ severity: "restrict", supersedes: entry.id });
  });

  test("a downgrade needs a lower severity: the same, a higher or none is 422 and nothing changes", async () => {
    const { id, entry, appeal } = await bannedAndAppealed({ severity: "restrict" });
    for (const body of [{ severity: "restrict" }, { severity: "ban" }, {}]) {
      expectEnvelope(await decide(appeal.id, { outcome: "downgraded", note: "n", ...body }), 422, "unprocessable");
    }
    expectEnvelope(await decide(appeal.id, { outcome: "removed", severity: "warn", note: "n" }), 422, "unprocessable");
    expect((await decide(appeal.id, { outcome: "downgraded", note: "" })).status).toBe(422);
    expect((await decide(appeal.id, { outcome: "pardoned", note: "n" })).status).toBe(422);
    expect((await check(id)).body).toMatchObject({ severity: "restrict", entry: { id: entry.id } });
    expect((await t.json("GET", `/v1/moderation/appeals/${appeal.id}`, { key: adminKey })).body.status).toBe("open");
    expect((await decide(appeal.id, { outcome: "downgraded", severity: "warn", note: "Warning only." })).status).toBe(200);
  });

  test("upheld: nothing changes on the entry, no event goes out; a second decision is 409", async () => {
    const { id, entry, appeal } = await bannedAndAppealed();
    await forgetDelivered();
    const res = await decide(appeal.id, { outcome: "upheld", note: "The evidence stands." }, { cookie: cookies.boss });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: "upheld", decided_by: "staff:boss", superseded_by: null, entry: { id: entry.id, status: "active" } });
    expect((await check(id)).body).toMatchObject({ banned: true, entry: { id: entry.id } });
    expect(await changeTypes(entry.id)).toEqual(["added"]);
    expect(await delivered()).toEqual([]);
    expect((await auditOf(appeal.id)).map((e) => e.action)).toEqual(["appeal.filed", "appeal.decided"]);
    expectEnvelope(await decide(appeal.id, { outcome: "removed", note: "Changed my mind." }), 409, "conflict");
    expect((await check(id)).body.banned).toBe(true);
  });

  test("a decision is one transaction: a failure at the appeal's update leaves the entry active and the appeal open", async () => {
    const { id, entry, appeal } = await bannedAndAppealed();
    const restore = await t.failWrites("appeals", "UPDATE");
    try {
      expect((await decide(appeal.id, { outcome: "removed", note: "n" })).status).toBe(500);
    } finally {
      await restore();
    }
    expect((await t.services.blacklist.entryRow(entry.id))!.status).toBe("active");
    expect((await check(id)).body.banned).toBe(true);
    expect(await changeTypes(entry.id)).toEqual(["added"]);
    expect((await auditOf(appeal.id)).map((e) => e.action)).toEqual(["appeal.filed"]);
    expect((await decide(appeal.id, { outcome: "removed", note: "n" })).status).toBe(200);
  });
});

describe("the staff routes", () => {
  test("the queue: open oldest first, decided newest first, paged; staff see the statement, who filed and the private note", async () => {
    const a = await bannedAndAppealed();
    const b = await bannedAndAppealed();
    const open = await t.json("GET", "/v1/moderation/appeals?status=open&limit=100", { headers: { cookie: cookies.triager! } });
    expect(open.status).toBe(200);
    const ids = open.body.data.map((x: any) => x.id);
    expect(ids.indexOf(a.appeal.id)).toBeLessThan(ids.indexOf(b.appeal.id));
    const one = open.body.data.find((x: any) => x.id === a.appeal.id);
    expect(one).toMatchObject({
      statement: "I delivered.",
      filed_by: { kind: "key", id: bot.accountId, key_id: bot.keyId, provider: "discord", provider_user_id: a.id },
      entry: { id: a.entry.id, private_note: "PRIVATE NOTE: reported by member 42", severity: "ban", status: "active" },
    });

    const pageOne = await t.json("GET", "/v1/moderation/appeals?status=decided&limit=1", { key: adminKey });
    expect(pageOne.body.has_more).toBe(true);
    const pageTwo = await t.json("GET", `/v1/moderation/appeals?status=decided&limit=1&cursor=${encodeURIComponent(pageOne.body.next_cursor)}`, { key: adminKey });
    expect(pageTwo.body.data[0].created_at <= pageOne.body.data[0].created_at).toBe(true);
    expect(pageTwo.body.data[0].id).not.toBe(pageOne.body.data[0].id);
    // A cursor of one list is refused by the other.
    expectEnvelope(await t.json("GET", `/v1/moderation/appeals?status=open&cursor=${encodeURIComponent(pageOne.body.next_cursor)}`, { key: adminKey }), 400, "invalid_cursor");
    expect((await t.json("GET", "/v1/moderation/appeals?status=closed", { key: adminKey })).status).toBe(422);
  });

  test("roles: triage reads but may not decide; moderator, admin and an admin key decide; others are refused and change nothing", async () => {
    const { appeal } = await bannedAndAppealed();
    for (const handle of ["triager", "mod", "boss"]) {
      expect((await t.json("GET", `/v1/moderation/appeals/${appeal.id}`, { headers: { cookie: cookies[handle]! } })).status).toBe(200);
    }
    expectEnvelope(await decide(appeal.id, { outcome: "upheld", note: "n" }, { cookie: cookies.triager }), 403, "forbidden");
    expectEnvelope(await decide(appeal.id, { outcome: "upheld", note: "n" }, { cookie: cookies.plain }), 403, "forbidden");
    expectEnvelope(await t.json("GET", `/v1/moderation/appeals/${appeal.id}`, { headers: { cookie: cookies.plain! } }), 403, "forbidden");
    expectEnvelope(await t.json("GET", "/v1/moderation/appeals", { headers: { cookie: cookies.plain! } }), 403, "forbidden");
    for (const key of [readerKey, bot.key]) {
      expectEnvelope(await t.json("GET", "/v1/moderation/appeals", { key }), 403, "forbidden");
      expectEnvelope(await decide(appeal.id, { outcome: "upheld", note: "n" }, { key }), 403, "forbidden");
    }
    expectEnvelope(await t.json("GET", "/v1/moderation/appeals"), 401, "unauthorized");
    expectEnvelope(await t.json("POST", `/v1/moderation/appeals/${appeal.id}/decide`, { body: { outcome: "upheld", note: "n" } }), 401, "unauthorized");
    // A moderator's decision from another origin is refused before anything is read.
    const foreign = await t.json("POST", `/v1/moderation/appeals/${appeal.id}/decide`, { headers: { cookie: cookies.mod!, origin: "https://evil.example" }, body: { outcome: "upheld", note: "n" } });
    expectEnvelope(foreign, 403, "forbidden");
    expect((await t.json("GET", `/v1/moderation/appeals/${appeal.id}`, { key: adminKey })).body.status).toBe("open");

    expect((await decide(appeal.id, { outcome: "upheld", note: "n" }, { cookie: cookies.mod })).status).toBe(200);
    const second = await bannedAndAppealed();
    expect((await decide(second.appeal.id, { outcome: "upheld", note: "n" }, { cookie: cookies.boss })).status).toBe(200);
    const third = await bannedAndAppealed();
    expect((await decide(third.appeal.id, { outcome: "upheld", note: "n" }, { key: adminKey })).status).toBe(200);
    expectEnvelope(await t.json("GET", "/v1/moderation/appeals/apl_unknown", { key: adminKey }), 404, "not_found");
    expectEnvelope(await decide("apl_unknown", { outcome: "upheld", note: "n" }), 404, "not_found");
  });
});
