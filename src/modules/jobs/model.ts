import { t } from "elysia";
import { DateTime, JsonInteger } from "../../http/model";

export const JobParams = t.Object(
  { name: t.String({ description: "The job's name, as listed in the README.", examples: ["expire-entries"] }) },
  { $id: "JobParams" },
);

export const JobRun = t.Object({
  job: t.String({ examples: ["expire-entries"] }),
  worked: t.Nullable(
    JsonInteger({ description: "What the run worked through (rows, creators, trigrams); null for a job that counts nothing.", examples: [50000] }),
  ),
  started_at: DateTime("When the run started."),
  finished_at: DateTime("When the run finished."),
  duration_ms: JsonInteger({ description: "Wall time of the run, requests served in between included.", examples: [4200] }),
}, { $id: "JobRun", description: "One finished run of a periodic job." });
