// Builds the Elysia app from the feature modules. It never listens: `serve` does, and tests call
// `app.handle(request)` directly.
import { Elysia } from "elysia";
import { conventions } from "./http/conventions";
import { apiDocs } from "./http/openapi";
import { jobRunner, scheduler } from "./jobs";
import type { Exclusive, Job } from "./jobs/runner";
import { adminRoutes, usageRoutes } from "./modules/accounts";
import { meAppealRoutes, moderationAppealRoutes, partnerAppealRoutes } from "./modules/appeals";
import { badgeRoutes } from "./modules/badge";
import { BADGE_ROUTE, badgeFastPath } from "./modules/badge/fast-path";
import { consoleRoutes } from "./modules/console";
import { courseRoutes } from "./modules/courses";
import { federationRoutes } from "./modules/federation";
import { blacklistRoutes, partnerBlacklistRoutes } from "./modules/blacklist";
import { CHECK_ROUTE, checkFastPath } from "./modules/blacklist/check-fast-path";
import { partnerCreatorRoutes, userRoutes } from "./modules/creators";
import { partnerNetworkRoutes } from "./modules/network";
import { moderationControllers } from "./modules/moderation";
import { leaderboardRoutes, publicRoutes } from "./modules/public";
import { jobRoutes } from "./modules/jobs";
import { healthRoutes, metricsRoutes } from "./modules/ops";
import { pageRoutes } from "./modules/pages";
import { authRoutes, meRoutes, partnerLoginLinkRoutes } from "./modules/sessions";
import { staffRoutes } from "./modules/staff";
import { auditRoutes } from "./modules/audit";
import { tripwireRoutes } from "./modules/tripwires";
import { webhookRoutes } from "./modules/webhooks";
import { widgetRoutes } from "./modules/widgets";
import type { Runtime } from "./runtime";
import { createServices, type Services } from "./services";

export interface AppOptions {
  /** Schedule the cron jobs, or those it picks (serve does; tests drive jobs by hand). */
  jobs?: boolean | ((job: Job) => boolean);
  /** How fleet jobs keep to one runner at a time (default: the database's). */
  exclusive?: Exclusive;
  services?: Services;
}

export function buildApp(runtime: Runtime, options: AppOptions = {}) {
  const services = options.services ?? createServices(runtime);
  // Requests run on one thread: another process's lock must never put it to sleep (db/write.ts).
  if (runtime.store.dialect === "sqlite") runtime.store.neverBlockOnLocks();
  const jobs = jobRunner(runtime, services, options.exclusive);
  const { plugin, routeTable } = conventions(runtime);
  const gauges = async () => ({
    trustlist_blacklist_active_entries: {
      // The public counters' figure, counted in slices and refreshed every 5 minutes: counting a
      // million entries at each scrape would hold the request thread for 15 ms or more.
      help: "Active confirmed blacklist entries (refreshed every 5 minutes).",
      value: (await services.public.publicStats()).entries_listed,
    },
    trustlist_outbox_pending_events: { help: "Outbox events not yet dispatched.", value: await services.outbox.pendingCount() },
    trustlist_webhook_pending_deliveries: { help: "Webhook deliveries not yet delivered or given up.", value: await services.webhooks.pendingDeliveries() },
    trustlist_webhook_queue_age_seconds: {
      help: "How long the oldest due webhook delivery (or undispatched event) has waited.",
      value: await services.webhooks.queueAgeSeconds(),
    },
    trustlist_metering_pending_rows: { help: "Usage counters waiting for the next flush.", value: runtime.meter.pendingCount },
    trustlist_metering_deferred_flushes: {
      help: "Metering flushes put off to the next second because another process held the write lock.",
      value: runtime.meter.deferredFlushes,
    },
    trustlist_limiter_buckets: { help: "Token buckets held in memory.", value: runtime.buckets.size + runtime.ipBuckets.size },
    trustlist_badge_cache_entries: { help: "Rendered badges kept for reuse.", value: services.badges.cacheSize },
    trustlist_federation_refused_items: {
      help: "Items of followed sources refused by verification since start (each stops its source's sync there).",
      value: services.federation.refusedItems,
    },
    trustlist_federation_failing_sources: { help: "Followed sources whose last sync stopped on an error.", value: await services.federation.failingSources() },
    trustlist_process_resident_memory_bytes: { help: "Resident set size.", value: process.memoryUsage().rss },
    trustlist_process_uptime_seconds: { help: "Seconds since start.", value: Math.round((Date.now() - runtime.metrics.startedAt) / 1000) },
  });

  // The keyed check, the route bots call most, and the badge, which pages embed, are served by
  // Bun's router without the framework's per-request work; what they do not answer goes to the app.
  // The check only where the database answers at once (SQLite).
  let answerInApp: (request: Request) => Response | Promise<Response>;
  const inApp = (request: Request) => answerInApp(request);
  const nativeRoutes = {
    [BADGE_ROUTE]: { GET: badgeFastPath(runtime, services.badges, inApp) },
    ...(runtime.keys.answersAtOnce ? { [CHECK_ROUTE]: { GET: checkFastPath(runtime, services.blacklist, inApp) } } : {}),
  };
  const app = new Elysia({ name: "trustlist", serve: { routes: nativeRoutes } })
    .use(plugin)
    .use(apiDocs(runtime))
    .use(healthRoutes(runtime))
    .use(metricsRoutes(runtime, gauges))
    .use(blacklistRoutes(runtime, services.blacklist))
    .use(partnerBlacklistRoutes(runtime, services.blacklist))
    .use(userRoutes(runtime, services.creators))
    .use(partnerCreatorRoutes(runtime, services.creators))
    .use(partnerNetworkRoutes(runtime, services.network))
    .use(partnerLoginLinkRoutes(runtime, services.sessions))
    .use(authRoutes(runtime, services.sessions))
    .use(meRoutes(runtime, services.sessions))
    .use(tripwireRoutes(runtime, services.tripwires, services.sessions))
    .use(publicRoutes(runtime, services.public, services.sessions))
    .use(leaderboardRoutes(runtime, services.public))
    .use(courseRoutes(runtime, services.courses, services.sessions))
    .use(badgeRoutes(services.badges))
    .use(widgetRoutes())
    .use(pageRoutes(runtime, services))
    .use(consoleRoutes(runtime, services))
    .use(webhookRoutes(runtime, services.webhooks))
    .use(usageRoutes(runtime, services.usage))
    .use(adminRoutes(runtime, services.accounts))
    .use(staffRoutes(runtime, services.sessions, services.staff))
    .use(partnerAppealRoutes(runtime, services.appeals))
    .use(meAppealRoutes(runtime, services.sessions, services.appeals))
    .use(moderationAppealRoutes(runtime, services.sessions, services.staff, services.appeals))
    .use(moderationControllers(runtime, services.sessions, services.staff, services.moderation))
    .use(auditRoutes(runtime, services.sessions, services.staff, services.audit))
    .use(federationRoutes(runtime, services.sessions, services.staff, services.federation))
    .use(jobRoutes(runtime, jobs));

  if (options.jobs) app.use(scheduler(jobs, options.jobs === true ? undefined : options.jobs));
  answerInApp = (request) => app.fetch(request);
  routeTable.routes = app.routes.map((r) => ({ method: r.method, path: r.path, parse: r.hooks?.parse as { fn: unknown }[] | undefined }));
  return app;
}

export type App = ReturnType<typeof buildApp>;
