// Time comes from one injectable clock so tests can cross midnight UTC without waiting for it.
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told: for tests. */
export class ManualClock implements Clock {
  constructor(private ms: number = Date.parse("2026-11-21T10:00:00.000Z")) {}
  now() {
    return this.ms;
  }
  set(iso: string | number) {
    this.ms = typeof iso === "number" ? iso : Date.parse(iso);
  }
  advance(ms: number) {
    this.ms += ms;
  }
}

const DAY_MS = 86_400_000;

let cachedDayNumber = -1;
let cachedDay = "";

/** `YYYY-MM-DD` of the UTC day holding `ms`. Called on every metered request, so it caches. */
export function utcDay(ms: number): string {
  const dayNumber = Math.floor(ms / DAY_MS);
  if (dayNumber !== cachedDayNumber) {
    cachedDay = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
    cachedDayNumber = dayNumber;
  }
  return cachedDay;
}

/** Epoch milliseconds of the next midnight UTC after `ms`. */
export function nextUtcMidnight(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS;
}

let lastIsoMs = Number.NaN;
let lastIsoText = "";

/** ISO 8601 UTC with milliseconds; null stays null. */
export function iso(ms: number): string;
export function iso(ms: number | null | undefined): string | null;
export function iso(ms: number | null | undefined): string | null {
  if (ms == null) return null;
  // Every check answer carries `checked_at`; under load many share one millisecond.
  if (ms !== lastIsoMs) {
    lastIsoText = new Date(ms).toISOString();
    lastIsoMs = ms;
  }
  return lastIsoText;
}
