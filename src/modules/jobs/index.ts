// The operator's "run this job now": what cron would do at its next tick, answered when it is done.
import { Elysia } from "elysia";
import type { JobRunner } from "../../jobs";
import { requireKey } from "../../http/guards";
import { errors, KEYED_ERRORS } from "../../http/model";
import type { Runtime } from "../../runtime";
import { JobParams, JobRun } from "./model";

export function jobRoutes(runtime: Runtime, runner: JobRunner) {
  return new Elysia({ prefix: "/v1/admin", tags: ["Admin"] })
    .use(requireKey(runtime, "admin"))
    .post("/jobs/:name", ({ params }) => runner.run(params.name), {
      params: JobParams,
      response: { 200: JobRun, ...errors(...KEYED_ERRORS, 403, 404, 409) },
      detail: {
        operationId: "runJob",
        summary: "Run a job now",
        description:
          "Runs one periodic job (expire-entries, prune-usage, trust-snapshots, public-stats, suggestion-index-stats, prune-limiters, prune-idempotency-keys, flush-metering, notice-external-writes) and answers when it has finished, with what it worked through. Requests keep being served while it runs. 409 while a run of the same job (scheduled or asked for) is under way.",
      },
    });
}
