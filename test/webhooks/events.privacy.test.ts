// An account a creator linked privately never shows in anything the server sends out: webhook
// events (a real receiver subscribed to every event), tripwire alerts (a real Discord-webhook
// receiver) and the server-rendered profile page. A ban on a private account blacklists its
// creator, and the creator is announced by handle only: no entry id, no provider id, nothing a
// subscriber could join to the entry and then confirm with a keyed check of a suspected account.
// A ban through a public link, or an entry naming the creator on an account not linked privately,
// keeps its entry id.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock";
import { WebhookWorker } from "../../src/jobs/webhook-worker";
import { EVENT_TYPES } from "../../src/modules/outbox/service";
import { createTestApp, partnerWriter, type TestApp } from "../helpers";
import { Receiver } from "../webhook-receiver";

const PRIVATE_DISCORD = "311111111111111111";
const PUBLIC_DISCORD = "322222222222222222";
const UNLINKED_ROBLOX = "7654321";

let t: TestApp;
let receiver: Receiver;
let worker: WebhookWorker;
let write: Awaited<ReturnType<typeof partnerWriter>>;
let secret: string;

beforeEach(async () => {
  // Real time: the verifying library refuses timestamps 5 minutes away from its clock.
  t = await createTestApp({ clock: new ManualClock(Date.now()), config: { allowPrivateWebhooks: true } });
  receiver = new Receiver();
  worker = new WebhookWorker(t.services.webhooks, t.clock, t.runtime.metrics, t.runtime.log, { pollMs: 10 });
  write = await partnerWriter(t);
  const pro = await t.account({ tier: "pro", burst: 10_000 });
  const hook = await t.json("POST", "/v1/webhooks", { key: pro.key, body: { url: receiver.url("/events"), events: [...EVENT_TYPES] } });
  expect(hook.status).toBe(201);
  secret = hook.body.secret;
  t.clock.advance(1);
  await write("PUT", "/v1/partner/creators/hiddenhana", {});
  await write("POST", "/v1/partner/creators/hiddenhana/connections", { provider: "discord", provider_user_id: PRIVATE_DISCORD, provider_username: "hana_alt", public: false });
  await write("PUT", "/v1/partner/creators/openoscar", {});
  await write("POST", "/v1/partner/creators/openoscar/connections", { provider: "discord", provider_user_id: PUBLIC_DISCORD, provider_username: "oscar_dc" });
});

afterEach(async () => {
  await worker.stop();
  receiver.stop();
  await t.close();
});

const ban = (body: Record<string, unknown>) =>
  write("POST", "/v1/partner/blacklist", { provider: "discord", severity: "ban", reason_code: "scam_trade", summary: "Took payment, never delivered.", ...body });

/** Every event delivered so far, verified with the stock Standard Webhooks library, with its raw body. */
interface Delivered {
  raw: string;
  type: string;
  data: any;
}

async function delivered(): Promise<Delivered[]> {
  await worker.drain();
  return receiver.at("/events").map((request) => {
    const payload = Receiver.verify(secret, request);
    return { raw: request.body, type: payload.type, data: payload.data };
  });
}

const blacklistedEvent = (events: Delivered[], handle: string) => events.find((e) => e.type === "creator.blacklisted" && e.data.handle === handle);

