// Tripwires as a signed-in creator meets them: arm, list with counters and preferences, disarm,
// and trips on exactly the matching events (a ban, a score drop, a new public link), with the
// owner's Discord alert delivered by the webhooks worker to a real receiver on loopback.
// Another creator's wires are invisible, and an API key opens none of it.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock";
import { WebhookWorker } from "../../src/jobs/webhook-worker";
import { createTestApp, expectEnvelope, partnerWriter, type TestApp } from "../helpers";
import { Receiver } from "../webhook-receiver";

const DISCORD_ID = "80351110224678912";
const OTHER_DISCORD_ID = "80351110224678913";

let t: TestApp;
let write: Awaited<ReturnType<typeof partnerWriter>>;
let receiver: Receiver;
let worker: WebhookWorker;
let alice: string;
let bob: string;

async function signIn(handle: string): Promise<string> {
  const { key } = await t.account({ scope: "write" });
  const link = await t.json("POST", "/v1/partner/login-links", { key, body: { handle } });
  const url = new URL(link.body.url);
  return (await t.call("GET", url.pathname + url.search)).headers.get("set-cookie")!.split(";")[0]!;
}

const as = (cookie: string) => ({ headers: { cookie } });

async function wires(cookie: string) {
  const res = await t.json("GET", "/v1/me/tripwires", as(cookie));
  expect(res.status).toBe(200);
  return res.body;
}

async function tripsOf(cookie: string, who: string): Promise<number> {
  return (await wires(cookie)).tripwires.find((w: any) => w.who === who).trips;
}

beforeAll(async () => {
  receiver = new Receiver();
  t = await createTestApp({ clock: new ManualClock(Date.now()), config: { allowPrivateWebhooks: true, webhookRetryDelaysMs: [10, 10, 10, 10, 10, 10, 10] } });
  worker = new WebhookWorker(t.services.webhooks, t.clock, t.runtime.metrics, t.runtime.log, { pollMs: 10 });
  write = await partnerWriter(t);
  for (const handle of ["alicemakes", "bobtrades", "shadowbuilds", "pixelpete", "quietquinn"]) await write("PUT", `/v1/partner/creators/${handle}`, {});
  alice = await signIn("alicemakes");
  bob = await signIn("bobtrades");
});
afterAll(async () => {
  await worker.stop();
  await t.close();
  receiver.stop();
});

describe("arming and listing", () => {
  test("create answers 201 with the wire; triggers default to all; the list carries stats and preferences", async () => {
    const created = await t.json("POST", "/v1/me/tripwires", { body: { who: "@ShadowBuilds" }, ...as(alice) });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ who: "@shadowbuilds", triggers: ["blacklisted", "trust_drop", "new_connection"], trips: 0, last_tripped_at: null });
    expect(created.body.id).toMatch(/^tw_/);
    expect(Object.keys(created.body).sort()).toEqual(["created_at", "id", "last_tripped_at", "triggers", "trips", "who"]);
    const discord = await t.json("POST", "/v1/me/tripwires", { body: { who: DISCORD_ID, triggers: ["blacklisted", "blacklisted"] }, ...as(alice) });
    expect(discord.body).toMatchObject({ who: DISCORD_ID, triggers: ["blacklisted"] });
    const list = await wires(alice);
    expect(list.tripwires.map((w: any) => w.who)).toEqual([DISCORD_ID, "@shadowbuilds"]);
    expect(list.stats).toEqual({ armed: 2, tripped_total: 0 });
    expect(list.preferences).toEqual({ discord_webhook_url: null, email: null });
  });

  test("bad input: 422 for an unusable who or trigger, 409 for a second wire on the same target", async () => {
    for (const body of [{ who: "not a handle!" }, { who: "12345" }, { who: "@x" }, { who: "@pixelpete", triggers: [] }, { who: "@pixelpete", triggers: ["exploded"] }, { who: "@pixelpete", extra: 1 }, {}]) {
      const res = await t.json("POST", "/v1/me/tripwires", { body, ...as(alice) });
      expect([400, 422], JSON.stringify(body)).toContain(res.status);
    }
    expectEnvelope(await t.json("POST", "/v1/me/tripwires", { body: { who: "shadowbuilds" }, ...as(alice) }), 409, "conflict");
  });

  test("another creator's wires are invisible: their list is their own and deleting one of them is 404", async () => {
    const mine = (await wires(alice)).tripwires[0];
    expect((await wires(bob)).tripwires).toEqual([]);
    expectEnvelope(await t.json("DELETE", `/v1/me/tripwires/${mine.id}`, as(bob)), 404, "not_found");
    expect((await wires(alice)).tripwires.map((w: any) => w.id)).toContain(mine.id);
  });

  test("no session, or only an API key, is 401 on every tripwire route", async () => {
    const { key } = await t.account({ scope: "admin" });
    for (const [method, path, body] of [
      ["GET", "/v1/me/tripwires", undefined],
      ["POST", "/v1/me/tripwires", { who: "@pixelpete" }],
      ["PUT", "/v1/me/tripwires/preferences", { email: null }],
      ["DELETE", "/v1/me/tripwires/tw_01kdvdna009aqnt2ae7ejrkvaj", undefined],
    ] as const) {
      expectEnvelope(await t.json(method, path, { body }), 401, "unauthorized");
      expectEnvelope(await t.json(method, path, { body, key }), 401, "unauthorized");
    }
  });

  test("delete answers the wire and disarms it", async () => {
    const wire = (await t.json("POST", "/v1/me/tripwires", { body: { who: "@quietquinn" }, ...as(bob) })).body;
    const deleted = await t.json("DELETE", `/v1/me/tripwires/${wire.id}`, as(bob));
    expect(deleted.status).toBe(200);
    expect(deleted.body.id).toBe(wire.id);
    expect((await wires(bob)).tripwires).toEqual([]);
    expectEnvelope(await t.json("DELETE", `/v1/me/tripwires/${wire.id}`, as(bob)), 404, "not_found");
  });
});

