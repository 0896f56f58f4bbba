#!/usr/bin/env bun
// Webhook outbox throughput (docs/webhooks.md). Serves trustlist on a fresh database with
// --allow-private-webhooks and a receiver on loopback, then:
//   1. baseline: the keyed check's throughput for --check-s seconds with the outbox idle;
//   2. backlog: --events `blacklist.added` events committed in one transaction from a second
//      connection (as a CLI import would): how fast the worker drains it (deliveries per second);
//   3. healthy: --events events committed at --rate a second from that connection, while the check
//      stream goes on; every delivery is timed from its event's commit (the body's `timestamp`) to
//      its receipt: p50/p99/max, and the check's throughput meanwhile;
//   4. hanging: the same with a second endpoint registered whose receiver never answers: the
//      healthy endpoint's p99 and the checks must stay where they were.
// Targets (issue): >= 500 deliveries/s, p99 < 1 s when healthy, the check's throughput falls by no
// more than 20 % while the outbox drains, a hanging receiver does not slow the healthy one.
// The checks come from wrk (bench/check.lua); the receiver runs in this process.
// Prints one JSON object; bench/report.ts renders it.
// Usage: bun bench/outbox.ts --bin dist/trustlist [--events 10000] [--rate 500] [--port 18100]
//        [--check-s 5] [--connections 16] [--work DIR]
import { Database } from "bun:sqlite";
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { waitHealthy } from "./healthy";

const { values: args } = parseArgs({
  options: {
    bin: { type: "string", default: "dist/trustlist" },
    events: { type: "string", default: "10000" },
    port: { type: "string", default: "18100" },
    "check-s": { type: "string", default: "5" },
    connections: { type: "string", default: "16" },
    rate: { type: "string", default: "500" },
    work: { type: "string" },
  },
});
const bin = resolve(args.bin!);
const EVENTS = Number(args.events);
const CHECK_MS = Number(args["check-s"]) * 1000;
const CONNECTIONS = Number(args.connections);
const RATE = Number(args.rate);
const port = Number(args.port);
const base = `http://127.0.0.1:${port}`;
const work = resolve(args.work ?? join("bench", "data", "outbox-bench"));
const db = join(work, "outbox.db");
const checkScript = resolve(import.meta.dir, "check.lua");
/** The checks' paths: 5,000 Discord ids nobody listed (the common case of a bot's check). */
const checkPaths = join(work, "check-paths.txt");
const log = (message: string) => console.error(`[outbox ${new Date().toISOString().slice(11, 19)}] ${message}`);
const round = (x: number) => Math.round(x * 10) / 10;

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
await Bun.write(checkPaths, Array.from({ length: 5000 }, (_, i) => `/v1/blacklist/check?provider=discord&id=${900_000 + i}\n`).join(""));

// ---- the receiver: records commit-to-receipt per path; /hang never answers -----------------
const received = new Map<string, number[]>();
const hanging: Array<() => void> = [];
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  idleTimeout: 0,
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/hang") {
      await new Promise<void>((resolve) => hanging.push(resolve));
      return new Response(null, { status: 204 });
    }
    const body = (await request.json()) as { timestamp: string };
    let ages = received.get(path);
    if (!ages) received.set(path, (ages = []));
    ages.push(Date.now() - Date.parse(body.timestamp));
    return new Response(null, { status: 204 });
  },
});

const cli = (...argv: string[]) => {
  const run = Bun.spawnSync([bin, ...argv, "--db", db, "--json"], { stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`${argv.join(" ")}: ${run.stderr.toString()}`);
  return JSON.parse(run.stdout.toString());
};

const healthy = (deadlineMs: number) => waitHealthy(base, deadlineMs);

/**
 * Keyed checks from wrk (`CONNECTIONS` connections, bench/check.lua over a file of check paths)
 * until `stop()`: answers per second. wrk, not fetch from this process, so the check stream does
 * not share a thread with the receiver: what falls while the outbox drains is the server's rate,
 * not this process's.
 */
function checkStream(key: string) {
  const wrk = Bun.spawn(["wrk", "-t2", `-c${CONNECTIONS}`, "-d3600s", "--timeout", "2s", "--latency", "-s", checkScript, base, "--", "2"], {
    env: { ...process.env, BENCH_QUERIES: checkPaths, BENCH_KEY: key },
    stdout: "pipe",
    stderr: "pipe",
  });
  return async () => {
    // wrk stops on SIGINT and still reports the run so far.
    wrk.kill("SIGINT");
    const [output] = await Promise.all([new Response(wrk.stdout).text(), wrk.exited]);
    const result = output.match(/^RESULT requests=(\d+) duration_s=([\d.]+) .*non2xx=(\d+)/m);
    if (!result) throw new Error(`wrk: no result\n${output}${await new Response(wrk.stderr).text()}`);
    const [, requests, seconds, failed] = result;
    return round((Number(requests) - Number(failed)) / Number(seconds));
  };
}

function percentile(sorted: number[], q: number) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN;
}

