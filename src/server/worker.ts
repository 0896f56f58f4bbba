// One worker of `serve --workers N`: a process started by the supervisor (supervisor.ts) that serves
// the port beside its siblings (SO_REUSEPORT: the kernel spreads new connections over them). It
// differs from a single `serve` in what it shares: the daily quota and the keys' burst buckets live
// in the shared memory, the fleet jobs and the WAL checkpoints run in the supervisor, a manual run
// of a fleet job takes the job's lock in the shared memory, and /metrics asks every worker.
// Another worker's commits reach this one's caches the way another process's always have: the
// `data_version` check at the start of every request (db/changes.sqlite.ts).
import { writeSync } from "node:fs";
import { buildApp } from "../app";
import type { Config } from "../config";
import { largestBody } from "../http/body";
import { openDatabase, type Database } from "../db/database";
import { leaveCheckpointsToOthers, takePageCacheShare } from "../db/pragmas";
import { Logger } from "../logger";
import type { MetricsSample } from "../metrics";
import { jobs } from "../jobs";
import type { Exclusive } from "../jobs/runner";
import { createRuntime, type WorkerLink } from "../runtime";
import { createServices } from "../services";
import { SharedQuotaCounter, SharedTokenBuckets } from "./shared-limits";
import { SharedRegion } from "./shared-memory";
import { SharedDirectorySnapshots } from "./shared-snapshots";
import { warmUp } from "./warm-up";

/** Set by the supervisor in a worker's environment. */
export const WORKER_NUMBER_ENV = "TRUSTLIST_WORKER_NUMBER";
export const WORKER_SHARED_ENV = "TRUSTLIST_WORKER_SHARED";
/** The supervisor's configuration, as JSON: every worker serves exactly it. */
export const WORKER_CONFIG_ENV = "TRUSTLIST_WORKER_CONFIG";

export interface WorkerRole {
  number: number;
  sharedPath: string;
  config: Config;
}

/** This process's place among the workers, or null for a `serve` of its own. */
export function workerRole(env = process.env): WorkerRole | null {
  const number = Number(env[WORKER_NUMBER_ENV]);
  const sharedPath = env[WORKER_SHARED_ENV];
  const config = env[WORKER_CONFIG_ENV];
  if (!Number.isInteger(number) || number < 1 || !sharedPath || !config) return null;
  return { number, sharedPath, config: JSON.parse(config) as Config };
}

/** Messages between the supervisor and a worker (Bun's IPC channel). */
export type WorkerMessage =
  | { type: "ready" }
  | { type: "gather"; id: number }
  | { type: "sample"; id: number; sample: MetricsSample }
  | { type: "sample?"; id: number }
  | { type: "samples"; id: number; samples: MetricsSample[] };

/** How long a scrape waits for the other workers' samples. */
export const GATHER_TIMEOUT_MS = 1000;

