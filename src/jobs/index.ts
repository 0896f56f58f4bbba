// Periodic work, scheduled with @elysiajs/cron on the serving app: the metering flush, entry
// expiry, pruning of usage history and of idle limiter state.
import { cron, Patterns } from "@elysiajs/cron";
import { Elysia } from "elysia";
import type { Runtime } from "../runtime";
import type { Services } from "../services";

export interface Job {
  name: string;
  pattern: string;
  run(): unknown;
}

export function jobs(runtime: Runtime, services: Services): Job[] {
  return [
    // Write-behind metering; while another process holds the lock, the counts wait for the next tick.
    { name: "flush-metering", pattern: Patterns.EVERY_SECOND, run: () => runtime.meter.flush() },
    // Requests notice another process's commits themselves; this lets caches (the subject filter
    // after an import) catch up while no request comes.
    { name: "notice-external-writes", pattern: Patterns.EVERY_SECOND, run: () => runtime.store.changes.check() },
    { name: "expire-entries", pattern: Patterns.EVERY_MINUTE, run: () => services.blacklist.expireDue() },
    {
      name: "prune-limiters",
      pattern: Patterns.EVERY_5_MINUTES,
      run: () => {
        runtime.buckets.prune();
        runtime.ipBuckets.prune();
        runtime.quota.prune();
      },
    },
    { name: "prune-idempotency-keys", pattern: "23 * * * *", run: () => runtime.idempotency.prune() },
    { name: "prune-usage", pattern: "10 0 * * *", run: () => services.usage.prune() },
    // Account age moves scores without any write; this also records every creator's daily snapshot.
    { name: "trust-snapshots", pattern: "5 0 * * *", run: () => services.creators.refreshAll() },
    { name: "public-stats", pattern: Patterns.EVERY_5_MINUTES, run: () => services.public.refreshStats() },
    // Which trigrams are rare only steers where suggestions look; hourly is fresh enough.
    { name: "suggestion-index-stats", pattern: "17 * * * *", run: () => services.public.refreshGramCountsInSlices() },
  ];
}

/** The jobs as cron plugins; errors are logged, never thrown into the scheduler. */
export function scheduler(runtime: Runtime, services: Services) {
  let app = new Elysia({ name: "jobs" });
  for (const job of jobs(runtime, services)) {
    app = app.use(
      cron({
        name: job.name,
        pattern: job.pattern,
        timezone: "UTC",
        protect: true,
        async run() {
          try {
            await job.run();
          } catch (error) {
            runtime.log.error("job failed", { job: job.name, error: String(error) });
          }
        },
      }),
    ) as unknown as typeof app;
  }
  return app;
}
