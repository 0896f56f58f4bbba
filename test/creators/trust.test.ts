// The pure Trust Score engine against docs/api.md, "Trust Score": each term at zero and around its cap, the
// review term's rounding, penalties, clamping, the blacklist override, band edges, tier labels and
// colours, verification labels and the 30-day trend. Expected values come from the spec.
import { describe, expect, test } from "bun:test";
import {
  bandOf,
  computeTrust,
  tierLabel,
  TIER_COLORS,
  trustTrend,
  verificationLabel,
  type TrustBand,
  type TrustInputs,
} from "../../src/modules/creators/trust";

/** All terms zero, not flagged, not blacklisted: scores exactly the starting 100. */
function baseline(overrides: Partial<TrustInputs> = {}): TrustInputs {
  return {
    verificationLevel: 0,
    accountAgeDays: 0,
    verifiedPublicConnections: 0,
    completedDeals: 0,
    reviewCount: 0,
    reviewAverage: null,
    vouchesReceived: 0,
    coursesPassed: 0,
    activeWarns: 0,
    activeRestricts: 0,
    flagged: false,
    blacklisted: false,
    ...overrides,
  };
}

/** Every positive term at or beyond its cap: 100+30+12+25+30+20+20+15 = 252 before clamping. */
const MAXED: Partial<TrustInputs> = {
  verificationLevel: 4,
  accountAgeDays: 10000,
  verifiedPublicConnections: 5,
  completedDeals: 10,
  reviewCount: 10,
  reviewAverage: 5,
  vouchesReceived: 10,
  coursesPassed: 3,
};

const BANDS: TrustBand[] = ["banned", "terrible", "bad", "average", "good", "great", "excellent"];

test("the baseline scores 100, band average", () => {
  expect(computeTrust(baseline())).toEqual({ score: 100, band: "average" });
});

describe("each term, one field varied from the baseline", () => {
  const rows: [string, Partial<TrustInputs>, number][] = [
    ["verification 0", { verificationLevel: 0 }, 100],
    ["verification 1", { verificationLevel: 1 }, 108],
    ["verification 2", { verificationLevel: 2 }, 116],
    ["verification 3", { verificationLevel: 3 }, 124],
    ["verification 4", { verificationLevel: 4 }, 130],
    ["age 0 days", { accountAgeDays: 0 }, 100],
    ["age 29 days", { accountAgeDays: 29 }, 100],
    ["age 30 days", { accountAgeDays: 30 }, 101],
    ["age 59 days", { accountAgeDays: 59 }, 101],
    ["age 360 days", { accountAgeDays: 360 }, 112],
    ["age 389 days", { accountAgeDays: 389 }, 112],
    ["age 390 days", { accountAgeDays: 390 }, 112],
    ["age 10000 days", { accountAgeDays: 10000 }, 112],
    ["connections 0", { verifiedPublicConnections: 0 }, 100],
    ["connections 4", { verifiedPublicConnections: 4 }, 120],
    ["connections 5", { verifiedPublicConnections: 5 }, 125],
    ["connections 6", { verifiedPublicConnections: 6 }, 125],
    ["deals 0", { completedDeals: 0 }, 100],
    ["deals 9", { completedDeals: 9 }, 127],
    ["deals 10", { completedDeals: 10 }, 130],
    ["deals 11", { completedDeals: 11 }, 130],
    ["vouches 0", { vouchesReceived: 0 }, 100],
    ["vouches 9", { vouchesReceived: 9 }, 118],
    ["vouches 10", { vouchesReceived: 10 }, 120],
    ["vouches 11", { vouchesReceived: 11 }, 120],
    ["courses 0", { coursesPassed: 0 }, 100],
    ["courses 2", { coursesPassed: 2 }, 110],
    ["courses 3", { coursesPassed: 3 }, 115],
    ["courses 4", { coursesPassed: 4 }, 115],
  ];
  test.each(rows)("%s", (_name, overrides, score) => {
    expect(computeTrust(baseline(overrides)).score).toBe(score);
  });
});

describe("review term", () => {
  const rows: [number, number | null, number][] = [
    [0, null, 0],
    [0, 5, 0],
    [1, 1, -2],
    [1, 2, -1],
    [1, 2.5, -1],
    [1, 3, 0],
    [1, 4, 1],
    [1, 4.5, 2],
    [1, 5, 2],
    [5, 1, -10],
    [5, 2, -5],
    [5, 2.5, -3],
    [5, 3, 0],
    [5, 4, 5],
    [5, 4.5, 8],
    [5, 5, 10],
    [10, 1, -20],
    [10, 2, -10],
    [10, 2.5, -5],
    [10, 2.75, -3],
    [10, 3, 0],
    [10, 3.25, 3],
    [10, 4, 10],
    [10, 4.5, 15],
    [10, 5, 20],
    [11, 1, -20],
    [11, 2, -10],
    [11, 2.5, -5],
    [11, 3, 0],
    [11, 4, 10],
    [11, 4.5, 15],
    [11, 5, 20],
  ];
  test.each(rows)("count %p, average %p gives %p", (reviewCount, reviewAverage, term) => {
    expect(computeTrust(baseline({ reviewCount, reviewAverage })).score).toBe(100 + term);
  });
});

