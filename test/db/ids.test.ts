// Ids: a prefix, 10 characters of millisecond time and 16 random ones, all Crockford base32
// lower-case, strictly increasing within a process even when made in one millisecond.
import { expect, test } from "bun:test";
import { newId } from "../../src/ids";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const timeOf = (id: string) => [...id.slice(id.indexOf("_") + 1, id.indexOf("_") + 11)].reduce((t, c) => t * 32 + ALPHABET.indexOf(c), 0);

test("an id carries its time in its first 10 characters and sorts after every id made before it", () => {
  let previous = "";
  for (const ms of [1, 1_672_531_204_222, 1_672_531_204_222, 1_795_486_538_101, 2 ** 48 - 1]) {
    const first = newId("bl", ms);
    expect(first).toMatch(/^bl_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(timeOf(first)).toBe(Math.max(ms, timeOf(previous || first)));
    expect(first > previous).toBe(true);
    // More ids in the same millisecond: same time, still increasing.
    let last = first;
    for (let i = 0; i < 50; i++) {
      const next = newId("bl", ms);
      expect(timeOf(next)).toBe(timeOf(first));
      expect(next > last).toBe(true);
      last = next;
    }
    previous = last;
  }
  // An earlier time than the last id's keeps the last time, so the order holds.
  const earlier = newId("crt", 5);
  expect(timeOf(earlier)).toBe(2 ** 48 - 1);
});
