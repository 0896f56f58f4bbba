#!/usr/bin/env bun
// Federation at scale (docs/performance.md, "Federation"): a follower's first sync of a source
// holding the bench data set, both instances on this machine.
//   1. `trustlist import` of the data set into a fresh database, timed: it becomes the publisher;
//   2. the publisher's keyed-check throughput alone (wrk, bench/check.lua), for reference;
//   3. a fresh follower (SQLite, or PostgreSQL with --postgres URL) adds the publisher as a source
//      and syncs it to the end (the sync job's pages of 250 verified items), timed to its
//      last_synced_at; meanwhile a probe times one keyed check at a time on the follower (its
//      worst request latency, target under 100 ms), and wrk measures the publisher's keyed-check
//      throughput while it serves the feed (target at least 0.8 of idle);
//   4. the ratio of the sync's time to the import's (target at most 3x), and what signing and
//      verifying cost per item on this machine (both happen as pages are read and applied).
// Prints one JSON object; `follower_probe.over_50_ms` lists the probes over 50 ms by when they
// started (seconds into the sync), to be read beside the servers' logs (<work>/follower.log,
// <work>/publisher.log).
// Usage: bun bench/federation.ts [--bin dist/trustlist] [--dataset bench/data/dataset.jsonl]
//        [--entries N (the first N entries only; 0 = the whole file)] [--postgres URL] [--port 18130]
//        [--work DIR]
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { pageSignaturesValid } from "../src/modules/federation/crypto-threads";
import { canonicalJson, newKeyPair, pageSignedText, signText, verifyText } from "../src/modules/federation/signing";
import { checkRound as sharedCheckRound, waitHealthy } from "./healthy";

const { values: args } = parseArgs({
  options: {
    bin: { type: "string" },
    dataset: { type: "string", default: "bench/data/dataset.jsonl" },
    queries: { type: "string", default: "bench/data/queries.txt" },
    entries: { type: "string", default: "0" },
    postgres: { type: "string" },
    port: { type: "string", default: "18130" },
    "wrk-s": { type: "string", default: "8" },
    connections: { type: "string", default: "16" },
    work: { type: "string" },
  },
});
// The build (`make build`), or this checkout run by bun.
const command = args.bin ? [resolve(args.bin)] : [process.execPath, resolve(import.meta.dir, "..", "src", "main.ts")];
const ENTRIES = Number(args.entries);
const PORT = Number(args.port);
const WRK_S = Number(args["wrk-s"]);
const work = resolve(args.work ?? join("bench", "data", "federation-bench"));
const checkScript = resolve(import.meta.dir, "check.lua");
const log = (message: string) => console.error(`[federation ${new Date().toISOString().slice(11, 19)}] ${message}`);
const round1 = (x: number) => Math.round(x * 10) / 10;

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

