#!/usr/bin/env bun
// The check's SQL alone: trustlist's subject query over the benchmark's query list, hits and misses
// timed separately, under a few connection settings. The table plus the subject index are ~200 MiB
// on 1M entries, more than trustlist's 64 MiB page cache, so page reads matter.
//
// Usage: bun bench/sqlite-micro.ts [--db bench/data/bench.db] [--queries bench/data/queries.txt]
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { db: { type: "string", default: "bench/data/bench.db" }, queries: { type: "string", default: "bench/data/queries.txt" } },
  strict: true,
});
const SQL = `SELECT id, severity, scope, vertical, reason_code, summary, issued_at, appealable, high_risk, watchlist
  FROM blacklist_entries
  WHERE provider = ?1 AND provider_user_id = ?2 AND status = 'active' AND (expires_at IS NULL OR expires_at > ?3)`;

// The generator writes hit, miss, hit, miss, ...; ids as stored (normalisation is not timed here).
const lines = readFileSync(values.queries!, "utf8").split("\n").filter(Boolean);
const parsed = lines.map((line, i) => {
  const q = new URLSearchParams(line.slice(line.indexOf("?") + 1));
  const provider = q.get("provider")!;
  let id = q.get("id")!.trim();
  if (provider === "minecraft") id = id.toLowerCase().replaceAll("-", "");
  if (provider === "epic") id = id.toLowerCase();
  return { provider, id, hit: i % 2 === 0 };
});
const hits = parsed.filter((p) => p.hit);
const misses = parsed.filter((p) => !p.hit);

const configs: Array<[string, string[]]> = [
  ["trustlist's pragmas (cache_size 64 MiB, no mmap)", ["PRAGMA cache_size = -65536"]],
  ["+ mmap_size 1 GiB", ["PRAGMA cache_size = -65536", "PRAGMA mmap_size = 1073741824"]],
  ["cache_size 512 MiB, no mmap", ["PRAGMA cache_size = -524288"]],
  ["default cache (2 MiB), no mmap", []],
];

function time(stmt: any, list: typeof parsed, now: number) {
  let rows = 0;
  const t0 = performance.now();
  for (const p of list) rows += stmt.all(p.provider, p.id, now).length;
  return { us: ((performance.now() - t0) * 1000) / list.length, rows };
}

console.log(`${parsed.length} queries (${hits.length} hits, ${misses.length} misses); µs per query, after one warm-up pass over all of them`);
for (const [name, pragmas] of configs) {
  const db = new Database(values.db!, { readonly: true });
  for (const p of pragmas) db.exec(p);
  const stmt = db.prepare(SQL);
  const now = Date.now();
  time(stmt, parsed, now); // warm-up: fills the page cache / maps pages
  const h = time(stmt, hits, now);
  const m = time(stmt, misses, now);
  const h2 = time(stmt, hits, now);
  const m2 = time(stmt, misses, now);
  console.log(
    `${name.padEnd(52)} hits ${Math.min(h.us, h2.us).toFixed(2).padStart(6)} µs (${(h.rows / hits.length).toFixed(2)} rows)   misses ${Math.min(m.us, m2.us).toFixed(2).padStart(6)} µs`,
  );
  db.close();
}
