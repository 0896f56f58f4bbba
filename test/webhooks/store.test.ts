// The webhooks store and worker on whichever backend the suite runs on (test/backend.ts): the
// fan-out, claims and their leases, the attempt guard, pruning, and two workers on two handles of
// one database delivering 1,000 events exactly once between them.
import { afterAll, beforeEach, expect, test } from "bun:test";
import { ManualClock, systemClock } from "../../src/clock";
import { CursorCodec } from "../../src/cursor";
import type { Database } from "../../src/db/database";
import { Logger } from "../../src/logger";
import { Metrics } from "../../src/metrics";
import { WebhookWorker } from "../../src/jobs/webhook-worker";
import { createAccountsStore } from "../../src/modules/accounts/store";
import { WebhooksService } from "../../src/modules/webhooks/service";
import type { EndpointRow } from "../../src/modules/webhooks/store";
import { Outbox } from "../../src/modules/outbox/service";
import { databasesOfThisFile, until } from "../backend";
import { Receiver } from "../webhook-receiver";

const databases = databasesOfThisFile();
const DELAYS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
const quiet = new Logger({ access: false }, () => {});
const receiver = new Receiver();
afterAll(() => receiver.stop());

let database: Database;
let location: string;
let clock: ManualClock;
let service: WebhooksService;

function serviceOn(db: Database, c: { now(): number } = clock) {
  return new WebhooksService(db, c, new CursorCodec("test-secret"), { policy: { allowPrivate: true }, retryDelaysMs: DELAYS });
}

beforeEach(async () => {
  ({ database, location } = await databases.open());
  clock = new ManualClock(Date.now());
  service = serviceOn(database);
  await createAccountsStore(database).insertAccount({ id: "acct_1", name: "acme", tier: "pro", dailyQuota: null, status: "active", federation: false, createdAt: 1 });
  receiver.received.length = 0;
  receiver.answer = () => 200;
});

function endpoint(id: string, events: string[], fields: Partial<EndpointRow> = {}): EndpointRow {
  return {
    id,
    accountId: "acct_1",
    url: receiver.url(`/${id}`),
    events,
    secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    enabled: true,
    disabledReason: null,
    disabledAt: null,
    failingSince: null,
    createdAt: clock.now() - 1000,
    ...fields,
  };
}

let eventNumber = 0;
async function emit(db: Database, count: number, type: "blacklist.added" | "deal.confirmed" = "blacklist.added", at = clock.now()) {
  const outbox = new Outbox(db);
  await db.write(async () => {
    for (let i = 0; i < count; i++) await outbox.write(type, { id: `bl_${++eventNumber}` }, at);
  });
}

test("endpoints are stored, listed per account, patched and deleted", async () => {
  await service.store.insertEndpoint(endpoint("wh_a", ["blacklist.added"]));
  expect(await service.store.findEndpoint("acct_1", "wh_a")).toEqual(endpoint("wh_a", ["blacklist.added"]));
  expect(await service.store.findEndpoint("acct_2", "wh_a")).toBeNull();
  expect(await service.store.updateEndpoint("acct_1", "wh_a", { enabled: false, disabledReason: "why", disabledAt: 5, events: ["deal.declined"] })).toBe(true);
  expect(await service.store.findEndpoint("acct_1", "wh_a")).toMatchObject({ enabled: false, disabledReason: "why", disabledAt: 5, events: ["deal.declined"] });
  expect(await service.store.updateEndpoint("acct_2", "wh_a", { enabled: true })).toBe(false);
  expect((await service.store.listEndpoints("acct_1")).map((e) => e.id)).toEqual(["wh_a"]);
  expect(await service.store.countEndpoints("acct_1")).toBe(1);
  expect(await service.store.deleteEndpoint("acct_2", "wh_a")).toBe(false);
  expect(await service.store.deleteEndpoint("acct_1", "wh_a")).toBe(true);
  expect(await service.store.countEndpoints("acct_1")).toBe(0);
});