export async function runWorker(role: WorkerRole): Promise<"running"> {
  const { config } = role;
  const region = new SharedRegion(role.sharedPath);
  const log = new Logger({ access: config.accessLog }, lineAtomicStdout, { worker: role.number });
  const { database: store } = await openDatabase(config.dbPath, { create: false, migrations: "require", connections: config.postgresConnections });
  // The supervisor's checkpointer copies the WAL back; a worker's COMMIT never does it inline.
  if (store.dialect === "sqlite") {
    leaveCheckpointsToOthers(store.sqlite);
    // The OS caches the file once for all the workers: each keeps a share of one serve's page cache.
    takePageCacheShare(store.sqlite, config.workers);
  }
  const runtime = await createRuntime({ store, config, log });
  const now = () => runtime.clock.now();
  runtime.quota = new SharedQuotaCounter(region, runtime.accountsStore, now, (accountId, day) => runtime.meter.pendingCallsOf(accountId, day));
  runtime.buckets = new SharedTokenBuckets(region, now);
  runtime.workers = link(role.number, region);
  runtime.keys.shareWith(region.keyGeneration);
  const services = createServices(runtime);
  services.public.shareDirectoryWith(new SharedDirectorySnapshots(region));
  const app = buildApp(runtime, {
    // Fleet jobs are the supervisor's: each runs once per tick whatever the number of workers.
    jobs: (job) => job.scope !== "fleet",
    exclusive: jobLocks(region, jobs(runtime, services).map((job) => job.name), store),
    services,
  });
  app.listen({ port: config.port, hostname: config.host, maxRequestBodySize: largestBody(config.maxBodyBytes) + 1024, reusePort: true });
  const server = app.server!;

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    await server.stop(false);
    const cronJobs = (app.store as { cron?: Record<string, { stop(): void }> }).cron ?? {};
    for (const job of Object.values(cronJobs)) job.stop();
    await runtime.meter.flush({ waitForLock: true });
    if (runtime.meter.pendingCount > 0) {
      log.error("usage counts lost: another process held the database lock through shutdown", { pending: runtime.meter.pendingCount });
    }
    log.info("stopped", { signal });
    log.flush();
    await store.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  // A supervisor that was killed cannot stop its workers: they notice and drain.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && void shutdown("supervisor gone"), 500).unref();

  log.info("worker listening", { pid: process.pid });
  process.send!({ type: "ready" } satisfies WorkerMessage);
  // As a single serve does: requests meanwhile read what they need themselves.
  void warmUp(services, store);
  return "running";
}

/** The worker's side of the IPC channel: the count of workers up, and scrapes of /metrics. */
function link(number: number, region: SharedRegion): WorkerLink {
  let answer: (() => Promise<MetricsSample>) | null = null;
  const waiting = new Map<number, (samples: MetricsSample[]) => void>();
  let next = 0;
  process.on("message", async (message: WorkerMessage) => {
    if (message.type === "sample?" && answer) process.send!({ type: "sample", id: message.id, sample: await answer() } satisfies WorkerMessage);
    else if (message.type === "samples") waiting.get(message.id)?.(message.samples);
  });
  return {
    number,
    up: () => region.workersUp,
    answerWith(sample) {
      answer = sample;
    },
    async samples(local) {
      const id = ++next;
      const others = await new Promise<MetricsSample[]>((resolve) => {
        // The supervisor answers within its own timeout; this one only guards a supervisor gone.
        const timer = setTimeout(() => resolve([]), GATHER_TIMEOUT_MS * 2);
        waiting.set(id, (samples) => {
          clearTimeout(timer);
          resolve(samples);
        });
        process.send!({ type: "gather", id } satisfies WorkerMessage);
      });
      waiting.delete(id);
      return [local, ...others];
    },
  };
}

/**
 * A fleet job run on request (`POST /v1/admin/jobs/{name}`) takes the job's lock in the shared
 * memory, which the supervisor's scheduled runs take too, then the database's own (PostgreSQL:
 * across instances).
 */
export function jobLocks(region: SharedRegion, names: string[], store: Pick<Database, "exclusive">): Exclusive {
  return async (name, fn) => {
    const index = names.indexOf(name.replace(/^job:/, ""));
    if (index < 0) return store.exclusive(name, fn);
    if (!region.tryLock(index)) return false;
    try {
      return await store.exclusive(name, fn);
    } finally {
      region.unlock(index);
    }
  };
}

/** Pipe writes up to this size are never interleaved with another writer's (Linux PIPE_BUF). */
const PIPE_ATOMIC_BYTES = 4096;

/**
 * The workers share one stdout: each write holds whole lines and at most PIPE_ATOMIC_BYTES, so
 * one worker's line never lands in the middle of another's.
 */
export function lineAtomicStdout(text: string): void {
  const bytes = Buffer.from(text);
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(bytes.length, start + PIPE_ATOMIC_BYTES);
    if (end < bytes.length) {
      const newline = bytes.lastIndexOf(10, end - 1);
      if (newline >= start) end = newline + 1;
    }
    try {
      start += writeSync(1, bytes, start, end - start);
    } catch {
      process.stdout.write(bytes.subarray(start));
      return;
    }
  }
}
