// The account and request plumbing stores on whichever backend the suite runs on (test/backend.ts):
// accounts and keys, usage counters, Idempotency-Key records and the meta values, each on a fresh
// database.
import { beforeEach, expect, test } from "bun:test";
import type { Database } from "../../src/db/database";
import { UniqueViolation } from "../../src/db/errors";
import { createIdempotencyStore, openRequestSlot, type PendingKey } from "../../src/db/idempotency";
import { createMetaStore } from "../../src/db/meta-store";
import { KeyRegistry } from "../../src/http/auth";
import { generateKey, hashKey } from "../../src/modules/accounts/keys";
import { QuotaCounter } from "../../src/http/limits";
import { Meter } from "../../src/http/metering";
import { type AccountRow, type AccountsStore, createAccountsStore, type KeyRow } from "../../src/modules/accounts/store";
import { backend, databasesOfThisFile } from "../backend";

const databases = databasesOfThisFile();

let database: Database;
let store: AccountsStore;
beforeEach(async () => {
  const fresh = await databases.open();
  database = fresh.database;
  store = createAccountsStore(database);
});

function account(id: string, name = id): AccountRow {
  return { id, name, tier: "free", dailyQuota: null, status: "active", federation: false, createdAt: 1_700_000_000_000 };
}

function key(id: string, accountId: string, hash: string): KeyRow {
  return {
    id,
    accountId,
    name: null,
    hash,
    prefix: "tl_live_abcd",
    scope: "read",
    rateTier: "free",
    burstRate: null,
    createdAt: 1_700_000_000_001,
    revokedAt: null,
  };
}

test("an account is created, found by id and by name, updated and counted", async () => {
  await store.insertAccount(account("acct_1", "acme"));
  expect(await store.findAccount("acct_1")).toEqual(account("acct_1", "acme"));
  expect((await store.findAccount("acme"))?.id).toBe("acct_1");
  expect(await store.findAccount("nobody")).toBeNull();
  await store.updateAccount("acct_1", { tier: "pro", dailyQuota: 7, status: "suspended" });
  expect(await store.findAccount("acme")).toMatchObject({ tier: "pro", dailyQuota: 7, status: "suspended" });
  expect(await store.countAccounts()).toBe(1);
  expect((await store.listAccounts()).map((a) => a.name)).toEqual(["acme"]);
});

test("a taken account name is a UniqueViolation and changes nothing", async () => {
  await store.insertAccount(account("acct_1", "acme"));
  const error = await store.insertAccount(account("acct_2", "acme")).catch((e) => e);
  expect(error).toBeInstanceOf(UniqueViolation);
  expect(await store.countAccounts()).toBe(1);
});

test("keys: created, found by hash with their account, counted, revoked, given a new secret", async () => {
  await store.insertAccount(account("acct_1"));
  await store.insertKey(key("key_1", "acct_1", "h1"));
  await store.insertKey(key("key_2", "acct_1", "h2"));
  expect(await store.keyByHash("h1")).toMatchObject({ id: "key_1", accountId: "acct_1", tier: "free", status: "active", dailyQuota: null });
  expect(await store.liveKeyCount("acct_1")).toBe(2);
  expect(await store.insertKey(key("key_3", "acct_1", "h1")).catch((e) => e)).toBeInstanceOf(UniqueViolation);

  await store.setKeyRevoked("key_1", 1_700_000_000_500);
  expect(await store.keyByHash("h1")).toBeNull();
  expect((await store.findKey("key_1"))?.revokedAt).toBe(1_700_000_000_500);
  expect(await store.liveKeyCount("acct_1")).toBe(1);

  await store.setKeySecret("key_2", "h2b", "tl_live_wxyz");
  expect(await store.keyByHash("h2")).toBeNull();
  expect(await store.keyByHash("h2b")).toMatchObject({ id: "key_2" });
  expect((await store.listKeys("acct_1")).map((k) => k.id)).toEqual(["key_1", "key_2"]);
  expect(await store.findKey("key_9")).toBeNull();
});

test("usage: flushed counts add up per endpoint and per account day, and old days are pruned in slices", async () => {
  await store.insertAccount(account("acct_1"));
  await store.insertKey(key("key_1", "acct_1", "h1"));
  const flush = (day: string, counts: [string, number][]) =>
    store.transaction(() => store.addUsage([{ keyId: "key_1", accountId: "acct_1", day, counts: new Map(counts) }]));
  await flush("2026-10-01", [["GET /a", 2]]);
  await flush("2026-11-02", [["GET /a", 3], ["GET /b", 1]]);
  await flush("2026-11-02", [["GET /b", 4]]);
  expect(await store.dailyCount("acct_1", "2026-11-02")).toBe(8);
  expect(await store.dailyCount("acct_1", "2026-11-03")).toBe(0);
  const byEndpoint = await store.usageByEndpoint("key_1", "2026-11-01");
  expect(byEndpoint.sort((a, b) => a.endpoint.localeCompare(b.endpoint))).toEqual([
    { endpoint: "GET /a", total: 5, month: 3 },
    { endpoint: "GET /b", total: 5, month: 5 },
  ]);

  let slices = 0;
  const deleted = await store.pruneUsage("2026-11-01", 1, async () => void slices++);
  // One usage_endpoints row and one usage_daily row were older than the cutoff.
  expect(deleted).toBe(2);
  expect(slices).toBeGreaterThan(0);
  expect(await store.dailyCount("acct_1", "2026-10-01")).toBe(0);
  expect(await store.dailyCount("acct_1", "2026-11-02")).toBe(8);
  expect((await store.usageByEndpoint("key_1", "2026-11-01")).map((r) => r.total).sort()).toEqual([3, 5]);
});