test("the fan-out gives each event to the enabled endpoints subscribed to it that existed then, once", async () => {
  await service.store.insertEndpoint(endpoint("wh_added", ["blacklist.added"]));
  await service.store.insertEndpoint(endpoint("wh_deals", ["deal.confirmed"]));
  await service.store.insertEndpoint(endpoint("wh_off", ["blacklist.added"], { enabled: false }));
  await service.store.insertEndpoint(endpoint("wh_later", ["blacklist.added"], { createdAt: clock.now() + 1 }));
  await emit(database, 3);
  await emit(database, 1, "deal.confirmed");
  expect(await service.dispatchEvents()).toBe(4);
  expect(await service.dispatchEvents()).toBe(0);
  expect(await service.pendingDeliveries()).toBe(4);
  const { claimed } = await service.claimDue(100, 60_000);
  expect(claimed.map((c) => c.endpointId).sort()).toEqual(["wh_added", "wh_added", "wh_added", "wh_deals"]);
  expect(claimed[0]!.url).toBe(receiver.url(`/${claimed[0]!.endpointId}`));
  expect(JSON.parse(claimed[0]!.payload)).toMatchObject({ data: { id: expect.any(String) } });
});

test("one fan-out writes about 2,000 deliveries at most, however many endpoints subscribe", async () => {
  for (let i = 0; i < 50; i++) await service.store.insertEndpoint(endpoint(`wh_${i}`, ["blacklist.added"]));
  await emit(database, 100);
  expect(await service.dispatchEvents()).toBe(40);
  expect(await service.pendingDeliveries()).toBe(2_000);
  expect(await service.dispatchEvents()).toBe(40);
  expect(await service.dispatchEvents()).toBe(20);
  expect(await service.pendingDeliveries()).toBe(5_000);
});

test("a backlog committed in one millisecond is fanned out a slice at a time, in id order, each event once", async () => {
  await service.store.insertEndpoint(endpoint("wh_a", ["blacklist.added"]));
  await emit(database, 250, "blacklist.added", clock.now());
  const eventIds = async () => (await service.store.listDeliveries("wh_a", 1_000, null)).map((d) => d.eventId!).sort();
  expect(await service.dispatchEvents(100)).toBe(100);
  const first = await eventIds();
  expect(await service.dispatchEvents(100)).toBe(100);
  expect(await service.dispatchEvents(100)).toBe(50);
  expect(await service.dispatchEvents(100)).toBe(0);
  const all = await eventIds();
  expect(all).toHaveLength(250);
  expect(new Set(all).size).toBe(250);
  // The first slice is the 100 oldest: ids sort in the order the events were written.
  expect(first).toEqual(all.slice(0, 100));
});

test("a claim hides its rows until the lease lapses; release and busy endpoints are honoured", async () => {
  await service.store.insertEndpoint(endpoint("wh_a", ["blacklist.added"]));
  await service.store.insertEndpoint(endpoint("wh_b", ["blacklist.added"]));
  await emit(database, 2);
  await service.dispatchEvents();
  const first = await service.claimDue(1, 60_000, { perLane: 1, held: new Map([["wh_a", 1]]) });
  expect(first.claimed.map((c) => c.endpointId)).toEqual(["wh_b"]);
  const second = await service.claimDue(10, 60_000);
  expect(second.claimed.map((c) => c.endpointId).sort()).toEqual(["wh_a", "wh_a", "wh_b"]);
  expect((await service.claimDue(10, 60_000)).claimed).toEqual([]);
  await service.release([second.claimed[0]!.id], second.leaseUntil);
  expect((await service.claimDue(10, 60_000)).claimed).toHaveLength(1);
  clock.advance(60_001);
  expect((await service.claimDue(10, 60_000)).claimed).toHaveLength(4);
});

