// `trustlist serve`: migrate, listen on a port of its own, and shut down cleanly on SIGTERM/SIGINT.
import { buildApp } from "../app";
import { loadConfig, SETTINGS } from "../config";
import { Checkpointer } from "../db/checkpointer";
import { openDatabase } from "../db/database";
import { isPostgresUrl, redactUrl } from "../db/location";
import { largestBody } from "../http/body";
import { createRuntime } from "../runtime";
import { startWithEngineSettings } from "../server/engine-settings";
import { announce, checkAdminKeyFile, firstStartKey } from "../server/first-start";
import { lockDatabaseFile } from "../server/serve-lock";
import { superviseWorkers } from "../server/supervisor";
import { warmUp } from "../server/warm-up";
import { runWorker, workerRole } from "../server/worker";
import { WebhookWorker } from "../jobs/webhook-worker";
import { createServices } from "../services";
import type { Command } from "./args";

export const serve: Command = {
  name: "serve",
  summary: "apply migrations, then serve the API until SIGTERM or SIGINT",
  json: false,
  flags: [
    { name: "port", kind: "string", value: "N", help: "TCP port to listen on (0 picks a free one)", default: SETTINGS.port.default, env: SETTINGS.port.env },
    { name: "host", kind: "string", value: "ADDR", help: "address to listen on (0.0.0.0 for every interface)", default: SETTINGS.host.default, env: SETTINGS.host.env },
    { name: "base-url", kind: "string", value: "URL", help: "public address used in links the service returns", default: SETTINGS.baseUrl.default, env: SETTINGS.baseUrl.env },
    { name: "trust-proxy", kind: "optional", value: "N", help: "take the client address from X-Forwarded-For, N proxies from the right", default: SETTINGS.trustProxy.default, env: SETTINGS.trustProxy.env },
    { name: "access-log", kind: "string", value: "on|off", help: "one JSON line per request on stdout", default: SETTINGS.accessLog.default, env: SETTINGS.accessLog.env },
    { name: "workers", kind: "string", value: "N|auto", help: "processes serving the port (auto: one per core this process may use)", default: SETTINGS.workers.default, env: SETTINGS.workers.env },
    {
      name: "admin-key-file",
      kind: "string",
      value: "PATH",
      help: "on a first start, write the operator's admin key to this new file (mode 0600) instead of printing it; an existing file is refused",
      default: SETTINGS.adminKeyFile.default,
      env: SETTINGS.adminKeyFile.env,
    },
    { name: "course-submissions", kind: "boolean", negatable: true, help: "grade course quizzes (off: submissions answer 410 gone)", default: SETTINGS.courseSubmissions.default, env: SETTINGS.courseSubmissions.env },
    {
      name: "allow-private-webhooks",
      kind: "boolean",
      help: "let webhooks go to private, loopback and link-local addresses and plain http (tests, labs; never on a public server)",
      default: SETTINGS.allowPrivateWebhooks.default,
      env: SETTINGS.allowPrivateWebhooks.env,
    },
    {
      name: "webhook-retry-delays",
      kind: "string",
      value: "MS,…",
      help: "the 7 pauses before webhook retries, in milliseconds (tests shorten them; the count is fixed)",
      default: SETTINGS.webhookRetryDelays.default,
      env: SETTINGS.webhookRetryDelays.env,
    },
    {
      name: "webhook-lease",
      kind: "string",
      value: "MS",
      help: "how long a claim holds webhook deliveries: a killed instance's rows are sent again after it (tests shorten it)",
      default: SETTINGS.webhookLease.default,
      env: SETTINGS.webhookLease.env,
    },
    {
      name: "postgres-connections",
      kind: "string",
      value: "N",
      help: "PostgreSQL connections each process keeps (a server, or each worker and the supervisor); 2 at least",
      default: SETTINGS.postgresConnections.default,
      env: SETTINGS.postgresConnections.env,
    },
  ],
  examples: [
    "trustlist serve --port 8080 --db /var/lib/trustlist/trustlist.db",
    "TRUSTLIST_HOST=0.0.0.0 TRUSTLIST_PORT=8080 trustlist serve",
    "trustlist serve --workers auto",
    "trustlist serve --db /var/lib/trustlist/trustlist.db --admin-key-file /var/lib/trustlist/admin-key",
    "trustlist serve --db postgres://trustlist@db.internal/trustlist  # several instances on one PostgreSQL",
  ],
  async run({ values }) {
    // Before anything is opened: the engine reads its settings only as the process starts.
    startWithEngineSettings((message) => console.error(message));
    // A worker of `serve --workers N`, started by the supervisor with its configuration (src/server/).
    const role = workerRole();
    if (role) return runWorker(role);
    const config = loadConfig(values);
    const started = performance.now();
    const unsetBaseUrl = baseUrlWarning(config);
    if (unsetBaseUrl) console.error(unsetBaseUrl);
    const ignoredPoolSize = postgresConnectionsWarning(config);
    if (ignoredPoolSize) console.error(ignoredPoolSize);
    // A taken port fails here, before the database is opened (or created). This probe binds
    // without SO_REUSEPORT, so it fails on a port another server holds even when that server asked
    // for SO_REUSEPORT: that is what keeps a second `serve` off the port (one server per port).
    if (config.port !== 0) {
      try {
        Bun.listen({ hostname: config.host, port: config.port, socket: { data() {} } }).stop(true);
      } catch (error) {
        throw listenError(error, config.host, config.port);
      }
    }
    if (config.workers > 1) return superviseWorkers(config);
    // Held until the process ends: a second serve on this SQLite file is refused, naming it.
    if (!isPostgresUrl(config.dbPath)) lockDatabaseFile(config.dbPath);
    const { database: store } = await openDatabase(config.dbPath, { create: true, migrations: "apply", connections: config.postgresConnections });
    const shownDb = isPostgresUrl(config.dbPath) ? redactUrl(config.dbPath) : config.dbPath;
    const runtime = await createRuntime({ store, config });
    const services = createServices(runtime);
    // Before the server listens: a first start whose key file cannot be written stops here.
    try {
      await checkAdminKeyFile(services, config.adminKeyFile);
    } catch (error) {
      await store.close();
      throw error;
    }
    const app = buildApp(runtime, { jobs: true, services });
    try {
      // Elysia's Bun adapter asks for SO_REUSEPORT. Turning it off cost a fifth of the keyed
      // check's throughput (36.6k against 45.4k checks/s, 30.4 against 24.5 µs of CPU each: wrk
      // 2t/32c, 300k-line database, 2 cores, Bun 1.4.5), so the listener keeps it and the probe
      // above is what refuses a second server on the port.
      app.listen({ port: config.port, hostname: config.host, maxRequestBodySize: largestBody(config.maxBodyBytes) + 1024 });
    } catch (error) {
      await store.close();
      throw listenError(error, config.host, config.port);
    }
    const server = app.server!;
    // WAL checkpoints and their fsyncs on a thread of their own, never inside a request's COMMIT.
    const checkpointer =
      store.dialect === "sqlite" ? new Checkpointer(store, { onError: (message) => runtime.log.error("checkpointer failed", { message }) }) : null;
    void checkpointer?.ready.then((started) => started && runtime.log.info("checkpointer ready"));
    // One server owns a SQLite file (server/serve-lock.ts), so rows a killed run had claimed are due
    // again now; on PostgreSQL other instances may hold live claims, which lapse on their own.
    const webhookWorker = new WebhookWorker(services.webhooks, runtime.clock, runtime.metrics, runtime.log, {
      releaseClaimsAtStart: store.dialect === "sqlite",
      leaseMs: config.webhookLeaseMs,
    });
    webhookWorker.start();

    let stopping = false;
    const shutdown = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      runtime.log.info("shutting down", { signal });
      // Stop taking connections, let in-flight requests finish, then persist what is buffered.
      await server.stop(false);
      const cronJobs = (app.store as { cron?: Record<string, { stop(): void }> }).cron ?? {};
      for (const job of Object.values(cronJobs)) job.stop();
      // Attempts under way are abandoned unrecorded: their rows are sent again after the restart.
      await webhookWorker.stop();
      await runtime.meter.flush({ waitForLock: true });
      if (runtime.meter.pendingCount > 0) {
        runtime.log.error("usage counts lost: another process held the database lock through shutdown", { pending: runtime.meter.pendingCount });
      }
      await checkpointer?.stop();
      runtime.log.info("stopped", { signal });
      runtime.log.flush();
      await store.close();
      process.exit(0);
    };
    // Before anything is printed: whoever reads "listening" may send SIGTERM at once.
    process.on("SIGTERM", () => void shutdown("SIGTERM"));
    process.on("SIGINT", () => void shutdown("SIGINT"));

    // A first start on an empty database makes the operator account and its admin key; after the
    // bind, so a server that cannot listen never mints a key.
    const firstKey = await firstStartKey(services, config.adminKeyFile);

    // So the first keyless requests do not wait for what their answers are computed from.
    void warmUp(services, store, () =>
      runtime.log.info("subject filter ready", { subjects: services.blacklist.subjects.size, ms: Math.round(performance.now() - started) }),
    );
    const address = `http://${server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname}:${server.port}`;
    if (config.allowPrivateWebhooks) {
      runtime.log.warn("webhooks may go to private, loopback and link-local addresses and plain http (--allow-private-webhooks): not for a public server");
    }
    runtime.log.info("listening", { address, base_url: config.baseUrl, db: shownDb, startup_ms: Math.round(performance.now() - started) });
    runtime.log.flush();
    announce(address, shownDb, firstKey);

    return "running";
  },
};

