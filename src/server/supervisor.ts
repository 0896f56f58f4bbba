// `serve --workers N`: the supervisor. It holds the database file's serve lock, migrates, makes the
// first admin key, creates the shared memory (shared-memory.ts), runs the WAL checkpointer, the
// fleet jobs (once per tick, whatever N) and the webhook deliveries, and starts N worker processes (worker.ts) that all serve
// the one port. A worker that dies is started again at once; SIGTERM drains every worker, then
// the supervisor stops and exits 0. Workers are processes rather than threads: on the 2-core
// bench machine two processes served more than two `Bun.serve` threads of one process (README),
// and a worker that crashes takes no other down.
import type { Config } from "../config";
import { Checkpointer } from "../db/checkpointer";
import { openDatabase } from "../db/database";
import { isPostgresUrl, redactUrl } from "../db/location";
import { takePageCacheShare } from "../db/pragmas";
import { Logger } from "../logger";
import type { MetricsSample } from "../metrics";
import { WebhookWorker } from "../jobs/webhook-worker";
import { jobRunner, jobs, scheduler } from "../jobs";
import { createRuntime } from "../runtime";
import { createServices } from "../services";
import { ownCommand } from "./engine-settings";
import { announce, checkAdminKeyFile, firstStartKey } from "./first-start";
import { lockDatabaseFile } from "./serve-lock";
import { createRegion, WORKER_REGION_FD } from "./shared-memory";
import { GATHER_TIMEOUT_MS, jobLocks, lineAtomicStdout, WORKER_CONFIG_ENV, WORKER_NUMBER_ENV, WORKER_SHARED_ENV, type WorkerMessage } from "./worker";

/** How long the first workers may take to listen. */
const START_TIMEOUT_MS = 30_000;
/** A worker that dies sooner than this after its start waits this long before the next try. */
const CRASH_LOOP_MS = 1000;
/** How long SIGTERM waits for the workers to drain before it kills them. */
const DRAIN_TIMEOUT_MS = 30_000;

interface Slot {
  proc: ReturnType<typeof Bun.spawn>;
  startedAt: number;
  ready: boolean;
}

