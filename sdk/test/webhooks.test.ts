// The SDK's webhook methods against a live server (with --allow-private-webhooks, so a receiver on
// loopback may be registered): register, list, get, update, test delivery (received and signed
// with the secret shown once), deliveries page by page, secret rotation and deletion; and the
// errors a caller meets: below Pro, another account's endpoint, bad input, no key.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cliJson } from "../../test/cli-helpers";
import { Receiver } from "../../test/webhook-receiver";
import { createTrustlist, TrustlistError, type WebhookDelivery, type WebhookRegistration } from "../src/index";
import { liveServer } from "./live";

const live = liveServer(["--allow-private-webhooks", "--webhook-retry-delays", "50,50,50,50,50,50,50"]);
const receiver = new Receiver();
afterAll(() => receiver.stop());
let tl: ReturnType<typeof createTrustlist>;

beforeAll(() => {
  tl = createTrustlist({ baseUrl: live.base, apiKey: live.key() });
});

/** Waits until `check` holds, polling. */
async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await Bun.sleep(50);
  }
}

test("an endpoint's whole life: register, list, get, update, test delivery, deliveries, rotate, delete", async () => {
  const created: WebhookRegistration = await tl.createWebhook({ url: receiver.url("/sdk"), events: ["blacklist.added"] });
  expect(created).toMatchObject({ url: receiver.url("/sdk"), events: ["blacklist.added"], enabled: true, disabled_reason: null });
  expect(created.secret).toMatch(/^whsec_/);
  expect(created.warning.length).toBeGreaterThan(0);

  expect((await tl.listWebhooks()).data.map((w) => w.id)).toContain(created.id);
  const shown = await tl.getWebhook(created.id);
  expect(shown).toMatchObject({ id: created.id, enabled: true });
  expect("secret" in shown).toBe(false);

  const updated = await tl.updateWebhook(created.id, { events: ["blacklist.added", "blacklist.overturned"] });
  expect(updated.events).toEqual(["blacklist.added", "blacklist.overturned"]);

  const queued: WebhookDelivery = await tl.testWebhook(created.id);
  expect(queued).toMatchObject({ type: "webhook.test", status: "pending", attempts: [] });
  await receiver.waitFor(() => receiver.at("/sdk").length === 1);
  const request = receiver.at("/sdk")[0]!;
  expect(request.headers["webhook-id"]).toBe(queued.id);
  expect(Receiver.verify(created.secret, request)).toMatchObject({ type: "webhook.test", data: { webhook_id: created.id } });

  await until(async () => (await tl.webhookDeliveries(created.id)).data[0]?.status === "delivered");
  const page = await tl.webhookDeliveries(created.id, { limit: 1 });
  expect(page.data[0]).toMatchObject({ id: queued.id, attempt_count: 1, attempts: [{ attempt: 1, status_code: 200, error: null }] });

  // A second delivery, then every page from the first on.
  const second = await tl.testWebhook(created.id);
  await until(async () => (await tl.webhookDeliveries(created.id)).data.every((d) => d.status === "delivered") && receiver.at("/sdk").length === 2);
  const walked: string[] = [];
  for await (const delivery of tl.eachWebhookDelivery(created.id, { limit: 1 })) walked.push(delivery.id);
  expect(walked).toEqual([second.id, queued.id]);

  const rotated = await tl.rotateWebhookSecret(created.id);
  expect(rotated.secret).toMatch(/^whsec_/);
  expect(rotated.secret).not.toBe(created.secret);
  await tl.testWebhook(created.id);
  await receiver.waitFor(() => receiver.at("/sdk").length === 3);
  expect(() => Receiver.verify(created.secret, receiver.at("/sdk")[2]!)).toThrow();
  expect(Receiver.verify(rotated.secret, receiver.at("/sdk")[2]!)).toMatchObject({ type: "webhook.test" });

  expect(await tl.deleteWebhook(created.id)).toEqual({ id: created.id, deleted: true });
  const gone = await tl.getWebhook(created.id).catch((e) => e);
  expect(gone).toBeInstanceOf(TrustlistError);
  expect(gone).toMatchObject({ status: 404, code: "not_found" });
});

test("below Pro the webhook methods throw 402 plan_upgrade_required", async () => {
  const account = cliJson(live.db, "accounts", "create", "--name", "sdk-free", "--tier", "free").id as string;
  const free = createTrustlist({ baseUrl: live.base, apiKey: cliJson(live.db, "keys", "create", "--account", account).key });
  for (const call of [() => free.listWebhooks(), () => free.createWebhook({ url: receiver.url("/free"), events: ["blacklist.added"] })]) {
    const error = await call().catch((e) => e);
    expect(error).toBeInstanceOf(TrustlistError);
    expect(error).toMatchObject({ status: 402, code: "plan_upgrade_required" });
  }
});

test("another account's endpoint is a 404 for every method, and stays untouched", async () => {
  const mine = await tl.createWebhook({ url: receiver.url("/mine"), events: ["blacklist.added"] });
  const account = cliJson(live.db, "accounts", "create", "--name", "sdk-other", "--tier", "pro").id as string;
  const other = createTrustlist({ baseUrl: live.base, apiKey: cliJson(live.db, "keys", "create", "--account", account).key });
  const calls = [
    () => other.getWebhook(mine.id),
    () => other.updateWebhook(mine.id, { enabled: false }),
    () => other.rotateWebhookSecret(mine.id),
    () => other.testWebhook(mine.id),
    () => other.webhookDeliveries(mine.id),
    () => other.deleteWebhook(mine.id),
  ];
  for (const call of calls) expect(await call().catch((e) => e)).toMatchObject({ status: 404, code: "not_found" });
  expect((await other.listWebhooks()).data).toEqual([]);
  expect(await tl.getWebhook(mine.id)).toMatchObject({ id: mine.id, enabled: true });
  await tl.deleteWebhook(mine.id);
});

test("bad input is a TrustlistError 422 naming the problem; no key is a 401", async () => {
  const unknownEvent = await tl.createWebhook({ url: receiver.url("/bad"), events: ["blacklist.exploded" as never] }).catch((e) => e);
  expect(unknownEvent).toMatchObject({ status: 422, code: "unprocessable" });
  expect(unknownEvent.message).toContain("blacklist.exploded");
  const badUrl = await tl.createWebhook({ url: "ftp://example.com/hook", events: ["blacklist.added"] }).catch((e) => e);
  expect(badUrl).toMatchObject({ status: 422 });
  const endpoint = await tl.createWebhook({ url: receiver.url("/cursor"), events: ["blacklist.added"] });
  const forged = await tl.webhookDeliveries(endpoint.id, { cursor: "not-a-cursor" }).catch((e) => e);
  expect(forged).toBeInstanceOf(TrustlistError);
  expect(forged).toMatchObject({ code: "invalid_cursor" });
  await tl.deleteWebhook(endpoint.id);
  const anonymous = createTrustlist({ baseUrl: live.base });
  expect(await anonymous.listWebhooks().catch((e) => e)).toMatchObject({ status: 401, code: "unauthorized" });
});