test("a claim takes each endpoint's room: a full endpoint's backlog is left alone, the others' rows come oldest first", async () => {
  await service.store.insertEndpoint(endpoint("wh_hang", ["blacklist.added"]));
  await service.store.insertEndpoint(endpoint("wh_ok", ["blacklist.added"]));
  const row = (id: string, endpointId: string, at: number) => ({
    id,
    endpointId,
    eventId: null,
    type: "webhook.test",
    url: null,
    payload: "{}",
    status: "pending" as const,
    attempts: 0,
    nextAttemptAt: at,
    createdAt: at,
    finishedAt: null,
  });
  const now = clock.now();
  await service.store.transaction(() =>
    service.store.insertDeliveries([
      ...Array.from({ length: 2_000 }, (_, i) => row(`msg_hang_${String(i).padStart(5, "0")}`, "wh_hang", now - 10_000 + i)),
      ...Array.from({ length: 5 }, (_, i) => row(`msg_ok_${i}`, "wh_ok", now - 5 + i)),
    ]),
  );
  const lanes = { perLane: 8, held: new Map([["wh_hang", 8], ["wh_ok", 5]]) };
  // wh_hang is full; wh_ok has room for 3, its oldest 3.
  const { claimed } = await service.claimDue(100, 60_000, lanes);
  expect(claimed.map((c) => c.id).sort()).toEqual(["msg_ok_0", "msg_ok_1", "msg_ok_2"]);
  const rest = await service.claimDue(100, 60_000, { perLane: 8, held: new Map([["wh_hang", 7]]) });
  expect(rest.claimed.map((c) => c.id).sort()).toEqual(["msg_hang_00000", "msg_ok_3", "msg_ok_4"]);
});

test("an attempt is recorded once: a stale claim (already recorded, or deleted) changes nothing", async () => {
  await service.store.insertEndpoint(endpoint("wh_a", ["blacklist.added"]));
  await emit(database, 1);
  await service.dispatchEvents();
  const [row] = (await service.claimDue(10, 60_000)).claimed;
  const result = { startedAt: clock.now(), latencyMs: 3, statusCode: 500, error: null, responseExcerpt: "no" };
  expect(await service.recordAttempt(row!, result)).toMatchObject({ status: "pending", nextAttemptAt: clock.now() + DELAYS[0]! });
  expect(await service.recordAttempt(row!, { ...result, statusCode: 200 })).toBeNull();
  const stored = await service.store.findDelivery(row!.id);
  expect(stored).toMatchObject({ status: "pending", attempts: 1 });
  expect((await service.store.findEndpoint("acct_1", "wh_a"))!.failingSince).toBe(result.startedAt);
  const attempts = await service.store.attemptsOf([row!.id]);
  expect(attempts).toEqual([{ deliveryId: row!.id, attempt: 1, startedAt: result.startedAt, statusCode: 500, latencyMs: 3, error: "HTTP 500: only a 2xx answer counts as delivered", responseExcerpt: "no" }]);
  await service.store.deleteEndpoint("acct_1", "wh_a");
  clock.advance(DELAYS[0]!);
  expect((await service.claimDue(10, 60_000)).claimed).toEqual([]);
  expect(await service.recordAttempt({ ...row!, attempts: 1 }, { ...result, statusCode: 200 })).toBeNull();
});

test("deleting an endpoint takes its deliveries and their attempts with it; another account's is untouched", async () => {
  await service.store.insertEndpoint(endpoint("wh_a", ["blacklist.added"]));
  await emit(database, 3);
  await service.dispatchEvents();
  const [row] = (await service.claimDue(1, 60_000)).claimed;
  await service.recordAttempt(row!, { startedAt: clock.now(), latencyMs: 1, statusCode: 500, error: null, responseExcerpt: null });
  await expect(service.delete("acct_2", "wh_a")).rejects.toThrow("No webhook endpoint");
  expect(await service.pendingDeliveries()).toBe(3);
  expect(await service.delete("acct_1", "wh_a")).toEqual({ id: "wh_a", deleted: true });
  expect(await service.pendingDeliveries()).toBe(0);
  expect(await service.store.attemptsOf([row!.id])).toEqual([]);
  expect(await service.store.findEndpoint("acct_1", "wh_a")).toBeNull();
});

