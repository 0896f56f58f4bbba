// The `date-time` format's quick check (src/http/model.ts): it accepts exactly the strings that
// `toISOString` writes for a real instant, and everything else still goes to Elysia's own check.
import { expect, test } from "bun:test";
import { FormatRegistry } from "@sinclair/typebox";
import { isCanonicalInstant } from "../../src/http/model";
import { mulberry32 } from "../seeded";

/** What the quick check must answer: the string is the one `toISOString` writes for its instant. */
function roundTrips(value: string): boolean {
  const ms = Date.parse(value);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === value;
}

test("every instant of years 0 to 9999 as toISOString writes it is canonical, and the format takes it", () => {
  const random = mulberry32(0x15011);
  const dateTime = FormatRegistry.Get("date-time")!;
  const earliest = Date.UTC(0, 0, 1);
  const latest = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
  for (let i = 0; i < 20_000; i++) {
    const value = new Date(earliest + Math.floor(random() * (latest - earliest))).toISOString();
    expect(isCanonicalInstant(value)).toBe(true);
    expect(dateTime(value)).toBe(true);
  }
});

test("any one character changed: canonical exactly when toISOString would write it", () => {
  const random = mulberry32(0xda7e);
  const replacements = "0123456789-:.TZtz +/ ";
  const seeds = ["2026-11-21T10:00:00.000Z", "2024-02-29T23:59:59.999Z", "2000-02-28T00:00:00.000Z", "1999-12-31T19:09:39.509Z"];
  for (let i = 0; i < 200; i++) seeds.push(new Date(Date.UTC(1900, 0, 1) + Math.floor(random() * 6e12)).toISOString());
  let canonical = 0;
  let checked = 0;
  for (const seed of seeds) {
    for (let at = 0; at < seed.length; at++) {
      for (const char of replacements) {
        const value = seed.slice(0, at) + char + seed.slice(at + 1);
        expect({ value, canonical: isCanonicalInstant(value) }).toEqual({ value, canonical: roundTrips(value) });
        if (roundTrips(value)) canonical++;
        checked++;
      }
    }
  }
  // Both answers were met many times.
  expect(canonical).toBeGreaterThan(5_000);
  expect(checked - canonical).toBeGreaterThan(50_000);
});

test("days past a month's end, leap days, hours, minutes and seconds out of range are not canonical", () => {
  for (const [value, expected] of [
    ["2024-02-29T00:00:00.000Z", true],
    ["2000-02-29T00:00:00.000Z", true],
    ["2023-02-29T00:00:00.000Z", false],
    ["1900-02-29T00:00:00.000Z", false],
    ["2026-04-31T00:00:00.000Z", false],
    ["2026-12-31T00:00:00.000Z", true],
    ["2026-00-10T00:00:00.000Z", false],
    ["2026-13-10T00:00:00.000Z", false],
    ["2026-01-00T00:00:00.000Z", false],
    ["2026-01-01T24:00:00.000Z", false],
    ["2026-01-01T23:60:00.000Z", false],
    ["2026-01-01T23:59:60.000Z", false],
    ["0000-01-01T00:00:00.000Z", true],
    ["2026-11-21T10:00:00.000Z ", false],
    ["2026-11-21T10:00:00.000z", false],
    ["2026-11-21T10:00:00Z", false],
  ] as const) {
    expect({ value, canonical: isCanonicalInstant(value) }).toEqual({ value, canonical: expected });
    expect(roundTrips(value)).toBe(expected);
  }
});

test("the format still takes the other forms Elysia's check takes, and refuses what it refuses", () => {
  const dateTime = FormatRegistry.Get("date-time")!;
  // Elysia's check is lenient: a date alone, or a space for the T, passes it.
  for (const value of ["2026-11-21T10:00:00Z", "2026-11-21T10:00:00+02:00", "2026-11-21T10:00:00.5Z", "2026-11-21T10:00Z", "2026-11-21", "2026-11-21 10:00:00"]) {
    expect({ value, accepted: dateTime(value) }).toEqual({ value, accepted: true });
  }
  for (const value of ["", "yesterday", "not a date 2026", "2026-13-21T10:00:00.000Z", "2026-11-21T10:00:00.000"]) {
    expect({ value, accepted: dateTime(value) }).toEqual({ value, accepted: false });
  }
});