/**
 * The warning for a server reachable from other machines whose base URL was left unset: the links
 * it hands out (sign-in links, profile URLs, the console's origin check) would name the listening
 * address, which is not where people reach it. Null when the host is loopback or a base URL is set.
 */
export function baseUrlWarning(config: { host: string; baseUrlConfigured?: boolean; baseUrl: string }): string | null {
  if (config.baseUrlConfigured) return null;
  const host = config.host.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host)) return null;
  return `warning: --base-url (TRUSTLIST_BASE_URL) is not set, so links this server hands out name ${config.baseUrl}; set it to the public address people reach this server at (e.g. https://trust.example.org)`;
}

/** The warning for `--postgres-connections` given to a server on a SQLite file, where it does nothing. Null otherwise. */
export function postgresConnectionsWarning(config: { dbPath: string; postgresConnectionsConfigured?: boolean }): string | null {
  if (!config.postgresConnectionsConfigured || isPostgresUrl(config.dbPath)) return null;
  return `warning: --postgres-connections (TRUSTLIST_POSTGRES_CONNECTIONS) sizes a PostgreSQL pool; this server runs on the SQLite file ${config.dbPath} and ignores it`;
}

function listenError(error: unknown, host: string, port: number): Error {
  if ((error as { code?: string }).code === "EADDRINUSE") {
    return new Error(`port ${port} on ${host} is already in use (another trustlist?); stop it or choose another --port`);
  }
  return new Error(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
}