describe("webhook events", () => {
  test("a ban on a privately linked account announces the creator by handle only; no body carries the account or ties the entry to her", async () => {
    const entry = await ban({ provider_user_id: PRIVATE_DISCORD, username: "hana_alt" });
    const events = await delivered();
    expect(events.map((e) => e.type).sort()).toEqual(["blacklist.added", "creator.blacklisted"]);

    const announced = blacklistedEvent(events, "hiddenhana")!;
    expect(announced.data).toEqual({ creator_id: expect.stringMatching(/^crt_/), handle: "hiddenhana", entry_id: null });
    expect(announced.raw).not.toContain(entry.id);
    for (const event of events) {
      expect(event.raw).not.toContain(PRIVATE_DISCORD);
      expect(event.raw).not.toContain("hana_alt");
      expect(event.raw).not.toMatch(/"provider/);
    }
    // The entry's own event is its public-safe view, which names no creator.
    const added = events.find((e) => e.type === "blacklist.added")!;
    expect(added.data.id).toBe(entry.id);
    expect(added.raw).not.toContain("hiddenhana");
    expect(Object.keys(added.data).sort()).toEqual(["appealable", "expires_at", "id", "issued_at", "reason_code", "scope", "severity", "summary", "vertical"]);
  });

  test("a ban on a publicly linked account announces the creator with the entry id", async () => {
    const entry = await ban({ provider_user_id: PUBLIC_DISCORD });
    const announced = blacklistedEvent(await delivered(), "openoscar")!;
    expect(announced.data).toEqual({ creator_id: expect.stringMatching(/^crt_/), handle: "openoscar", entry_id: entry.id });
  });

  test("an entry naming the creator in its creator field keeps its id, unless its account is one she linked privately", async () => {
    const named = await ban({ provider: "roblox", provider_user_id: UNLINKED_ROBLOX, creator: "openoscar" });
    expect(blacklistedEvent(await delivered(), "openoscar")!.data.entry_id).toBe(named.id);

    // Naming her does not make her private account public: the entry id would let a keyed check
    // of the suspected account confirm it is hers.
    const onPrivate = await ban({ provider_user_id: PRIVATE_DISCORD, creator: "hiddenhana" });
    const events = await delivered();
    const announced = blacklistedEvent(events, "hiddenhana")!;
    expect(announced.data.entry_id).toBeNull();
    expect(announced.raw).not.toContain(onPrivate.id);
    for (const event of events) expect(event.raw).not.toContain(PRIVATE_DISCORD);
  });

  test("the same entry after its link turned private is announced by handle only (the flag is read when the event is written)", async () => {
    await write("POST", "/v1/partner/creators/openoscar/connections", { provider: "discord", provider_user_id: PUBLIC_DISCORD, public: false });
    const entry = await ban({ provider_user_id: PUBLIC_DISCORD });
    const announced = blacklistedEvent(await delivered(), "openoscar")!;
    expect(announced.data.entry_id).toBeNull();
    expect(announced.raw).not.toContain(entry.id);
  });
});

async function signIn(handle: string): Promise<string> {
  const { key } = await t.account({ scope: "write" });
  const link = await t.json("POST", "/v1/partner/login-links", { key, body: { handle } });
  const url = new URL(link.body.url);
  return (await t.call("GET", url.pathname + url.search)).headers.get("set-cookie")!.split(";")[0]!;
}

describe("tripwire alerts", () => {
  test("wires on the creator and on her private account each alert about their own subject; neither names the other", async () => {
    await write("PUT", "/v1/partner/creators/watcherwin", {});
    const cookie = await signIn("watcherwin");
    const as = { headers: { cookie } };
    expect((await t.json("PUT", "/v1/me/tripwires/preferences", { body: { discord_webhook_url: receiver.url("/alerts") }, ...as })).status).toBe(200);
    expect((await t.json("POST", "/v1/me/tripwires", { body: { who: "@hiddenhana" }, ...as })).status).toBe(201);
    expect((await t.json("POST", "/v1/me/tripwires", { body: { who: PRIVATE_DISCORD }, ...as })).status).toBe(201);

    const entry = await ban({ provider_user_id: PRIVATE_DISCORD, username: "hana_alt" });
    await worker.drain();
    const alerts = receiver.at("/alerts").map((r) => JSON.parse(r.body).content as string);
    expect(alerts.sort()).toEqual([`Tripwire: Discord account ${PRIVATE_DISCORD} was blacklisted (scam_trade).`, "Tripwire: `@hiddenhana` was blacklisted."]);
    for (const raw of receiver.at("/alerts").map((r) => r.body)) {
      expect(raw).not.toContain(entry.id);
      expect(raw.includes(PRIVATE_DISCORD) && raw.includes("hiddenhana")).toBe(false);
      expect(raw).not.toContain("hana_alt");
    }

    // A later score drop of the creator does not trip the wire on her private account either.
    const trips = async () => (await t.json("GET", "/v1/me/tripwires", as)).body.tripwires.find((w: any) => w.who === PRIVATE_DISCORD).trips;
    const before = await trips();
    await write("POST", `/v1/partner/blacklist/${entry.id}/overturn`, { reason: "appeal upheld" });
    await ban({ provider: "roblox", provider_user_id: UNLINKED_ROBLOX, severity: "warn", creator: "hiddenhana" });
    expect(await trips()).toBe(before);
  });
});

describe("profile page", () => {
  test("shows that the creator is blacklisted, never the private account or the entry", async () => {
    const entry = await ban({ provider_user_id: PRIVATE_DISCORD, username: "hana_alt" });
    const res = await t.call("GET", "/u/hiddenhana");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Blacklisted");
    expect(html).toContain("No public linked accounts.");
    for (const secretText of [PRIVATE_DISCORD, "hana_alt", entry.id]) expect(html).not.toContain(secretText);

    // The public link of the other creator does show: the page is not simply empty.
    const open = await (await t.call("GET", "/u/openoscar")).text();
    expect(open).toContain("oscar_dc");
  });
});
