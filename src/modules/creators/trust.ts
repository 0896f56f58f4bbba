// The Trust Score (its terms: docs/api.md, "Trust Score"): a pure function from a creator's basis
// to score and band, so it can be table-tested and recomputed anywhere an input changes.
// Penalties feed the score but are never part of any response.

export const TRUST_BANDS = ["banned", "terrible", "bad", "average", "good", "great", "excellent"] as const;
export type TrustBand = (typeof TRUST_BANDS)[number];

export const VERIFICATION_LABELS = ["Unverified", "Basic", "Standard", "Enhanced", "Expert"] as const;
const VERIFICATION_POINTS = [0, 8, 16, 24, 30] as const;

export const TRUST_MIN = 0;
export const TRUST_MAX = 250;
export const TRUST_START = 100;
export const TREND_WINDOW_DAYS = 30;
/** Trust points per passed course and their ceiling (the course buff). */
export const COURSE_POINTS = { perCourse: 5, maxPoints: 15 } as const;

/** Everything the score depends on. */
export interface TrustInputs {
  verificationLevel: number;
  accountAgeDays: number;
  /** Connections that are public and carry `verified_at`. */
  verifiedPublicConnections: number;
  completedDeals: number;
  reviewCount: number;
  /** Mean rating 1-5; null without reviews. */
  reviewAverage: number | null;
  vouchesReceived: number;
  coursesPassed: number;
  /** Active, non-watchlist hits naming the creator or one of its connections. */
  activeWarns: number;
  activeRestricts: number;
  /** Any active hit (of any kind) carries `high_risk` or `watchlist`. */
  flagged: boolean;
  /** An active, non-watchlist `ban` names the creator or one of its connections. */
  blacklisted: boolean;
}

export interface TrustResult {
  score: number;
  band: TrustBand;
}

/** Rounds half away from zero, so a review term of -x.5 mirrors +x.5. */
function roundHalfAway(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value));
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

export function verificationLabel(level: number): string {
  return VERIFICATION_LABELS[clamp(Math.trunc(level), 0, 4)]!;
}

export function computeTrust(input: TrustInputs): TrustResult {
  if (input.blacklisted) return { score: 0, band: "banned" };
  const v = VERIFICATION_POINTS[clamp(Math.trunc(input.verificationLevel), 0, 4)]!;
  const a = Math.min(Math.floor(Math.max(0, input.accountAgeDays) / 30), 12);
  const l = 5 * Math.min(input.verifiedPublicConnections, 5);
  const d = 3 * Math.min(input.completedDeals, 10);
  const r =
    input.reviewCount > 0 && input.reviewAverage !== null
      ? roundHalfAway(((20 * (input.reviewAverage - 3)) / 2) * (Math.min(input.reviewCount, 10) / 10))
      : 0;
  const w = 2 * Math.min(input.vouchesReceived, 10);
  const c = Math.min(COURSE_POINTS.perCourse * input.coursesPassed, COURSE_POINTS.maxPoints);
  const p = 25 * input.activeWarns + 75 * input.activeRestricts + (input.flagged ? 25 : 0);
  const score = clamp(TRUST_START + v + a + l + d + r + w + c - p, TRUST_MIN, TRUST_MAX);
  return { score, band: bandOf(score, false) };
}

export function bandOf(score: number, blacklisted: boolean): TrustBand {
  if (blacklisted) return "banned";
  if (score < 50) return "terrible";
  if (score < 100) return "bad";
  if (score < 150) return "average";
  if (score < 200) return "good";
  if (score < 225) return "great";
  return "excellent";
}

/** PublicTrust `tier`: the capitalised band. */
export function tierLabel(band: TrustBand): string {
  return band[0]!.toUpperCase() + band.slice(1);
}

/** PublicTrust `tier_color` and the badge's message colour: one fixed colour per band. */
export const TIER_COLORS: Record<TrustBand, string> = {
  banned: "#e05d44",
  terrible: "#d9534f",
  bad: "#fe7d37",
  average: "#dfb317",
  good: "#97ca00",
  great: "#44cc11",
  excellent: "#007ec6",
};

export interface TrustTrend {
  direction: "up" | "down" | "flat";
  delta: number;
  from: number | null;
  window_days: number;
}

/**
 * The 30-day trend: `from` is the score of the latest snapshot dated on or before the window's
 * start, else of the oldest snapshot, else null (then delta 0).
 */
export function trustTrend(score: number, from: number | null): TrustTrend {
  const delta = from === null ? 0 : score - from;
  return { direction: delta > 0 ? "up" : delta < 0 ? "down" : "flat", delta, from, window_days: TREND_WINDOW_DAYS };
}
