// The limiters' memory stays bounded by size whatever the number of clients (docs/api.md, "Plans and limits"), and
// the bound cannot be used to reset a busy client's bucket or an account's daily count.
import { afterEach, expect, test } from "bun:test";
import { LEADERBOARD_IP_RULE, MAX_CLIENT_BUCKETS, PUBLIC_IP_RULE, QuotaCounter, TokenBuckets } from "../../src/http/limits";
import { createTestApp, expectEnvelope, type TestApp } from "../helpers";
import { mulberry32 } from "../seeded";

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

test("at the cap, newcomers make room oldest first, exactly as a walk from the table's start would", () => {
  // The table walks its buckets with one iterator kept across newcomers. The reference below
  // takes the first entry of a fresh walk each time, the plain reading of "oldest first": every
  // answer, the number held and the overflow must agree over a long random run that fills the
  // table, drains some buckets, moves still-refilling ones to the back, wraps around the table
  // many times and prunes now and then.
  type Ref = { tokens: number; updatedAt: number; rule: typeof PUBLIC_IP_RULE };
  class Reference {
    readonly buckets = new Map<string, Ref>();
    readonly overflow = new Map<typeof PUBLIC_IP_RULE, Ref>();
    constructor(
      private readonly now: () => number,
      private readonly cap: number,
    ) {}
    take(id: string, rule: typeof PUBLIC_IP_RULE) {
      const now = this.now();
      let bucket = this.buckets.get(id);
      if (!bucket) {
        if (this.buckets.size >= this.cap && !this.makeRoom(now)) {
          bucket = this.overflow.get(rule);
          if (!bucket) this.overflow.set(rule, (bucket = { tokens: rule.capacity, updatedAt: now, rule }));
          else this.topUp(bucket, rule, now);
        } else this.buckets.set(id, (bucket = { tokens: rule.capacity, updatedAt: now, rule }));
      } else {
        bucket.rule = rule;
        this.topUp(bucket, rule, now);
      }
      const allowed = bucket.tokens >= 1;
      if (allowed) bucket.tokens -= 1;
      return { allowed, remaining: Math.floor(bucket.tokens) };
    }
    prune() {
      for (const [id, b] of this.buckets) if (this.full(b, b.rule, this.now())) this.buckets.delete(id);
      for (const [rule, b] of this.overflow) if (this.full(b, rule, this.now())) this.overflow.delete(rule);
    }
    private makeRoom(now: number) {
      for (let probe = 0; probe < 8; probe++) {
        const oldest = this.buckets.entries().next();
        if (oldest.done) return true;
        const [id, bucket] = oldest.value;
        this.buckets.delete(id);
        if (this.full(bucket, bucket.rule, now)) return true;
        this.buckets.set(id, bucket);
      }
      return false;
    }
    private full(b: Ref, rule: typeof PUBLIC_IP_RULE, now: number) {
      return b.tokens + ((now - b.updatedAt) / 1000) * rule.rate >= rule.capacity;
    }
    private topUp(b: Ref, rule: typeof PUBLIC_IP_RULE, now: number) {
      const elapsed = now - b.updatedAt;
      if (elapsed > 0) {
        b.tokens = Math.min(rule.capacity, b.tokens + (elapsed / 1000) * rule.rate);
        b.updatedAt = now;
      }
    }
  }

  const random = mulberry32(0xb0c4e7);
  let now = 0;
  const cap = 24;
  const table = new TokenBuckets(() => now, cap);
  const reference = new Reference(() => now, cap);
  const rules = [PUBLIC_IP_RULE, LEADERBOARD_IP_RULE];
  let evictions = 0;
  let overflowed = 0;
  for (let step = 0; step < 40_000; step++) {
    const roll = random();
    if (roll < 0.001) {
      table.prune();
      reference.prune();
    } else if (roll < 0.05) {
      now += Math.floor(random() * 4_000);
    } else {
      // Mostly newcomers from a pool several times the cap, some of them returning.
      const id = `10.0.${Math.floor(random() * 4)}.${Math.floor(random() * (random() < 0.3 ? 8 : 200))}`;
      const rule = rules[random() < 0.8 ? 0 : 1]!;
      const before = reference.buckets.size;
      const held = reference.buckets.has(id);
      const expected = reference.take(id, rule);
      const got = table.take(id, rule);
      expect({ step, allowed: got.allowed, remaining: got.remaining }).toEqual({ step, ...expected });
      if (!held && before >= cap) {
        if (reference.buckets.has(id)) evictions++;
        else overflowed++;
      }
      now += Math.floor(random() * 3);
    }
    expect(table.size).toBe(reference.buckets.size + reference.overflow.size);
  }
  // The run reached every path it means to compare.
  expect(evictions).toBeGreaterThan(1_000);
  expect(overflowed).toBeGreaterThan(100);
});