test("idempotency: recorded by the write's own transaction, found, completed, kept from others, pruned", async () => {
  let now = 1_000_000;
  const idempotency = createIdempotencyStore(database, () => now, 60_000);
  const slot = openRequestSlot();
  const pending: PendingKey = { store: idempotency, accountId: "acct_1", key: "k-1", fingerprint: "f1", claim: "c1" };
  slot.pending = pending;
  await database.write(async () => {});
  slot.pending = undefined;
  expect(await idempotency.find("acct_1", "k-1")).toEqual({ fingerprint: "f1", status: null, contentType: null, body: null });

  // A write that fails rolls its record back with it.
  slot.pending = { ...pending, key: "k-2" };
  await expect(database.write(async () => { throw new Error("no"); })).rejects.toThrow("no");
  slot.pending = undefined;
  expect(await idempotency.find("acct_1", "k-2")).toBeNull();

  await idempotency.saveAnswer(pending, { status: 201, contentType: "application/json", body: "{}" });
  expect(await idempotency.find("acct_1", "k-1")).toEqual({ fingerprint: "f1", status: 201, contentType: "application/json", body: "{}" });
  // Another request's claim does not take over an unexpired record.
  expect(await database.write(() => idempotency.save({ ...pending, claim: "c2", fingerprint: "f2" }, null))).toBe(false);
  expect((await idempotency.find("acct_1", "k-1"))?.fingerprint).toBe("f1");

  now += 60_000;
  expect(await idempotency.find("acct_1", "k-1")).toBeNull();
  expect(await idempotency.pruneSlice(10)).toBe(1);
  expect(await idempotency.pruneSlice(10)).toBe(0);
});

test("meta: a value is made once and then kept", async () => {
  const meta = createMetaStore(database);
  expect(await meta.value("cursor_secret")).toBeNull();
  const first = await meta.valueOrMake("cursor_secret", () => "one");
  expect(first).toBe("one");
  expect(await meta.valueOrMake("cursor_secret", () => "two")).toBe("one");
  expect(await createMetaStore(database).valueOrMake("cursor_secret", () => "three")).toBe("one");
  expect(await meta.value("cursor_secret")).toBe("one");
});

test("the request path: a key is found after its lookup, forgotten once revoked; the daily count is read", async () => {
  await store.insertAccount(account("acct_1"));
  const secret = generateKey();
  await store.insertKey(key("key_1", "acct_1", hashKey(secret)));
  const keys = new KeyRegistry(store);
  const header = `Bearer ${secret}`;
  await keys.load(header);
  expect(keys.fromHeader(header)).toMatchObject({ keyId: "key_1", accountId: "acct_1", scope: "read", dailyQuota: 100 });
  await keys.load(`Bearer ${generateKey()}`);
  expect(keys.fromHeader(`Bearer ${generateKey()}`)).toBeNull();

  await store.setKeyRevoked("key_1", 1_700_000_000_900);
  keys.invalidate();
  await keys.load(header);
  expect(keys.fromHeader(header)).toBeNull();

  const now = Date.parse("2026-11-02T12:00:00Z");
  await store.transaction(() => store.addUsage([{ keyId: "key_1", accountId: "acct_1", day: "2026-11-02", counts: new Map([["GET /a", 42]]) }]));
  const quota = new QuotaCounter(store, () => now, () => 3);
  await quota.load("acct_1");
  expect(quota.used("acct_1")).toBe(45);
});

test("the meter's flush persists its counts through the store once, and nothing stays pending", async () => {
  await store.insertAccount(account("acct_1"));
  await store.insertKey(key("key_1", "acct_1", "h1"));
  const now = Date.parse("2026-11-02T12:00:00Z");
  const meter = new Meter(store, () => now);
  meter.record("key_1", "acct_1", "GET /a");
  meter.record("key_1", "acct_1", "GET /a");
  meter.record("key_1", "acct_1", "GET /b");
  expect(await meter.flush()).toBe(1);
  expect(meter.pendingCount).toBe(0);
  expect(await meter.flush()).toBe(0);
  expect(await store.dailyCount("acct_1", "2026-11-02")).toBe(3);
  expect((await store.usageByEndpoint("key_1", "2026-11-01")).sort((a, b) => a.endpoint.localeCompare(b.endpoint))).toEqual([
    { endpoint: "GET /a", total: 2, month: 2 },
    { endpoint: "GET /b", total: 1, month: 1 },
  ]);
});

// On SQLite this process's writes take turns, so only another process holds a lock (locks.test.ts).
test.if(backend === "postgres")("a flush that meets another instance's row lock keeps its counts for the next one", async () => {
  await store.insertAccount(account("acct_1"));
  await store.insertKey(key("key_1", "acct_1", "h1"));
  const now = Date.parse("2026-11-02T12:00:00Z");
  const meter = new Meter(store, () => now);
  meter.record("key_1", "acct_1", "GET /a");
  expect(await meter.flush()).toBe(1);

  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = store.transaction(async () => {
    await store.addUsage([{ keyId: "key_1", accountId: "acct_1", day: "2026-11-02", counts: new Map([["GET /a", 10]]) }]);
    locked();
    await held;
  });
  await isLocked;
  meter.record("key_1", "acct_1", "GET /a");
  expect(await meter.flush()).toBe(0);
  expect(meter.deferredFlushes).toBe(1);
  expect(meter.pendingCount).toBe(1);
  release();
  await holder;
  expect(await meter.flush()).toBe(1);
  expect(await store.dailyCount("acct_1", "2026-11-02")).toBe(12);
});
