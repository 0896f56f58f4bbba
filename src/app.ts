// Builds the Elysia app from the feature modules. It never listens: `serve` does, and tests call
// `app.handle(request)` directly.
import { Elysia } from "elysia";
import { conventions } from "./http/conventions";
import { apiDocs } from "./http/openapi";
import { jobRunner, scheduler } from "./jobs";
import { adminRoutes, usageRoutes } from "./modules/accounts";
import { badgeRoutes } from "./modules/badge";
import { blacklistRoutes, partnerBlacklistRoutes } from "./modules/blacklist";
import { partnerCreatorRoutes, userRoutes } from "./modules/creators";
import { partnerNetworkRoutes } from "./modules/network";
import { leaderboardRoutes, publicRoutes } from "./modules/public";
import { jobRoutes } from "./modules/jobs";
import { healthRoutes, metricsRoutes } from "./modules/ops";
import { pageRoutes } from "./modules/pages";
import { widgetRoutes } from "./modules/widgets";
import type { Runtime } from "./runtime";
import { createServices, type Services } from "./services";

export interface AppOptions {
  /** Schedule the cron jobs (serve does; tests drive jobs by hand). */
  jobs?: boolean;
  services?: Services;
}

export function buildApp(runtime: Runtime, options: AppOptions = {}) {
  const services = options.services ?? createServices(runtime);
  // Requests run on one thread: another process's lock must never put it to sleep (db/write.ts).
  runtime.store.neverBlockOnLocks();
  const jobs = jobRunner(runtime, services);
  const { plugin, routeTable } = conventions(runtime);
  // Counting a million active entries takes 15 ms or more on the request thread: once a minute at
  // most, not on every scrape.
  const activeEntries = runtime.store.sqlite.prepare<{ n: number }, []>(
    "SELECT count(*) AS n FROM blacklist_entries WHERE status = 'active' AND watchlist = 0",
  );
  let activeCount = { value: 0, at: -Infinity };
  const gauges = () => ({
    trustlist_blacklist_active_entries: {
      help: "Active confirmed blacklist entries (refreshed at most once a minute).",
      value: (() => {
        if (Date.now() - activeCount.at > 60_000) activeCount = { value: activeEntries.get()!.n, at: Date.now() };
        return activeCount.value;
      })(),
    },
    trustlist_outbox_pending_events: {
      help: "Outbox events not yet dispatched.",
      value: (runtime.store.sqlite.query("SELECT count(*) AS n FROM outbox_events WHERE dispatched_at IS NULL").get() as { n: number }).n,
    },
    trustlist_metering_pending_rows: { help: "Usage counters waiting for the next flush.", value: runtime.meter.pendingCount },
    trustlist_metering_deferred_flushes: {
      help: "Metering flushes put off to the next second because another process held the write lock.",
      value: runtime.meter.deferredFlushes,
    },
    trustlist_limiter_buckets: { help: "Token buckets held in memory.", value: runtime.buckets.size + runtime.ipBuckets.size },
    trustlist_badge_cache_entries: { help: "Rendered badges kept for reuse.", value: services.badges.cacheSize },
    trustlist_process_resident_memory_bytes: { help: "Resident set size.", value: process.memoryUsage().rss },
    trustlist_process_uptime_seconds: { help: "Seconds since start.", value: Math.round((Date.now() - runtime.metrics.startedAt) / 1000) },
  });

  const app = new Elysia({ name: "trustlist" })
    .use(plugin)
    .use(apiDocs(runtime))
    .use(healthRoutes(runtime))
    .use(metricsRoutes(runtime, gauges))
    .use(blacklistRoutes(runtime, services.blacklist))
    .use(partnerBlacklistRoutes(runtime, services.blacklist))
    .use(userRoutes(runtime, services.creators))
    .use(partnerCreatorRoutes(runtime, services.creators))
    .use(partnerNetworkRoutes(runtime, services.network))
    .use(publicRoutes(runtime, services.public))
    .use(leaderboardRoutes(runtime, services.public))
    .use(badgeRoutes(services.badges))
    .use(widgetRoutes())
    .use(pageRoutes(runtime, services))
    .use(usageRoutes(runtime, services.usage))
    .use(adminRoutes(runtime, services.accounts))
    .use(jobRoutes(runtime, jobs));

  if (options.jobs) app.use(scheduler(jobs));
  routeTable.routes = app.routes.map((r) => ({ method: r.method, path: r.path }));
  return app;
}

export type App = ReturnType<typeof buildApp>;
