// Periodic work, scheduled with @elysiajs/cron on the serving app: the metering flush, entry
// expiry, pruning of usage history and of idle limiter state. Every job that walks stored rows
// works in slices bounded by a row count and yields to requests between them: no request waits
// more than 100 ms behind a job, whatever the data size. Jobs on shared data are `scope: "fleet"`:
// one instance runs them per tick (runner.ts).
import { cron, Patterns } from "@elysiajs/cron";
import { Elysia } from "elysia";
import type { Runtime } from "../runtime";
import type { Services } from "../services";
import { type Exclusive, type Job, JobRunner } from "./runner";

export type { Job, JobRun } from "./runner";
export { JobRunner } from "./runner";

export function jobs(runtime: Runtime, services: Services): Job[] {
  return [
    // Write-behind metering; while another process holds the lock, the counts wait for the next tick.
    // On PostgreSQL other instances count the same accounts: the quota then catches up with theirs.
    // A SQLite commit makes every other connection to the file drop its page cache and its map of
    // the file, so each worker of `serve --workers N` writes its counts every 10 s, not every
    // second (the daily quota is counted in shared memory meanwhile), each at its own second so
    // that no two meet on the write lock: docs/scaling.md.
    {
      name: "flush-metering",
      pattern: runtime.workers && runtime.store.dialect === "sqlite" ? `${(runtime.workers.number - 1) % 10}/10 * * * * *` : Patterns.EVERY_SECOND,
      run: async () => {
        const flushed = await runtime.meter.flush();
        if (runtime.store.dialect === "postgres") await runtime.quota.catchUpWithFleet();
        return flushed;
      },
    },
    // Requests notice another process's commits themselves; this lets caches (the subject filter
    // after an import) catch up while no request comes.
    { name: "notice-external-writes", pattern: Patterns.EVERY_SECOND, run: () => void runtime.store.changes.check() },
    { name: "expire-entries", pattern: Patterns.EVERY_MINUTE, run: () => services.blacklist.expireDue(), scope: "fleet" },
    // Followed sources whose interval has passed (each at least 5 s), a page per transaction.
    { name: "sync-sources", pattern: Patterns.EVERY_5_SECONDS, run: () => services.federation.syncDue(), scope: "fleet" },
    {
      name: "prune-limiters",
      pattern: Patterns.EVERY_5_MINUTES,
      run: () => {
        runtime.buckets.prune();
        runtime.ipBuckets.prune();
        runtime.quota.prune();
      },
    },
    { name: "prune-idempotency-keys", pattern: "23 * * * *", run: () => runtime.idempotency.prune(), scope: "fleet" },
    // Expired sessions and sign-in links are refused anyway; this keeps their tables small.
    { name: "prune-sessions", pattern: "41 * * * *", run: () => services.sessions.pruneExpired(), scope: "fleet" },
    { name: "prune-usage", pattern: "10 0 * * *", run: () => services.usage.prune(), scope: "fleet" },
    // Webhook deliveries finished and outbox events dispatched more than 30 days ago.
    { name: "prune-webhooks", pattern: "20 0 * * *", run: () => services.webhooks.prune(), scope: "fleet" },
    // Account age moves scores without any write; this also records every creator's daily snapshot.
    { name: "trust-snapshots", pattern: "5 0 * * *", run: () => services.creators.refreshAll(), scope: "fleet" },
    { name: "public-stats", pattern: Patterns.EVERY_5_MINUTES, run: async () => void (await services.public.refreshStats()) },
    // Which trigrams are rare only steers where suggestions look; hourly is fresh enough.
    { name: "suggestion-index-stats", pattern: "17 * * * *", run: () => services.public.refreshGramCountsInSlices() },
  ];
}

/**
 * The jobs of one app: what the scheduler and `POST /v1/admin/jobs/{name}` both run. `exclusive`
 * keeps a fleet job to one runner at a time (default: the database's, across instances).
 */
export function jobRunner(runtime: Runtime, services: Services, exclusive?: Exclusive): JobRunner {
  const { store } = runtime;
  return new JobRunner(jobs(runtime, services), runtime.clock, runtime.log, exclusive ?? ((name, fn) => store.exclusive(name, fn)));
}

/**
 * How every pattern is read: in UTC, whatever the machine's time zone. An offset of 0 says so
 * without a zone: with `timezone: "UTC"` croner reformats dates through Intl for each next run,
 * 234 µs against 1.1 µs (bench machine), on the request thread at every tick of the per-second
 * jobs. `protect`: a tick is skipped while the job's previous run goes on.
 */
export const SCHEDULE = { utcOffset: 0, protect: true } as const;

/** The jobs (those `only` picks) as cron plugins; a tick while the job's last run is still going is skipped. */
export function scheduler(runner: JobRunner, only: (job: Job) => boolean = () => true) {
  let app = new Elysia({ name: "jobs" });
  for (const job of runner.jobs.filter(only)) {
    app = app.use(
      cron({
        name: job.name,
        pattern: job.pattern,
        ...SCHEDULE,
        run: () => runner.tick(job.name),
      }),
    ) as unknown as typeof app;
  }
  return app;
}
