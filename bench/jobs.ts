#!/usr/bin/env bun
// The worst request wait behind each periodic job (docs/api.md, "Conventions", Availability: at most 100 ms at
// any data size). On its own copy of an imported database it serves trustlist, keeps a steady
// stream of cheap requests going (GET /healthz, the keyed check, a directory query), and:
//   1. times the start: the warm-ups (subject filter, directory index, trigram counts) run while
//      requests are already being answered;
//   2. runs each job through POST /v1/admin/jobs/{name}, one after the other, recording the job's
//      duration and what it worked through next to the worst wait of any request in flight meanwhile;
//      (prune-usage finds 200,000 old usage rows the bench seeds in its copy);
//   3. for the expiry job, makes `--due` entries lapse just after a minute boundary (so the
//      scheduled per-minute run has not taken them yet) and runs it then, as after an import.
// Prints one JSON object; bench/report.ts renders it.
// Usage: bun bench/jobs.ts --bin dist/trustlist --db bench/data/bench.db --data bench/data [--port 18095]
//        [--due 50000] [--work DIR] [--connections 4] [--warmup-s 20]
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { waitHealthy } from "./healthy";

const { values: args } = parseArgs({
  options: {
    bin: { type: "string", default: "dist/trustlist" },
    db: { type: "string" },
    data: { type: "string", default: "bench/data" },
    port: { type: "string", default: "18095" },
    due: { type: "string", default: "50000" },
    work: { type: "string" },
    connections: { type: "string", default: "4" },
    "warmup-s": { type: "string", default: "20" },
  },
});
if (!args.db) throw new Error("--db is required (an imported database; it is copied, never changed)");
const bin = resolve(args.bin!);
const work = resolve(args.work ?? join(args.data!, "jobs-bench"));
const db = join(work, "jobs.db");
const port = Number(args.port);
const base = `http://127.0.0.1:${port}`;
const DUE = Number(args.due);
const CONNECTIONS = Number(args.connections);
const log = (message: string) => console.error(`[jobs ${new Date().toISOString().slice(11, 19)}] ${message}`);

