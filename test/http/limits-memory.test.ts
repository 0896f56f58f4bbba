// The limiters' memory stays bounded by size whatever the number of clients (docs/api.md, "Plans and limits"), and
// the bound cannot be used to reset a busy client's bucket or an account's daily count.
import { afterEach, expect, test } from "bun:test";
import { LEADERBOARD_IP_RULE, MAX_CLIENT_BUCKETS, PUBLIC_IP_RULE, QuotaCounter, TokenBuckets } from "../../src/http/limits";
import { createTestApp, expectEnvelope, type TestApp } from "../helpers";

let t: TestApp;
afterEach(() => t?.close());

const CAPACITY = LEADERBOARD_IP_RULE.capacity;

test("the server's client buckets stay at the cap under a flood of new addresses", async () => {
  t = await createTestApp();
  const buckets = t.runtime.ipBuckets;
  for (let i = 0; i < MAX_CLIENT_BUCKETS + 20_000; i++) {
    // One new client every 0.1 ms: by the end the first ones have refilled and make room.
    t.clock.advance(0.1);
    buckets.take(`ip:public:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, PUBLIC_IP_RULE);
    if (i % 10_000 === 0) expect(buckets.size).toBeLessThanOrEqual(MAX_CLIENT_BUCKETS + 1);
  }
  expect(buckets.size).toBeLessThanOrEqual(MAX_CLIENT_BUCKETS + 1);
});

test("many distinct addresses keep the bucket count at the cap; a busy client's bucket is never reset", async () => {
  t = await createTestApp();
  t.runtime.config.trustProxy = 1;
  const cap = 50;
  t.runtime.ipBuckets = new TokenBuckets(() => t.clock.now(), cap);
  const leaderboard = (ip: string) => t.json("GET", "/referrals/leaderboard", { headers: { "x-forwarded-for": ip } });

  for (let i = 0; i < CAPACITY; i++) expect((await leaderboard("203.0.113.7")).status).toBe(200);
  expectEnvelope(await leaderboard("203.0.113.7"), 429, "rate_limited");

  // 200 new addresses within the same instant: none of the held buckets has refilled, so the
  // newcomers beyond the cap share one overflow bucket, which soon answers 429.
  const flood: number[] = [];
  for (let i = 0; i < 200; i++) flood.push((await leaderboard(`198.51.${i >> 8}.${i & 255}`)).status);
  expect(t.runtime.ipBuckets.size).toBeLessThanOrEqual(cap + 1);
  expect(flood.slice(0, cap - 1)).toEqual(Array(cap - 1).fill(200));
  expect(flood.filter((s) => s === 429).length).toBe(200 - (cap - 1) - CAPACITY);
  expectEnvelope(await leaderboard("203.0.113.7"), 429, "rate_limited");

  // Half a second later the busy client has earned one token, not a fresh bucket.
  t.clock.advance(500);
  expect((await leaderboard("203.0.113.7")).status).toBe(200);
  expectEnvelope(await leaderboard("203.0.113.7"), 429, "rate_limited");

  // Once buckets have refilled they make room: a newcomer gets a bucket of its own again.
  t.clock.advance(10_000);
  const newcomer = await leaderboard("192.0.2.1");
  expect(newcomer.status).toBe(200);
  expect(newcomer.headers.get("x-ratelimit-remaining")).toBe(String(CAPACITY - 1));
  expect(t.runtime.ipBuckets.size).toBeLessThanOrEqual(cap + 1);
  t.runtime.ipBuckets.prune();
  expect(t.runtime.ipBuckets.size).toBeLessThanOrEqual(2); // the busy client and the newcomer
});

test("daily counters are bounded; a dropped counter comes back exact, unflushed calls included", async () => {
  t = await createTestApp();
  const cap = 3;
  t.runtime.quota = new QuotaCounter(t.runtime.accountsStore, () => t.clock.now(), (a, d) => t.runtime.meter.pendingCallsOf(a, d), cap);
  const busy = await t.account({ dailyQuota: 5, burst: 1000 });
  const check = (key: string) => t.json("GET", "/v1/blacklist/check?provider=discord&id=1", { key });
  for (let i = 0; i < 3; i++) expect((await check(busy.key)).status).toBe(200);
  await t.runtime.meter.flush();
  for (let i = 0; i < 2; i++) expect((await check(busy.key)).status).toBe(200); // not flushed yet

  // More accounts than the cap call: the busy account's counter is dropped along the way.
  for (let i = 0; i < 6; i++) expect((await check((await t.account({ burst: 1000 })).key)).status).toBe(200);
  expect(t.runtime.quota.size).toBeLessThanOrEqual(cap);

  const spent = await check(busy.key);
  expectEnvelope(spent, 429, "quota_exceeded");
  expect(spent.headers.get("x-ratelimit-remaining")).toBe("0");
});
