// Builds the Elysia app from the feature modules. It never listens: `serve` does, and tests call
// `app.handle(request)` directly.
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
// The docs UI's script, embedded in the binary: self-hosters may have no CDN.
import scalarScript from "../node_modules/@scalar/api-reference/dist/browser/standalone.js" with { type: "file" };
import { conventions } from "./http/conventions";
import { scheduler } from "./jobs";
import { adminRoutes, usageRoutes } from "./modules/accounts";
import { badgeRoutes } from "./modules/badge";
import { blacklistRoutes, partnerBlacklistRoutes } from "./modules/blacklist";
import { partnerCreatorRoutes, userRoutes } from "./modules/creators";
import { partnerNetworkRoutes } from "./modules/network";
import { leaderboardRoutes, publicRoutes } from "./modules/public";
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

const SCALAR_PATH = "/docs/assets/scalar.js";

export function buildApp(runtime: Runtime, options: AppOptions = {}) {
  const services = options.services ?? createServices(runtime);
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
    trustlist_limiter_buckets: { help: "Token buckets held in memory.", value: runtime.buckets.size },
    trustlist_process_resident_memory_bytes: { help: "Resident set size.", value: process.memoryUsage().rss },
    trustlist_process_uptime_seconds: { help: "Seconds since start.", value: Math.round((Date.now() - runtime.metrics.startedAt) / 1000) },
  });

  const app = new Elysia({ name: "trustlist" })
    .use(plugin)
    .use(
      openapi({
        path: "/docs",
        specPath: "/openapi.json",
        provider: "scalar",
        // The script comes from the binary and the page uses system fonts: /docs makes no request
        // to another host, so it works where a self-hoster has no internet access.
        // Scalar's hosted extras (telemetry, AI chat, MCP, deploy toolbar) are switched off for the same reason.
        scalar: {
          cdn: SCALAR_PATH,
          withDefaultFonts: false,
          telemetry: false,
          showDeveloperTools: "never",
          showToolbar: "never",
          mcp: { disabled: true },
          agent: { disabled: true },
        } as unknown as NonNullable<Parameters<typeof openapi>[0]>["scalar"],
        exclude: { paths: ["/docs", SCALAR_PATH, "/openapi.json"] },
        documentation: {
          info: {
            title: "trustlist",
            version: "1.0.0",
            description:
              "Creator Trust and Blacklist API. Keyed routes take `Authorization: Bearer <key>`; every error is `{error: {code, message, request_id}}`; every response carries `X-Request-Id` and `X-RateLimit-Remaining`.",
          },
          tags: [
            { name: "Blacklist", description: "Keyed reads of the global blacklist." },
            { name: "Creators", description: "Keyed reads of creator profiles and Trust Scores." },
            { name: "Public", description: "Keyless: search, trust tiers, directory, vouches, counters, leaderboard, badge. Limited per client IP." },
            { name: "Partner", description: "Write-scoped keys: blacklist entries, creators, linked accounts, vouches, deals, reviews, referrals, servers." },
            { name: "Account", description: "The calling key's usage." },
            { name: "Admin", description: "Admin-scoped keys: accounts and keys." },
            { name: "Ops", description: "Health and metrics." },
          ],
          components: {
            securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "An API key, `tl_live_…`." } },
          },
          security: [{ apiKey: [] }],
        },
      }),
    )
    .get(SCALAR_PATH, () => new Response(Bun.file(scalarScript), {
      headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" },
    }), { detail: { hide: true } })
    .use(healthRoutes(runtime))
    .use(metricsRoutes(runtime, gauges))
    .use(blacklistRoutes(runtime, services.blacklist))
    .use(partnerBlacklistRoutes(runtime, services.blacklist))
    .use(userRoutes(runtime, services.creators))
    .use(partnerCreatorRoutes(runtime, services.creators))
    .use(partnerNetworkRoutes(runtime, services.network))
    .use(publicRoutes(runtime, services.public))
    .use(leaderboardRoutes(runtime, services.public))
    .use(badgeRoutes(services.creators))
    .use(widgetRoutes())
    .use(pageRoutes(runtime, services))
    .use(usageRoutes(runtime, services.usage))
    .use(adminRoutes(runtime, services.accounts));

  if (options.jobs) app.use(scheduler(runtime, services));
  routeTable.routes = app.routes.map((r) => ({ method: r.method, path: r.path }));
  return app;
}

export type App = ReturnType<typeof buildApp>;
