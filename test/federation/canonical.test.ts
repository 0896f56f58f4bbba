// The canonical JSON the feed signs over, against RFC 8785's own examples (its sections 3.2.2 and
// 3.2.3, and the number serialisation samples of its appendix B).
import { expect, test } from "bun:test";
import { canonicalJson } from "../../src/modules/federation/signing";

test("RFC 8785 3.2.2: whitespace, literals, numbers and string escapes", () => {
  const input = JSON.parse(`{
    "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
    "string": "\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\"\\/",
    "literals": [null, true, false]
  }`);
  expect(canonicalJson(input)).toBe(`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA'B\\"\\\\\\\\\\"/"}`);
});

test("RFC 8785 3.2.3: members sorted by their names' UTF-16 code units", () => {
  const input = JSON.parse(`{
    "\\u20ac": "Euro Sign",
    "\\r": "Carriage Return",
    "\\ufb33": "Hebrew Letter Dalet With Dagesh",
    "1": "One",
    "\\ud83d\\ude00": "Emoji: Grinning Face",
    "\\u0080": "Control",
    "\\u00f6": "Latin Small Letter O With Diaeresis"
  }`);
  expect(canonicalJson(input)).toBe(
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
  );
});

test("RFC 8785 appendix B: numbers as ECMAScript writes them", () => {
  const samples: Array<[number, string]> = [
    [0, "0"],
    [-0, "0"],
    [5e-324, "5e-324"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
    [9007199254740992, "9007199254740992"],
    [295147905179352830000, "295147905179352830000"],
    [1e21, "1e+21"],
    [0.000001, "0.000001"],
    [1e-7, "1e-7"],
  ];
  for (const [value, text] of samples) expect(canonicalJson(value)).toBe(text);
  expect(() => canonicalJson(Number.NaN)).toThrow();
  expect(() => canonicalJson(Number.POSITIVE_INFINITY)).toThrow();
});

test("nested objects and arrays; undefined members left out as JSON leaves them", () => {
  expect(canonicalJson({ b: [{ z: 1, a: null }], a: { d: undefined, c: "x" } })).toBe('{"a":{"c":"x"},"b":[{"a":null,"z":1}]}');
});

test("members named like array indexes, and __proto__, sort as text like every other name", () => {
  expect(canonicalJson({ "10": 1, "9": 2, b: 3, a: [{ "2": 0, "1": 1 }] })).toBe(`{"10":1,"9":2,"a":[{"1":1,"2":0}],"b":3}`);
  expect(canonicalJson(JSON.parse(`{"b": 1, "__proto__": {"x": 1}, "a": 2}`))).toBe(`{"__proto__":{"x":1},"a":2,"b":1}`);
  expect(canonicalJson({ "4294967295": 1, "4294967294": 2, "01": 3, "1": 4 })).toBe(`{"01":3,"1":4,"4294967294":2,"4294967295":1}`);
});

test("any value written as a plain reading of the scheme writes it (seeded random values)", () => {
  // The reference: members sorted by UTF-16 code units, each written member by member.
  const reference = (value: unknown): string => {
    if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : reference(item))).join(",")}]`;
    if (value && typeof value === "object") {
      const names = Object.keys(value).filter((name) => (value as Record<string, unknown>)[name] !== undefined).sort();
      return `{${names.map((name) => `${JSON.stringify(name)}:${reference((value as Record<string, unknown>)[name])}`).join(",")}}`;
    }
    return JSON.stringify(value);
  };
  let seed = 8785;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const names = ["a", "b", "é", "€", "\u{1F600}", "10", "9", "0", "z", "A", "__proto__", "01", "-1", ""];
  const leaf = () => [null, true, false, 0, -0.5, 1e21, 333333333.33333329, "x\u0000\"\\", "€", undefined][Math.floor(next() * 10)];
  const make = (depth: number): unknown => {
    const kind = next();
    if (depth > 3 || kind < 0.4) return leaf();
    if (kind < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => make(depth + 1));
    const value: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 5); i > 0; i--) Object.defineProperty(value, names[Math.floor(next() * names.length)]!, { value: make(depth + 1), enumerable: true, configurable: true, writable: true });
    return value;
  };
  for (let i = 0; i < 2000; i++) {
    const value = make(0);
    if (value === undefined) continue;
    expect(canonicalJson(value)).toBe(reference(value));
  }
});
