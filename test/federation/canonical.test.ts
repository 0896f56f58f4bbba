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
