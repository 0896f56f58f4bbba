// The job schedule is read in UTC whatever the machine's time zone: a daily job named for 00:10
// runs at 00:10 UTC on a machine set to New York or to Kolkata (a half-hour offset) too. The
// crons are the scheduler's own (src/jobs/index.ts), asked for their next run.
import { afterAll, expect, test } from "bun:test";
import type { Cron } from "croner";
import { ManualClock } from "../../src/clock";
import { scheduler } from "../../src/jobs";
import { JobRunner } from "../../src/jobs/runner";
import { Logger } from "../../src/logger";

const zone = process.env.TZ;
afterAll(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

const patterns = { daily: "10 0 * * *", hourly: "23 * * * *", dst: "5 0 * * *" };

test.each(["America/New_York", "Asia/Kolkata", "UTC"])("patterns fire at their UTC times with the machine in %s", (machineZone) => {
  process.env.TZ = machineZone;
  const runner = new JobRunner(
    Object.entries(patterns).map(([name, pattern]) => ({ name, pattern, run: () => {} })),
    new ManualClock(0),
    new Logger({ access: false }, () => {}),
  );
  const crons = (scheduler(runner).store as unknown as { cron: Record<string, Cron> }).cron;
  try {
    const next = (name: keyof typeof patterns, from: string) => crons[name]!.nextRun(new Date(from))?.toISOString();
    expect(next("daily", "2026-11-28T12:00:00.000Z")).toBe("2026-11-29T00:10:00.000Z");
    expect(next("hourly", "2026-11-28T12:30:00.000Z")).toBe("2026-11-28T13:23:00.000Z");
    // The night New York's clocks go forward.
    expect(next("dst", "2026-03-08T06:00:00.000Z")).toBe("2026-03-09T00:05:00.000Z");
  } finally {
    for (const cron of Object.values(crons)) cron.stop();
  }
});