describe("preferences", () => {
  test("a Discord webhook URL passes the webhooks' guard; email is checked; fields left out keep their value", async () => {
    const url = receiver.url("/alerts/alice");
    const set = await t.json("PUT", "/v1/me/tripwires/preferences", { body: { discord_webhook_url: url, email: "alice@example.org" }, ...as(alice) });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ discord_webhook_url: url, email: "alice@example.org" });
    expect((await t.json("PUT", "/v1/me/tripwires/preferences", { body: { email: null }, ...as(alice) })).body).toEqual({ discord_webhook_url: url, email: null });
    expectEnvelope(await t.json("PUT", "/v1/me/tripwires/preferences", { body: { email: "nope" }, ...as(alice) }), 422, "unprocessable");
    expectEnvelope(await t.json("PUT", "/v1/me/tripwires/preferences", { body: { discord_webhook_url: "ftp://example.org/x" }, ...as(alice) }), 422, "unprocessable");
    expect((await wires(alice)).preferences.discord_webhook_url).toBe(url);
  });

  test("without --allow-private-webhooks a private address or a non-Discord URL is refused", async () => {
    const strict = await createTestApp();
    try {
      const writer = await partnerWriter(strict);
      await writer("PUT", "/v1/partner/creators/alicemakes", {});
      const { key } = await strict.account({ scope: "write" });
      const url = new URL((await strict.json("POST", "/v1/partner/login-links", { key, body: { handle: "alicemakes" } })).body.url);
      const cookie = (await strict.call("GET", url.pathname + url.search)).headers.get("set-cookie")!.split(";")[0]!;
      for (const bad of ["https://127.0.0.1/api/webhooks/1/abc", "http://discord.com/api/webhooks/1/abc", "https://example.org/api/webhooks/1/abc"]) {
        expectEnvelope(await strict.json("PUT", "/v1/me/tripwires/preferences", { body: { discord_webhook_url: bad }, headers: { cookie } }), 422, "unprocessable");
      }
    } finally {
      await strict.close();
    }
  });
});

