// Runs the periodic jobs, from cron or on an operator's request, and makes sure two runs of the
// same job never overlap: cron's own `protect` covers only cron's runs, and a run asked for over
// the admin route would otherwise race the scheduled one (two expiry runs could both pick the
// same due rows between slices). A job marked `fleet` works on shared data and runs on one
// instance at a time when several serve one PostgreSQL database: the others skip that tick.
import type { Clock } from "../clock";
import { iso } from "../clock";
import { conflict, notFound, ServiceError } from "../errors";
import type { Logger } from "../logger";

export interface Job {
  name: string;
  pattern: string;
  /** Does the work; the count is what it worked through (rows, creators, trigrams), when it has one. */
  run(): Promise<number | void> | number | void;
  /**
   * "fleet": the work is on shared data (expiry, snapshots, pruning), done by one instance per
   * tick; "instance" (the default): on this process's own state (metering buffer, caches).
   */
  scope?: "fleet" | "instance";
}

/** Runs `fn` unless another instance runs work of that name; false when it was left to that one. */
export type Exclusive = (name: string, fn: () => Promise<unknown>) => Promise<boolean>;

const alone: Exclusive = async (_name, fn) => {
  await fn();
  return true;
};

export interface JobRun {
  job: string;
  /** What the run worked through (rows, creators, trigrams); null for jobs that count nothing. */
  worked: number | null;
  started_at: string;
  finished_at: string;
  duration_ms: number;
}

/** A fleet job's run was skipped: another instance is running it. */
export class RanElsewhere extends ServiceError {
  constructor(job: string) {
    super("conflict", `Job '${job}' is running on another instance.`);
    this.name = "RanElsewhere";
  }
}

export class JobRunner {
  private readonly byName: Map<string, Job>;
  private readonly running = new Map<string, Promise<JobRun>>();

  constructor(
    readonly jobs: Job[],
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly exclusive: Exclusive = alone,
  ) {
    this.byName = new Map(jobs.map((job) => [job.name, job]));
  }

  isRunning(name: string): boolean {
    return this.running.has(name);
  }

  /**
   * Runs `name` now; a conflict while a run of it is under way here or (a fleet job) on another
   * instance, not found for an unknown name.
   */
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
      if (error instanceof RanElsewhere) return;
      this.log.error("job failed", { job: name, error: String(error) });
    }
  }

  private async execute(job: Job): Promise<JobRun> {
    const startedAt = this.clock.now();
    const started = performance.now();
    let worked: number | void = undefined;
    if (job.scope === "fleet") {
      const ran = await this.exclusive(`job:${job.name}`, async () => {
        worked = await job.run();
      });
      if (!ran) throw new RanElsewhere(job.name);
    } else {
      worked = await job.run();
    }
    return {
      job: job.name,
      worked: typeof worked === "number" ? worked : null,
      started_at: iso(startedAt),
      finished_at: iso(this.clock.now()),
      duration_ms: Math.round(performance.now() - started),
    };
  }
}