let nextEvent = 0;
/** Commits `n` events in one transaction from a connection of its own; answers the commit time. */
function commitEvents(n: number): number {
  const connection = new Database(db);
  connection.exec("PRAGMA busy_timeout = 5000");
  const insert = connection.prepare("INSERT INTO outbox_events (id, type, payload, created_at) VALUES (?, 'blacklist.added', ?, ?)");
  const at = Date.now();
  connection.transaction(() => {
    for (let i = 0; i < n; i++) {
      const id = `evt_bench${String(++nextEvent).padStart(12, "0")}`;
      const entry = { id: `bl_bench${nextEvent}`, severity: "ban", scope: "global", vertical: "all", reason_code: "scam_trade", summary: null, issued_at: new Date(at).toISOString(), expires_at: null, appealable: true };
      insert.run(id, JSON.stringify(entry), at);
    }
  })();
  connection.close();
  return at;
}

/**
 * Commits `EVENTS` events, all at once (`rate` 0: a backlog, as an import leaves) or `rate` a second
 * in batches every 100 ms (the steady traffic of a busy server), while checks stream; ends when
 * `path` has received them all.
 */
async function phase(name: string, path: string, reader: string, rate: number) {
  received.set(path, []);
  const started = performance.now();
  const stopChecks = checkStream(reader);
  if (rate === 0) commitEvents(EVENTS);
  else {
    const perBatch = Math.max(1, Math.round(rate / 10));
    for (let sent = 0; sent < EVENTS; sent += perBatch) {
      commitEvents(Math.min(perBatch, EVENTS - sent));
      const due = started + ((sent + perBatch) / rate) * 1000;
      await Bun.sleep(Math.max(0, due - performance.now()));
    }
  }
  const deadline = started + 180_000;
  while ((received.get(path)?.length ?? 0) < EVENTS) {
    if (performance.now() > deadline) throw new Error(`${name}: ${received.get(path)?.length ?? 0} of ${EVENTS} delivered in 180 s`);
    await Bun.sleep(5);
  }
  const drained = performance.now();
  const checksPerSecond = await stopChecks();
  const ages = [...received.get(path)!].sort((a, b) => a - b);
  const row = {
    phase: name,
    events: EVENTS,
    committed_per_s: rate === 0 ? "all at once" : rate,
    drain_s: round((drained - started) / 1000),
    deliveries_per_s: round(EVENTS / ((drained - started) / 1000)),
    commit_to_receipt_ms: { p50: percentile(ages, 0.5), p99: percentile(ages, 0.99), max: ages.at(-1) ?? NaN },
    checks_per_s_while_draining: checksPerSecond,
  };
  log(JSON.stringify(row));
  return row;
}

log(`serve ${db} on ${base}; receiver on ${receiver.port}`);
const server = Bun.spawn([bin, "serve", "--db", db, "--port", String(port), "--host", "127.0.0.1", "--access-log", "off", "--allow-private-webhooks"], {
  stdout: Bun.file(join(work, "serve.log")),
  stderr: Bun.file(join(work, "serve.err")),
});
const result: Record<string, unknown> = { events: EVENTS, connections: CONNECTIONS };
let finished = false;
try {
  await healthy(30_000);
  cli("accounts", "create", "--name", "outbox-bench", "--tier", "enterprise", "--daily-quota", "1000000000");
  const reader = cli("keys", "create", "--account", "outbox-bench", "--rate-tier", "partner", "--burst", "1000000").key as string;
  const register = async (path: string) => {
    const res = await fetch(`${base}/v1/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${reader}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}${path}`, events: ["blacklist.added"] }),
    });
    if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  };

  const stopBaseline = checkStream(reader);
  await Bun.sleep(CHECK_MS);
  result.checks_per_s_idle = await stopBaseline();
  log(`baseline: ${result.checks_per_s_idle} checks/s`);

  await register("/ok");
  result.backlog = await phase("backlog", "/ok", reader, 0);
  result.healthy = await phase("healthy", "/ok", reader, RATE);
  await register("/hang");
  result.with_hanging_receiver = await phase("with a hanging receiver", "/ok", reader, RATE);
  result.loadavg = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
  finished = true;
} finally {
  // How the server ended if it died during the run (before this SIGTERM): null while it ran.
  const died = server.exitCode !== null || server.signalCode !== null ? `exit ${server.exitCode} signal ${server.signalCode}` : null;
  server.kill("SIGTERM");
  await server.exited;
  for (const release of hanging) release();
  receiver.stop(true);
  // A failed run keeps the server's log (serve.err) and database for a look.
  if (finished) rmSync(work, { recursive: true, force: true });
  else log(`run failed; the server ${died ? `had died (${died})` : "was still running"}; its log and database are kept in ${work}`);
}
console.log(JSON.stringify(result));