// ---- the bench's own copy, an admin key --------------------------------------------------
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
copyFileSync(args.db!, db);
if (existsSync(`${args.db}-wal`)) copyFileSync(`${args.db}-wal`, `${db}-wal`);
const cli = (...argv: string[]) => {
  const run = Bun.spawnSync([bin, ...argv, "--db", db], { stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`${argv.join(" ")}: ${run.stderr.toString()}`);
  return JSON.parse(run.stdout.toString());
};
const account: string = cli("accounts", "create", "--name", "jobs-bench", "--tier", "enterprise", "--daily-quota", "1000000000", "--json").id;
const issued = cli("keys", "create", "--account", "jobs-bench", "--scope", "admin", "--rate-tier", "partner", "--burst", "1000000", "--json");
const auth = { authorization: `Bearer ${issued.key}` };

// Usage history past the 93 days kept, so prune-usage has rows to delete: USAGE_ROWS per-endpoint
// counters and one daily counter per day, ten years back.
const USAGE_ROWS = 200_000;
{
  const seed = new Database(db);
  const day = (n: number) => new Date(Date.now() - (100 + n) * 86_400_000).toISOString().slice(0, 10);
  const endpoint = seed.prepare("INSERT INTO usage_endpoints (key_id, day, endpoint, count) VALUES (?, ?, ?, 1)");
  const daily = seed.prepare("INSERT INTO usage_daily (account_id, day, count) VALUES (?, ?, 1)");
  seed.transaction(() => {
    for (let i = 0; i < USAGE_ROWS; i++) endpoint.run(issued.id, day(i % 3650), `GET /route-${Math.floor(i / 3650)}`);
    for (let i = 0; i < 3650; i++) daily.run(account, day(i));
  })();
  seed.close();
}

const checks = readFileSync(join(args.data!, "queries.txt"), "utf8").split("\n").filter(Boolean).slice(0, 20_000);
const directory = readFileSync(join(args.data!, "directory.txt"), "utf8")
  .split("\n")
  .filter(Boolean)
  .slice(0, 5_000)
  .map((line) => line.split("\t")[1] ?? "")
  .filter((q) => q.length >= 3);

// ---- the request stream ------------------------------------------------------------------
const KINDS = ["healthz", "check", "directory"] as const;
interface Sample {
  kind: (typeof KINDS)[number];
  start: number;
  end: number;
  ok: boolean;
}
const samples: Sample[] = [];
let streaming = true;
async function stream(lane: number) {
  for (let i = lane; streaming; i += CONNECTIONS) {
    const kind = i % 3;
    const url =
      kind === 0 ? `${base}/healthz` : kind === 1 ? `${base}${checks[i % checks.length]}` : `${base}/v1/public/directory?q=${encodeURIComponent(directory[i % directory.length]!)}`;
    // Keyless routes are limited per client address: each request claims its own.
    const headers = kind === 2 ? { "x-forwarded-for": `10.${lane}.${(i >> 8) & 255}.${i & 255}` } : auth;
    const start = performance.now();
    let ok = false;
    try {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      ok = res.status === 200;
    } catch {}
    samples.push({ kind: KINDS[kind]!, start, end: performance.now(), ok });
    // A steady stream, not a flood: the job gets the CPU the requests leave.
    await Bun.sleep(2);
  }
}

/** Requests in flight at any time during [from, to]: the worst wait, p99, and how many failed. */
function window(from: number, to: number) {
  const hit = samples.filter((s) => s.end >= from && s.start <= to);
  const waits = hit.map((s) => s.end - s.start).sort((a, b) => a - b);
  const at = (q: number) => (waits.length ? waits[Math.min(waits.length - 1, Math.floor(q * waits.length))]! : NaN);
  const worstOf = (kind: Sample["kind"]) => round(Math.max(...hit.filter((s) => s.kind === kind).map((s) => s.end - s.start)));
  return {
    requests: hit.length,
    failed: hit.filter((s) => !s.ok).length,
    worst_ms: round(waits.length ? waits[waits.length - 1]! : NaN),
    p99_ms: round(at(0.99)),
    p50_ms: round(at(0.5)),
    // A directory query may also wait for the index it needs (the first one after start waits
    // for the build); /healthz and the check only ever wait for the event loop.
    worst_by_kind: Object.fromEntries(KINDS.map((kind) => [kind, worstOf(kind)])),
  };
}
const round = (x: number) => Math.round(x * 10) / 10;

const healthy = (deadlineMs: number) => waitHealthy(base, deadlineMs);

// ---- 1. start and warm-ups ---------------------------------------------------------------
log(`serve ${db} on ${base}`);
const server = Bun.spawn([bin, "serve", "--db", db, "--port", String(port), "--host", "127.0.0.1", "--access-log", "off", "--trust-proxy"], {
  stdout: Bun.file(join(work, "serve.log")),
  stderr: Bun.file(join(work, "serve.err")),
});
const result: Record<string, unknown> = { due_entries: DUE, connections: CONNECTIONS };
try {
  const spawned = performance.now();
  await healthy(30_000);
  const answering = performance.now();
  for (let lane = 0; lane < CONNECTIONS; lane++) void stream(lane);
  const warmupMs = Number(args["warmup-s"]) * 1000;
  await Bun.sleep(warmupMs);
  result.startup = { first_answer_ms: Math.round(answering - spawned), window_s: warmupMs / 1000, ...window(answering, answering + warmupMs) };
  log(`start: ${JSON.stringify(result.startup)}`);
  const quietFrom = performance.now();
  await Bun.sleep(3_000);
  result.idle = window(quietFrom, performance.now());
  log(`idle: ${JSON.stringify(result.idle)}`);

  // ---- 2. each job now ---------------------------------------------------------------------
  const runs: unknown[] = [];
  const runJob = async (name: string, extra: Record<string, unknown> = {}) => {
    const from = performance.now();
    const res = await fetch(`${base}/v1/admin/jobs/${name}`, { method: "POST", headers: auth });
    const to = performance.now();
    const body: any = await res.json();
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${JSON.stringify(body)}`);
    await Bun.sleep(300); // requests still in flight when it finished
    const row = { job: name, worked: body.worked, duration_ms: body.duration_ms, ...window(from, to), ...extra };
    log(JSON.stringify(row));
    runs.push(row);
  };
  for (const name of ["public-stats", "suggestion-index-stats", "prune-usage", "prune-limiters", "trust-snapshots"]) await runJob(name);

  // ---- 3. expiry of `DUE` entries just after a minute boundary ----------------------------
  // A separate connection, like the CLI: the server notices the write and the check answers change.
  const lapseAt = Math.ceil((Date.now() + 5_000) / 60_000) * 60_000 + 2_000;
  const writer = new Database(db);
  writer.exec("PRAGMA busy_timeout = 5000");
  const made = writer
    .query(
      `UPDATE blacklist_entries SET expires_at = ?1 WHERE rowid IN (
         SELECT rowid FROM blacklist_entries WHERE status = 'active' AND issued_at < ?1 AND rowid % 17 = 0 LIMIT ?2)`,
    )
    .run(lapseAt, DUE).changes;
  writer.close();
  log(`${made} entries lapse at ${new Date(lapseAt).toISOString()}; waiting for it`);
  await Bun.sleep(Math.max(0, lapseAt + 500 - Date.now()));
  await runJob("expire-entries", { made_due: made });
  result.jobs = runs;
  result.loadavg = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
} finally {
  streaming = false;
  server.kill("SIGTERM");
  await server.exited;
  rmSync(work, { recursive: true, force: true });
}
console.log(JSON.stringify(result));
