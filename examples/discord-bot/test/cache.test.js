// The answer cache: kept for its TTL on a clock the test moves, shared while loading, failures
// not kept, size bounded.
import { expect, test } from "bun:test";
import { TtlCache } from "../src/cache.js";

test("a value is kept for the TTL and dropped after it", async () => {
  let now = 0;
  const cache = new TtlCache({ ttlMs: 1000, now: () => now });
  let loads = 0;
  const load = async () => ++loads;
  expect(await cache.getOrLoad("k", load)).toBe(1);
  now = 999;
  expect(await cache.getOrLoad("k", load)).toBe(1);
  now = 1000;
  expect(await cache.getOrLoad("k", load)).toBe(2);
});

test("concurrent lookups of one key share one load; a failure is not kept", async () => {
  const cache = new TtlCache({ ttlMs: 1000 });
  let loads = 0;
  let release;
  const slow = () => {
    loads++;
    return new Promise((resolve) => (release = resolve));
  };
  const both = Promise.all([cache.getOrLoad("k", slow), cache.getOrLoad("k", slow)]);
  release("v");
  expect(await both).toEqual(["v", "v"]);
  expect(loads).toBe(1);

  await expect(cache.getOrLoad("bad", async () => Promise.reject(new Error("down")))).rejects.toThrow("down");
  expect(await cache.getOrLoad("bad", async () => "ok")).toBe("ok");
});

test("past max keys the oldest goes first; a TTL of 0 keeps nothing", () => {
  const cache = new TtlCache({ ttlMs: 1000, max: 2 });
  cache.set("a", 1);
  cache.set("b", 2);
  cache.set("c", 3);
  expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([undefined, 2, 3]);
  const off = new TtlCache({ ttlMs: 0 });
  off.set("a", 1);
  expect(off.get("a")).toBeUndefined();
});
