// Runs the periodic jobs, from cron or on an operator's request, and makes sure two runs of the
// same job never overlap: cron's own `protect` covers only cron's runs, and a run asked for over
// the admin route would otherwise race the scheduled one (two expiry runs could both pick the
// same due rows between slices).
import type { Clock } from "../clock";
import { iso } from "../clock";
import { conflict, notFound } from "../errors";
import type { Logger } from "../http/logger";

export interface Job {
  name: string;
  pattern: string;
  /** Does the work; the count is what it worked through (rows, creators, trigrams), when it has one. */
  run(): Promise<number | void> | number | void;
}

export interface JobRun {
  job: string;
  /** What the run worked through (rows, creators, trigrams); null for jobs that count nothing. */
  worked: number | null;
  started_at: string;
  finished_at: string;
  duration_ms: number;
}

export class JobRunner {
  private readonly byName: Map<string, Job>;
  private readonly running = new Map<string, Promise<JobRun>>();

  constructor(
    readonly jobs: Job[],
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    this.byName = new Map(jobs.map((job) => [job.name, job]));
  }

  isRunning(name: string): boolean {
    return this.running.has(name);
  }

  /** Runs `name` now; a conflict while a run of it is under way, not found for an unknown name. */
  run(name: string): Promise<JobRun> {
    const job = this.byName.get(name);
    if (!job) throw notFound(`No job '${name.slice(0, 64)}'. Jobs: ${[...this.byName.keys()].join(", ")}.`);
    if (this.running.has(name)) throw conflict(`Job '${name}' is already running.`);
    const run = this.execute(job).finally(() => this.running.delete(name));
    this.running.set(name, run);
    return run;
  }

  /** The scheduler's tick: skipped while an earlier run is still going; failures are logged. */
  async tick(name: string): Promise<void> {
    if (this.running.has(name)) return;
    try {
      await this.run(name);
    } catch (error) {
      this.log.error("job failed", { job: name, error: String(error) });
    }
  }

  private async execute(job: Job): Promise<JobRun> {
    const startedAt = this.clock.now();
    const started = performance.now();
    const worked = await job.run();
    return {
      job: job.name,
      worked: typeof worked === "number" ? worked : null,
      started_at: iso(startedAt),
      finished_at: iso(this.clock.now()),
      duration_ms: Math.round(performance.now() - started),
    };
  }
}
