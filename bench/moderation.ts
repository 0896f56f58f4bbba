#!/usr/bin/env bun
// Moderation at scale (docs/performance.md, "Moderation"). On two copies of the bench database,
// one as imported and one holding --cases open cases (one report each) and --audit audit events:
//   1. the keyed check (wrk, bench/check.lua over bench/data/queries.txt) in rounds alternating
//      between the two servers: requests/s and p99 of each, and their ratio (target: no slower);
//   2. the moderation queue, `GET /v1/moderation/cases?status=open&limit=50`, first pages and deep
//      ones reached through the cursor, timed one at a time from this process with an admin key:
//      alone, then while wrk sends the keyed check (target: p99 under 50 ms both ways).
// Prints one JSON object; bench/report.ts renders it.
// Usage: bun bench/moderation.ts --bin dist/trustlist --source bench/data/bench.db [--cases 10000]
//        [--audit 100000] [--rounds 4] [--round-s 8] [--pages 300] [--port 18120] [--work DIR]
import { Database } from "bun:sqlite";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { checkRound as sharedCheckRound, waitHealthy } from "./healthy";

const { values: args } = parseArgs({
  options: {
    bin: { type: "string", default: "dist/trustlist" },
    source: { type: "string", default: "bench/data/bench.db" },
    queries: { type: "string", default: "bench/data/queries.txt" },
    cases: { type: "string", default: "10000" },
    audit: { type: "string", default: "100000" },
    rounds: { type: "string", default: "4" },
    "round-s": { type: "string", default: "8" },
    pages: { type: "string", default: "300" },
    connections: { type: "string", default: "32" },
    port: { type: "string", default: "18120" },
    work: { type: "string" },
  },
});
const bin = resolve(args.bin!);
const CASES = Number(args.cases);
const AUDIT = Number(args.audit);
const ROUNDS = Number(args.rounds);
const ROUND_S = Number(args["round-s"]);
const PAGES = Number(args.pages);
const CONNECTIONS = Number(args.connections);
const work = resolve(args.work ?? join("bench", "data", "moderation-bench"));
const checkScript = resolve(import.meta.dir, "check.lua");
const log = (message: string) => console.error(`[moderation ${new Date().toISOString().slice(11, 19)}] ${message}`);
const round1 = (x: number) => Math.round(x * 10) / 10;
const percentile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN);

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

