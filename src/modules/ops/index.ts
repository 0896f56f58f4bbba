// Operations: health for load balancers and Prometheus metrics for the operator.
import { Elysia, t } from "elysia";
import { requireKey } from "../../http/guards";
import { errors, KEYED_ERRORS } from "../../http/model";
import type { Runtime } from "../../runtime";

const Health = t.Object({ ok: t.Boolean({ description: "Whether the database answered." }) }, { $id: "Health", description: "Whether the service and its database answer." });

export function healthRoutes(runtime: Runtime) {
  return new Elysia({ tags: ["Ops"] }).get(
    "/healthz",
    async ({ set }) => {
      try {
        await runtime.store.ping();
        return { ok: true };
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

export function metricsRoutes(runtime: Runtime, gauges: () => Promise<Record<string, { help: string; value: number }>>) {
  return new Elysia({ tags: ["Ops"] })
    .use(requireKey(runtime, "admin"))
    .get(
      "/metrics",
      async ({ set }) => {
        set.headers["content-type"] = "text/plain; version=0.0.4; charset=utf-8";
        return runtime.metrics.render(await gauges());
      },
      {
        response: { 200: t.String({ description: "Prometheus text exposition." }), ...errors(...KEYED_ERRORS, 403) },
        detail: { operationId: "getMetrics", summary: "Prometheus metrics", description: "Admin-scoped key." },
      },
    );
}