describe("trips", () => {
  beforeEach(() => {
    receiver.answer = () => 204;
  });

  test("a ban naming a watched Discord id trips it and alerts the owner through the deliveries; a warn or another id does not", async () => {
    const before = receiver.at("/alerts/alice").length;
    await write("POST", "/v1/partner/blacklist", { provider: "discord", provider_user_id: DISCORD_ID, severity: "warn", reason_code: "spam" });
    await write("POST", "/v1/partner/blacklist", { provider: "discord", provider_user_id: OTHER_DISCORD_ID, severity: "ban", reason_code: "scam_trade" });
    expect(await tripsOf(alice, DISCORD_ID)).toBe(0);
    await write("POST", "/v1/partner/blacklist", { provider: "discord", provider_user_id: DISCORD_ID, severity: "ban", reason_code: "scam_trade" });
    const wire = (await wires(alice)).tripwires.find((w: any) => w.who === DISCORD_ID);
    expect(wire.trips).toBe(1);
    expect(wire.last_tripped_at).not.toBeNull();
    await worker.drain();
    const alerts = receiver.at("/alerts/alice").slice(before);
    expect(alerts).toHaveLength(1);
    expect(JSON.parse(alerts[0]!.body).content).toBe(`Tripwire: Discord account ${DISCORD_ID} was blacklisted (scam_trade).`);
  });

  test("a watched creator's score drop and ban trip the handle's wire once per change", async () => {
    // A deal completed and a bad review lowers shadowbuilds' score.
    const deal = await write("POST", "/v1/partner/deals", { from: "pixelpete", to: "shadowbuilds" });
    await write("POST", `/v1/partner/deals/${deal.id}/confirm`);
    await write("POST", `/v1/partner/deals/${deal.id}/complete`);
    expect(await tripsOf(alice, "@shadowbuilds")).toBe(0);
    await write("POST", "/v1/partner/reviews", { from: "pixelpete", to: "shadowbuilds", rating: 1 });
    expect(await tripsOf(alice, "@shadowbuilds")).toBe(1);

    await worker.drain();
    const before = receiver.at("/alerts/alice").length;
    await write("POST", "/v1/partner/blacklist", { provider: "roblox", provider_user_id: "1234567", severity: "ban", reason_code: "scam_trade", creator: "shadowbuilds" });
    expect(await tripsOf(alice, "@shadowbuilds")).toBe(2);
    await worker.drain();
    const alerts = receiver.at("/alerts/alice").slice(before).map((r) => JSON.parse(r.body).content);
    expect(alerts).toEqual(["Tripwire: `@shadowbuilds` was blacklisted."]);
    // Overturning raises the score: no trip.
    const stats = (await wires(alice)).stats;
    expect(stats.tripped_total).toBe(3);
  });

  test("new public connections trip new_connection; private ones and unwatched creators do not", async () => {
    await t.json("POST", "/v1/me/tripwires", { body: { who: "@pixelpete", triggers: ["new_connection"] }, ...as(bob) });
    await write("POST", "/v1/partner/creators/pixelpete/connections", { provider: "roblox", provider_user_id: "555", public: false });
    expect(await tripsOf(bob, "@pixelpete")).toBe(0);
    await write("POST", "/v1/partner/creators/quietquinn/connections", { provider: "roblox", provider_user_id: "556" });
    expect(await tripsOf(bob, "@pixelpete")).toBe(0);
    await write("POST", "/v1/partner/creators/pixelpete/connections", { provider: "github", provider_user_id: "pixelpete" });
    expect(await tripsOf(bob, "@pixelpete")).toBe(1);
    // Updating an existing link is not a new connection.
    await write("POST", "/v1/partner/creators/pixelpete/connections", { provider: "github", provider_user_id: "pixelpete", provider_username: "pp" });
    expect(await tripsOf(bob, "@pixelpete")).toBe(1);
    // A score drop does not trip a wire armed for new_connection only.
    await write("POST", "/v1/partner/blacklist", { provider: "github", provider_user_id: "pixelpete", severity: "warn", reason_code: "spam" });
    expect(await tripsOf(bob, "@pixelpete")).toBe(1);
    // No Discord URL set for bob: nothing is queued for him.
    await worker.drain();
    expect(receiver.received.some((r) => r.path.includes("bob"))).toBe(false);
  });

  test("a Discord-id wire trips on the link of that account and on the score drop of the creator it is publicly linked to", async () => {
    const id = "90351110224678912";
    await t.json("POST", "/v1/me/tripwires", { body: { who: id, triggers: ["trust_drop", "new_connection"] }, ...as(bob) });
    await write("POST", "/v1/partner/creators/quietquinn/connections", { provider: "discord", provider_user_id: id });
    expect(await tripsOf(bob, id)).toBe(1);
    await write("POST", "/v1/partner/blacklist", { provider: "roblox", provider_user_id: "556", severity: "restrict", reason_code: "spam" });
    expect(await tripsOf(bob, id)).toBe(2);
  });
});