function cli(db: string, ...argv: string[]) {
  const run = Bun.spawnSync([bin, ...argv, "--db", db, "--json"], { stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`${argv.join(" ")}: ${run.stderr.toString()}`);
  return JSON.parse(run.stdout.toString());
}

/** A copy of the bench database, migrated, with an enterprise account and an admin key. */
function prepare(name: string): { db: string; key: string } {
  const db = join(work, `${name}.db`);
  copyFileSync(resolve(args.source!), db);
  cli(db, "migrate");
  cli(db, "accounts", "create", "--name", "bench-moderation", "--tier", "enterprise", "--daily-quota", "1000000000");
  const key = cli(db, "keys", "create", "--account", "bench-moderation", "--scope", "admin", "--burst", "1000000", "--rate-tier", "partner");
  return { db, key: key.secret ?? key.key };
}

/** --cases open cases, one report each, and --audit audit events, written as the service writes them. */
function seed(db: string): number {
  const started = performance.now();
  const sqlite = new Database(db);
  const entryIds = sqlite.query<{ id: string }, [number]>("SELECT id FROM blacklist_entries LIMIT ?").all(Math.min(AUDIT, 50_000)).map((r) => r.id);
  const now = Date.now();
  const pad = (n: number) => String(n).padStart(10, "0");
  sqlite.transaction(() => {
    const insertCase = sqlite.prepare(
      "INSERT INTO moderation_cases (id, status, subject_key, provider, provider_user_id, muted, created_at, updated_at) VALUES (?1, 'open', ?2, 'discord', ?3, 0, ?4, ?4)",
    );
    const insertReport = sqlite.prepare(
      "INSERT INTO moderation_reports (id, case_id, reason_code, description, evidence_urls, reporter_kind, reporter_id, filed_by, status, created_at) VALUES (?1, ?2, 'scam_trade', 'Took payment, never delivered.', '[]', 'member', ?3, 'acct_bench', 'open', ?4)",
    );
    for (let i = 0; i < CASES; i++) {
      const subject = String(7_000_000_000_000_000 + i);
      insertCase.run(`case_bench${pad(i)}`, `discord:${subject}`, subject, now - (CASES - i) * 1000);
      insertReport.run(`rpt_bench${pad(i)}`, `case_bench${pad(i)}`, `discord:${100_000 + (i % 2000)}`, now - (CASES - i) * 1000);
    }
    const insertAudit = sqlite.prepare(
      "INSERT INTO audit_events (id, at, actor_kind, actor_id, action, entry_id, case_id, subject, details) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    );
    for (let i = 0; i < AUDIT; i++) {
      const onCase = i % 4 === 0;
      insertAudit.run(
        `aud_bench${pad(i)}`,
        now - (AUDIT - i) * 100,
        onCase ? "staff" : "key",
        onCase ? `mod${i % 7}` : "key_bench",
        onCase ? "case.commented" : "entry.added",
        onCase ? null : (entryIds[i % entryIds.length] ?? null),
        onCase ? `case_bench${pad(i % CASES)}` : null,
        onCase ? `discord:${7_000_000_000_000_000 + (i % CASES)}` : null,
        '{"severity":"ban","reason_code":"scam_trade"}',
      );
    }
  })();
  sqlite.exec("ANALYZE");
  sqlite.close();
  return Math.round(performance.now() - started);
}

function serve(db: string, port: number) {
  const proc = Bun.spawn([bin, "serve", "--db", db, "--port", String(port), "--host", "127.0.0.1", "--access-log", "off"], { stdout: "ignore", stderr: "pipe" });
  return { proc, base: `http://127.0.0.1:${port}` };
}

/** One wrk round of keyed checks against `base`: requests/s and p99 ms. */
function checkRound(base: string, key: string, seconds: number) {
  return sharedCheckRound({ base, key, seconds, connections: CONNECTIONS, queries: resolve(args.queries!), script: checkScript });
}

/**
 * Walks the open queue page by page (50 a page) from the start, over and over, `PAGES` pages in
 * all, timing each request: p50, p99 and the worst, in ms.
 */
async function queueWalk(base: string, key: string) {
  const times: number[] = [];
  let cursor: string | null = null;
  let deepest = 0;
  let depth = 0;
  for (let i = 0; i < PAGES; i++) {
    const url = `${base}/v1/moderation/cases?status=open&limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const started = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const body = (await res.json()) as { data: unknown[]; next_cursor: string | null };
    times.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`queue page: ${res.status} ${JSON.stringify(body)}`);
    depth++;
    deepest = Math.max(deepest, depth);
    cursor = body.next_cursor;
    if (!cursor) depth = 0;
  }
  times.sort((a, b) => a - b);
  return { requests: times.length, deepest_page: deepest, p50_ms: round1(percentile(times, 0.5)), p99_ms: round1(percentile(times, 0.99)), max_ms: round1(times[times.length - 1]!) };
}

const port = Number(args.port);
log("copying the bench database twice");
const plain = prepare("plain");
const moderated = prepare("moderated");
log(`seeding ${CASES} open cases and ${AUDIT} audit events`);
const seedMs = seed(moderated.db);
const a = serve(plain.db, port);
const b = serve(moderated.db, port + 1);
try {
  await Promise.all([waitHealthy(a.base, 120_000), waitHealthy(b.base, 120_000)]);
  // Warm both (filters, caches), then alternate rounds so drift of the machine falls on both.
  await checkRound(a.base, plain.key, 3);
  await checkRound(b.base, moderated.key, 3);
  const rounds: Array<{ plain: { rps: number; p99ms: number }; moderated: { rps: number; p99ms: number } }> = [];
  for (let i = 0; i < ROUNDS; i++) {
    // ABBA: every other round starts with the moderated copy, so going second weighs on neither.
    const plainFirst = i % 2 === 0;
    const first = plainFirst ? await checkRound(a.base, plain.key, ROUND_S) : await checkRound(b.base, moderated.key, ROUND_S);
    const second = plainFirst ? await checkRound(b.base, moderated.key, ROUND_S) : await checkRound(a.base, plain.key, ROUND_S);
    const [plainRound, moderatedRound] = plainFirst ? [first, second] : [second, first];
    log(`round ${i + 1}: plain ${Math.round(plainRound.rps)}/s p99 ${plainRound.p99ms} ms, moderated ${Math.round(moderatedRound.rps)}/s p99 ${moderatedRound.p99ms} ms`);
    rounds.push({ plain: plainRound, moderated: moderatedRound });
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const plainRps = median(rounds.map((r) => r.plain.rps));
  const moderatedRps = median(rounds.map((r) => r.moderated.rps));
  const queueAlone = await queueWalk(b.base, moderated.key);
  log(`queue alone: p99 ${queueAlone.p99_ms} ms`);
  // The same walk while wrk sends checks to the same server.
  const wrkDone = checkRound(b.base, moderated.key, Math.max(ROUND_S, 20));
  await Bun.sleep(1000);
  const queueUnderChecks = await queueWalk(b.base, moderated.key);
  const checksMeanwhile = await wrkDone;
  log(`queue under checks: p99 ${queueUnderChecks.p99_ms} ms`);
  console.log(
    JSON.stringify({
      cases: CASES,
      audit_events: AUDIT,
      seed_ms: seedMs,
      connections: CONNECTIONS,
      rounds,
      check_rps_plain: Math.round(plainRps),
      check_rps_moderated: Math.round(moderatedRps),
      check_ratio: Math.round((moderatedRps / plainRps) * 1000) / 1000,
      check_p99_plain_ms: median(rounds.map((r) => r.plain.p99ms)),
      check_p99_moderated_ms: median(rounds.map((r) => r.moderated.p99ms)),
      queue_alone: queueAlone,
      queue_under_checks: { ...queueUnderChecks, checks_per_s: Math.round(checksMeanwhile.rps) },
      loadavg: loadavg().map((x) => x.toFixed(2)).join(" "),
    }),
  );
} finally {
  a.proc.kill();
  b.proc.kill();
  await Promise.all([a.proc.exited, b.proc.exited]);
  rmSync(work, { recursive: true, force: true });
}