function cli(db: string, ...argv: string[]) {
  const run = Bun.spawnSync([...command, ...argv, "--db", db, "--json"], { stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`${argv.join(" ")}: ${run.stderr.toString()}`);
  return JSON.parse(run.stdout.toString());
}

/** The data set, or its first N entries (without the creators they may name) in a file of their own. */
async function dataFile(): Promise<string> {
  if (ENTRIES === 0) return resolve(args.dataset!);
  const out: string[] = [];
  for await (const line of (await Bun.file(resolve(args.dataset!)).text()).split("\n")) {
    if (!line.includes('"type":"entry"')) continue;
    const entry = JSON.parse(line);
    delete entry.creator;
    out.push(JSON.stringify(entry));
    if (out.length >= ENTRIES) break;
  }
  const file = join(work, "entries.jsonl");
  writeFileSync(file, `${out.join("\n")}\n`);
  return file;
}

/** An enterprise account with a key of `scope` on `db`; answers the key. */
function account(db: string, name: string, scope: string, federation = false): string {
  cli(db, "accounts", "create", "--name", name, "--tier", "enterprise", "--daily-quota", "1000000000");
  if (federation) cli(db, "accounts", "update", name, "--federation", "on");
  const key = cli(db, "keys", "create", "--account", name, "--scope", scope, "--burst", "1000000", "--rate-tier", "partner");
  return key.secret ?? key.key;
}

/** Serves `db`; its log goes to `<work>/<name>.log`. */
function serve(name: string, db: string, port: number) {
  const proc = Bun.spawn([...command, "serve", "--db", db, "--port", String(port), "--host", "127.0.0.1", "--access-log", "off"], { stdout: "ignore", stderr: Bun.file(join(work, `${name}.log`)) });
  return { proc, base: `http://127.0.0.1:${port}` };
}

/** One wrk round of keyed checks against `base`: requests/s and p99 ms. */
async function checkRound(base: string, key: string, seconds: number) {
  const { rps, p99ms } = await sharedCheckRound({ base, key, seconds, connections: Number(args.connections), queries: resolve(args.queries!), script: checkScript });
  return { rps: Math.round(rps), p99_ms: round1(p99ms) };
}

/** Signing and verifying one feed item here, in microseconds. */
function cryptoCost() {
  const pair = newKeyPair();
  const item = {
    seq: 1,
    type: "added",
    at: "2026-11-20T10:00:00.000Z",
    origin: "inst_bench",
    entry: { id: "bl_01", provider: "discord", provider_user_id: "1234567890", username: "abc", severity: "ban", scope: "global", vertical: "all", reason_code: "scam_trade", summary: "Took payment for a map and never delivered.", issued_at: "2026-11-20T10:00:00.000Z", expires_at: null, appealable: true, high_risk: false, watchlist: false, supersedes: null },
    kid: "0123456789abcdef",
  };
  const n = 5000;
  let started = performance.now();
  let text = "";
  for (let i = 0; i < n; i++) text = canonicalJson({ ...item, seq: i });
  const canonical = ((performance.now() - started) * 1000) / n;
  started = performance.now();
  let sig = "";
  for (let i = 0; i < n; i++) sig = signText(pair.privateKey, text);
  const sign = ((performance.now() - started) * 1000) / n;
  started = performance.now();
  for (let i = 0; i < n; i++) verifyText(pair.publicKey, text, sig);
  const verify = ((performance.now() - started) * 1000) / n;
  // A follower's check of a page of 250 items (the sync's pages) from its JSON text, per item:
  // through the page's signature, and item by item as without one.
  const items = Array.from({ length: 250 }, (_, i) => {
    const unsigned = { ...item, seq: i };
    return { ...unsigned, sig: signText(pair.privateKey, canonicalJson(unsigned)) };
  });
  const texts = items.map(({ sig: _, ...rest }) => canonicalJson(rest));
  const pageSig = { kid: item.kid, sig: signText(pair.privateKey, pageSignedText(texts, items.map((i) => i.sig))) };
  const keys = new Map([[item.kid, pair.publicKey]]);
  const pageCheck = (page: string, rounds: number) => {
    for (let i = 0; i < rounds; i++) pageSignaturesValid(keys, page); // the same rounds first, to warm up
    const began = performance.now();
    for (let i = 0; i < rounds; i++) if (!pageSignaturesValid(keys, page).every(Boolean)) throw new Error("the bench page does not verify");
    return round1(((performance.now() - began) * 1000) / (rounds * items.length));
  };
  return {
    canonical_us: round1(canonical),
    sign_us: round1(sign),
    verify_us: round1(verify),
    page_check_by_page_sig_us: pageCheck(JSON.stringify({ items, page_sig: pageSig }), 40),
    page_check_item_by_item_us: pageCheck(JSON.stringify({ items }), 4),
  };
}

/** The source's sync state on the follower's database, read beside the server. */
function stateReader(db: string): () => Promise<{ last_synced_at: number | null; last_error: string | null }> {
  if (db.startsWith("postgres")) {
    const sql = new SQL(db, { max: 1 });
    return async () => {
      const [row] = await sql`SELECT last_synced_at, last_error FROM federation_sources WHERE name = 'publisher'`;
      return { last_synced_at: row?.last_synced_at === null || row === undefined ? null : Number(row.last_synced_at), last_error: row?.last_error ?? null };
    };
  }
  const sqlite = new Database(db, { readonly: true });
  return async () => sqlite.query<{ last_synced_at: number | null; last_error: string | null }, []>("SELECT last_synced_at, last_error FROM federation_sources WHERE name = 'publisher'").get() ?? { last_synced_at: null, last_error: null };
}

const started = Date.now();
const load = loadavg()[0]!;
log(`load average ${load.toFixed(2)} on this machine before the run`);
const data = await dataFile();

// 1. The import, which also makes the publisher's database.
const publisherDb = join(work, "publisher.db");
let t0 = performance.now();
const imported = Bun.spawnSync([...command, "import", data, "--db", publisherDb], { stdout: "pipe", stderr: "pipe" });
if (imported.exitCode !== 0) throw new Error(`import: ${imported.stderr.toString()}`);
const importS = (performance.now() - t0) / 1000;
log(`import: ${importS.toFixed(1)} s`);
const entries = new Database(publisherDb, { readonly: true }).query<{ n: number }, []>("SELECT count(*) AS n FROM blacklist_entries WHERE status = 'active'").get()!.n;
const feedKey = account(publisherDb, "bench-follower", "read", true);
const checkKey = account(publisherDb, "bench-checks", "read");

// 2. Both servers; the publisher's throughput alone.
const followerDb = args.postgres ?? join(work, "follower.db");
cli(followerDb, "migrate");
const followerAdmin = account(followerDb, "bench-admin", "admin");
const followerChecks = account(followerDb, "bench-checks", "read");
const publisher = serve("publisher", publisherDb, PORT);
const follower = serve("follower", followerDb, PORT + 1);
try {
  await waitHealthy(publisher.base, 60_000);
  await waitHealthy(follower.base, 60_000);
  const idle = await checkRound(publisher.base, checkKey, WRK_S);
  log(`publisher alone: ${idle.rps} checks/s, p99 ${idle.p99_ms} ms`);

  // 3. The first sync, with the follower probed and the publisher measured meanwhile.
  const added = await fetch(`${follower.base}/v1/admin/sources`, {
    method: "POST",
    headers: { authorization: `Bearer ${followerAdmin}`, "content-type": "application/json", origin: follower.base },
    body: JSON.stringify({ name: "publisher", url: publisher.base, key: feedKey, interval_s: 86_400 }),
  });
  if (added.status !== 201) throw new Error(`sources add: ${added.status} ${await added.text()}`);
  const queries = (await Bun.file(resolve(args.queries!)).text()).split("\n").filter(Boolean);
  const syncFrom = Date.now();
  const syncStartedAt = performance.now();
  log("first sync started");
  // Answered within 5 s, the sync going on; the probe starts meanwhile.
  const syncStarted = fetch(`${follower.base}/v1/admin/sources/publisher/sync`, { method: "POST", headers: { authorization: `Bearer ${followerAdmin}`, origin: follower.base } });
  const state = stateReader(followerDb);
  // The sync's end is the follower's own last_synced_at (its clock is this machine's).
  let ended = false;
  const finished = (async () => {
    let last = { last_synced_at: null as number | null, last_error: null as string | null };
    while (last.last_synced_at === null && last.last_error === null) {
      await Bun.sleep(200);
      last = await state();
    }
    ended = true;
    return last;
  })();
  // The probe times one keyed check at a time on the follower for the whole sync, except while
  // wrk runs against the publisher (wrk takes the cores the probe would measure).
  let probing = true;
  let worstMs = 0;
  const probeTimes: number[] = [];
  // Probes over 50 ms, by when they started (seconds into the sync): to match against the follower's log.
  const slowProbes: Array<{ at_s: number; ms: number }> = [];
  const probe = (async () => {
    for (let i = 0; !ended; i++) {
      if (!probing) {
        await Bun.sleep(50);
        continue;
      }
      const at = performance.now();
      const res = await fetch(`${follower.base}${queries[i % queries.length]}`, { headers: { authorization: `Bearer ${followerChecks}` } });
      await res.arrayBuffer();
      const ms = performance.now() - at;
      if (probing) {
        probeTimes.push(ms);
        worstMs = Math.max(worstMs, ms);
        if (ms > 50) slowProbes.push({ at_s: round1((at - syncStartedAt) / 1000), ms: round1(ms) });
      }
      await Bun.sleep(10);
    }
  })();
  await Promise.race([Bun.sleep(WRK_S * 1000), finished]);
  probing = false;
  const during = await checkRound(publisher.base, checkKey, WRK_S);
  const outlasted = !ended;
  probing = true;
  log(`publisher while serving the feed: ${during.rps} checks/s, p99 ${during.p99_ms} ms${outlasted ? "" : " (the sync ended before the round did)"}`);
  const last = await finished;
  await probe;
  const answer = await syncStarted;
  if (answer.status !== 200) throw new Error(`sync: ${answer.status} ${await answer.text()}`);
  const syncS = ((last.last_synced_at ?? Date.now()) - syncFrom) / 1000;
  if (last.last_error) throw new Error(`the sync stopped: ${last.last_error}`);
  probeTimes.sort((a, b) => a - b);
  log(`first sync: ${syncS.toFixed(1)} s for ${entries} entries (${(syncS / importS).toFixed(2)}x the import)`);

  // 4. The publisher's own cost of serving the feed: a bare reader pulls pages of 500 from the
  // start as fast as the publisher answers them (reading the bytes, verifying and applying
  // nothing), while wrk measures its checks. Step 3's figure also carries the follower's CPU,
  // which on this one machine competes with the publisher for the same two cores.
  let reading = true;
  let pagesRead = 0;
  const reader = (async () => {
    let cursor: string | null = null;
    while (reading) {
      const query = new URLSearchParams({ limit: "500" });
      if (cursor) query.set("cursor", cursor);
      const res = await fetch(`${publisher.base}/v1/federation/changes?${query}`, { headers: { authorization: `Bearer ${feedKey}` } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`feed: ${res.status} ${text}`);
      pagesRead++;
      // The cursor is the page's last field: found without parsing the page.
      const page = /"next_cursor":"([^"]+)","has_more":(true|false)\}$/.exec(text);
      cursor = page && page[2] === "true" ? page[1]! : null;
    }
  })();
  const bare = await checkRound(publisher.base, checkKey, WRK_S);
  reading = false;
  await reader;
  log(`publisher while a bare reader pulls the feed: ${bare.rps} checks/s, p99 ${bare.p99_ms} ms (${pagesRead} pages of 500 served)`);

  // 5. What a signature and a verification cost here.
  const crypto = cryptoCost();
  console.log(
    JSON.stringify({
      bench: "federation",
      started_at: new Date(started).toISOString(),
      load_average_before: round1(load),
      follower_database: args.postgres ? "postgres" : "sqlite",
      entries,
      import_s: round1(importS),
      first_sync_s: round1(syncS),
      sync_to_import: round1(syncS / importS),
      follower_probe: { requests: probeTimes.length, p99_ms: round1(probeTimes[Math.floor(probeTimes.length * 0.99)] ?? NaN), worst_ms: round1(worstMs), over_50_ms: slowProbes },
      publisher_checks: {
        idle,
        while_serving: during,
        ratio: Math.round((during.rps / idle.rps) * 100) / 100,
        sync_outlasted_the_round: outlasted,
        while_serving_a_bare_reader: { ...bare, pages_of_500: pagesRead },
        bare_reader_ratio: Math.round((bare.rps / idle.rps) * 100) / 100,
      },
      per_item: crypto,
      signing: "at read, on the publisher's low-priority signing threads (Ed25519 is deterministic, nothing is stored); verified on the follower's low-priority threads, two pages ahead of the one applied",
    }),
  );
} finally {
  publisher.proc.kill("SIGTERM");
  follower.proc.kill("SIGTERM");
  await Promise.all([publisher.proc.exited, follower.proc.exited]);
}
