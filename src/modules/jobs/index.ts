// The operator's "run this job now": what cron would do at its next tick, answered when it is done.
import { Elysia } from "elysia";
import type { JobRunner } from "../../jobs";
import { requireKey } from "../../http/guards";
import { errors, KEYED_ERRORS } from "../../http/model";
import type { Runtime } from "../../runtime";
import { JobParams, JobRun } from "./model";

/** A connection's idle timeout, in seconds: Elysia's default for the server, which `serve` keeps. */
const IDLE_TIMEOUT_S = 30;

export function jobRoutes(runtime: Runtime, runner: JobRunner) {
  return new Elysia({ prefix: "/v1/admin", tags: ["Admin"] })
    .use(requireKey(runtime, "admin"))
    .post(
      "/jobs/:name",
      async ({ params, request, server }) => {
        // The answer comes when the run is done, and a run may take longer than the idle timeout
        // (expiring 20,000 entries on a busy machine did): the connection would be closed under
        // it. It waits without one, and gets it back once the run is answered.
        server?.timeout(request, 0);
        try {
          return await runner.run(params.name);
        } finally {
          server?.timeout(request, IDLE_TIMEOUT_S);
        }
      },
      {
        params: JobParams,
        response: { 200: JobRun, ...errors(...KEYED_ERRORS, 403, 404, 409) },
        detail: {
          operationId: "runJob",
          summary: "Run a job now",
          description:
            "Runs one periodic job (expire-entries, prune-usage, trust-snapshots, public-stats, suggestion-index-stats, prune-limiters, prune-idempotency-keys, flush-metering, notice-external-writes) and answers when it has finished, with what it worked through. Requests keep being served while it runs. 409 while a run of the same job (scheduled or asked for) is under way.",
        },
      },
    );
}
