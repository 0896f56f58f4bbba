// `webhooks.verify` against real deliveries from a live server (to a real receiver on loopback):
// a blacklist.added and a blacklist.overturned verified into typed events, and every tampering a
// receiver must refuse: another body, another id, an old or future timestamp, another secret,
// missing headers. The secret rotation's overlap: either secret verifies.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Receiver, type Received } from "../../test/webhook-receiver";
import { createTrustlist, type Trustlist, verifyWebhook, type WebhookEvent, WebhookVerificationError, webhookVerifier } from "../src/index";
import { liveServer } from "./live";

const live = liveServer(["--allow-private-webhooks", "--webhook-retry-delays", "50,50,50,50,50,50,50"]);
const receiver = new Receiver();
afterAll(() => receiver.stop());
let admin: Trustlist;
let secret = "";
let added: Received;
let overturned: Received;
let entryId = "";

beforeAll(async () => {
  admin = createTrustlist({ baseUrl: live.base, apiKey: live.adminKey });
  const endpoint = await createTrustlist({ baseUrl: live.base, apiKey: live.key() }).createWebhook({ url: receiver.url("/v"), events: ["blacklist.added", "blacklist.overturned"] });
  secret = endpoint.secret;
  const entry = await admin.addEntry({ provider: "roblox", provider_user_id: "5150", severity: "ban", reason_code: "scam", summary: "Sold a stolen limited" });
  entryId = entry.id;
  await admin.overturnEntry(entry.id, { reason: "appeal upheld" });
  await receiver.waitFor(() => receiver.at("/v").length === 2);
  [added, overturned] = receiver.at("/v") as [Received, Received];
});

const reason = (call: Promise<unknown>) => call.then(() => null, (e: unknown) => (e instanceof WebhookVerificationError ? e.reason : e));

test("a real delivery verifies into its typed event; the data is the public entry", async () => {
  const tl = createTrustlist({ baseUrl: live.base, webhookSecret: secret });
  const event: WebhookEvent = await tl.webhooks.verify(added.body, new Headers(added.headers));
  expect(event.type).toBe("blacklist.added");
  if (event.type !== "blacklist.added") throw new Error("unreachable");
  // Narrowed by `type`: `data` is the entry view.
  expect(event.data).toMatchObject({ id: entryId, severity: "ban", reason_code: "scam", summary: "Sold a stolen limited" });
  expect(Object.keys(event.data)).not.toContain("provider_user_id");
  const second = await verifyWebhook(new TextEncoder().encode(overturned.body), overturned.headers, secret);
  expect(second).toMatchObject({ type: "blacklist.overturned", data: { id: entryId } });
});

test("tampered deliveries are refused with the reason", async () => {
  const h = added.headers;
  const now = Number(h["webhook-timestamp"]) * 1000;
  expect(await reason(verifyWebhook(added.body.replace("scam", "spam"), h, secret))).toBe("bad_signature");
  expect(await reason(verifyWebhook(added.body, { ...h, "webhook-id": "msg_other" }, secret))).toBe("bad_signature");
  expect(await reason(verifyWebhook(overturned.body, h, secret))).toBe("bad_signature");
  // A timestamp moved within tolerance still fails the signature; outside it, it is stale.
  expect(await reason(verifyWebhook(added.body, { ...h, "webhook-timestamp": String(Number(h["webhook-timestamp"]) + 1) }, secret))).toBe("bad_signature");
  expect(await reason(verifyWebhook(added.body, h, secret, { now: now + 301_000 }))).toBe("stale_timestamp");
  expect(await reason(verifyWebhook(added.body, h, secret, { now: now - 301_000 }))).toBe("stale_timestamp");
  expect(await reason(verifyWebhook(added.body, { ...h, "webhook-timestamp": "soon" }, secret))).toBe("bad_timestamp");
  expect(await reason(verifyWebhook(added.body, { "webhook-id": h["webhook-id"] }, secret))).toBe("missing_headers");
  const other = "whsec_" + btoa("another secret of 32 bytes......");
  expect(await reason(verifyWebhook(added.body, h, other))).toBe("bad_signature");
  expect(await reason(verifyWebhook(added.body, h, "whsec_!!!"))).toBe("bad_secret");
});

test("during a rotation either secret verifies; a client without a secret says so", async () => {
  const other = "whsec_" + btoa("another secret of 32 bytes......");
  expect((await webhookVerifier([other, secret]).verify(added.body, added.headers)).type).toBe("blacklist.added");
  expect(() => createTrustlist({ baseUrl: live.base }).webhooks.verify(added.body, added.headers)).toThrow("webhookSecret");
});