test("a claimed row is no longer due once its endpoint is disabled or deleted, or once it was recorded", async () => {
  await service.store.insertEndpoint(endpoint("wh_a", ["blacklist.added"]));
  await service.store.insertEndpoint(endpoint("wh_b", ["blacklist.added"]));
  await emit(database, 1);
  await service.dispatchEvents();
  const { claimed } = await service.claimDue(10, 60_000);
  const a = claimed.find((c) => c.endpointId === "wh_a")!;
  const b = claimed.find((c) => c.endpointId === "wh_b")!;
  expect(await service.stillDue(a)).toBe(true);
  await service.update("acct_1", "wh_a", { enabled: false });
  expect(await service.stillDue(a)).toBe(false);
  await service.delete("acct_1", "wh_a");
  expect(await service.stillDue(a)).toBe(false);
  await service.recordAttempt(b, { startedAt: clock.now(), latencyMs: 1, statusCode: 200, error: null, responseExcerpt: null });
  expect(await service.stillDue(b)).toBe(false);
});

test("a Discord message joins the caller's transaction: rolled back with it", async () => {
  await database
    .write(async () => {
      await service.queueDiscordMessage("https://discord.com/api/webhooks/1/abc", "hello", clock.now());
      throw new Error("the change failed");
    })
    .catch(() => {});
  expect(await service.pendingDeliveries()).toBe(0);
  await database.write(() => service.queueDiscordMessage("https://discord.com/api/webhooks/1/abc", "hello", clock.now()));
  const { claimed } = await service.claimDue(10, 60_000);
  expect(claimed).toMatchObject([{ endpointId: null, url: "https://discord.com/api/webhooks/1/abc", secret: null, type: "discord.message" }]);
});

test("pruning deletes finished deliveries and dispatched events older than 30 days, in slices", async () => {
  await service.store.insertEndpoint(endpoint("wh_a", ["blacklist.added"]));
  await emit(database, 3);
  await service.dispatchEvents();
  const { claimed } = await service.claimDue(10, 60_000);
  for (const row of claimed.slice(0, 2)) {
    await service.recordAttempt(row, { startedAt: clock.now(), latencyMs: 1, statusCode: 200, error: null, responseExcerpt: null });
  }
  clock.advance(30 * 86_400_000 - 1);
  expect(await service.prune()).toBe(0);
  clock.advance(2);
  expect(await service.prune()).toBe(5);
  expect(await service.pendingDeliveries()).toBe(1);
});

test("two workers on two handles of one database deliver 1,000 events exactly once between them", async () => {
  const second = (await databases.open(location)).database;
  // Real time: both workers run their loops concurrently, as two instances would.
  const one = serviceOn(database, systemClock);
  const two = serviceOn(second, systemClock);
  await one.store.insertEndpoint(endpoint("wh_many", ["blacklist.added"], { createdAt: 1 }));
  const workers = [one, two].map((s) => new WebhookWorker(s, systemClock, new Metrics(), quiet, { pollMs: 5 }));
  for (const worker of workers) worker.start();
  for (let i = 0; i < 10; i++) await emit(i % 2 ? second : database, 100, "blacklist.added", Date.now());
  await receiver.waitFor(() => receiver.at("/wh_many").length >= 1000, 60_000);
  // Until every 2xx is recorded (a stopped worker leaves unrecorded ones pending); a duplicate sent meanwhile shows below.
  expect(await until(async () => (await one.pendingDeliveries()) === 0, 30_000)).toBe(true);
  for (const worker of workers) await worker.stop();
  const requests = receiver.at("/wh_many");
  expect(requests).toHaveLength(1000);
  expect(new Set(requests.map((r) => r.headers["webhook-id"])).size).toBe(1000);
  expect(new Set(requests.map((r) => r.body)).size).toBe(1000);
  expect(await one.pendingDeliveries()).toBe(0);
  for (const r of requests.slice(0, 20)) Receiver.verify("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", r);
}, 90_000);