describe("penalties", () => {
  const rows: [string, Partial<TrustInputs>, number][] = [
    ["one warn", { activeWarns: 1 }, 75],
    ["two warns", { activeWarns: 2 }, 50],
    ["one restrict", { activeRestricts: 1 }, 25],
    ["flagged alone", { flagged: true }, 75],
    ["warn and restrict", { activeWarns: 1, activeRestricts: 1 }, 0],
    ["two warns and the flag, counted once", { activeWarns: 2, flagged: true }, 25],
    ["warn, restrict and flag on a basis", { verificationLevel: 4, completedDeals: 10, activeWarns: 1, activeRestricts: 1, flagged: true }, 35],
    ["many restricts clamp at 0", { activeRestricts: 10 }, 0],
    ["many warns and flag clamp at 0", { activeWarns: 40, flagged: true }, 0],
  ];
  test.each(rows)("%s", (_name, overrides, score) => {
    expect(computeTrust(baseline(overrides)).score).toBe(score);
  });
});

describe("clamping and the blacklist", () => {
  test("all terms maxed clamps 252 to 250", () => {
    expect(computeTrust(baseline(MAXED))).toEqual({ score: 250, band: "excellent" });
  });

  test("penalties apply before the clamp: maxed minus one warn is 227", () => {
    expect(computeTrust(baseline({ ...MAXED, activeWarns: 1 }))).toEqual({ score: 227, band: "excellent" });
  });

  const blacklisted: [string, Partial<TrustInputs>][] = [
    ["baseline", {}],
    ["maxed basis", MAXED],
    ["penalised basis", { activeRestricts: 3, flagged: true }],
  ];
  test.each(blacklisted)("blacklisted %s scores 0, band banned", (_name, overrides) => {
    expect(computeTrust(baseline({ ...overrides, blacklisted: true }))).toEqual({ score: 0, band: "banned" });
  });
});

describe("band edges", () => {
  const edges: [number, TrustBand][] = [
    [0, "terrible"],
    [49, "terrible"],
    [50, "bad"],
    [99, "bad"],
    [100, "average"],
    [149, "average"],
    [150, "good"],
    [199, "good"],
    [200, "great"],
    [224, "great"],
    [225, "excellent"],
    [250, "excellent"],
  ];
  test.each(edges)("bandOf(%p) is %p", (score, band) => {
    expect(bandOf(score, false)).toBe(band);
  });

  test.each(edges)("bandOf(%p, blacklisted) is banned", (score) => {
    expect(bandOf(score, true)).toBe("banned");
  });

  const reached: [number, TrustBand, Partial<TrustInputs>][] = [
    [0, "terrible", { activeWarns: 4 }],
    [49, "terrible", { verificationLevel: 3, activeRestricts: 1 }],
    [50, "bad", { activeWarns: 2 }],
    [99, "bad", { reviewCount: 1, reviewAverage: 2 }],
    [100, "average", {}],
    [149, "average", { verificationLevel: 3, verifiedPublicConnections: 5 }],
    [150, "good", { completedDeals: 10, vouchesReceived: 10 }],
    [199, "good", { verificationLevel: 4, accountAgeDays: 360, verifiedPublicConnections: 5, completedDeals: 10, vouchesReceived: 1 }],
    [200, "great", { verificationLevel: 4, verifiedPublicConnections: 5, completedDeals: 10, coursesPassed: 3 }],
    [224, "great", { verificationLevel: 4, accountAgeDays: 360, verifiedPublicConnections: 5, completedDeals: 10, coursesPassed: 3, vouchesReceived: 6 }],
    [225, "excellent", { verificationLevel: 4, accountAgeDays: 360, verifiedPublicConnections: 5, completedDeals: 10, vouchesReceived: 9, coursesPassed: 2 }],
    [250, "excellent", MAXED],
  ];
  test.each(reached)("computeTrust reaches %p, band %p", (score, band, overrides) => {
    expect(computeTrust(baseline(overrides))).toEqual({ score, band });
  });
});

describe("tiers and colours", () => {
  const tiers: [TrustBand, string][] = [
    ["banned", "Banned"],
    ["terrible", "Terrible"],
    ["bad", "Bad"],
    ["average", "Average"],
    ["good", "Good"],
    ["great", "Great"],
    ["excellent", "Excellent"],
  ];
  test.each(tiers)("tier of %p is %p", (band, tier) => {
    expect(tierLabel(band)).toBe(tier);
  });

  test("each of the 7 bands has a distinct #rrggbb colour", () => {
    expect(Object.keys(TIER_COLORS).sort()).toEqual([...BANDS].sort());
    for (const band of BANDS) expect(TIER_COLORS[band]).toMatch(/^#[0-9a-fA-F]{6}$/);
    expect(new Set(BANDS.map((band) => TIER_COLORS[band].toLowerCase())).size).toBe(7);
  });
});

describe("verification labels", () => {
  const labels: [number, string][] = [
    [0, "Unverified"],
    [1, "Basic"],
    [2, "Standard"],
    [3, "Enhanced"],
    [4, "Expert"],
  ];
  test.each(labels)("level %p is %p", (level, label) => {
    expect(verificationLabel(level)).toBe(label);
  });
});

describe("trend", () => {
  const rows: [number, number | null, { direction: "up" | "down" | "flat"; delta: number }][] = [
    [100, null, { direction: "flat", delta: 0 }],
    [250, null, { direction: "flat", delta: 0 }],
    [120, 100, { direction: "up", delta: 20 }],
    [90, 100, { direction: "down", delta: -10 }],
    [100, 100, { direction: "flat", delta: 0 }],
    [0, 250, { direction: "down", delta: -250 }],
  ];
  test.each(rows)("score %p from %p", (score, from, expected) => {
    expect(trustTrend(score, from)).toEqual({ ...expected, from, window_days: 30 });
  });
});