export async function superviseWorkers(config: Config): Promise<"running"> {
  const started = performance.now();
  const log = new Logger({ access: config.accessLog }, lineAtomicStdout, { worker: 0 });
  const onSqlite = !isPostgresUrl(config.dbPath);
  // PostgreSQL has no file to guard: several instances on one database is what it is for.
  const lock = onSqlite ? lockDatabaseFile(config.dbPath) : null;
  // Every worker binds the same port: port 0 is chosen once, here.
  let port = config.port;
  if (port === 0) {
    const probe = Bun.listen({ hostname: config.host, port: 0, socket: { data() {} } });
    port = probe.port;
    probe.stop(true);
  }
  const { database: store } = await openDatabase(config.dbPath, { create: true, migrations: "apply", connections: config.postgresConnections });
  const shownDb = onSqlite ? config.dbPath : redactUrl(config.dbPath);
  // Fleet jobs write from this thread too: never asleep on a worker's lock (db/write.ts).
  if (store.dialect === "sqlite") {
    store.neverBlockOnLocks();
    // Only the fleet jobs read here: a worker's share of the page cache is plenty.
    takePageCacheShare(store.sqlite, config.workers);
  }
  const runtime = await createRuntime({ store, config, log });
  const services = createServices(runtime);
  // Before any worker starts: a first start whose key file cannot be written stops here.
  try {
    await checkAdminKeyFile(services, config.adminKeyFile);
  } catch (error) {
    await store.close();
    lock?.release();
    throw error;
  }
  const shared = createRegion();
  const { region } = shared;
  const checkpointer =
    store.dialect === "sqlite" ? new Checkpointer(store, { onError: (message) => log.error("checkpointer failed", { message }) }) : null;
  // The fleet jobs' scheduler; the app is never served (workers answer every request).
  const names = jobs(runtime, services).map((job) => job.name);
  const scheduled = scheduler(jobRunner(runtime, services, jobLocks(region, names, store)), (job) => job.scope === "fleet");
  // Webhook deliveries go out from here, once for the whole serve; on SQLite this process owns the
  // file, so rows a killed run had claimed are due again now (as in a single serve).
  const webhookWorker = new WebhookWorker(services.webhooks, runtime.clock, runtime.metrics, log, {
    releaseClaimsAtStart: store.dialect === "sqlite",
    leaseMs: config.webhookLeaseMs,
  });
  webhookWorker.start();

  const slots: Array<Slot | null> = new Array(config.workers + 1).fill(null);
  let stopping = false;
  let gathered = 0;
  const countUp = () => (region.workersUp = slots.filter((slot) => slot?.ready).length);
  let startup: { resolve: () => void; reject: (error: Error) => void } | null = null;
  const startupDone = new Promise<void>((resolve, reject) => (startup = { resolve, reject }));

  const entry = ownCommand();
  // The workers serve exactly this configuration (the port chosen above included), whatever
  // flags or environment gave it.
  const env = { ...process.env, [WORKER_SHARED_ENV]: `/proc/self/fd/${WORKER_REGION_FD}`, [WORKER_CONFIG_ENV]: JSON.stringify({ ...config, port }) };

  const onMessage = (number: number, message: WorkerMessage) => {
    if (message.type === "ready") {
      const slot = slots[number];
      if (!slot) return;
      slot.ready = true;
      const up = countUp();
      if (startup && up === config.workers) startup.resolve();
    } else if (message.type === "gather") {
      void gather(number, message.id);
    } else if (message.type === "sample") {
      answers.get(message.id)?.(message.sample);
    }
  };

  const answers = new Map<number, (sample: MetricsSample) => void>();
  /** Asks every other worker for its sample and hands them to worker `number`. */
  const gather = async (number: number, id: number) => {
    const asked = slots.flatMap((slot, n) => (slot?.ready && n !== number ? [slot] : []));
    const samples = await Promise.all(
      asked.map((slot) => {
        const ask = ++gathered;
        return new Promise<MetricsSample | null>((resolve) => {
          const timer = setTimeout(() => resolve(null), GATHER_TIMEOUT_MS);
          answers.set(ask, (sample) => {
            clearTimeout(timer);
            resolve(sample);
          });
          try {
            slot.proc.send({ type: "sample?", id: ask } satisfies WorkerMessage);
          } catch {
            resolve(null);
          }
        }).finally(() => answers.delete(ask));
      }),
    );
    // The supervisor's webhook attempts and its own memory belong to the totals too.
    const own = runtime.metrics.sample({ trustlist_process_resident_memory_bytes: { help: "Resident set size.", value: process.memoryUsage().rss } });
    try {
      slots[number]?.proc.send({ type: "samples", id, samples: [...samples.filter((s) => s !== null), own] } satisfies WorkerMessage);
    } catch {
      // That worker is gone; nobody waits for the answer.
    }
  };

  const spawn = (number: number) => {
    const proc = Bun.spawn([...entry, "serve"], {
      env: { ...env, [WORKER_NUMBER_ENV]: String(number) },
      stdio: ["ignore", "inherit", "inherit", shared.fd],
      ipc: (message) => onMessage(number, message as WorkerMessage),
    });
    const slot: Slot = { proc, startedAt: performance.now(), ready: false };
    slots[number] = slot;
    void proc.exited.then((code) => {
      if (slots[number] === slot) slots[number] = null;
      countUp();
      if (stopping) return;
      log.error("worker exited", { worker: number, pid: proc.pid, code, signal: proc.signalCode ?? null });
      if (startup) {
        startup.reject(new Error(`worker ${number} exited while starting (code ${code}); see its error above`));
        return;
      }
      const quick = performance.now() - slot.startedAt < CRASH_LOOP_MS;
      const restart = () => {
        if (stopping) return;
        try {
          log.info("worker restarted", { worker: number, pid: spawn(number).pid });
        } catch (error) {
          log.error("worker not restarted", { worker: number, error: String(error) });
          setTimeout(restart, CRASH_LOOP_MS);
        }
      };
      setTimeout(restart, quick ? CRASH_LOOP_MS : 0);
    });
    return proc;
  };

  const stopWorkers = async () => {
    const running = slots.filter((slot): slot is Slot => slot !== null);
    for (const slot of running) slot.proc.kill("SIGTERM");
    const killer = setTimeout(() => running.forEach((slot) => slot.proc.kill("SIGKILL")), DRAIN_TIMEOUT_MS);
    await Promise.all(running.map((slot) => slot.proc.exited));
    clearTimeout(killer);
  };

  const stopSupervisor = async () => {
    const cronJobs = (scheduled.store as { cron?: Record<string, { stop(): void }> }).cron ?? {};
    for (const job of Object.values(cronJobs)) job.stop();
    // Attempts under way are abandoned unrecorded: their rows are sent again after the restart.
    await webhookWorker.stop();
    await checkpointer?.stop();
    log.flush();
    await store.close();
    shared.close();
    lock?.release();
  };

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal, workers: region.workersUp });
    await stopWorkers();
    log.info("stopped", { signal });
    await stopSupervisor();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  for (let number = 1; number <= config.workers; number++) spawn(number);
  const timeout = setTimeout(() => startup?.reject(new Error(`the workers did not all listen within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
  try {
    await startupDone;
  } catch (error) {
    stopping = true;
    await stopWorkers();
    await stopSupervisor();
    throw error;
  } finally {
    clearTimeout(timeout);
    startup = null;
  }

  // A first start on an empty database makes the operator account and its admin key; once the
  // workers listen, so a serve that cannot start never mints a key.
  const firstKey = await firstStartKey(services, config.adminKeyFile);
  const address = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  log.info("listening", { address, base_url: config.baseUrl, db: shownDb, workers: config.workers, startup_ms: Math.round(performance.now() - started) });
  log.flush();
  announce(address, shownDb, firstKey, config.workers);
  return "running";
}
