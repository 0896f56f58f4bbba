// Webhooks as a customer meets them: the management routes, and real deliveries to a real
// receiver on loopback (the app runs with allow-private-webhooks), verified with the stock
// Standard Webhooks library.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock";
import { ConfigError, loadConfig, MIN_WEBHOOK_LEASE_MS, WEBHOOK_LEASE_MS, WEBHOOK_RETRY_DELAYS_MS } from "../../src/config";
import { Logger } from "../../src/logger";
import { WebhookWorker } from "../../src/jobs/webhook-worker";
import { DISABLE_AFTER_MS, KEEP_FINISHED_MS } from "../../src/modules/webhooks/service.deliveries";
import { isPublicAddress } from "../../src/modules/webhooks/url-guard";
import { createTestApp, expectEnvelope, repeatUntilReplayed, type TestApp } from "../helpers";
import { Receiver } from "../webhook-receiver";

const DELAYS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

let t: TestApp;
let receiver: Receiver;
let pro: { key: string; accountId: string };
let writer: { key: string };
let worker: WebhookWorker;

beforeEach(async () => {
  // Real time at the start: the verifying library refuses timestamps 5 minutes away from its clock.
  t = await createTestApp({ clock: new ManualClock(Date.now()), config: { allowPrivateWebhooks: true, webhookRetryDelaysMs: DELAYS } });
  t.runtime.log = new Logger({ access: false }, () => {});
  receiver = new Receiver();
  pro = await t.account({ tier: "pro", burst: 10_000 });
  writer = await t.account({ tier: "pro", scope: "write", burst: 10_000 });
  worker = new WebhookWorker(t.services.webhooks, t.clock, t.runtime.metrics, t.runtime.log, { pollMs: 10 });
});

afterEach(async () => {
  await worker.stop();
  receiver.stop();
  t.close();
});

