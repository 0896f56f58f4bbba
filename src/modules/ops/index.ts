// Operations: health for load balancers and Prometheus metrics for the operator.
import { Elysia, t } from "elysia";
import { requireKey } from "../../http/guards";
import { errors, KEYED_ERRORS, JsonInteger } from "../../http/model";
import { type Gauges, mergeSamples, renderSample } from "../../metrics";
import type { Runtime } from "../../runtime";

const Health = t.Object(
  {
    ok: t.Boolean({ description: "Whether the database answered." }),
    workers: t.Optional(JsonInteger({ description: "With `serve --workers N`: how many workers are up and serving.", examples: [4] })),
  },
  { $id: "Health", description: "Whether the service and its database answer." },
);

/** Gauges each worker holds for itself: a scrape adds them up; the others describe the shared database. */
const PER_WORKER_GAUGES = new Set([
  "trustlist_metering_pending_rows",
  "trustlist_metering_deferred_flushes",
  "trustlist_limiter_buckets",
  "trustlist_badge_cache_entries",
  "trustlist_process_resident_memory_bytes",
]);

export function healthRoutes(runtime: Runtime) {
  return new Elysia({ tags: ["Ops"] }).get(
    "/healthz",
    async ({ set }) => {
      try {
        await runtime.store.ping();
        return runtime.workers ? { ok: true, workers: runtime.workers.up() } : { ok: true };
      } catch {
        set.status = 503;
        return { ok: false };
      }
    },
    {
      response: { 200: Health, 503: Health },
      detail: { operationId: "getHealth", security: [], summary: "Health", description: "200 when the database answers, else 503." },
    },
  );
}

export function metricsRoutes(runtime: Runtime, gauges: () => Promise<Gauges>) {
  const { workers } = runtime;
  const sample = async () => runtime.metrics.sample(await gauges());
  workers?.answerWith(sample);
  return new Elysia({ tags: ["Ops"] })
    .use(requireKey(runtime, "admin"))
    .get(
      "/metrics",
      async ({ set }) => {
        set.headers["content-type"] = "text/plain; version=0.0.4; charset=utf-8";
        if (!workers) return runtime.metrics.render(await gauges());
        // A scrape lands on one worker: it answers the totals of all of them.
        const merged = mergeSamples(await workers.samples(await sample()), PER_WORKER_GAUGES);
        merged.gauges.trustlist_workers_up = { help: "Workers up and serving (serve --workers N).", value: workers.up() };
        return renderSample(merged);
      },
      {
        response: { 200: t.String({ description: "Prometheus text exposition." }), ...errors(...KEYED_ERRORS, 403) },
        detail: { operationId: "getMetrics", summary: "Prometheus metrics", description: "Admin-scoped key." },
      },
    );
}