let subject = 100_000_000_000_000_000n;
async function addEntry(): Promise<any> {
  const res = await t.json("POST", "/v1/partner/blacklist", {
    key: writer.key,
    body: { provider: "discord", provider_user_id: String(++subject), severity: "ban", reason_code: "scam_trade" },
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function register(url = receiver.url(), events = ["blacklist.added"], key = pro.key) {
  const res = await t.json("POST", "/v1/webhooks", { key, body: { url, events } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; secret: string };
}

describe("management routes", () => {
  test("create answers the whsec_ secret once; list and get never show it", async () => {
    const created = await register();
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(created).toMatchObject({ url: receiver.url(), events: ["blacklist.added"], enabled: true, disabled_reason: null });
    expect((created as any).warning).toContain("not shown again");
    expect(created.id).toMatch(/^wh_/);

    const list = await t.json("GET", "/v1/webhooks", { key: pro.key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((w: any) => w.id)).toEqual([created.id]);
    expect(JSON.stringify(list.body)).not.toContain("whsec_");
    const one = await t.json("GET", `/v1/webhooks/${created.id}`, { key: pro.key });
    expect(one.status).toBe(200);
    expect(one.body.secret).toBeUndefined();
  });

  // A signing secret is shown once and lives only in its endpoint's row: the kept record of the
  // request holds none, and a repeat is a final 409 (marked as a replay) that changes nothing.
  const expectNoKeptSecret = async (secret: string) => {
    const kept = await t.rows<{ body: string | null }>("SELECT body FROM idempotency_keys");
    expect(kept.length).toBeGreaterThan(0);
    for (const row of kept) expect(row.body ?? "").not.toContain(secret);
  };

  test("a repeat of a creation under the same Idempotency-Key is 409 naming the endpoint, and registers nothing more", async () => {
    const headers = { "idempotency-key": "create-hook-1" };
    const body = { url: receiver.url(), events: ["blacklist.added"] };
    const first = await t.json("POST", "/v1/webhooks", { key: pro.key, body, headers });
    expect(first.status).toBe(201);
    const replay = await repeatUntilReplayed(() => t.json("POST", "/v1/webhooks", { key: pro.key, body, headers }));
    expectEnvelope(replay, 409, "conflict");
    expect(replay.body.error.message).toContain(first.body.id);
    expect(replay.body.error.message).toContain("rotate-secret");
    expect(JSON.stringify(replay.body)).not.toContain(first.body.secret);
    expect((await t.json("GET", "/v1/webhooks", { key: pro.key })).body.data).toHaveLength(1);
    await expectNoKeptSecret(first.body.secret);
  });

  test("a repeat of rotate-secret under the same Idempotency-Key is 409 and does not rotate again", async () => {
    const created = await register();
    const headers = { "idempotency-key": "rotate-hook-1" };
    const rotate = () => t.json("POST", `/v1/webhooks/${created.id}/rotate-secret`, { key: pro.key, headers });
    const rotated = await rotate();
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    const replay = await repeatUntilReplayed(rotate);
    expectEnvelope(replay, 409, "conflict");
    expect(replay.body.error.message).toContain(created.id);
    await expectNoKeptSecret(rotated.body.secret);
    // The endpoint still signs with the secret the first answer gave.
    const [row] = await t.rows<{ secret: string }>("SELECT secret FROM webhook_endpoints WHERE id = ?", created.id);
    expect(row!.secret).toBe(rotated.body.secret);
  });

  test("401 without a key, 402 below Pro", async () => {
    expectEnvelope(await t.json("GET", "/v1/webhooks"), 401, "unauthorized");
    expectEnvelope(await t.json("POST", "/v1/webhooks", { body: { url: receiver.url(), events: ["blacklist.added"] } }), 401, "unauthorized");
    const free = await t.account({ tier: "free" });
    expectEnvelope(await t.json("POST", "/v1/webhooks", { key: free.key, body: { url: receiver.url(), events: ["blacklist.added"] } }), 402, "plan_upgrade_required");
    expectEnvelope(await t.json("GET", "/v1/webhooks", { key: free.key }), 402, "plan_upgrade_required");
  });

  test("unknown event names, malformed URLs and unknown fields are 422", async () => {
    expectEnvelope(await t.json("POST", "/v1/webhooks", { key: pro.key, body: { url: receiver.url(), events: ["blacklist.nuked"] } }), 422, "unprocessable");
    expectEnvelope(await t.json("POST", "/v1/webhooks", { key: pro.key, body: { url: "not a url", events: ["blacklist.added"] } }), 422, "unprocessable");
    expectEnvelope(await t.json("POST", "/v1/webhooks", { key: pro.key, body: { url: "ftp://example.com/x", events: ["blacklist.added"] } }), 422, "unprocessable");
    expectEnvelope(
      await t.json("POST", "/v1/webhooks", { key: pro.key, body: { url: receiver.url(), events: ["blacklist.added"], secret: "mine" } }),
      422,
      "unprocessable",
    );
    // An empty array is a missing value: 400, as everywhere (http/errors.ts).
    expectEnvelope(await t.json("POST", "/v1/webhooks", { key: pro.key, body: { url: receiver.url(), events: [] } }), 400, "invalid_request");
  });

  test("another account's endpoint is 404 on every route", async () => {
    const mine = await register();
    const other = await t.account({ tier: "enterprise" });
    for (const [method, path] of [
      ["GET", `/v1/webhooks/${mine.id}`],
      ["PATCH", `/v1/webhooks/${mine.id}`],
      ["DELETE", `/v1/webhooks/${mine.id}`],
      ["POST", `/v1/webhooks/${mine.id}/rotate-secret`],
      ["GET", `/v1/webhooks/${mine.id}/deliveries`],
      ["POST", `/v1/webhooks/${mine.id}/test`],
    ] as const) {
      const res = await t.json(method, path, { key: other.key, body: method === "PATCH" ? { enabled: false } : undefined });
      expectEnvelope(res, 404, "not_found");
    }
    expect((await t.json("GET", "/v1/webhooks", { key: other.key })).body.data).toEqual([]);
    // Still there for its owner.
    expect((await t.json("GET", `/v1/webhooks/${mine.id}`, { key: pro.key })).status).toBe(200);
  });

  test("rotate-secret answers a new secret; later deliveries verify with it only", async () => {
    const created = await register();
    const rotated = await t.json("POST", `/v1/webhooks/${created.id}/rotate-secret`, { key: pro.key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
    await addEntry();
    await worker.drain();
    expect(receiver.received).toHaveLength(1);
    expect(() => Receiver.verify(created.secret, receiver.received[0]!)).toThrow();
    expect(Receiver.verify(rotated.body.secret, receiver.received[0]!).type).toBe("blacklist.added");
  });

  test("test sends a signed webhook.test delivery that shows in the deliveries list", async () => {
    const created = await register();
    const queued = await t.json("POST", `/v1/webhooks/${created.id}/test`, { key: pro.key });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ type: "webhook.test", status: "pending", attempt_count: 0 });
    await worker.drain();
    const payload = Receiver.verify(created.secret, receiver.received[0]!) as any;
    expect(payload.type).toBe("webhook.test");
    expect(receiver.received[0]!.headers["webhook-id"]).toBe(queued.body.id);
    const page = await t.json("GET", `/v1/webhooks/${created.id}/deliveries`, { key: pro.key });
    expect(page.body.data[0]).toMatchObject({ id: queued.body.id, status: "delivered", attempt_count: 1 });
    expect(page.body.data[0].attempts[0]).toMatchObject({ attempt: 1, status_code: 200, error: null, response_excerpt: "ok" });
  });

  test("deliveries page with an opaque cursor; a forged cursor is 400", async () => {
    const created = await register();
    for (let i = 0; i < 3; i++) await t.json("POST", `/v1/webhooks/${created.id}/test`, { key: pro.key });
    const first = await t.json("GET", `/v1/webhooks/${created.id}/deliveries?limit=2`, { key: pro.key });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.has_more).toBe(true);
    const second = await t.json("GET", `/v1/webhooks/${created.id}/deliveries?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { key: pro.key });
    expect(second.body.data).toHaveLength(1);
    expect(second.body.has_more).toBe(false);
    expectEnvelope(await t.json("GET", `/v1/webhooks/${created.id}/deliveries?cursor=forged`, { key: pro.key }), 400, "invalid_cursor");
  });
});

describe("configuration", () => {
  test("private webhooks are off by default; the flag or the environment turns them on", () => {
    expect(loadConfig({}, {}).allowPrivateWebhooks).toBe(false);
    expect(loadConfig({ "allow-private-webhooks": true }, {}).allowPrivateWebhooks).toBe(true);
    expect(loadConfig({}, { TRUSTLIST_ALLOW_PRIVATE_WEBHOOKS: "1" }).allowPrivateWebhooks).toBe(true);
    expect(() => loadConfig({}, { TRUSTLIST_ALLOW_PRIVATE_WEBHOOKS: "maybe" })).toThrow(ConfigError);
  });

  test("retry pauses: the documented schedule by default; shorter ones only with the same count", () => {
    expect(loadConfig({}, {}).webhookRetryDelaysMs).toEqual(WEBHOOK_RETRY_DELAYS_MS);
    expect(WEBHOOK_RETRY_DELAYS_MS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(loadConfig({ "webhook-retry-delays": "1,2,3,4,5,6,7" }, {}).webhookRetryDelaysMs).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(loadConfig({}, { TRUSTLIST_WEBHOOK_RETRY_DELAYS_MS: "9,9,9,9,9,9,9" }).webhookRetryDelaysMs).toEqual(new Array(7).fill(9));
    expect(() => loadConfig({ "webhook-retry-delays": "1,2,3" }, {})).toThrow("give 7 pauses");
    expect(() => loadConfig({ "webhook-retry-delays": "1,2,3,4,5,6,x" }, {})).toThrow(ConfigError);
  });

  test("the claim lease: 60 s by default; the flag or the environment shortens it, never below an attempt and its margin", () => {
    expect(loadConfig({}, {}).webhookLeaseMs).toBe(WEBHOOK_LEASE_MS);
    expect(WEBHOOK_LEASE_MS).toBe(60_000);
    expect(loadConfig({ "webhook-lease": "20000" }, {}).webhookLeaseMs).toBe(20_000);
    expect(loadConfig({}, { TRUSTLIST_WEBHOOK_LEASE_MS: String(MIN_WEBHOOK_LEASE_MS) }).webhookLeaseMs).toBe(MIN_WEBHOOK_LEASE_MS);
    expect(() => loadConfig({ "webhook-lease": "15000" }, {})).toThrow("--webhook-lease: 15000 is outside 16000..86400000");
    expect(() => loadConfig({}, { TRUSTLIST_WEBHOOK_LEASE_MS: "soon" })).toThrow(ConfigError);
  });
});

describe("the address guard without --allow-private-webhooks", () => {
  let strict: TestApp;
  let key: string;
  beforeEach(async () => {
    strict = await createTestApp();
    key = (await strict.account({ tier: "pro" })).key;
  });
  afterEach(() => strict.close());

  const refused = async (url: string, fragment: string) => {
    const res = await strict.json("POST", "/v1/webhooks", { key, body: { url, events: ["blacklist.added"] } });
    expectEnvelope(res, 422, "unprocessable");
    expect(res.body.error.message).toContain(fragment);
  };

  test("plain http is refused", () => refused("http://example.com/hook", "https"));
  test("private, loopback, link-local and other non-public addresses are refused", async () => {
    for (const url of [
      "https://127.0.0.1/hook",
      "https://10.1.2.3/hook",
      "https://192.168.0.10/hook",
      "https://172.20.0.1/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://100.64.0.1/hook",
      "https://0.0.0.0/hook",
      "https://[::1]/hook",
      "https://[fe80::1]/hook",
      "https://[fd00::1]/hook",
      "https://[::ffff:127.0.0.1]/hook",
    ]) {
      await refused(url, "does not resolve to a public address");
    }
  });
  test("the edges of the ranges: public addresses next to private ones pass", () => {
    for (const a of ["8.8.8.8", "1.1.1.1", "172.15.255.255", "172.32.0.1", "100.128.0.1", "169.253.255.255", "11.0.0.1", "2606:4700::1111", "2a00:1450:4001::200e"]) {
      expect(isPublicAddress(a), a).toBe(true);
    }
    for (const a of ["172.16.0.1", "172.31.255.255", "100.127.255.255", "198.18.0.1", "224.0.0.1", "255.255.255.255", "64:ff9b::7f00:1", "2002:7f00:1::", "2001:db8::1", "::", "ff02::1", "not-an-ip"]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });

  test("a name that resolves to a private address is refused", () => refused("https://localhost:8443/hook", "does not resolve to a public address"));
  test("a name that does not resolve is refused", () => refused("https://no-such-host.invalid/hook", "does not resolve to a public address"));
  test("credentials in the URL are refused", () => refused("https://user:pw@example.com/hook", "user name or password"));

  test("the Discord URL guard (tripwire alerts): the same address rules, and the shape of a Discord webhook", async () => {
    const check = (url: string) => strict.services.webhooks.checkDiscordUrl(url).then(() => "ok", (e: Error) => e.message);
    expect(await check("https://1.1.1.1/api/webhooks/123/abc")).toContain("not a Discord webhook URL");
    expect(await check("http://discord.com/api/webhooks/123/abc")).toContain("https");
    expect(await check("https://127.0.0.1/api/webhooks/123/abc")).toContain("not a Discord webhook URL");
    expect(await check("https://localhost/api/webhooks/123/abc")).toContain("not a Discord webhook URL");
    // With the flag any reachable URL passes (tests point alerts at a local receiver).
    expect(await t.services.webhooks.checkDiscordUrl(receiver.url("/discord"))).toBe(receiver.url("/discord"));
  });

  test("at delivery, the address connected to is checked again (a name now resolving to loopback is refused)", async () => {
    const { accountId } = await strict.account({ tier: "pro" });
    // As if `localhost` had resolved to a public address when it was registered.
    await strict.services.webhooks.store.insertEndpoint({
      id: "wh_rebinding",
      accountId,
      url: `${receiver.url().replace("http://127.0.0.1", "https://localhost")}`,
      events: ["blacklist.added"],
      secret: "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
      enabled: true,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      createdAt: strict.clock.now() - 1000,
    });
    const writerKey = (await strict.account({ tier: "pro", scope: "write" })).key;
    const added = await strict.json("POST", "/v1/partner/blacklist", {
      key: writerKey,
      body: { provider: "discord", provider_user_id: "200000000000000001", severity: "ban", reason_code: "scam_trade" },
    });
    expect(added.status).toBe(201);
    const strictWorker = new WebhookWorker(strict.services.webhooks, strict.clock, strict.runtime.metrics, strict.runtime.log);
    await strictWorker.drain();
    expect(receiver.received).toHaveLength(0);
    const page = await strict.services.webhooks.deliveries(accountId, "wh_rebinding", {});
    expect(page.data[0]!.attempts[0]!.error).toBe("refused: The host does not resolve to a public address (private, loopback, link-local and reserved addresses are refused).");
    expect(page.data[0]!.status).toBe("pending");
  });
});

describe("deliveries", () => {
  test("an added entry reaches the receiver, signed per Standard Webhooks, with the public entry as data", async () => {
    const endpoint = await register();
    const entry = await addEntry();
    await worker.drain();
    expect(receiver.received).toHaveLength(1);
    const request = receiver.received[0]!;
    const payload = Receiver.verify(endpoint.secret, request) as any;
    expect(payload.type).toBe("blacklist.added");
    expect(payload.data.id).toBe(entry.id);
    expect(payload.data.provider_user_id).toBeUndefined();
    expect(typeof payload.timestamp).toBe("string");
    expect(request.headers["webhook-id"]).toMatch(/^msg_/);
    expect(request.headers["content-type"]).toBe("application/json");
  });

  test("only subscribed event names are sent, and an endpoint does not receive events from before it existed", async () => {
    await addEntry();
    await worker.drain();
    const endpoint = await register(receiver.url(), ["blacklist.overturned"]);
    const entry = await addEntry();
    await worker.drain();
    expect(receiver.received).toHaveLength(0);
    const res = await t.json("POST", `/v1/partner/blacklist/${entry.id}/overturn`, { key: writer.key, body: {} });
    expect(res.status).toBe(200);
    await worker.drain();
    expect(receiver.received).toHaveLength(1);
    expect(Receiver.verify(endpoint.secret, receiver.received[0]!).type).toBe("blacklist.overturned");
  });

  test("a receiver failing twice then succeeding gets the event on the third attempt with the same webhook-id", async () => {
    const endpoint = await register();
    receiver.answer = (_r, i) => (i < 2 ? 500 : 204);
    await addEntry();
    await worker.drain();
    expect(receiver.received).toHaveLength(1);
    t.clock.advance(DELAYS[0]! - 1);
    await worker.drain();
    expect(receiver.received).toHaveLength(1); // not due yet
    t.clock.advance(1);
    await worker.drain();
    expect(receiver.received).toHaveLength(2);
    t.clock.advance(DELAYS[1]!);
    await worker.drain();
    expect(receiver.received).toHaveLength(3);
    const ids = new Set(receiver.received.map((r) => r.headers["webhook-id"]));
    expect(ids.size).toBe(1);
    // The library compares webhook-timestamp with the real clock; the test's clock moved ahead after the first.
    expect(Receiver.verify(endpoint.secret, receiver.received[0]!).type).toBe("blacklist.added");
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    t.clock.advance(DELAYS[2]!);
    await worker.drain();
    expect(receiver.received).toHaveLength(3); // delivered: never sent again

    const page = await t.json("GET", `/v1/webhooks/${endpoint.id}/deliveries`, { key: pro.key });
    const delivery = page.body.data[0];
    expect(delivery).toMatchObject({ status: "delivered", attempt_count: 3, next_attempt_at: null });
    expect(delivery.attempts.map((a: any) => a.status_code)).toEqual([500, 500, 204]);
    expect(delivery.attempts[0].error).toContain("HTTP 500");
    expect(delivery.attempts[0].response_excerpt).toBe("not now");
    expect(typeof delivery.attempts[0].latency_ms).toBe("number");
  });

  test("after the last retry the delivery is failed", async () => {
    const endpoint = await register();
    receiver.answer = () => 500;
    await addEntry();
    await worker.drain();
    for (const delay of DELAYS) {
      t.clock.advance(delay);
      await worker.drain();
    }
    expect(receiver.received).toHaveLength(8);
    t.clock.advance(DELAYS.at(-1)!);
    await worker.drain();
    expect(receiver.received).toHaveLength(8);
    const page = await t.json("GET", `/v1/webhooks/${endpoint.id}/deliveries`, { key: pro.key });
    expect(page.body.data[0]).toMatchObject({ status: "failed", attempt_count: 8 });
  });

  test("deleting an endpoint stops its pending deliveries", async () => {
    const endpoint = await register();
    receiver.answer = () => 503;
    await addEntry();
    await worker.drain();
    expect(receiver.received).toHaveLength(1);
    expect((await t.json("DELETE", `/v1/webhooks/${endpoint.id}`, { key: pro.key })).body).toEqual({ id: endpoint.id, deleted: true });
    t.clock.advance(DELAYS[0]!);
    await worker.drain();
    expect(receiver.received).toHaveLength(1);
    expectEnvelope(await t.json("GET", `/v1/webhooks/${endpoint.id}`, { key: pro.key }), 404, "not_found");
  });

  test("an endpoint failing every attempt for 5 days is disabled, says why, and one call re-enables it", async () => {
    const endpoint = await register();
    receiver.answer = () => 500;
    // New events keep coming while the receiver is down.
    const start = t.clock.now();
    while (t.clock.now() - start < DISABLE_AFTER_MS + 3_600_000) {
      await addEntry();
      await worker.drain();
      t.clock.advance(6 * 3_600_000);
    }
    const seen = await t.json("GET", `/v1/webhooks/${endpoint.id}`, { key: pro.key });
    expect(seen.body.enabled).toBe(false);
    expect(seen.body.disabled_reason).toContain("failed for 5 days");
    expect(seen.body.disabled_at).not.toBeNull();
    const before = receiver.received.length;
    t.clock.advance(DELAYS.at(-1)!);
    await worker.drain();
    expect(receiver.received.length).toBe(before); // disabled: nothing is sent

    receiver.answer = () => 200;
    const enabled = await t.json("PATCH", `/v1/webhooks/${endpoint.id}`, { key: pro.key, body: { enabled: true } });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null, failing_since: null });
    await worker.drain();
    expect(receiver.received.length).toBeGreaterThan(before); // pending deliveries resume
  });

  test("a hanging receiver does not slow delivery to a healthy one", async () => {
    const hanging = await register(receiver.url("/hang"));
    const healthy = await register(receiver.url("/ok"));
    receiver.answer = (r) => (r.path === "/hang" ? "hang" : 200);
    worker.start();
    const started = Date.now();
    for (let i = 0; i < 30; i++) await addEntry();
    await receiver.waitFor(() => receiver.at("/ok").length === 30, 5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    // The hanging endpoint holds only its own share of attempts.
    expect(receiver.at("/hang").length).toBeLessThanOrEqual(8);
    for (const request of receiver.at("/ok")) Receiver.verify(healthy.secret, request);
    void hanging;
  });

  test("Discord messages go through the same deliveries: body {content}, retried, no signature", async () => {
    receiver.answer = (_r, i) => (i === 0 ? 429 : 204);
    const at = t.clock.now();
    const id = await t.runtime.store.write(() => t.services.webhooks.queueDiscordMessage(receiver.url("/discord"), "Tripwire: @someone was blacklisted", at));
    expect(id).toMatch(/^msg_/);
    await worker.drain();
    t.clock.advance(DELAYS[0]!);
    await worker.drain();
    expect(receiver.at("/discord")).toHaveLength(2);
    const request = receiver.at("/discord")[1]!;
    expect(JSON.parse(request.body)).toEqual({ content: "Tripwire: @someone was blacklisted", allowed_mentions: { parse: [] } });
    expect(request.headers["webhook-signature"]).toBeUndefined();
    expect((await t.services.webhooks.store.findDelivery(id))!.status).toBe("delivered");
  });

  test("finished deliveries and dispatched events are pruned after 30 days; pending ones stay", async () => {
    const endpoint = await register();
    await addEntry();
    await worker.drain();
    receiver.answer = () => 500;
    await addEntry();
    await worker.drain();
    t.clock.advance(KEEP_FINISHED_MS + 1000);
    expect(await t.services.webhooks.prune()).toBe(3); // one delivery, two dispatched events
    const page = await t.json("GET", `/v1/webhooks/${endpoint.id}/deliveries`, { key: pro.key });
    expect(page.body.data.map((d: any) => d.status)).toEqual(["pending"]);
  });

  test("/metrics counts attempts by outcome, their latency and the queue's age", async () => {
    await register();
    receiver.answer = (_r, i) => (i === 0 ? 500 : 200);
    await addEntry();
    await worker.drain();
    t.clock.advance(DELAYS[0]!);
    await worker.drain();
    const admin = await t.account({ tier: "enterprise", scope: "admin" });
    const res = await t.call("GET", "/metrics", { key: admin.key });
    const text = await res.text();
    expect(text).toContain('trustlist_webhook_attempts_total{outcome="retry"} 1');
    expect(text).toContain('trustlist_webhook_attempts_total{outcome="delivered"} 1');
    expect(text).toContain("trustlist_webhook_attempt_duration_seconds_count 2");
    expect(text).toMatch(/trustlist_webhook_queue_age_seconds \d/);
    expect(text).toContain("trustlist_webhook_pending_deliveries 0");
  });
});
